package worker

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/printworker/printworker/jobs"
)

// undecodableRecheck is how soon a sweep that archived a message looks again:
// asynq logs its dequeue errors at most once every 3 s, so a second bad message
// taken within them leaves no log to wake the sweep.
const undecodableRecheck = 4 * time.Second

// sweepUndecodable archives the task messages of the served queues that asynq
// cannot decode (jobs.ArchiveUndecodable): every active one as soon as asynq logs
// that it could not decode a message it took (and again undecodableRecheck later);
// at start and every janitor interval, those whose lease is stale, for any it did
// not log. Without it such a message stays active for good, and blocks the recovery of
// its queue's crashed tasks (docs/pipeline.md, "Task messages that are not valid").
func (w *Worker) sweepUndecodable(ctx context.Context) {
	queues := make([]string, 0, len(w.cfg.serveQueues()))
	for q := range w.cfg.serveQueues() {
		queues = append(queues, q)
	}
	slices.Sort(queues)
	every := cmp.Or(w.cfg.Polling.Janitor, time.Minute)
	t := time.NewTimer(0)
	defer t.Stop()
	all := false // the timer's sweeps look at stale leases only
	for {
		select {
		case <-ctx.Done():
			return
		case <-w.undecodable:
			all = true
		case <-t.C:
		}
		found, err := jobs.ArchiveUndecodable(ctx, w.deps.Redis, queues, time.Now(), all)
		if err != nil && ctx.Err() == nil {
			w.log.WarnContext(ctx, "undecodable task messages not checked", "err", err)
		}
		for _, u := range found {
			w.m.tasks.WithLabelValues(jobs.UndecodableType, OutcomePermanent).Inc()
			w.log.ErrorContext(ctx, "task failed for good, archived", "task_id", u.ID, "queue", u.Queue, "type", jobs.UndecodableType, "err", u.Reason)
		}
		next := every
		all = len(found) > 0
		if all {
			next = undecodableRecheck
		}
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
		}
		t.Reset(next)
	}
}

// noteAsynqError wakes the sweep when asynq's processor could not decode a message
// it took (its "Dequeue error: ... cannot decode message" log).
func (w *Worker) noteAsynqError(msg string) {
	if strings.Contains(msg, "cannot decode message") {
		select {
		case w.undecodable <- struct{}{}:
		default:
		}
	}
}
