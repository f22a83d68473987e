package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/model"
)

// State is the per-order export state the fleet shares through Redis, beside the
// queue: which designs the current revision of an order expects, which are done (with
// their file records), the export generation, and the cancelled flag. Every change
// that must be seen whole is one Lua script, so two workers finishing the last two
// designs of an order at the same moment both see a consistent set and at least one of
// them, never zero, enqueues the completion.
//
// Keys of one order share a Redis Cluster hash tag ({store/domain/order}), so the
// scripts stay valid on a cluster.
type State struct {
	rdb    redis.UniversalClient
	prefix string
	ttl    time.Duration
	now    func() time.Time
}

// Defaults of the state.
const (
	DefaultKeyPrefix = "printworker"
	// DefaultStateTTL keeps an order's state after its last change: long enough for
	// late updates, cancellations and operator re-exports, short enough that Redis
	// does not grow without bound.
	DefaultStateTTL = 30 * 24 * time.Hour
)

// NewState returns the state kept under prefix (DefaultKeyPrefix when empty), each
// order expiring ttl (DefaultStateTTL when 0) after its last change.
func NewState(rdb redis.UniversalClient, prefix string, ttl time.Duration) *State {
	if prefix == "" {
		prefix = DefaultKeyPrefix
	}
	if ttl <= 0 {
		ttl = DefaultStateTTL
	}
	return &State{rdb: rdb, prefix: prefix, ttl: ttl, now: time.Now}
}

type orderKeys struct{ meta, expected, done, views, names string }

func (s *State) keys(k OrderKey) orderKeys {
	base := s.prefix + ":order:{" + k.String() + "}:"
	return orderKeys{meta: base + "meta", expected: base + "expected", done: base + "done", views: base + "views", names: base + "names"}
}

func (ks orderKeys) all() []string {
	return []string{ks.meta, ks.expected, ks.done, ks.views, ks.names}
}

// expireAll is appended to every script that writes: all keys of the order live as
// long as the order's newest change.
const expireAll = `
for i = 1, #KEYS do redis.call('PEXPIRE', KEYS[i], tonumber(ARGV[1])) end
`

// settledLua is prepended to the scripts that read or write expected and done. A
// settled order (Settle) keeps neither key: meta's "settled" field says every
// expected design is done, and its "l|<ref>" fields (the order's lines) name those
// designs. unsettle writes the two keys back (each design done with SettledResult)
// before a script changes them.
const settledLua = `
local function settledRefs(meta)
  local refs = {}
  for _, f in ipairs(redis.call('HKEYS', meta)) do
    if string.sub(f, 1, 2) == 'l|' then table.insert(refs, string.sub(f, 3)) end
  end
  return refs
end
local function unsettle(meta, exp, done)
  if redis.call('HGET', meta, 'settled') ~= '1' then return end
  for _, r in ipairs(settledRefs(meta)) do
    redis.call('SADD', exp, r)
    redis.call('HSET', done, r, '` + SettledResult + `')
  end
  redis.call('HDEL', meta, 'settled')
end
`

// beginScript records a revision of an order. KEYS: meta, expected, done, views, names.
// ARGV: ttl ms, digest, order JSON, date, the digest as the previous version wrote it
// (equal too), refs...
// Returns {rev, gen, changed, pending refs...}, or {-1, gen, 0} when cancelled.
var beginScript = redis.NewScript(settledLua + `
local meta, exp, done = KEYS[1], KEYS[2], KEYS[3]
if redis.call('HGET', meta, 'cancelled') == '1' then
  return {-1, tonumber(redis.call('HGET', meta, 'gen') or '0'), 0}
end
redis.call('HSETNX', meta, 'date', ARGV[4])
redis.call('HSETNX', meta, 'gen', 0)
redis.call('HSETNX', meta, 'rev', 0)
local changed = 0
local digest = redis.call('HGET', meta, 'digest')
if digest ~= ARGV[2] and digest ~= ARGV[5] then
  unsettle(meta, exp, done)
  redis.call('HDEL', meta, 'lines', 'status')
  for _, r in ipairs(settledRefs(meta)) do redis.call('HDEL', meta, 'l|' .. r) end
  redis.call('HINCRBY', meta, 'rev', 1)
  redis.call('HSET', meta, 'digest', ARGV[2], 'order', ARGV[3])
  redis.call('DEL', exp)
  for i = 6, #ARGV do redis.call('SADD', exp, ARGV[i]) end
  changed = 1
end
local settled = redis.call('HGET', meta, 'settled') == '1'
local res = {tonumber(redis.call('HGET', meta, 'rev')), tonumber(redis.call('HGET', meta, 'gen')), changed}
for i = 6, #ARGV do
  local isdone
  if settled then isdone = redis.call('HEXISTS', meta, 'l|' .. ARGV[i]) else isdone = redis.call('HEXISTS', done, ARGV[i]) end
  if isdone == 0 then table.insert(res, ARGV[i]) end
end
` + expireAll + `
return res
`)

