package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/hibiken/asynq"
)

// TypeStoreFetch fetches an order from its store's REST API and starts its work
// there. A webhook whose body lacks what the mapping needs (WooCommerce leaves meta
// keys starting with "_" out of webhook bodies) is acknowledged at once and the
// order is read through the API in this task, away from the store's webhook
// timeout (docs/intake.md, "Hidden meta keys and the store fetch").
const TypeStoreFetch = "store:fetch"

// StoreFetch is one order to read from a store's API.
type StoreFetch struct {
	V int `json:"v"`
	OrderKey
	// Platform names the store's API ("woocommerce").
	Platform string `json:"platform"`
	// Topic is the webhook's topic, which decides the push op with the fetched
	// order's status.
	Topic string `json:"topic"`
	// DesignKey is the line item meta key holding the design reference, as the
	// intake was configured when the webhook came.
	DesignKey string `json:"designKey"`
	// Delivery is the webhook's delivery id (logs; part of the task id).
	Delivery string `json:"delivery,omitempty"`
	// Site is the store site the webhook came from (WooCommerce: host and path of
	// X-WC-Webhook-Source); the fetch refuses to read it from another site's API.
	Site string `json:"site,omitempty"`
}

// StoreFetchOptions: quick attempts retried for about a day (the backoff caps at
// minutes; a store's API can be down for maintenance), long retention so a webhook
// delivered again after the fetch finished is still one task.
func StoreFetchOptions() TaskOptions {
	return TaskOptions{MaxRetry: 25, Timeout: time.Minute, Retention: 72 * time.Hour}
}

// StoreFetchTaskID is one webhook delivery of one order: a redelivery of the same
// delivery is one fetch; another event of the order is another fetch (it reads
// the order as it is then).
func StoreFetchTaskID(p StoreFetch) string {
	return "fetch:" + url.PathEscape(p.Platform) + ":" + p.OrderKey.String() + ":" + url.PathEscape(p.Topic) + ":" + url.PathEscape(p.Delivery)
}

// NewStoreFetchTask builds a store fetch task with its options.
func NewStoreFetchTask(p StoreFetch, o TaskOptions) (*asynq.Task, error) {
	p.V = PayloadVersion
	if err := p.OrderKey.validate(); err != nil {
		return nil, fmt.Errorf("jobs: fetch: %w", err)
	}
	if p.Platform == "" || p.Topic == "" {
		return nil, errors.New("jobs: fetch: platform and topic are needed")
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("jobs: fetch payload: %w", err)
	}
	return asynq.NewTask(TypeStoreFetch, b, o.asynq(QueueOrders, StoreFetchTaskID(p))...), nil
}

// FetchStoreOrder enqueues the fetch of an order from its store's API (TypeStoreFetch).
func (e *Enqueuer) FetchStoreOrder(ctx context.Context, p StoreFetch) (Enqueued, error) {
	t, err := NewStoreFetchTask(p, StoreFetchOptions())
	if err != nil {
		return Enqueued{}, err
	}
	return e.enqueue(ctx, t, StoreFetchTaskID(p), QueueOrders)
}
