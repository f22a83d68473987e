package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
)

// Gang sheet jobs (docs/gang.md, "Sheet jobs"): PNG views a routing rule marks for a
// gang group wait in the group's pending set in Redis until a gang:build task nests
// them onto sheets.
const (
	TypeGangBuild = "gang:build"
	QueueGang     = "gang"
)

// Why a gang build was enqueued; part of its TaskID.
const (
	GangFull   = "full"   // the pending designs fill at least one sheet
	GangCutoff = "cutoff" // the group's cut-off came
	GangManual = "manual" // an operator asked (printworker gang --group)
)

// GangKey is a gang group of one store: sheets are never shared between stores.
type GangKey struct {
	Store string `json:"store"`
	Group string `json:"group"`
}

// String is "store/group", escaped so the form is unambiguous.
func (g GangKey) String() string { return url.PathEscape(g.Store) + "/" + url.PathEscape(g.Group) }

// ParseGangKey reads GangKey.String's form back.
func ParseGangKey(s string) (GangKey, error) {
	for i := 0; i < len(s); i++ {
		if s[i] != '/' {
			continue
		}
		st, err1 := url.PathUnescape(s[:i])
		gr, err2 := url.PathUnescape(s[i+1:])
		if err1 == nil && err2 == nil && st != "" && gr != "" {
			return GangKey{Store: st, Group: gr}, nil
		}
	}
	return GangKey{}, fmt.Errorf("gang group %q: want store/group", s)
}

// GangBuild builds sheets of every pending design of one group.
type GangBuild struct {
	V int `json:"v"`
	GangKey
	Reason string `json:"reason"`
}

// GangOptions are the options of gang builds: a 10 m roll at 300 dpi takes minutes;
// a build that keeps failing stays visible (archived) for an operator.
func GangOptions() TaskOptions {
	return TaskOptions{MaxRetry: 20, Timeout: 30 * time.Minute, Retention: 72 * time.Hour}
}

// GangTaskID is one build of group g: reason and a number that makes it unique
// within the reason (the batch it fills, the cut-off slot in Unix seconds, the time
// an operator asked). Two workers enqueueing the same fill or cut-off enqueue one.
func GangTaskID(g GangKey, reason string, n int64) string {
	return "gang:" + g.String() + ":" + reason + ":" + strconv.FormatInt(n, 10)
}

// NewGangBuildTask builds a gang build task with TaskID id.
func NewGangBuildTask(p GangBuild, id string) (*asynq.Task, error) {
	p.V = PayloadVersion
	if p.Store == "" || p.Group == "" {
		return nil, errors.New("jobs: gang build: store and group are required")
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("jobs: gang build payload: %w", err)
	}
	return asynq.NewTask(TypeGangBuild, b, GangOptions().asynq(QueueGang, id)...), nil
}

// GangBuild enqueues a build of group g for reason; n makes its TaskID (GangTaskID).
func (e *Enqueuer) GangBuild(ctx context.Context, g GangKey, reason string, n int64) (Enqueued, error) {
	id := GangTaskID(g, reason, n)
	t, err := NewGangBuildTask(GangBuild{GangKey: g, Reason: reason}, id)
	if err != nil {
		return Enqueued{}, err
	}
	return e.enqueue(ctx, t, id, QueueGang)
}

// GangEntry is one design waiting for a sheet: one view's PNG file of one order
// line, with that line's quantity.
type GangEntry struct {
	OrderKey
	Key      string  `json:"key"`
	Bucket   string  `json:"bucket,omitempty"`
	Line     int     `json:"line"`
	DesignID int64   `json:"designId"`
	View     string  `json:"viewId"`
	Quantity int     `json:"quantity"`
	DPI      float64 `json:"dpi"`
	WidthPx  int     `json:"widthPx"`
	HeightPx int     `json:"heightPx"`
	// OrderDir is the order's folder (where its manifest goes); gang.json is
	// written there.
	OrderDir string `json:"orderDir"`
	// NoFill marks a design that can never be placed on the group's sheet (too big,
	// another dpi): it waits for a build like any other, which reports it, but does
	// not count toward filling a sheet (GangTotals).
	NoFill bool `json:"noFill,omitempty"`
}