// doneScript records a finished design (ARGV[4] non-empty) or only checks completion
// (ARGV[4] empty). KEYS: meta, expected, done, views, names. ARGV: ttl ms, ref, gen, result.
// Returns the current revision when every expected design is done, 0 when some are
// not, -1 when the order is cancelled, -2 when gen is older than the order's.
var doneScript = redis.NewScript(settledLua + `
local meta, exp, done = KEYS[1], KEYS[2], KEYS[3]
if redis.call('HGET', meta, 'cancelled') == '1' then return -1 end
if redis.call('EXISTS', meta) == 0 then return 0 end
local gen = tonumber(redis.call('HGET', meta, 'gen') or '0')
if tonumber(ARGV[3]) < gen then return -2 end
if ARGV[4] ~= '' then
  unsettle(meta, exp, done)
  redis.call('HSET', done, ARGV[2], ARGV[4])
` + expireAll + `
end
if redis.call('HGET', meta, 'settled') == '1' then return tonumber(redis.call('HGET', meta, 'rev')) end
for _, r in ipairs(redis.call('SMEMBERS', exp)) do
  if redis.call('HEXISTS', done, r) == 0 then return 0 end
end
return tonumber(redis.call('HGET', meta, 'rev'))
`)

// reexportScript starts a new export generation. KEYS: meta, expected, done, views, names.
// ARGV: ttl ms, refs... (none: every expected design). Returns {rev, gen, refs...}
// or {-3} for an unknown order.
var reexportScript = redis.NewScript(settledLua + `
local meta, exp, done = KEYS[1], KEYS[2], KEYS[3]
if redis.call('EXISTS', meta) == 0 or (redis.call('HEXISTS', meta, 'order') == 0 and redis.call('HEXISTS', meta, 'lines') == 0) then return {-3} end
unsettle(meta, exp, done)
redis.call('HDEL', meta, 'cancelled')
local gen = redis.call('HINCRBY', meta, 'gen', 1)
local rev = redis.call('HINCRBY', meta, 'rev', 1)
local refs = {}
if #ARGV > 1 then
  for i = 2, #ARGV do
    if redis.call('SISMEMBER', exp, ARGV[i]) == 1 then table.insert(refs, ARGV[i]) end
  end
else
  refs = redis.call('SMEMBERS', exp)
end
local res = {rev, gen}
for _, r in ipairs(refs) do
  redis.call('HDEL', done, r)
  table.insert(res, r)
end
` + expireAll + `
return res
`)

// cancelScript sets the cancelled flag, creating the order's state when needed so a
// later export request for it is refused. KEYS: meta, expected, done, views, names.
// ARGV: ttl ms. Returns {gen, expected refs...}.
var cancelScript = redis.NewScript(settledLua + `
local meta, exp = KEYS[1], KEYS[2]
local refs
if redis.call('HGET', meta, 'settled') == '1' then refs = settledRefs(meta) else refs = redis.call('SMEMBERS', exp) end
redis.call('HSET', meta, 'cancelled', '1')
redis.call('HSETNX', meta, 'gen', 0)
local res = {tonumber(redis.call('HGET', meta, 'gen'))}
for _, r in ipairs(refs) do table.insert(res, r) end
` + expireAll + `
return res
`)

// Begin is the result of recording an order for export.
type Begin struct {
	Rev, Gen int64
	// Changed is true when this call recorded a new revision (first export, or the
	// order's data changed since the last one).
	Changed   bool
	Cancelled bool
	// Pending lists the designs of the revision not yet exported.
	Pending []string
}

