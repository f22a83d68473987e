package jobs

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/hibiken/asynq"
)

// TypeOrderFetch fetches an order from its store's API after a webhook that carries
// only the order's id (BigCommerce, Etsy), maps it and enqueues its push and exports.
const TypeOrderFetch = "order:fetch"

// Order fetch events: what the webhook said happened to the order.
const (
	// FetchOrder reads the order and acts on its state (paid, unpaid, cancelled).
	FetchOrder = "order"
	// FetchDelete removes the order without reading it (BigCommerce's
	// store/order/archived: the order is gone from the store's lists).
	FetchDelete = "delete"
)

// OrderFetch is one follow-up read of a store order. The credentials are the
// worker's own settings, never the payload's: a payload names the order only.
type OrderFetch struct {
	V int `json:"v"`
	// Platform is "bigcommerce" or "etsy".
	Platform string `json:"platform"`
	// Store is the hub store the order goes to.
	Store string `json:"store"`
	// Shop is the platform's store: the BigCommerce store hash, the Etsy shop id.
	Shop string `json:"shop"`
	// OrderID is the platform's order id (an Etsy receipt id).
	OrderID string `json:"orderId"`
	// Event is FetchOrder or FetchDelete.
	Event string `json:"event"`
	// Delivery identifies the notification (BigCommerce's payload hash, Etsy's
	// webhook-id, or the receipt's update time for a poll). It is part of the task
	// id: the same notification twice is one task, a later one a new task.
	Delivery string `json:"delivery"`
}

// FetchTaskID is one notification of one order.
func FetchTaskID(p OrderFetch) string {
	sum := sha256.Sum256([]byte(p.Event + "\x00" + p.Delivery))
	return "fetch:" + url.PathEscape(p.Platform) + ":" + url.PathEscape(p.Shop) + ":" + url.PathEscape(p.OrderID) + ":" + hex.EncodeToString(sum[:12])
}

// FetchOptions are the options of order fetches: the store's API may be down or
// rate limited for a long time, and the store will not send the webhook again (it
// was answered 200), so fetches retry for about as long as the stores retry
// webhooks (BigCommerce: 48 hours) at the worker's capped backoff.
func FetchOptions() TaskOptions {
	return TaskOptions{MaxRetry: 300, Timeout: 2 * time.Minute, Retention: 72 * time.Hour}
}

// NewOrderFetchTask builds an order fetch task.
func NewOrderFetchTask(p OrderFetch, o TaskOptions) (*asynq.Task, error) {
	p.V = PayloadVersion
	var errs []error
	if p.Platform == "" {
		errs = append(errs, errors.New("platform is empty"))
	}
	if p.Store == "" {
		errs = append(errs, errors.New("store is empty"))
	}
	if p.OrderID == "" {
		errs = append(errs, errors.New("order id is empty"))
	}
	if p.Event != FetchOrder && p.Event != FetchDelete {
		errs = append(errs, fmt.Errorf("event %q: want %s or %s", p.Event, FetchOrder, FetchDelete))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("jobs: fetch: %w", err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("jobs: fetch payload: %w", err)
	}
	return asynq.NewTask(TypeOrderFetch, b, o.asynq(QueueOrders, FetchTaskID(p))...), nil
}

// FetchOrder enqueues the follow-up read of a store order.
func (e *Enqueuer) FetchOrder(ctx context.Context, p OrderFetch) (Enqueued, error) {
	t, err := NewOrderFetchTask(p, FetchOptions())
	if err != nil {
		return Enqueued{}, err
	}
	return e.enqueue(ctx, t, FetchTaskID(p), QueueOrders)
}