// GangMember is the identity of an entry: order, design reference digest,
// generation, view and line. The same view of the same export enqueued twice is one
// member; a re-export (new generation) is a new one.
func GangMember(k OrderKey, ref string, gen int64, view string, line int) string {
	return k.String() + "|" + url.PathEscape(ref) + "|g" + strconv.FormatInt(gen, 10) + "|" + url.PathEscape(view) + "|L" + strconv.Itoa(line)
}

// Gangs is the fleet's shared record of gang groups in Redis: pending designs,
// claimed batches, the builder's lease and which sheet holds each order's designs.
// Keys of one group share a Redis Cluster hash tag ({store/group}).
type Gangs struct {
	rdb    redis.UniversalClient
	prefix string
	// SeenFor is how long a member is remembered after it was added, so a retried
	// export of a design already on a sheet does not add it again.
	seenFor time.Duration
}

// NewGangs returns the gang records under prefix (DefaultKeyPrefix when empty).
func NewGangs(rdb redis.UniversalClient, prefix string) *Gangs {
	if prefix == "" {
		prefix = DefaultKeyPrefix
	}
	return &Gangs{rdb: rdb, prefix: prefix, seenFor: DefaultStateTTL}
}

type gangKeys struct{ pending, seen, meta, open, batch, lease string }

func (s *Gangs) keys(g GangKey) gangKeys {
	b := s.prefix + ":gang:{" + g.String() + "}:"
	return gangKeys{pending: b + "pending", seen: b + "seen", meta: b + "meta", open: b + "open", batch: b + "batch:", lease: b + "lease"}
}

// groupsKey lists the groups added to recently (sorted set; touchGroupScript).
// legacyGroupsKey is the plain set older versions kept without expiry: Groups moves
// its members over and deletes it.
func (s *Gangs) groupsKey() string       { return s.prefix + ":gang:recent" }
func (s *Gangs) legacyGroupsKey() string { return s.prefix + ":gang:groups" }

// gangTotalsLua keeps a group's running totals over its pending designs in its meta
// hash, so the fill check after an add reads five fields instead of every pending
// design. Over the designs that can be placed (not GangEntry.NoFill): "pc" copies (sum of quantities), "pw" and "ph" the sums of quantity x
// width and quantity x height, "pa" of quantity x width x height, in pixels, and
// "pt" present once they count every pending design. The scripts that add to and
// claim from the pending hash include it and change both in one step; a meta
// without "pt" (written by an older version) is counted once from the hash.
const gangTotalsLua = `
local function gangSize(v)
  local e = cjson.decode(v)
  if e['noFill'] == true then return 0, 0, 0 end
  return tonumber(e['quantity']) or 1, tonumber(e['widthPx']) or 0, tonumber(e['heightPx']) or 0
end
local function gangCount(meta, v, sign)
  local q, w, h = gangSize(v)
  redis.call('HINCRBY', meta, 'pc', string.format('%d', sign * q))
  redis.call('HINCRBY', meta, 'pw', string.format('%d', sign * q * w))
  redis.call('HINCRBY', meta, 'ph', string.format('%d', sign * q * h))
  redis.call('HINCRBY', meta, 'pa', string.format('%d', sign * q * w * h))
end
local function gangCounted(meta, pending)
  if redis.call('HEXISTS', meta, 'pt') == 1 then return end
  -- An idle group without meta stays without one (no key without expiry).
  if redis.call('HLEN', pending) == 0 and redis.call('EXISTS', meta) == 0 then return end
  redis.call('HSET', meta, 'pt', 1, 'pc', 0, 'pw', 0, 'ph', 0, 'pa', 0)
  for _, v in ipairs(redis.call('HVALS', pending)) do gangCount(meta, v, 1) end
end
local function gangTotals(meta, added)
  local t = redis.call('HMGET', meta, 'pc', 'pw', 'ph', 'pa', 'n')
  return {added, t[1] or '0', t[2] or '0', t[3] or '0', t[4] or '0', t[5] or '0'}
end
`