// ErrUnknownOrder is returned for an operation on an order never recorded.
var ErrUnknownOrder = errors.New("order unknown to printworker (never exported, or its state expired)")

func (s *State) ttlArg() string { return strconv.FormatInt(s.ttl.Milliseconds(), 10) }

// Begin records the order's current data and expected designs (refs) as a new
// revision when they differ from the last one, and returns the designs not exported
// yet. A design already exported (by reference) is kept: an updated order re-exports
// only the designs it did not have before.
func (s *State) Begin(ctx context.Context, k OrderKey, o *model.Order, refs []string) (Begin, error) {
	body, err := json.Marshal(o)
	if err != nil {
		return Begin{}, fmt.Errorf("order state: encode order %s: %w", k, err)
	}
	sum := sha256.Sum256(body)
	// The digest is 128 bits of the order JSON's sha256, raw: it only tells a
	// changed order from a repeated one, and a settled order keeps it.
	args := []any{s.ttlArg(), string(sum[:16]), body, orderDate(o, s.now()), hex.EncodeToString(sum[:])}
	for _, r := range refs {
		args = append(args, r)
	}
	res, err := beginScript.Run(ctx, s.rdb, s.keys(k).all(), args...).Slice()
	if err != nil {
		return Begin{}, fmt.Errorf("order state: begin %s: %w", k, err)
	}
	b := Begin{Rev: toInt(res[0]), Gen: toInt(res[1]), Changed: toInt(res[2]) == 1}
	if b.Rev < 0 {
		return Begin{Cancelled: true, Gen: b.Gen}, nil
	}
	for _, r := range res[3:] {
		b.Pending = append(b.Pending, fmt.Sprint(r))
	}
	return b, nil
}

// Completion is the outcome of recording a finished design.
type Completion int

const (
	// NotYet: other designs of the order are still pending.
	NotYet Completion = iota
	// Complete: every design of the revision is done; enqueue its completion.
	Complete
	// Cancelled: the order was cancelled; nothing more is written.
	Cancelled
	// Superseded: a re-export started a newer generation; this result was dropped.
	Superseded
)

// MarkDone records a finished design with its result (the worker's file records) and
// reports, atomically with the write, whether the order's revision is complete; rev
// is that revision. An empty result only checks.
func (s *State) MarkDone(ctx context.Context, k OrderKey, ref string, gen int64, result []byte) (Completion, int64, error) {
	n, err := doneScript.Run(ctx, s.rdb, s.keys(k).all(), s.ttlArg(), ref, gen, result).Int64()
	if err != nil {
		return NotYet, 0, fmt.Errorf("order state: mark %s %s done: %w", k, ref, err)
	}
	switch {
	case n == -1:
		return Cancelled, 0, nil
	case n == -2:
		return Superseded, 0, nil
	case n > 0:
		return Complete, n, nil
	}
	return NotYet, 0, nil
}

// ReExport starts a new export generation of the given designs (every expected one
// when refs is empty), forgetting that they were done, clearing a cancellation, and
// raising the revision so the manifest is rewritten. It returns the new revision,
// generation and the designs to export.
func (s *State) ReExport(ctx context.Context, k OrderKey, refs []string) (rev, gen int64, pending []string, err error) {
	args := []any{s.ttlArg()}
	for _, r := range refs {
		args = append(args, r)
	}
	res, err := reexportScript.Run(ctx, s.rdb, s.keys(k).all(), args...).Slice()
	if err != nil {
		return 0, 0, nil, fmt.Errorf("order state: re-export %s: %w", k, err)
	}
	if toInt(res[0]) == -3 {
		return 0, 0, nil, fmt.Errorf("re-export %s: %w", k, ErrUnknownOrder)
	}
	for _, r := range res[2:] {
		pending = append(pending, fmt.Sprint(r))
	}
	return toInt(res[0]), toInt(res[1]), pending, nil
}

