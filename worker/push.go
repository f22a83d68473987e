package worker

import (
	"context"
	"fmt"

	"github.com/hibiken/asynq"

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
	var res interface{ String() string }
	switch p.Op {
	case jobs.OpCreate:
		r, err := h.PushOrder(ctx, p.Order)
		if err != nil {
			return fmt.Errorf("push order %s: %w", p.OrderID, err)
		}
		res = pushResult(r.Op, r.Skipped, r.Converged)
	case jobs.OpUpdate:
		r, err := h.PushOrderUpdate(ctx, p.Order)
		if err != nil {
			return fmt.Errorf("push order %s update: %w", p.OrderID, err)
		}
		res = pushResult(r.Op, r.Skipped, r.Converged)
	case jobs.OpDelete:
		r, err := h.PushOrderDelete(ctx, p.OrderID, p.Domain)
		if err != nil {
			return fmt.Errorf("delete order %s: %w", p.OrderID, err)
		}
		res = pushResult(r.Op, r.Skipped, r.Converged)
	default:
		return fmt.Errorf("%w: push op %q", jobs.ErrPayload, p.Op)
	}
	// Recorded after the hub answered: a crash in between re-sends the same version,
	// which converges.
	if err := w.state.PushDone(ctx, p.OrderKey, p.Op, updated); err != nil {
		return err
	}
	w.logger(ctx).InfoContext(ctx, "order pushed", "result", res.String())
	writeResult(ctx, w.logger(ctx), t, []byte(res.String()))
	return nil
}

type pushOutcome struct {
	op                 string
	skipped, converged bool
}

func pushResult(op string, skipped, converged bool) pushOutcome {
	return pushOutcome{op: op, skipped: skipped, converged: converged}
}

func (p pushOutcome) String() string {
	switch {
	case p.skipped:
		return "skipped: no customizations"
	case p.converged:
		return p.op + " (converged)"
	}
	return p.op
}
