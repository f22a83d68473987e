package intake

import (
	"context"
	"time"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

// Store order (docs/intake.md, "Store order"): every delivery carries the store's
// modification stamp of the order (Shopify updated_at, WooCommerce
// date_modified_gmt, BigCommerce date_modified of the fetched order, Etsy
// update_timestamp, Wix updatedDate), which the mappings put in the hub order's
// `updated`. Before any work is enqueued the stamp is compared with the newest one
// applied to the order and recorded; an older delivery is dropped (answered 2xx,
// never retried) and a late update never brings back a cancelled or deleted order.

// orderStamper is the optional part of an Enqueuer that keeps each order's newest
// applied stamp (JobsEnqueuer, in the order's state in Redis). Without it deliveries
// apply in arrival order.
type orderStamper interface {
	ApplyStamp(ctx context.Context, store string, o *model.Order, stamp time.Time, mode jobs.StampMode, ttl time.Duration) (jobs.StampVerdict, error)
	// Stamp reads the order's recorded stamp (zero: none) without changing it.
	Stamp(ctx context.Context, store string, o *model.Order) (time.Time, bool, error)
}

func (a jobsEnqueuer) Stamp(ctx context.Context, store string, o *model.Order) (time.Time, bool, error) {
	return a.e.State().Stamp(ctx, jobs.OrderKey{Store: store, Domain: o.Domain, OrderID: o.OrderID})
}

func (a jobsEnqueuer) ApplyStamp(ctx context.Context, store string, o *model.Order, stamp time.Time, mode jobs.StampMode, ttl time.Duration) (jobs.StampVerdict, error) {
	return a.e.State().ApplyStamp(ctx, jobs.OrderKey{Store: store, Domain: o.Domain, OrderID: o.OrderID}, stamp, mode, ttl)
}

// stampOf is the store's modification stamp of a mapped order: its `updated` in the
// hub's strict form (RFC 3339 read too); zero when it has none.
func stampOf(o *model.Order) time.Time {
	if o == nil || o.Updated == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, o.Updated)
	if err != nil {
		return time.Time{}
	}
	return t
}

// stampMode is what a plan does to its order's stamp: a stop (cancel, delete) leaves
// a tombstone, a restore lifts one, the rest is a live update.
func stampMode(p plan) jobs.StampMode {
	switch {
	case p.restore:
		return jobs.StampRestore
	case p.stop:
		return jobs.StampGone
	}
	return jobs.StampLive
}

// applyOrderStamp compares and records the stamp of a delivery about to run plan p
// for order o. stamp zero takes o's own; a cancel or delete without one (Shopify
// orders/delete, WooCommerce order.deleted, BigCommerce archived carry none) is
// stamped now, when it was received: a late update was modified before it. A live
// update without any stamp cannot be ordered and is applied. It reports whether the
// delivery is stale (and the verdict, for the log).
func applyOrderStamp(ctx context.Context, enq Enqueuer, store string, o *model.Order, stamp time.Time, p plan, now time.Time, ttl time.Duration) (bool, jobs.StampVerdict, error) {
	st, ok := enq.(orderStamper)
	if !ok || p.fetch != nil || o == nil {
		return false, jobs.StampVerdict{Applied: true}, nil
	}
	if stamp.IsZero() {
		stamp = stampOf(o)
	}
	mode := stampMode(p)
	if stamp.IsZero() {
		if mode == jobs.StampLive {
			return false, jobs.StampVerdict{Applied: true}, nil
		}
		stamp = now
	}
	v, err := st.ApplyStamp(ctx, store, o, stamp, mode, ttl)
	if err != nil {
		return false, v, err
	}
	return !v.Applied, v, nil
}

// staleReason says why a delivery was dropped.
func staleReason(v jobs.StampVerdict) string {
	at := v.Current.Format(time.RFC3339)
	if v.Tombstone {
		return "older than the order's cancellation or deletion (" + at + "): dropped"
	}
	return "older than the version applied (" + at + "): dropped"
}
