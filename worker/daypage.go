package worker

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/shopfloor"
	"github.com/printworker/printworker/storage"
)

// The per-day staff page (docs/shop-floor.md, "Day page"): an index.html in the folder
// the order folders of one day sit in ({store}/{date} by default), listing every
// order of that day whose manifest is stored.
//
// A completion never waits for the page. It records its order's summary in the day's
// pending hash in Redis, raises the day's generation in the same transaction, and
// enqueues the day's build task (daypage:build) to run after a short debounce; every
// completion of the debounce shares that one build. The day's summaries live in
// storage beside the page (index.json in the day folder), not in Redis: the build
// reads index.json, adds the pending summaries, writes index.json and the page, then
// removes from the pending hash the summaries it wrote (each only if no newer one
// replaced it meanwhile), and ends its round:
//
//  1. it reads the generation G, then index.json and the pending summaries: every
//     completion counted in G wrote its summary before G was read, so the page
//     lists it;
//  2. it writes index.json and the page, then in one script raises "done" to G, ends
//     the round (round+1: the next completion enqueues a task of a new id) and returns
//     the generation now; if that moved past G, completions landed while it ran, and
//     it enqueues the next round's build itself.
//
// A completion enqueues the round it read with its summary. If that task id is
// taken, the task either has not read the generation yet (pending, scheduled,
// retrying) or is running and will see the counter moved at its end (active): the
// order is covered either way. A task that will not run again (archived, or
// finished, when the day's Redis state expired and a round number came round again)
// ends the round by hand and the completion enqueues the next one. No completion is
// ever left out, and the rounds never wait on each other (a day's builds run one
// after the other, so index.json is never written by two at once).
//
// A day without index.json (a new day, or one of a version that kept the summaries in
// Redis) is built once from a listing of the day folder, reading the manifests
// (and the former Redis hash of summaries, which is then deleted).

const (
	// dayStateTTL keeps a day's summaries and counters in Redis after its last
	// completion; a late re-export lists the day folder again.
	dayStateTTL = 35 * 24 * time.Hour
	// DefaultDayPageDelay is the debounce of a day's page build
	// (ShopFloor.DayPageDelay).
	DefaultDayPageDelay = 2 * time.Second
	// dayIndexName is the day's summaries, in storage beside its page.
	dayIndexName = "index.json"
	// maxDayIndexBytes bounds what a build reads of index.json: 100,000 orders of
	// about 700 bytes each, with room.
	maxDayIndexBytes = 256 << 20
)

// dayIndex is index.json: the summary of every order of the day folder, by the key of
// its manifest.
type dayIndex struct {
	Version int                           `json:"version"`
	Orders  map[string]shopfloor.DayOrder `json:"orders"`
}

// lister is the optional part of a Storage that lists a folder (both backends); a
// storage that cannot list gets no day page.
type lister interface {
	List(ctx context.Context, prefix string) ([]storage.Info, error)
}

// presigner is the optional part of a Storage that says whether its links are
// presigned (*storage.S3 without a public URL): pages in such a bucket carry presigned
// links, since a relative link would reach a private bucket without a signature.
type presigner interface {
	Presigns() bool
}

// summarize is what the day page shows of the manifest's order.
func summarize(m *Manifest, manifestKey string) shopfloor.DayOrder {
	s := shopfloor.DayOrder{Manifest: manifestKey, OrderID: m.OrderID, Revision: m.Revision, OrderStatus: m.OrderStatus,
		Created: m.OrderCreated, GeneratedAt: m.GeneratedAt, Rush: IsRush(m.OrderStatus), Files: len(m.Files),
		Page: m.StaffPage, Ticket: m.Ticket}
	for _, li := range m.LineItems {
		s.Quantity += li.Quantity
	}
	for _, f := range m.Files {
		switch {
		case f.Thumbnail == "" || f.Bucket != "":
			// No preview, or one in another bucket a page link cannot reach.
			s.NoPreview++
		case len(s.Thumbs) < shopfloor.MaxDayThumbs:
			s.Thumbs = append(s.Thumbs, f.Thumbnail)
		}
	}
	for _, wr := range m.Warnings {
		s.Warnings = append(s.Warnings, path.Base(wr.Key)+": "+wr.Code+": "+wr.Message)
	}
	return s
}

// dayKey is a Redis key of the day folder's state: "pending" (manifest key ->
// summary, of completions no build has written to index.json yet), "state" (gen,
// done, round), and "orders", the summaries a former version kept. The folder is a hash tag: the summary and
// counter are updated in one MULTI, which a Redis Cluster allows only within one
// slot.
func (w *Worker) dayKey(folder, what string) string {
	return w.cfg.KeyPrefix + ":daypage:{" + folder + "}:" + what
}