// addScript adds a member unless it was ever added (within seenFor). KEYS: pending,
// seen, meta. ARGV: member, entry, seen ms. Returns {1 when added else 0, then the
// group's totals (gangTotalsLua) and batch counter}. The first design of an empty
// group sets "since" on the Redis clock: the cut-off counts from it. A group with
// work (pending designs or open batches) keeps its meta without expiry: its batch
// counter, "since" and totals must outlive any pause; finishFn gives an idle group's
// meta its expiry back.
var addScript = redis.NewScript(gangTotalsLua + `
if redis.call('ZSCORE', KEYS[2], ARGV[1]) then
  gangCounted(KEYS[3], KEYS[1])
  return gangTotals(KEYS[3], 0)
end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[3]))
redis.call('ZADD', KEYS[2], now, ARGV[1])
redis.call('PEXPIRE', KEYS[2], tonumber(ARGV[3]))
if redis.call('HLEN', KEYS[1]) == 0 then redis.call('HSET', KEYS[3], 'since', math.floor(now / 1000)) end
redis.call('PERSIST', KEYS[3])
gangCounted(KEYS[3], KEYS[1])
-- A member pending longer than seenFor is no longer seen: replaced, not counted twice.
local old = redis.call('HGET', KEYS[1], ARGV[1])
if old then gangCount(KEYS[3], old, -1) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
gangCount(KEYS[3], ARGV[2], 1)
return gangTotals(KEYS[3], 1)
`)

