package jobs

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Store order: a store may deliver two changes of one order out of order (two
// WooCommerce order.updated a second apart run concurrently; Shopify does not order
// its webhooks). Each order keeps the store's modification stamp of the newest
// version applied, one short string per order beside its other keys (same hash tag):
// "<unix ms>" for a live order, "g<unix ms>" for a tombstone (the order was cancelled
// or deleted at that stamp). A delivery older than it is stale and dropped; a live
// update no newer than a tombstone is stale too, so a late update never re-creates a
// cancelled order. The key lives for the intake's dedupe window (docs/intake.md,
// "Store order").

// StampMode says what a delivery does to its order.
type StampMode string

// Stamp modes.
const (
	// StampLive: a create or update of a live order.
	StampLive StampMode = "live"
	// StampGone: a cancel or delete; leaves a tombstone at its stamp.
	StampGone StampMode = "gone"
	// StampRestore: the store brought the order back (WooCommerce order.restored):
	// lifts a tombstone, stale only against a newer live stamp.
	StampRestore StampMode = "restore"
)

// applyStampScript compares and sets an order's stamp. KEYS[1]: stamp key. ARGV:
// ttl ms, stamp (unix ms), mode. Returns {1, previous} when applied, {0, current}
// when stale; previous/current is the stored value ("" when none).
var applyStampScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
local s, mode = tonumber(ARGV[2]), ARGV[3]
if cur then
  local gone = string.sub(cur, 1, 1) == 'g'
  local at = tonumber(gone and string.sub(cur, 2) or cur)
  if at then
    if mode == 'restore' then
      if not gone and s < at then return {0, cur} end
    elseif gone and mode == 'live' then
      if s <= at then return {0, cur} end
    elseif s < at then
      return {0, cur}
    end
  end
end
local v = ARGV[2]
if mode == 'gone' then v = 'g' .. v end
redis.call('SET', KEYS[1], v, 'PX', tonumber(ARGV[1]))
return {1, cur or ''}
`)

// StampVerdict is the outcome of ApplyStamp.
type StampVerdict struct {
	// Applied: the delivery is not older than what was applied; its stamp is now
	// the order's.
	Applied bool
	// Current is the stamp that made it stale (zero when applied or none), and
	// Tombstone whether that stamp is a cancel's or delete's.
	Current   time.Time
	Tombstone bool
	// Previous is, when applied, the stamp recorded before (zero: none).
	Previous time.Time
}

func (s *State) stampKey(k OrderKey) string {
	return s.prefix + ":order:{" + k.String() + "}:stamp"
}

// ApplyStamp records stamp (the store's modification time of the delivered order
// version) for order k when it is not older than the one applied last (mode: see
// StampMode), atomically across replicas, keeping it for ttl. A stale delivery
// changes nothing and is reported as not applied.
func (s *State) ApplyStamp(ctx context.Context, k OrderKey, stamp time.Time, mode StampMode, ttl time.Duration) (StampVerdict, error) {
	switch mode {
	case StampLive, StampGone, StampRestore:
	default:
		return StampVerdict{}, fmt.Errorf("order state: stamp mode %q", mode)
	}
	if ttl <= 0 {
		ttl = s.ttl
	}
	res, err := applyStampScript.Run(ctx, s.rdb, []string{s.stampKey(k)}, ttl.Milliseconds(), stamp.UnixMilli(), string(mode)).Slice()
	if err != nil {
		return StampVerdict{}, fmt.Errorf("order state: stamp %s: %w", k, err)
	}
	at, gone := parseStamp(fmt.Sprint(res[1]))
	if toInt(res[0]) == 1 {
		return StampVerdict{Applied: true, Previous: at}, nil
	}
	return StampVerdict{Current: at, Tombstone: gone}, nil
}

// parseStamp reads a stored stamp ("<ms>" or "g<ms>"); zero when none.
func parseStamp(v string) (time.Time, bool) {
	gone := strings.HasPrefix(v, "g")
	ms, err := strconv.ParseInt(strings.TrimPrefix(v, "g"), 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	return time.UnixMilli(ms).UTC(), gone
}

// Stamp reads order k's recorded stamp (zero when none) and whether it is a
// tombstone, without changing it.
func (s *State) Stamp(ctx context.Context, k OrderKey) (time.Time, bool, error) {
	v, err := s.rdb.Get(ctx, s.stampKey(k)).Result()
	if errors.Is(err, redis.Nil) {
		return time.Time{}, false, nil
	}
	if err != nil {
		return time.Time{}, false, fmt.Errorf("order state: stamp %s: %w", k, err)
	}
	at, gone := parseStamp(v)
	return at, gone, nil
}