// dayPageDelay is the debounce of a day's build: 0 the default, negative none.
func (w *Worker) dayPageDelay() time.Duration {
	switch d := w.cfg.ShopFloor.DayPageDelay; {
	case d == 0:
		return DefaultDayPageDelay
	case d < 0:
		return 0
	default:
		return d
	}
}

// dayFinishScript ends a build's round. KEYS: the day's state. ARGV: the generation
// the build read, ttl ms. Raises done to it, starts the next round and returns {the
// generation now, the new round}.
var dayFinishScript = redis.NewScript(`
local done = tonumber(redis.call('HGET', KEYS[1], 'done') or '0')
if tonumber(ARGV[1]) > done then redis.call('HSET', KEYS[1], 'done', ARGV[1]) end
local round = redis.call('HINCRBY', KEYS[1], 'round', 1)
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {tonumber(redis.call('HGET', KEYS[1], 'gen') or '0'), round}
`)

// dayNextRoundScript ends round ARGV[1] when it is still the current one (its task
// will not run again) and returns the current round. KEYS: the day's state. ARGV:
// round, ttl ms.
var dayNextRoundScript = redis.NewScript(`
local cur = tonumber(redis.call('HGET', KEYS[1], 'round') or '0')
if cur == tonumber(ARGV[1]) then
  cur = redis.call('HINCRBY', KEYS[1], 'round', 1)
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return cur
`)

// noteDayPage records the completed order in its day and enqueues the day's page
// build; it does not wait for the page. The manifest at manifestKey is stored.
func (w *Worker) noteDayPage(ctx context.Context, m *Manifest, manifestKey string, date time.Time) error {
	if w.cfg.ShopFloor.NoStaffPages {
		return nil
	}
	if _, ok := w.deps.Storage.(lister); !ok {
		return nil
	}
	folder, ok, err := w.cfg.Layout.DayFolder(m.KeyVars(date))
	if err != nil || !ok {
		return err // a layout without a day folder: no day page
	}
	sum, err := json.Marshal(summarize(m, manifestKey))
	if err != nil {
		return err
	}
	pendingKey, stateKey := w.dayKey(folder, "pending"), w.dayKey(folder, "state")
	var round *redis.StringCmd
	if _, err := w.deps.Redis.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, pendingKey, manifestKey, sum)
		p.PExpire(ctx, pendingKey, dayStateTTL)
		p.HIncrBy(ctx, stateKey, "gen", 1)
		p.PExpire(ctx, stateKey, dayStateTTL)
		round = p.HGet(ctx, stateKey, "round")
		return nil
	}); err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("day page of %s: %w", folder, err)
	}
	n, _ := strconv.ParseInt(round.Val(), 10, 64)
	return w.enqueueDayPage(ctx, folder, n)
}

// enqueueDayPage makes sure a build of folder that has not read the day's generation
// yet, or will look at it again when it ends, exists: round n's task, or the next
// round's when n's will not run again.
func (w *Worker) enqueueDayPage(ctx context.Context, folder string, n int64) error {
	for range 10 {
		q, err := w.enq.DayPage(ctx, folder, n, w.dayPageDelay())
		if err != nil {
			return fmt.Errorf("day page of %s: %w", folder, err)
		}
		if !q.Duplicate {
			return nil
		}
		st, err := w.enq.TaskState(jobs.QueuePages, q.TaskID)
		switch {
		case errors.Is(err, asynq.ErrTaskNotFound):
			continue // gone since the enqueue: enqueue again
		case err != nil:
			return fmt.Errorf("day page of %s: %w", folder, err)
		case st == asynq.TaskStateArchived || st == asynq.TaskStateCompleted:
			if n, err = dayNextRoundScript.Run(ctx, w.deps.Redis, []string{w.dayKey(folder, "state")}, n, dayStateTTL.Milliseconds()).Int64(); err != nil {
				return fmt.Errorf("day page of %s: %w", folder, err)
			}
		default:
			// Pending, scheduled or retrying: it reads the generation later; active: it
			// sees the generation moved when it ends and enqueues the next round.
			return nil
		}
	}
	return fmt.Errorf("day page of %s: round kept changing", folder)
}

