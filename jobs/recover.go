package jobs

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// Early recovery of a dead worker's tasks. asynq v0.26.0 takes a task back from a
// worker that stopped heartbeating only when its 30 s lease ended at least 30 s ago
// (clock skew), in a recoverer pass once a minute: 60-120 s after the kill. None of
// the three is configurable. RecoverLeaseExpired moves such tasks back sooner, as
// asynq's own shutdown does with the tasks it could not finish (its requeue: out of
// the active list and the lease set, to the head of pending), as soon as their lease
// has ended RecoverMargin ago on the Redis clock. An owner that lost its lease has
// already given the task up: asynq's processor cancels a task whose lease ran out.
//
// A requeue is not a counted retry, so a task that kills every worker it runs on
// would come back for ever: each task is requeued so at most RecoverMaxTimes a day
// (printworker:recovered:{<queue>}:<id>, expiring after a day); after that it waits
// for asynq's recoverer, which counts it and archives it at its last retry.

const (
	// RecoverMargin is how long after its lease's end a task is taken back: more than
	// the clock skew between workers and Redis, and the 5 s between two heartbeats.
	RecoverMargin = 10 * time.Second
	// RecoverMaxTimes bounds the early requeues of one task a day.
	RecoverMaxTimes = 3
)

// recoverScript requeues the tasks of one queue whose lease ended ARGV[1] seconds
// ago or more on the Redis clock, at most 100 a call. KEYS: active, lease, pending.
// ARGV: margin seconds, task key prefix, counter key prefix, max requeues, counter
// ttl seconds. Returns how many it requeued.
var recoverScript = redis.NewScript(`
local now = tonumber(redis.call('TIME')[1])
local ids = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[1]), 'LIMIT', 0, 100)
local n = 0
for _, id in ipairs(ids) do
  local ck = ARGV[3] .. id
  if tonumber(redis.call('GET', ck) or '0') < tonumber(ARGV[4]) and redis.call('LREM', KEYS[1], 0, id) > 0 then
    redis.call('ZREM', KEYS[2], id)
    redis.call('RPUSH', KEYS[3], id)
    redis.call('HSET', ARGV[2] .. id, 'state', 'pending')
    redis.call('INCR', ck)
    redis.call('EXPIRE', ck, ARGV[5])
    n = n + 1
  end
end
return n
`)

// RecoverLeaseExpired moves the tasks of queues whose lease ended RecoverMargin ago
// back to their queue's pending list (see above), one script call per queue, and
// returns how many it moved.
func RecoverLeaseExpired(ctx context.Context, rdb redis.UniversalClient, prefix string, queues ...string) (int, error) {
	if prefix == "" {
		prefix = DefaultKeyPrefix
	}
	total := 0
	for _, q := range queues {
		n, err := recoverScript.Run(ctx, rdb,
			[]string{asynqKey(q, "active"), asynqKey(q, "lease"), asynqKey(q, "pending")},
			int64(RecoverMargin/time.Second), asynqKey(q, "t:"), prefix+":recovered:{"+q+"}:", RecoverMaxTimes, int64((24*time.Hour)/time.Second)).Int()
		if err != nil {
			return total, fmt.Errorf("recover tasks of %s: %w", q, err)
		}
		total += n
	}
	return total, nil
}