// Cancel marks the order cancelled and returns its generation and expected designs,
// whose pending tasks the caller removes.
func (s *State) Cancel(ctx context.Context, k OrderKey) (gen int64, refs []string, err error) {
	res, err := cancelScript.Run(ctx, s.rdb, s.keys(k).all(), s.ttlArg()).Slice()
	if err != nil {
		return 0, nil, fmt.Errorf("order state: cancel %s: %w", k, err)
	}
	for _, r := range res[1:] {
		refs = append(refs, fmt.Sprint(r))
	}
	return toInt(res[0]), refs, nil
}

// settleScript slims a complete order's state once its manifest is written, to what
// a re-export, an update, a reprint and duplicate detection read (docs/operations.md
// "Redis sizing"); the rest is in the manifest (named in meta's "manifest"). Only for
// the revision the manifest is of, the order data it was read with (digest) and an
// order not cancelled: a newer revision in flight keeps everything.
//
// What goes: the view records (a finished generation is never resumed), each
// design's result (its files are in the manifest), the expected and done keys (meta's
// "settled" and "l|<ref>" fields stand for them, settledLua), the order JSON (its
// lines and status stay: "lines", "status", "l|<ref>"; Snapshot.OrderSlim) and the
// names hash (its fields move into meta in the compact form, names.go). meta is
// written anew, so Redis stores it as a listpack again (hash-max-listpack-entries
// and -value) after the long values that made it a hash table are gone.
//
// KEYS: meta, expected, done, views, names. ARGV: ttl ms, rev, manifest key, digest,
// the number of (field, value) pairs for meta, the pairs, then the names fields that
// moved (deleted from names; a field written since the caller read them stays).
// Returns 1 when settled.
var settleScript = redis.NewScript(`
local meta, exp, done, views, names = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
if redis.call('HGET', meta, 'cancelled') == '1' then return 0 end
if redis.call('HGET', meta, 'rev') ~= ARGV[2] then return 0 end
if redis.call('HGET', meta, 'digest') ~= ARGV[4] then return 0 end
if redis.call('HGET', meta, 'settled') ~= '1' then
  for _, r in ipairs(redis.call('SMEMBERS', exp)) do
    if redis.call('HEXISTS', done, r) == 0 then return 0 end
  end
end
local n = tonumber(ARGV[5])
for i = 6, 5 + 2 * n, 2 do
  if ARGV[i] == 'lines' then redis.call('HDEL', meta, 'order') end
  redis.call('HSET', meta, ARGV[i], ARGV[i + 1])
end
if redis.call('HEXISTS', meta, 'lines') == 0 then return 0 end
for i = 6 + 2 * n, #ARGV do redis.call('HDEL', names, ARGV[i]) end
redis.call('HSET', meta, 'manifest', ARGV[3], 'settled', '1')
redis.call('DEL', views, exp, done)
redis.call('HDEL', meta, 'lane')
local all = redis.call('HGETALL', meta)
redis.call('DEL', meta)
for i = 1, #all, 2 do redis.call('HSET', meta, all[i], all[i + 1]) end
` + expireAll + `
return 1
`)

// SettledResult is a design's result in Done once its order is settled: its files
// are those of the design in the manifest (Snapshot.Manifest).
const SettledResult = "0"

// Settle slims the state of order k, complete in revision rev with its manifest at
// manifestKey (settleScript). It reports whether it did: a cancelled order or a newer
// revision keeps its state.
func (s *State) Settle(ctx context.Context, k OrderKey, rev int64, manifestKey string) (bool, error) {
	ks := s.keys(k)
	var meta *redis.SliceCmd
	var names *redis.MapStringStringCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		meta = p.HMGet(ctx, ks.meta, "rev", "digest", "order")
		names = p.HGetAll(ctx, ks.names)
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("order state: settle %s: %w", k, err)
	}
	v := meta.Val()
	str := func(i int) string { s, _ := v[i].(string); return s }
	if str(0) != strconv.FormatInt(rev, 10) {
		return false, nil
	}
	var pairs []any
	if d, err := hex.DecodeString(str(1)); err == nil && len(d) == sha256.Size {
		pairs = append(pairs, "digest", string(d[:16])) // the previous version's (Begin)
	}
	if b := str(2); b != "" {
		var o model.Order
		if err := json.Unmarshal([]byte(b), &o); err != nil {
			return false, fmt.Errorf("order state: settle %s: stored order: %w", k, err)
		}
		pairs = append(pairs, slimOrder(&o)...)
	}
	var moved []any
	for f, v := range names.Val() {
		cf, cv, ok, known := compactName(f, v)
		if !known {
			continue
		}
		moved = append(moved, f)
		if ok {
			pairs = append(pairs, cf, cv)
		}
	}
	args := append([]any{s.ttlArg(), rev, manifestKey, str(1), len(pairs) / 2}, pairs...)
	n, err := settleScript.Run(ctx, s.rdb, ks.all(), append(args, moved...)...).Int()
	if err != nil {
		return false, fmt.Errorf("order state: settle %s: %w", k, err)
	}
	return n == 1, nil
}

