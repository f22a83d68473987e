package worker

import (
	"context"
	"fmt"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
)

// handlePush creates, updates or deletes an order on the hub. The hub client makes
// a repeated push converge (409 on create -> update, 404 on update -> create, 404 on
// delete -> done), so at-least-once delivery is harmless; a version older than one
// already pushed, or any version of an order deleted on purpose, is skipped, so
// pushes that run out of order never leave stale data on the hub. A permanent 4xx
// ends the task with the hub's reason; a 429 waits Retry-After; anything transient
// retries with backoff.
func (w *Worker) handlePush(ctx context.Context, t *asynq.Task) error {
	p, err := jobs.Decode[jobs.OrderPush](t.Payload())
	if err != nil {
		return err
	}
	h, err := w.hubFor(p.Store)
	if err != nil {
		return err
	}
	updated := ""
	if p.Order != nil {
		if p.Op != jobs.OpDelete {
			if err := w.quantityError(p.Order); err != nil {
				return err
			}
		}
		updated = p.Order.Updated
		reason, err := w.state.PushStale(ctx, p.OrderKey, updated)
		if err != nil {
			return err
		}
		if reason != "" {
			markSkipped(ctx, reason)
			return nil
		}
	}
	// Every request of the push, the converging second one included, goes through
	// h's own calls and so takes a rate limit token.
	var r hub.PushResult
	switch p.Op {
	case jobs.OpCreate:
		r, err = h.PushOrderThrough(ctx, h, p.Order)
	case jobs.OpUpdate:
		r, err = h.PushOrderUpdateThrough(ctx, h, p.Order)
	case jobs.OpDelete:
		r, err = h.PushOrderDeleteThrough(ctx, h, p.OrderID, p.Domain)
	default:
		return fmt.Errorf("%w: push op %q", jobs.ErrPayload, p.Op)
	}
	if err != nil {
		return fmt.Errorf("%s order %s: %w", p.Op, p.OrderID, err)
	}
	// Recorded after the hub answered: a crash in between re-sends the same version,
	// which converges.
	if err := w.state.PushDone(ctx, p.OrderKey, p.Op, updated); err != nil {
		return err
	}
	res := describePush(r)
	w.logger(ctx).InfoContext(ctx, "order pushed", "result", res)
	writeResult(ctx, w.logger(ctx), t, []byte(res))
	return nil
}

// describePush says what a push did, for logs and the task's result.
func describePush(r hub.PushResult) string {
	switch {
	case r.Skipped:
		return "skipped: no customizations"
	case r.Converged:
		return r.Op + " (converged)"
	}
	return r.Op
}
