package worker

import (
	"context"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/jobs"
)

// leftoverRemover is the optional part of a Storage that removes the temporary files
// a killed writer left (*storage.Dir, *storage.SFTP): those of one key before a
// retried write, and all of them when the worker starts.
type leftoverRemover interface {
	RemoveLeftovers(ctx context.Context, key string) (int, error)
	SweepLeftovers(ctx context.Context) (int, error)
}

// removeLeftovers removes the temporary files of key that an earlier attempt of this
// task may have left, when the attempt is a retry (a killed worker's task comes back
// as one). Best effort: a failure is logged, and the Put goes ahead.
func (w *Worker) removeLeftovers(ctx context.Context, st Storage, key string) {
	lr, ok := st.(leftoverRemover)
	if !ok {
		return
	}
	if n, _ := asynq.GetRetryCount(ctx); n == 0 {
		return
	}
	n, err := lr.RemoveLeftovers(ctx, key)
	switch {
	case err != nil:
		w.logger(ctx).WarnContext(ctx, "leftover temporary files not removed", "key", key, "err", err)
	case n > 0:
		w.logger(ctx).InfoContext(ctx, "leftover temporary files removed", "key", key, "files", n)
	}
}

// sweepLeftovers removes, once at start, the temporary files dead writers left in
// every storage of the worker that keeps them (storage/leftovers.go says which are
// dead). done is closed when the sweep ends.
func (w *Worker) sweepLeftovers(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	sts := []Storage{w.deps.Storage}
	for _, st := range w.deps.Buckets {
		sts = append(sts, st)
	}
	for _, st := range sts {
		lr, ok := st.(leftoverRemover)
		if !ok {
			continue
		}
		start := time.Now()
		n, err := lr.SweepLeftovers(ctx)
		if err != nil {
			w.log.WarnContext(ctx, "leftover sweep failed", "err", err, "removed", n)
			continue
		}
		w.log.InfoContext(ctx, "leftover sweep done", "removed", n, "took", time.Since(start).Round(time.Millisecond))
	}
}

// Early recovery after a crash (jobs.RecoverLeaseExpired): a worker that starts,
// often the replacement of one that was killed, takes back the dead worker's tasks
// as soon as their lease has ended, checking every recoverEvery for recoverFor after
// its start, instead of leaving them to asynq's recoverer (60-120 s after the kill).
// Bounded to the first minutes so an idle fleet does not pay the polls for good.
const (
	recoverEvery = 10 * time.Second
	recoverFor   = 2 * time.Minute
)

// recoverEarly runs the passes; done is closed when they end or ctx ends.
func (w *Worker) recoverEarly(ctx context.Context, done chan<- struct{}) {
	defer close(done)
	queues := make([]string, 0, len(w.cfg.serveQueues()))
	for q := range w.cfg.serveQueues() {
		queues = append(queues, q)
	}
	t := time.NewTicker(recoverEvery)
	defer t.Stop()
	end := time.Now().Add(recoverFor)
	for {
		n, err := jobs.RecoverLeaseExpired(ctx, w.deps.Redis, w.cfg.KeyPrefix, queues...)
		switch {
		case err != nil && ctx.Err() == nil:
			w.log.WarnContext(ctx, "early recovery of a dead worker's tasks failed", "err", err)
		case n > 0:
			w.log.InfoContext(ctx, "tasks of a dead worker taken back", "tasks", n)
		}
		if time.Now().After(end) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
