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
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/shopfloor"
	"github.com/printworker/printworker/storage"
)

// The per-day staff page (docs/shop-floor.md, "Day page"): an index.html in the folder
// the order folders of one day sit in ({store}/{date} by default), listing every
// order of that day whose manifest is stored.
//
// Many workers complete orders of one day at once, and a page rewritten from what one
// completion knows would drop what another wrote meanwhile. So the page is always
// rebuilt from a listing of the day's manifests, by one worker at a time, and a
// completion returns only once a rebuild that started after its manifest was written
// has finished:
//
//  1. the completion records its order's summary (a Redis hash of the day), then takes
//     a ticket: INCR of the day's generation counter, after its manifest is stored;
//  2. it returns as soon as the day's "done" generation reaches its ticket;
//  3. otherwise it tries the day's lock (SET NX, with an expiry, so a crashed holder
//     cannot block the day); the holder reads the generation G, lists the manifests,
//     writes the page and raises "done" to G; the others poll and usually find their
//     ticket covered by the holder's rebuild, so a burst of N completions costs a few
//     rebuilds, not N.
//
// Every order whose ticket is <= G wrote its manifest before G was read, so the
// listing that follows sees it: no completion is ever left out. A completion that
// cannot see its ticket covered before its task's deadline fails and is retried.

const (
	// dayLockTTL bounds how long a crashed holder blocks a day's page (its waiting
	// completions hold task slots meanwhile); a live holder renews the lock every
	// dayLockTTL/3 while it rebuilds, however long the listing takes.
	dayLockTTL = 15 * time.Second
	// dayStateTTL keeps a day's counters and summaries in Redis after its last
	// completion; a late re-export re-reads the manifests Redis has forgotten.
	dayStateTTL = 35 * 24 * time.Hour
	// dayPoll bounds the wait between two looks at a day's state while another
	// worker rebuilds its page.
	dayPollMin, dayPollMax = 20 * time.Millisecond, 250 * time.Millisecond
)

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

// dayKey is a Redis key of the day folder's state. The folder is a hash tag: the
// summary and counter are updated in one MULTI, which a Redis Cluster allows only
// within one slot.
func (w *Worker) dayKey(folder, what string) string {
	return w.cfg.KeyPrefix + ":daypage:{" + folder + "}:" + what
}

// raiseDoneScript sets the day's done generation to ARGV[1] if that is higher.
var raiseDoneScript = redis.NewScript(`
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > cur then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
return 1
`)

// updateDayPage records the completed order in its day and returns once the day's
// page lists it. The manifest at manifestKey is already stored.
func (w *Worker) updateDayPage(ctx context.Context, m *Manifest, manifestKey string, date time.Time) error {
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
	rdb := w.deps.Redis
	ordersKey, genKey := w.dayKey(folder, "orders"), w.dayKey(folder, "gen")
	var gen *redis.IntCmd
	if _, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, ordersKey, manifestKey, sum)
		p.Expire(ctx, ordersKey, dayStateTTL)
		gen = p.Incr(ctx, genKey)
		p.Expire(ctx, genKey, dayStateTTL)
		return nil
	}); err != nil {
		return fmt.Errorf("day page of %s: %w", folder, err)
	}
	return w.awaitDayPage(ctx, folder, gen.Val())
}

// awaitDayPage waits until the day's done generation reaches ticket, rebuilding the
// page itself whenever the day's lock is free.
func (w *Worker) awaitDayPage(ctx context.Context, folder string, ticket int64) error {
	rdb := w.deps.Redis
	doneKey, lockKey := w.dayKey(folder, "done"), w.dayKey(folder, "lock")
	wait := dayPollMin
	for {
		done, err := rdb.Get(ctx, doneKey).Int64()
		if err != nil && !errors.Is(err, redis.Nil) {
			return fmt.Errorf("day page of %s: %w", folder, err)
		}
		if done >= ticket {
			return nil
		}
		lease, err := jobs.TakeLease(ctx, rdb, lockKey, dayLockTTL)
		if err != nil {
			return fmt.Errorf("day page of %s: %w", folder, err)
		}
		if lease != nil {
			// Renewed while the day is listed and written, released after (also when
			// the attempt is cancelled: the day is not held for the lock's expiry).
			if err := lease.Hold(ctx, func(ctx context.Context) error { return w.rebuildDayPage(ctx, folder, lease) }); err != nil {
				return err
			}
			continue
		}
		if w.hooks.dayWaiting != nil {
			w.hooks.dayWaiting()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("day page of %s: waiting for another worker's rebuild: %w", folder, ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, dayPollMax)
	}
}

// rebuildDayPage lists the day's manifests and writes its page; the caller holds the
// day's lock.
func (w *Worker) rebuildDayPage(ctx context.Context, folder string, lock *jobs.Lease) error {
	rdb := w.deps.Redis
	ordersKey, genKey := w.dayKey(folder, "orders"), w.dayKey(folder, "gen")
	// The generation is read before the listing: every completion counted in it has
	// its manifest stored, so the listing sees it.
	gen, err := rdb.Get(ctx, genKey).Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("day page of %s: %w", folder, err)
	}
	objs, err := w.deps.Storage.(lister).List(ctx, folder+"/")
	if err != nil {
		return fmt.Errorf("day page of %s: list: %w", folder, err)
	}
	if w.hooks.dayListed != nil {
		w.hooks.dayListed()
	}
	cached, err := rdb.HGetAll(ctx, ordersKey).Result()
	if err != nil {
		return fmt.Errorf("day page of %s: %w", folder, err)
	}
	var orders []shopfloor.DayOrder
	for _, o := range objs {
		// An order's manifest sits in a folder below the day's (the layout's order
		// folder); anything else in the day folder is not an order.
		if path.Base(o.Key) != storage.ManifestName || path.Dir(o.Key) == folder {
			continue
		}
		var s shopfloor.DayOrder
		if raw, ok := cached[o.Key]; ok && json.Unmarshal([]byte(raw), &s) == nil {
			orders = append(orders, s)
			continue
		}
		s, ok, err := w.readSummary(ctx, o.Key)
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		if b, err := json.Marshal(s); err == nil {
			rdb.HSet(ctx, ordersKey, o.Key, b)
		}
		orders = append(orders, s)
	}
	slices.SortFunc(orders, func(a, b shopfloor.DayOrder) int {
		return cmp.Or(cmp.Compare(a.Created, b.Created), cmp.Compare(a.OrderID, b.OrderID), cmp.Compare(a.Manifest, b.Manifest))
	})
	page, err := shopfloor.DayPage(folder, time.Now(), orders, w.pageLinker(ctx, folder))
	if err != nil {
		return err
	}
	mine, err := lock.Renew(ctx)
	if err != nil {
		return fmt.Errorf("day page of %s: %w", folder, err)
	}
	if !mine {
		// The lock expired (renewals failed: Redis unreachable for a while) and another
		// worker may hold it: its newer page must not be overwritten by this one.
		return fmt.Errorf("day page of %s: lock lost during the rebuild", folder)
	}
	if err := w.putShopFloor(ctx, folder+"/"+shopfloor.StaffPageName, "text/html; charset=utf-8", page); err != nil {
		return err
	}
	return raiseDoneScript.Run(ctx, rdb, []string{w.dayKey(folder, "done")}, gen, dayStateTTL.Milliseconds()).Err()
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