// handleDayPage builds the page of one day folder (see the top of this file).
func (w *Worker) handleDayPage(ctx context.Context, t *asynq.Task) error {
	p, err := jobs.Decode[jobs.DayPage](t.Payload())
	if err != nil {
		return err
	}
	folder, rdb := p.Folder, w.deps.Redis
	stateKey := w.dayKey(folder, "state")
	st, err := rdb.HMGet(ctx, stateKey, "gen", "done").Result()
	if err != nil {
		return fmt.Errorf("day page of %s: %w", folder, err)
	}
	gen, done := redisInt(st[0]), redisInt(st[1])
	if gen > 0 && done >= gen {
		markSkipped(ctx, "day page up to date")
	} else if err := w.writeDayPage(ctx, folder); err != nil {
		return err
	}
	res, err := dayFinishScript.Run(ctx, rdb, []string{stateKey}, gen, dayStateTTL.Milliseconds()).Int64Slice()
	if err != nil || len(res) != 2 {
		return fmt.Errorf("day page of %s: finish: %w", folder, err)
	}
	if res[0] > gen {
		// Completions landed while this build ran: the next round lists them.
		return w.enqueueDayPage(ctx, folder, res[1])
	}
	return nil
}

// redisInt reads an HMGET value (nil when absent) as a number.
func redisInt(v any) int64 {
	s, _ := v.(string)
	n, _ := strconv.ParseInt(s, 10, 64)
	return n
}

// writeDayPage builds the page of folder from the day's summaries (index.json and
// the pending ones), stores index.json and the page, then lets go of the pending
// summaries it wrote.
func (w *Worker) writeDayPage(ctx context.Context, folder string) error {
	idx, pending, err := w.dayOrders(ctx, folder)
	if err != nil {
		return err
	}
	if w.hooks.dayRead != nil {
		w.hooks.dayRead()
	}
	now := time.Now
	if w.hooks.clock != nil {
		now = w.hooks.clock
	}
	orders := make([]shopfloor.DayOrder, 0, len(idx.Orders))
	for _, o := range idx.Orders {
		orders = append(orders, o)
	}
	slices.SortFunc(orders, func(a, b shopfloor.DayOrder) int {
		return cmp.Or(cmp.Compare(a.Created, b.Created), cmp.Compare(a.OrderID, b.OrderID), cmp.Compare(a.Manifest, b.Manifest))
	})
	body, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	// index.json first: a page is never ahead of the summaries it was built from.
	if err := w.putShopFloor(ctx, folder+"/"+dayIndexName, "application/json", body); err != nil {
		return err
	}
	page, err := shopfloor.DayPage(folder, now(), orders, w.pageLinker(ctx, folder))
	if err != nil {
		return err
	}
	if err := w.putShopFloor(ctx, folder+"/"+shopfloor.StaffPageName, "text/html; charset=utf-8", page); err != nil {
		return err
	}
	return w.forgetPending(ctx, folder, pending)
}

// dayForgetScript deletes the pending summaries a build wrote, each only if it is
// still the one the build read (a completion may have replaced it since), and the
// former version's hash of summaries. KEYS: pending, the former hash. ARGV: field,
// value pairs.
var dayForgetScript = redis.NewScript(`
for i = 1, #ARGV, 2 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i+1] then redis.call('HDEL', KEYS[1], ARGV[i]) end
end
redis.call('DEL', KEYS[2])
return 1
`)

// forgetPending removes from Redis the pending summaries now in index.json.
func (w *Worker) forgetPending(ctx context.Context, folder string, pending map[string]string) error {
	args := make([]any, 0, 2*len(pending))
	for k, v := range pending {
		args = append(args, k, v)
	}
	keys := []string{w.dayKey(folder, "pending"), w.dayKey(folder, "orders")}
	if err := dayForgetScript.Run(ctx, w.deps.Redis, keys, args...).Err(); err != nil {
		return fmt.Errorf("day page of %s: %w", folder, err)
	}
	return nil
}

// dayOrders are the day folder's summaries: index.json with the pending ones added
// (returned too, for forgetPending), or, for a day without index.json, a listing of
// the folder.
func (w *Worker) dayOrders(ctx context.Context, folder string) (dayIndex, map[string]string, error) {
	pending, err := w.deps.Redis.HGetAll(ctx, w.dayKey(folder, "pending")).Result()
	if err != nil {
		return dayIndex{}, nil, fmt.Errorf("day page of %s: %w", folder, err)
	}
	idx, ok, err := w.readDayIndex(ctx, folder)
	if err != nil {
		return dayIndex{}, nil, err
	}
	if !ok {
		if idx, err = w.listDayOrders(ctx, folder, pending); err != nil {
			return dayIndex{}, nil, err
		}
	}
	for key, raw := range pending {
		var s shopfloor.DayOrder
		if json.Unmarshal([]byte(raw), &s) == nil {
			idx.Orders[key] = s
		} else {
			w.log.WarnContext(ctx, "day page leaves out an unreadable summary", "key", key)
		}
	}
	return idx, pending, nil
}

