package jobs

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// QueueStats is a queue's tasks by state, read with plain Redis reads.
//
// asynq's own Inspector.GetQueueInfo also estimates the queue's memory with a Lua script
// that adds up MEMORY USAGE of sampled task hashes, and it fails ("attempt to perform
// arithmetic on local 'bytes'", hibiken/asynq#1146) whenever a completed task's hash
// has expired and asynq's janitor has not yet removed its entry, which it does every
// few seconds. On a fleet that keeps completed tasks for a retention that is nearly
// always the case somewhere, so the queue report, the queue metrics and anything that
// waits for queues to drain would fail or, worse, read a failure as an empty queue.
// These counts need no task hash, and the latency needs only the oldest pending one's.
type QueueStats struct {
	Queue                                                  string
	Pending, Active, Scheduled, Retry, Archived, Completed int
	// ProcessedTotal and FailedTotal are asynq's all-time counters of the queue.
	ProcessedTotal, FailedTotal int64
	Paused                      bool
	// Latency is how long the oldest pending task has waited (0 when none is pending).
	Latency time.Duration
}

// Size is the number of tasks in the queue in every state.
func (s QueueStats) Size() int {
	return s.Pending + s.Active + s.Scheduled + s.Retry + s.Archived + s.Completed
}

// Busy is the number of tasks still to be done: pending, active, scheduled or
// waiting for a retry.
func (s QueueStats) Busy() int { return s.Pending + s.Active + s.Scheduled + s.Retry }

// asynqKey is a key of asynq's layout for a queue (asynq's internal/base, stable since
// v0.18; TestQueueStatsMatchAsynq guards it on every upgrade). The braces keep a
// queue's keys in one Redis Cluster slot, so the pipeline below goes to one node.
func asynqKey(queue, name string) string { return "asynq:{" + queue + "}:" + name }

// Queues are the names of the queues asynq knows (its set asynq:queues), sorted.
func Queues(ctx context.Context, rdb redis.UniversalClient) ([]string, error) {
	qs, err := rdb.SMembers(ctx, "asynq:queues").Result()
	if err != nil {
		return nil, fmt.Errorf("queues: %w", err)
	}
	slices.Sort(qs)
	return qs, nil
}

// ReadQueueStats reads a queue's counts at now in one round trip, plus one more for the
// latency when tasks are pending. A queue asynq has never seen reads as empty.
func ReadQueueStats(ctx context.Context, rdb redis.UniversalClient, queue string, now time.Time) (QueueStats, error) {
	var r queueReads
	_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		r = readQueue(ctx, p, queue)
		return nil
	})
	if err != nil && !errors.Is(err, redis.Nil) {
		return QueueStats{Queue: queue}, fmt.Errorf("queue %s: %w", queue, err)
	}
	return r.stats(ctx, rdb, now)
}

// queueReads are the reads of one queue's counts, queued on a pipeline.
type queueReads struct {
	queue  string
	lens   [2]*redis.IntCmd
	cards  [4]*redis.IntCmd
	totals [2]*redis.StringCmd
	paused *redis.IntCmd
	oldest *redis.StringCmd
}

func readQueue(ctx context.Context, p redis.Pipeliner, queue string) queueReads {
	r := queueReads{queue: queue}
	r.lens[0] = p.LLen(ctx, asynqKey(queue, "pending"))
	r.lens[1] = p.LLen(ctx, asynqKey(queue, "active"))
	for i, name := range []string{"scheduled", "retry", "archived", "completed"} {
		r.cards[i] = p.ZCard(ctx, asynqKey(queue, name))
	}
	r.totals[0] = p.Get(ctx, asynqKey(queue, "processed"))
	r.totals[1] = p.Get(ctx, asynqKey(queue, "failed"))
	r.paused = p.Exists(ctx, asynqKey(queue, "paused"))
	// asynq pushes on the left and takes from the right: the oldest is last.
	r.oldest = p.LIndex(ctx, asynqKey(queue, "pending"), -1)
	return r
}