// touchGroupScript lists a group among the recent ones. KEYS[1]: the recent groups
// (sorted set, score: the last add in ms on the Redis clock). ARGV: group, keep ms.
// Groups not added to for keep ms drop out, and the set itself expires keep ms after
// the last add: the list is bounded by the groups of the last keep ms.
var touchGroupScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('ZADD', KEYS[1], now, ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[2]))
return 1
`)

// GangTotals are running sums over a group's pending designs, in pixels, kept by
// the scripts that add and claim them (gangTotalsLua): what the fill check needs,
// read in O(1) however many designs wait.
type GangTotals struct {
	// Copies is the sum of the quantities; Width and Height the sums of quantity x
	// width and quantity x height; Pixels of quantity x width x height.
	Copies, Width, Height, Pixels int64
}

// PaddedArea is the area the pending copies cover with gap px to the right of and
// below each and a label band of label px under each: the sum of quantity x (width
// + gap) x (height + label + gap), from the totals alone.
func (t GangTotals) PaddedArea(gap, label int) int64 {
	g, lg := int64(gap), int64(label+gap)
	return t.Pixels + lg*t.Width + g*t.Height + g*lg*t.Copies
}

// GangAdded is what an add did and the group right after it.
type GangAdded struct {
	// Added is false when the member was added before (pending, claimed or built).
	Added  bool
	Totals GangTotals
	// Batches is the number of batches ever claimed.
	Batches int64
}

// Add records a design waiting for a sheet of group g. It is idempotent: a member
// added before (pending, claimed or already on a sheet) is not added again, so a
// retried export never puts a design on two sheets.
func (s *Gangs) Add(ctx context.Context, g GangKey, member string, e GangEntry) (bool, error) {
	r, err := s.AddCounted(ctx, g, member, e)
	return r.Added, err
}

// AddCounted is Add that also returns the group's totals and batch counter as the add
// left them, in the same script: a constant cost however many designs are pending.
func (s *Gangs) AddCounted(ctx context.Context, g GangKey, member string, e GangEntry) (GangAdded, error) {
	b, err := json.Marshal(e)
	if err != nil {
		return GangAdded{}, err
	}
	ks := s.keys(g)
	res, err := addScript.Run(ctx, s.rdb, []string{ks.pending, ks.seen, ks.meta}, member, b, s.seenFor.Milliseconds()).Int64Slice()
	if err != nil || len(res) != 6 {
		return GangAdded{}, fmt.Errorf("gang %s: add: %w (%d values)", g, err, len(res))
	}
	// A group stays listed seenFor after its last add, also once it is empty:
	// removing it when it empties could race with an add and hide it from the
	// cut-off scheduler. Its own hash tag: a separate command, not part of addScript.
	if err := touchGroupScript.Run(ctx, s.rdb, []string{s.groupsKey()}, g.String(), s.seenFor.Milliseconds()).Err(); err != nil {
		return GangAdded{}, fmt.Errorf("gang %s: add: %w", g, err)
	}
	return GangAdded{Added: res[0] == 1, Totals: GangTotals{Copies: res[1], Width: res[2], Height: res[3], Pixels: res[4]}, Batches: res[5]}, nil
}

// Groups lists every group with a design added within seenFor (30 days).
func (s *Gangs) Groups(ctx context.Context) ([]GangKey, error) {
	if err := s.migrateGroups(ctx); err != nil {
		return nil, err
	}
	ms, err := s.rdb.ZRange(ctx, s.groupsKey(), 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("gang groups: %w", err)
	}
	sort.Strings(ms)
	var out []GangKey
	for _, m := range ms {
		if g, err := ParseGangKey(m); err == nil {
			out = append(out, g)
		}
	}
	return out, nil
}

// migrateGroups moves the groups of the legacy set (no expiry) into the recent
// groups, as if added now, and deletes it.
func (s *Gangs) migrateGroups(ctx context.Context) error {
	old, err := s.rdb.SMembers(ctx, s.legacyGroupsKey()).Result()
	if err != nil || len(old) == 0 {
		if err != nil {
			return fmt.Errorf("gang groups: %w", err)
		}
		return nil
	}
	for _, g := range old {
		if err := touchGroupScript.Run(ctx, s.rdb, []string{s.groupsKey()}, g, s.seenFor.Milliseconds()).Err(); err != nil {
			return fmt.Errorf("gang groups: %w", err)
		}
	}
	if err := s.rdb.Del(ctx, s.legacyGroupsKey()).Err(); err != nil {
		return fmt.Errorf("gang groups: %w", err)
	}
	return nil
}

// Since is when the oldest of group g's pending designs arrived; zero when none is
// pending. One field read: the cut-off check runs it for every group every tick.
func (s *Gangs) Since(ctx context.Context, g GangKey) (time.Time, error) {
	v, err := s.rdb.HGet(ctx, s.keys(g).meta, "since").Int64()
	if errors.Is(err, redis.Nil) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("gang %s: since: %w", g, err)
	}
	return time.Unix(v, 0).UTC(), nil
}

// GangStatus is a group's state at one moment.
type GangStatus struct {
	Pending map[string]GangEntry
	// Since is when the oldest pending design arrived (zero when none is pending).
	Since time.Time
	// Batches is the number of batches ever claimed; Open those claimed and not
	// finished (a builder is on them, or died on them).
	Batches int64
	Open    []int64
	// Totals are the running totals over Pending the add and claim scripts keep.
	Totals GangTotals
}

// Status reads a group's pending designs and batches.
func (s *Gangs) Status(ctx context.Context, g GangKey) (GangStatus, error) {
	ks := s.keys(g)
	var pend *redis.MapStringStringCmd
	var meta *redis.MapStringStringCmd
	var open *redis.StringSliceCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		pend = p.HGetAll(ctx, ks.pending)
		meta = p.HGetAll(ctx, ks.meta)
		open = p.ZRange(ctx, ks.open, 0, -1)
		return nil
	})
	if err != nil {
		return GangStatus{}, fmt.Errorf("gang %s: status: %w", g, err)
	}
	st := GangStatus{Pending: map[string]GangEntry{}}
	for m, v := range pend.Val() {
		var e GangEntry
		if err := json.Unmarshal([]byte(v), &e); err != nil {
			return GangStatus{}, fmt.Errorf("gang %s: pending %s: %w", g, m, err)
		}
		st.Pending[m] = e
	}
	if v, err := strconv.ParseInt(meta.Val()["since"], 10, 64); err == nil && v > 0 {
		st.Since = time.Unix(v, 0).UTC()
	}
	st.Batches, _ = strconv.ParseInt(meta.Val()["n"], 10, 64)
	for f, v := range map[string]*int64{"pc": &st.Totals.Copies, "pw": &st.Totals.Width, "ph": &st.Totals.Height, "pa": &st.Totals.Pixels} {
		*v, _ = strconv.ParseInt(meta.Val()[f], 10, 64)
	}
	for _, o := range open.Val() {
		n, _ := strconv.ParseInt(o, 10, 64)
		st.Open = append(st.Open, n)
	}
	return st, nil
}

// claimScript returns the oldest open batch, or moves pending members (in sorted
// order, up to ARGV[3] copies, at least one member) into a new numbered batch. KEYS:
// pending, meta, open, the batch's key. ARGV: the batch number the caller expects
// (the oldest open one, else the counter plus one), date, max copies. Returns {n,
// date, member, entry, ...}, {"0"} when nothing is pending, or {"-1"} when the batch
// to claim is not ARGV[1] (the group changed between the caller's read and the
// script: it reads again). The caller names the batch key so that every key the
// script touches is declared, as Redis Cluster requires. The group's totals lose
// what moves (gangTotalsLua).
var claimScript = redis.NewScript(gangTotalsLua + `
gangCounted(KEYS[2], KEYS[1])
local open = redis.call('ZRANGE', KEYS[3], 0, 0)
local n, date
if #open > 0 then
  n = open[1]
  if n ~= ARGV[1] then return {'-1'} end
  date = redis.call('HGET', KEYS[2], 'date:' .. n)
