package jobs

import (
	"context"
	"fmt"
	"time"
)

// FinishedSlack is how long a finished task's record outlives its retention at most.
// asynq v0.26.0 gives a finished task's hash no expiry: only a running worker's
// janitor deletes it once its retention has passed, so with every worker stopped the
// records of past work would stay for good. ExpireFinished gives the hash its own
// expiry, this long after the retention, which the janitor (every --poll-janitor,
// 3 minutes by default) beats while workers run: it also removes the task from the
// queue's completed set, which the expiry leaves behind. The slack keeps the two in
// that order. Were the hash to expire first and the same task id be enqueued again
// (the same work, enqueued once more while no worker ran for longer than the slack),
// the janitor would later delete the new task's record with the old one's entry.
const FinishedSlack = time.Hour

// Retention is how long asynq keeps a finished task of type typ: the enqueuer's
// override (EnqueuerConfig.Retention) or the type's own; 0 for a type it does not
// know or that keeps nothing.
func (e *Enqueuer) Retention(typ string) time.Duration {
	if e.keep > 0 {
		return e.keep
	}
	o, _ := e.optionsOf(typ)
	return o.Retention
}

// ExpireFinished gives the record of task id in queue, a task of type typ about to
// finish, an expiry of its retention plus FinishedSlack, so no finished task's record
// stays without one however long no worker runs. The worker calls it at the end of
// a successful attempt: asynq then marks the task completed with HSET, which keeps
// the expiry. A type kept for no time has its record deleted by asynq at once.
func (e *Enqueuer) ExpireFinished(ctx context.Context, queue, id, typ string) error {
	keep := e.Retention(typ)
	if keep <= 0 {
		return nil
	}
	if err := e.rdb.PExpire(ctx, asynqKey(queue, "t:"+id), keep+FinishedSlack).Err(); err != nil {
		return fmt.Errorf("expire finished task %s: %w", id, err)
	}
	return nil
}