// stats are the counts read, and the latency of the oldest pending task (one more
// round trip when one is pending).
func (r queueReads) stats(ctx context.Context, rdb redis.UniversalClient, now time.Time) (QueueStats, error) {
	s := QueueStats{Queue: r.queue}
	s.Pending, s.Active = int(r.lens[0].Val()), int(r.lens[1].Val())
	s.Scheduled, s.Retry, s.Archived, s.Completed = int(r.cards[0].Val()), int(r.cards[1].Val()), int(r.cards[2].Val()), int(r.cards[3].Val())
	for i, dst := range []*int64{&s.ProcessedTotal, &s.FailedTotal} {
		if v := r.totals[i].Val(); v != "" {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return s, fmt.Errorf("queue %s: counter: %w", r.queue, err)
			}
			*dst = n
		}
	}
	s.Paused = r.paused.Val() > 0
	if id := r.oldest.Val(); id != "" {
		since, err := rdb.HGet(ctx, asynqKey(r.queue, "t:"+id), "pending_since").Int64()
		switch {
		case errors.Is(err, redis.Nil):
			// Taken by a worker meanwhile: the next oldest is younger; report none
			// rather than a second guess.
		case err != nil:
			return s, fmt.Errorf("queue %s: oldest pending task: %w", r.queue, err)
		default:
			s.Latency = max(0, now.Sub(time.Unix(0, since)))
		}
	}
	return s, nil
}

// SumQueueStats adds up the counts of the distinct queues named, read at now; Queue
// lists them. A queue that cannot be read is an error: read as empty, it would end a
// wait for the queues to drain too early. The counts are read in one transaction
// (MULTI/EXEC): read one queue after another, a task could move between two reads
// and be counted in neither (an export that enqueues its order's completion and
// ends, a retry the forwarder moves to pending), and a wait would end while work
// remains. A Redis Cluster runs no transaction across slots: there each queue is
// read in one, and the queues upstream first (orders, exports, completions, then the
// rest), so that a task handing work on is read before the work it hands on.
func SumQueueStats(ctx context.Context, rdb redis.UniversalClient, now time.Time, queues ...string) (QueueStats, error) {
	queues = slices.Compact(slices.Sorted(slices.Values(queues)))
	slices.SortStableFunc(queues, func(a, b string) int { return flowRank(a) - flowRank(b) })
	reads := make([]queueReads, len(queues))
	tx := func(qs []string, reads []queueReads) error {
		_, err := rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
			for i, q := range qs {
				reads[i] = readQueue(ctx, p, q)
			}
			return nil
		})
		if err != nil && !errors.Is(err, redis.Nil) {
			return fmt.Errorf("queues %s: %w", strings.Join(qs, " "), err)
		}
		return nil
	}
	if _, cluster := rdb.(*redis.ClusterClient); cluster {
		for i := range queues {
			if err := tx(queues[i:i+1], reads[i:i+1]); err != nil {
				return QueueStats{}, err
			}
		}
	} else if err := tx(queues, reads); err != nil {
		return QueueStats{}, err
	}
	var sum QueueStats
	for _, r := range reads {
		s, err := r.stats(ctx, rdb, now)
		if err != nil {
			return sum, err
		}
		sum.Queue = strings.TrimPrefix(sum.Queue+" "+r.queue, " ")
		sum.Pending += s.Pending
		sum.Active += s.Active
		sum.Scheduled += s.Scheduled
		sum.Retry += s.Retry
		sum.Archived += s.Archived
		sum.Completed += s.Completed
		sum.ProcessedTotal += s.ProcessedTotal
		sum.FailedTotal += s.FailedTotal
		sum.Latency = max(sum.Latency, s.Latency)
	}
	return sum, nil
}

// flowRank orders queues by where work flows: a push or fetch (orders) hands on to
// exports, an export to its completion, a completion to pages and events.
func flowRank(q string) int {
	switch {
	case q == QueueOrders:
		return 0
	case IsExportQueue(q):
		return 1
	case q == QueueComplete:
		return 2
	default:
		return 3
	}
}