// slimOrder are the meta fields a settled order keeps of o: "lines" (how many),
// "status" (rush routing reads it) and, for each design, "l|<ref>" -> its lines as
// "index:quantity:price" joined by ','. The rest of the order is in its manifest.
func slimOrder(o *model.Order) []any {
	out := []any{"lines", len(o.LineItems), "status", o.Status}
	var refs []string
	lines := map[string][]string{}
	for i, li := range o.LineItems {
		r := li.Ref()
		if r.Validate() != nil {
			continue
		}
		ref := r.String()
		if _, ok := lines[ref]; !ok {
			refs = append(refs, ref)
		}
		lines[ref] = append(lines[ref], strconv.Itoa(i)+":"+strconv.Itoa(li.Quantity)+":"+strconv.FormatFloat(li.Price, 'g', -1, 64))
	}
	for _, ref := range refs {
		out = append(out, "l|"+ref, strings.Join(lines[ref], ","))
	}
	return out
}

// slimOrderOf is the order a settled state keeps (slimOrder): its lines and status.
func slimOrderOf(k OrderKey, m map[string]string) (*model.Order, error) {
	n, err := strconv.Atoi(m["lines"])
	if err != nil || n < 0 || n > 1<<16 {
		return nil, fmt.Errorf("order state: %s: stored lines %q", k, m["lines"])
	}
	o := &model.Order{Domain: k.Domain, OrderID: k.OrderID, Status: m["status"], LineItems: make([]model.LineItem, n)}
	for f, v := range m {
		ref, ok := strings.CutPrefix(f, "l|")
		if !ok {
			continue
		}
		r, err := model.ParseDesignRef(ref)
		if err != nil {
			return nil, fmt.Errorf("order state: %s: stored line %q: %w", k, ref, err)
		}
		for _, e := range strings.Split(v, ",") {
			var i, q int
			var p float64
			if c, err := fmt.Sscanf(strings.ReplaceAll(e, ":", " "), "%d %d %g", &i, &q, &p); err != nil || c != 3 || i < 0 || i >= n {
				return nil, fmt.Errorf("order state: %s: stored line %q of %d", k, e, r.ID)
			}
			o.LineItems[i] = model.LineItem{ID: r.ID, Token: r.Token, Quantity: q, Price: p}
		}
	}
	return o, nil
}

// compactName is the compact form (names.go) of one field of an order's names hash:
// the field itself when it is compact already, the previous version's claims, slot
// records and next numbers converted, dropped (ok false) where the compact form
// writes nothing. known is false for a field it does not know, which stays.
func compactName(f, v string) (field, value string, ok, known bool) {
	if isNameField(f) {
		return f, v, true, true
	}
	kind, rest, _ := strings.Cut(f, "|")
	switch kind {
	case "n":
		return claimField(rest), h8(v), true, true
	case "slot":
		slot, owner, okf := strings.Cut(rest, "|")
		req, name, okv := strings.Cut(v, "\n")
		if !okf || !okv {
			return "", "", false, false
		}
		if name == req {
			return "", "", false, true
		}
		return slotField(slot, owner), h8(req) + name, true, true
	case "next":
		if n, err := strconv.Atoi(v); err == nil && n >= 3 {
			return nextField(rest), v, true, true
		}
		return "", "", false, true
	}
	return "", "", false, false
}