// readDayIndex reads the day's index.json; ok is false when there is none (or the
// storage cannot read). An unreadable one counts as none: the folder is listed again.
func (w *Worker) readDayIndex(ctx context.Context, folder string) (dayIndex, bool, error) {
	r, ok := w.deps.Storage.(objectReader)
	if !ok {
		return dayIndex{}, false, nil
	}
	key := folder + "/" + dayIndexName
	rc, _, err := r.Get(ctx, key)
	if errors.Is(err, storage.ErrNotFound) {
		return dayIndex{}, false, nil
	}
	if err != nil {
		return dayIndex{}, false, fmt.Errorf("day page: read %s: %w", key, err)
	}
	defer rc.Close()
	var idx dayIndex
	if err := json.NewDecoder(io.LimitReader(rc, maxDayIndexBytes)).Decode(&idx); err != nil || idx.Version != 1 {
		w.log.WarnContext(ctx, "day page lists the day again: unreadable index", "key", key)
		return dayIndex{}, false, nil
	}
	if idx.Orders == nil {
		idx.Orders = map[string]shopfloor.DayOrder{}
	}
	return idx, true, nil
}

// listDayOrders lists the day folder's manifests and returns the summaries of those
// pending has none of, from the former version's Redis hash where it has them, else
// read from the manifests (one read each).
func (w *Worker) listDayOrders(ctx context.Context, folder string, pending map[string]string) (dayIndex, error) {
	idx := dayIndex{Version: 1, Orders: map[string]shopfloor.DayOrder{}}
	l, ok := w.deps.Storage.(lister)
	if !ok {
		return idx, nil
	}
	former, err := w.deps.Redis.HGetAll(ctx, w.dayKey(folder, "orders")).Result()
	if err != nil {
		return idx, fmt.Errorf("day page of %s: %w", folder, err)
	}
	objs, err := l.List(ctx, folder+"/")
	if err != nil {
		return idx, fmt.Errorf("day page of %s: list: %w", folder, err)
	}
	read := 0
	for _, o := range objs {
		// An order's manifest sits in a folder below the day's (the layout's order
		// folder); anything else in the day folder is not an order.
		if path.Base(o.Key) != storage.ManifestName || path.Dir(o.Key) == folder {
			continue
		}
		if _, ok := pending[o.Key]; ok {
			continue
		}
		var s shopfloor.DayOrder
		if raw, ok := former[o.Key]; ok && json.Unmarshal([]byte(raw), &s) == nil {
			idx.Orders[o.Key] = s
			continue
		}
		s, ok, err := w.readSummary(ctx, o.Key)
		if err != nil {
			return idx, err
		}
		if ok {
			idx.Orders[o.Key] = s
			read++
		}
	}
	w.log.InfoContext(ctx, "day page seeded from a listing", "folder", folder, "manifests_read", read)
	return idx, nil
}

// readSummary reads a manifest Redis has no summary of (a day older than dayStateTTL,
// a flushed Redis). ok is false for an object that is not a readable manifest: it is
// left out of the page rather than failing every completion of the day.
func (w *Worker) readSummary(ctx context.Context, key string) (shopfloor.DayOrder, bool, error) {
	r, ok := w.deps.Storage.(objectReader)
	if !ok {
		return shopfloor.DayOrder{}, false, nil
	}
	rc, _, err := r.Get(ctx, key)
	if errors.Is(err, storage.ErrNotFound) {
		return shopfloor.DayOrder{}, false, nil // deleted since the listing
	}
	if err != nil {
		return shopfloor.DayOrder{}, false, fmt.Errorf("day page: read %s: %w", key, err)
	}
	defer rc.Close()
	var m Manifest
	if err := json.NewDecoder(io.LimitReader(rc, maxManifestBytes)).Decode(&m); err != nil || m.OrderID == "" {
		w.log.WarnContext(ctx, "day page leaves out an unreadable manifest", "key", key)
		return shopfloor.DayOrder{}, false, nil
	}
	return summarize(&m, key), true, nil
}

// pageLinker returns how a page in folder dir links to a key of the default storage:
// a relative, escaped path (hot folder, public bucket website), or a presigned URL
// when the bucket is private.
func (w *Worker) pageLinker(ctx context.Context, dir string) shopfloor.Linker {
	if p, ok := w.deps.Storage.(presigner); ok && p.Presigns() {
		return func(key string) (any, error) {
			if key == "" {
				return "", nil
			}
			return w.link(ctx, "", key)
		}
	}
	return shopfloor.RelLinker(dir)
}
