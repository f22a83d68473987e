package intake

import (
	"context"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

// JobsEnqueuer adapts a *jobs.Enqueuer (asynq on Redis) to the intake's Enqueuer.
func JobsEnqueuer(e *jobs.Enqueuer) Enqueuer { return jobsEnqueuer{e} }

type jobsEnqueuer struct{ e *jobs.Enqueuer }

func (a jobsEnqueuer) PushOrder(ctx context.Context, store, op string, o *model.Order) error {
	_, err := a.e.PushOrder(ctx, store, op, o)
	return err
}

func (a jobsEnqueuer) ExportOrder(ctx context.Context, store string, o *model.Order) error {
	_, err := a.e.ExportOrder(ctx, store, o)
	return err
}

func (a jobsEnqueuer) CancelOrder(ctx context.Context, store string, o *model.Order) error {
	_, err := a.e.CancelOrder(ctx, jobs.OrderKey{Store: store, Domain: o.Domain, OrderID: o.OrderID})
	return err
}

func (a jobsEnqueuer) RestoreOrder(ctx context.Context, store string, o *model.Order) error {
	return a.e.RestoreOrder(ctx, jobs.OrderKey{Store: store, Domain: o.Domain, OrderID: o.OrderID})
}