// Snapshot is a consistent read of an order's state.
type Snapshot struct {
	Exists    bool
	Rev, Gen  int64
	Cancelled bool
	// Date is the order's date folder (yyyy-mm-dd), fixed at its first export.
	Date     string
	Order    *model.Order
	Expected []string
	// Done maps each exported design to its result (SettledResult: in the
	// manifest).
	Done map[string]json.RawMessage
	// Manifest is the key of the order's last manifest once the order was settled.
	Manifest string
	// OrderSlim: Order holds only what a settled state keeps of it (slimOrder): its
	// lines (quantity, price) and status. The rest is in the manifest.
	OrderSlim bool
}

// Snapshot reads the order's state in one transaction.
func (s *State) Snapshot(ctx context.Context, k OrderKey) (Snapshot, error) {
	ks := s.keys(k)
	var meta *redis.MapStringStringCmd
	var exp *redis.StringSliceCmd
	var done *redis.MapStringStringCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		meta = p.HGetAll(ctx, ks.meta)
		exp = p.SMembers(ctx, ks.expected)
		done = p.HGetAll(ctx, ks.done)
		return nil
	})
	if err != nil {
		return Snapshot{}, fmt.Errorf("order state: read %s: %w", k, err)
	}
	m := meta.Val()
	snap := Snapshot{
		Exists:    len(m) > 0,
		Cancelled: m["cancelled"] == "1",
		Date:      m["date"],
		Expected:  exp.Val(),
		Done:      map[string]json.RawMessage{},
		Manifest:  m["manifest"],
	}
	snap.Rev, _ = strconv.ParseInt(m["rev"], 10, 64)
	snap.Gen, _ = strconv.ParseInt(m["gen"], 10, 64)
	switch {
	case m["order"] != "":
		var o model.Order
		if err := json.Unmarshal([]byte(m["order"]), &o); err != nil {
			return Snapshot{}, fmt.Errorf("order state: %s: stored order: %w", k, err)
		}
		snap.Order = &o
	case m["lines"] != "":
		o, err := slimOrderOf(k, m)
		if err != nil {
			return Snapshot{}, err
		}
		snap.Order, snap.OrderSlim = o, true
	}
	for ref, r := range done.Val() {
		snap.Done[ref] = json.RawMessage(r)
	}
	if m["settled"] == "1" {
		// Every expected design is done, its files in the manifest (settleScript).
		snap.Expected = snap.Expected[:0]
		for f := range m {
			if ref, ok := strings.CutPrefix(f, "l|"); ok {
				snap.Expected = append(snap.Expected, ref)
				snap.Done[ref] = json.RawMessage(SettledResult)
			}
		}
		slices.Sort(snap.Expected)
	}
	return snap, nil
}

// viewField names one view's record: generation, design and view, so a new
// generation never reuses an older one's progress.
func viewField(ref string, gen int64, viewID string) string {
	return strconv.FormatInt(gen, 10) + "|" + ref + "|" + viewID
}

// ViewDone records one exported view of a design, so a retried design export skips
// the views already stored (the object is written before this record).
func (s *State) ViewDone(ctx context.Context, k OrderKey, ref string, gen int64, viewID string, record []byte) error {
	ks := s.keys(k)
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, ks.views, viewField(ref, gen, viewID), record)
		p.PExpire(ctx, ks.views, s.ttl)
		return nil
	})
	if err != nil {
		return fmt.Errorf("order state: record view %s of %s %s: %w", viewID, k, ref, err)
	}
	return nil
}

// ViewsDone returns the records of the views of a design already exported in gen,
// by view id.
func (s *State) ViewsDone(ctx context.Context, k OrderKey, ref string, gen int64, viewIDs []string) (map[string]json.RawMessage, error) {
	if len(viewIDs) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	fields := make([]string, len(viewIDs))
	for i, v := range viewIDs {
		fields[i] = viewField(ref, gen, v)
	}
	vals, err := s.rdb.HMGet(ctx, s.keys(k).views, fields...).Result()
	if err != nil {
		return nil, fmt.Errorf("order state: read views of %s %s: %w", k, ref, err)
	}
	out := map[string]json.RawMessage{}
	for i, v := range vals {
		if str, ok := v.(string); ok && str != "" {
			out[viewIDs[i]] = json.RawMessage(str)
		}
	}
	return out, nil
}