else
  local all = redis.call('HKEYS', KEYS[1])
  if #all == 0 then return {'0'} end
  if tostring((tonumber(redis.call('HGET', KEYS[2], 'n')) or 0) + 1) ~= ARGV[1] then return {'-1'} end
  table.sort(all)
  n = tostring(redis.call('HINCRBY', KEYS[2], 'n', 1))
  date = ARGV[2]
  local copies, taken, max = 0, 0, tonumber(ARGV[3])
  for _, m in ipairs(all) do
    local v = redis.call('HGET', KEYS[1], m)
    local q = tonumber(cjson.decode(v)['quantity']) or 1
    if taken > 0 and copies + q > max then break end
    copies = copies + q
    taken = taken + 1
    redis.call('HSET', KEYS[4], m, v)
    redis.call('HDEL', KEYS[1], m)
    gangCount(KEYS[2], v, -1)
  end
  redis.call('ZADD', KEYS[3], tonumber(n), n)
  redis.call('HSET', KEYS[2], 'date:' .. n, date)
  if redis.call('HLEN', KEYS[1]) == 0 then
    redis.call('HDEL', KEYS[2], 'since')
    -- Nothing pending: the totals are 0 whatever an older version added uncounted.
    redis.call('HSET', KEYS[2], 'pt', 1, 'pc', 0, 'pw', 0, 'ph', 0, 'pa', 0)
  end
end
local res = {n, date}
local items = redis.call('HGETALL', KEYS[4])
for i = 1, #items do res[#res + 1] = items[i] end
return res
`)

// finishScript drops a built batch; a group left with no work gives its meta an
// expiry (addScript takes it away again). KEYS: the batch, open, meta, pending.
// ARGV: batch number, keep ms.
var finishScript = redis.NewScript(`
redis.call('DEL', KEYS[1])
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], 'date:' .. ARGV[1])
if redis.call('ZCARD', KEYS[2]) == 0 and redis.call('HLEN', KEYS[4]) == 0 then
  redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[2]))
