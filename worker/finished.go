package worker

import (
	"context"
	"log/slog"

	"github.com/hibiken/asynq"
)

// expireFinished gives a task that ends well its record's expiry before asynq marks
// it completed (jobs.Enqueuer.ExpireFinished), so that no finished task stays in
// Redis for good when no worker's janitor runs. Best effort: a failure is logged,
// and the janitor still deletes the record while workers run.
func (w *Worker) expireFinished(ctx context.Context, typ, id string, log *slog.Logger) {
	queue, ok := asynq.GetQueueName(ctx)
	if !ok || id == "" {
		return
	}
	// The attempt's own context may have ended with its work done.
	if err := w.enq.ExpireFinished(context.WithoutCancel(ctx), queue, id, typ); err != nil {
		log.WarnContext(ctx, "finished task keeps no expiry", "err", err)
	}
}