func toInt(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case string:
		i, _ := strconv.ParseInt(n, 10, 64)
		return i
	}
	return 0
}

// DesignStatus is what a design export checks before working.
type DesignStatus struct {
	Exists    bool
	Cancelled bool
	Rev, Gen  int64
	// Date is the order's date folder (yyyy-mm-dd).
	Date string
	// Expected: the design is part of the order's current revision.
	Expected bool
	// Done: the design is exported in the current generation.
	Done bool
}

// DesignStatus reads the order's flags and the design's membership in one
// transaction.
func (s *State) DesignStatus(ctx context.Context, k OrderKey, ref string) (DesignStatus, error) {
	ks := s.keys(k)
	var meta *redis.SliceCmd
	var exp, done, settled *redis.BoolCmd
	_, err := s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		meta = p.HMGet(ctx, ks.meta, "cancelled", "rev", "gen", "date", "settled")
		exp = p.SIsMember(ctx, ks.expected, ref)
		done = p.HExists(ctx, ks.done, ref)
		settled = p.HExists(ctx, ks.meta, "l|"+ref)
		return nil
	})
	if err != nil {
		return DesignStatus{}, fmt.Errorf("order state: read %s %s: %w", k, ref, err)
	}
	v := meta.Val()
	str := func(i int) string { s, _ := v[i].(string); return s }
	st := DesignStatus{
		Exists:    str(1) != "" || str(0) != "",
		Cancelled: str(0) == "1",
		Date:      str(3),
		Expected:  exp.Val(),
		Done:      done.Val(),
	}
	if str(4) == "1" {
		st.Expected, st.Done = settled.Val(), settled.Val()
	}
	st.Rev, _ = strconv.ParseInt(str(1), 10, 64)
	st.Gen, _ = strconv.ParseInt(str(2), 10, 64)
	return st, nil
}

// Cancelled reports whether the order is cancelled.
func (s *State) Cancelled(ctx context.Context, k OrderKey) (bool, error) {
	v, err := s.rdb.HGet(ctx, s.keys(k).meta, "cancelled").Result()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("order state: read %s: %w", k, err)
	}
	return v == "1", nil
}

// Pushes of one order may run out of order (a retried create after a later update,
// two workers): the state remembers the newest order version pushed and whether the
// order was deleted, so an older version never overwrites a newer one on the hub.
// Versions compare by the order's `updated` timestamp, whose strict form
// (2024-01-02T03:04:05.000Z) sorts as text.

// pushDoneScript records a successful push. KEYS[1]: push hash. ARGV: ttl ms, op,
// updated.
var pushDoneScript = redis.NewScript(`
if ARGV[2] == 'delete' then
  redis.call('HSET', KEYS[1], 'deleted', '1')
else
  local cur = redis.call('HGET', KEYS[1], 'updated')
  if not cur or ARGV[3] > cur then redis.call('HSET', KEYS[1], 'updated', ARGV[3]) end
end
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[1]))
return 1
`)

func (s *State) pushKey(k OrderKey) string {
	return s.prefix + ":order:{" + k.String() + "}:push"
}

// PushStale reports why a create or update of the order at version updated must not
// be sent: the order was deleted on the hub, or a newer version was pushed already.
// An empty reason means send it.
func (s *State) PushStale(ctx context.Context, k OrderKey, updated string) (string, error) {
	v, err := s.rdb.HMGet(ctx, s.pushKey(k), "deleted", "updated").Result()
	if err != nil {
		return "", fmt.Errorf("order state: read pushes of %s: %w", k, err)
	}
	if d, _ := v[0].(string); d == "1" {
		return "the order was deleted", nil
	}
	if cur, _ := v[1].(string); cur != "" && updated < cur {
		return fmt.Sprintf("a newer version (updated %s) was pushed already", cur), nil
	}
	return "", nil
}

// PushDone records a successful push (op create, update or delete).
func (s *State) PushDone(ctx context.Context, k OrderKey, op, updated string) error {
	if err := pushDoneScript.Run(ctx, s.rdb, []string{s.pushKey(k)}, s.ttlArg(), op, updated).Err(); err != nil {
		return fmt.Errorf("order state: record push of %s: %w", k, err)
	}
	return nil
}