end
return 1
`)

// GangBatch is a claimed set of designs: each is on exactly one batch, and a batch
// is built (and rebuilt after a crash) into the same sheets until Finish.
type GangBatch struct {
	N       int64
	Date    string
	Members []string // sorted
	Entries map[string]GangEntry
}

// Claim returns the group's oldest unfinished batch (a builder died on it) or, when
// there is none, moves the pending designs into a new batch, at most maxCopies
// copies (at least one design). ok is false when nothing is pending. date is the
// new batch's folder (yyyy-mm-dd); an old batch keeps its own.
func (s *Gangs) Claim(ctx context.Context, g GangKey, date string, maxCopies int) (GangBatch, bool, error) {
	ks := s.keys(g)
	var res []string
	// Another claimer or an add between the read and the script makes the script
	// refuse; each round some claimer made progress, so a few rounds suffice.
	for attempt := 0; ; attempt++ {
		n, err := s.nextBatch(ctx, ks)
		if err != nil {
			return GangBatch{}, false, fmt.Errorf("gang %s: claim: %w", g, err)
		}
		res, err = claimScript.Run(ctx, s.rdb, []string{ks.pending, ks.meta, ks.open, ks.batch + n}, n, date, maxCopies).StringSlice()
		if err != nil {
			return GangBatch{}, false, fmt.Errorf("gang %s: claim: %w", g, err)
		}
		if len(res) != 1 || res[0] != "-1" {
			break
		}
		if attempt == 100 {
			return GangBatch{}, false, fmt.Errorf("gang %s: claim: the group kept changing", g)
		}
	}
	if len(res) < 2 {
		return GangBatch{}, false, nil
	}
	b := GangBatch{Date: res[1], Entries: map[string]GangEntry{}}
	b.N, _ = strconv.ParseInt(res[0], 10, 64)
	for i := 2; i+1 < len(res); i += 2 {
		var e GangEntry
		if err := json.Unmarshal([]byte(res[i+1]), &e); err != nil {
			return GangBatch{}, false, fmt.Errorf("gang %s: batch %d: %s: %w", g, b.N, res[i], err)
		}
		b.Members = append(b.Members, res[i])
		b.Entries[res[i]] = e
	}
	sort.Strings(b.Members)
	return b, true, nil
}

// nextBatch is the number of the batch a claim would return now: the oldest open
// one, else the counter plus one.
func (s *Gangs) nextBatch(ctx context.Context, ks gangKeys) (string, error) {
	var open *redis.StringSliceCmd
	var n *redis.StringCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		open = p.ZRange(ctx, ks.open, 0, 0)
		n = p.HGet(ctx, ks.meta, "n")
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return "", err
	}
	if len(open.Val()) > 0 {
		return open.Val()[0], nil
	}
	cur, _ := strconv.ParseInt(n.Val(), 10, 64)
	return strconv.FormatInt(cur+1, 10), nil
}

// Finish drops a built batch: its designs are on their sheets.
func (s *Gangs) Finish(ctx context.Context, g GangKey, n int64) error {
	ks := s.keys(g)
	ns := strconv.FormatInt(n, 10)
	if err := finishScript.Run(ctx, s.rdb, []string{ks.batch + ns, ks.open, ks.meta, ks.pending}, ns, s.seenFor.Milliseconds()).Err(); err != nil {
		return fmt.Errorf("gang %s: finish batch %d: %w", g, n, err)
	}
	return nil
}

// Lease takes the group's builder lease for ttl (see Lease): one builder per group
// at a time. It is nil when another builder holds it.
func (s *Gangs) Lease(ctx context.Context, g GangKey, ttl time.Duration) (*Lease, error) {
	l, err := TakeLease(ctx, s.rdb, s.keys(g).lease, ttl)
	if err != nil {
		return nil, fmt.Errorf("gang %s: %w", g, err)
	}
	return l, nil
}

// orderSheetKeys are one order's sheet assignments (member -> JSON) and their
// version, raised by every change.
func (s *Gangs) orderSheetKeys(k OrderKey) (string, string) {
	b := s.prefix + ":gangorder:{" + k.String() + "}:"
	return b + "sheets", b + "version"
}

// RecordSheets stores where members of order k went (member -> JSON), raising the
// order's version.
func (s *Gangs) RecordSheets(ctx context.Context, k OrderKey, recs map[string][]byte) error {
	hk, vk := s.orderSheetKeys(k)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		for m, v := range recs {
			p.HSet(ctx, hk, m, v)
		}
		p.Incr(ctx, vk)
		p.PExpire(ctx, hk, DefaultStateTTL)
		p.PExpire(ctx, vk, DefaultStateTTL)
		return nil
	})
	if err != nil {
		return fmt.Errorf("order %s: record sheets: %w", k, err)
	}
	return nil
}

// OrderSheets reads order k's sheet assignments and their version in one
// transaction.
func (s *Gangs) OrderSheets(ctx context.Context, k OrderKey) (map[string]string, int64, error) {
	hk, vk := s.orderSheetKeys(k)
	var h *redis.MapStringStringCmd
	var v *redis.StringCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		h = p.HGetAll(ctx, hk)
		v = p.Get(ctx, vk)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return nil, 0, fmt.Errorf("order %s: read sheets: %w", k, err)
	}
	n, _ := strconv.ParseInt(v.Val(), 10, 64)
	return h.Val(), n, nil
}

// SheetsVersion is order k's assignment version.
func (s *Gangs) SheetsVersion(ctx context.Context, k OrderKey) (int64, error) {
	_, vk := s.orderSheetKeys(k)
	n, err := s.rdb.Get(ctx, vk).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("order %s: sheets version: %w", k, err)
	}
	return n, nil
}
