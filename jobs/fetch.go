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

// TypeOrderFetch fetches an order from its store's API and starts its work there:
// after a webhook that carries only the order's id (BigCommerce, Etsy, the Etsy
// poller), or one whose body lacks what the mapping needs (WooCommerce leaves meta
// keys starting with "_" out of webhook bodies). The intake answers the webhook at
// once; the API calls run in this task, away from the store's webhook timeout.
const TypeOrderFetch = "order:fetch"

// TypeStoreFetch is the type older versions enqueued WooCommerce fetches under
// (payload version 1 of their own layout). Nothing enqueues it any more; a worker
// still handles it with the order fetch's handler, DecodeOrderFetch reading the old
// payload into an OrderFetch, so tasks queued before an upgrade are not lost.
const TypeStoreFetch = "store:fetch"

// FetchPayloadVersion is the version order fetch payloads are written with.
// Version 2 added the WooCommerce fetch (TypeStoreFetch before) to TypeOrderFetch;
// version 1 payloads of either type are still read (DecodeOrderFetch).
const FetchPayloadVersion = 2

// Order fetch events: what the webhook said happened to the order.
const (
	// FetchOrder reads the order and acts on its state (paid, unpaid, cancelled),
	// or, for WooCommerce, on the webhook's topic and the order's status.
	FetchOrder = "order"
	// FetchDelete removes the order without reading it (BigCommerce's
	// store/order/archived: the order is gone from the store's lists).
	FetchDelete = "delete"
)

// OrderFetch is one follow-up read of a store order. The credentials are the
// worker's own settings, never the payload's: a payload names the order only.
type OrderFetch struct {
	V int `json:"v"`
	// Platform is "bigcommerce", "etsy" or "woocommerce".
	Platform string `json:"platform"`
	// Store is the hub store the order goes to.
	Store string `json:"store"`
	// Shop is the platform's store: the BigCommerce store hash, the Etsy shop id,
	// the WooCommerce site (host and path of X-WC-Webhook-Source; may be empty).
	// The fetch refuses a shop other than the worker's configured one.
	Shop string `json:"shop"`
	// OrderID is the platform's order id (an Etsy receipt id).
	OrderID string `json:"orderId"`
	// Event is FetchOrder or FetchDelete.
	Event string `json:"event"`
	// Delivery identifies the notification (BigCommerce's payload hash, Etsy's
	// webhook-id or the receipt's update time for a poll, WooCommerce's delivery
	// id). It is part of the task id: the same notification twice is one task, a
	// later one a new task.
	Delivery string `json:"delivery"`
	// WooCommerce holds what a WooCommerce fetch needs besides the order's id; nil
	// for the other platforms.
	WooCommerce *WooFetch `json:"woocommerce,omitempty"`
}

// WooFetch is the WooCommerce part of an order fetch: what the intake knew when the
// webhook came, which the mapping of the fetched order needs.
type WooFetch struct {
	// Domain is the order domain sent to the hub (the site's, as configured).
	Domain string `json:"domain"`
	// Topic is the webhook's topic, which decides the push op with the fetched
	// order's status.
	Topic string `json:"topic"`
	// DesignKey is the line item meta key holding the design reference.
	DesignKey string `json:"designKey"`
}

// FetchTaskID is one notification of one order. A WooCommerce fetch's topic, store
// and domain are part of it too: another topic of the same delivery is another read.
func FetchTaskID(p OrderFetch) string {
	id := p.Event + "\x00" + p.Delivery
	if w := p.WooCommerce; w != nil {
		id += "\x00" + w.Topic + "\x00" + p.Store + "\x00" + w.Domain
	}
	sum := sha256.Sum256([]byte(id))
	return "fetch:" + url.PathEscape(p.Platform) + ":" + url.PathEscape(p.Shop) + ":" + url.PathEscape(p.OrderID) + ":" + hex.EncodeToString(sum[:12])
}

// FetchOptions are the options of order fetches: the store's API may be down or
// rate limited for a long time, and the store will not send the webhook again (it
// was answered 200), so fetches retry for about as long as the stores retry
// webhooks (BigCommerce: 48 hours) at the worker's capped backoff.
func FetchOptions() TaskOptions {
	return TaskOptions{MaxRetry: 300, Timeout: 2 * time.Minute, Retention: 72 * time.Hour}
}

func (p OrderFetch) validate() error {
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
	if p.WooCommerce != nil && p.WooCommerce.Topic == "" {
		errs = append(errs, errors.New("woocommerce topic is empty"))
	}
	return errors.Join(errs...)
}

// NewOrderFetchTask builds an order fetch task.
func NewOrderFetchTask(p OrderFetch, o TaskOptions) (*asynq.Task, error) {
	p.V = FetchPayloadVersion
	if err := p.validate(); err != nil {
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

// storeFetchV1 is the payload of TypeStoreFetch, version 1.
type storeFetchV1 struct {
	OrderKey
	Platform  string `json:"platform"`
	Topic     string `json:"topic"`
	DesignKey string `json:"designKey"`
	Delivery  string `json:"delivery"`
	Site      string `json:"site"`
}

// DecodeOrderFetch reads the payload of a task of type typ: TypeOrderFetch of
// version 1 (BigCommerce and Etsy; the same fields) or 2, or TypeStoreFetch of
// version 1, which becomes the OrderFetch a version 2 intake enqueues. Anything else
// is an error wrapping ErrPayload.
func DecodeOrderFetch(typ string, b []byte) (OrderFetch, error) {
	var v struct {
		V *int `json:"v"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return OrderFetch{}, fmt.Errorf("%w: %v", ErrPayload, err)
	}
	if v.V == nil {
		return OrderFetch{}, fmt.Errorf("%w: no version field \"v\"", ErrPayload)
	}
	switch {
	case typ == TypeOrderFetch && (*v.V == 1 || *v.V == FetchPayloadVersion):
		var p OrderFetch
		if err := json.Unmarshal(b, &p); err != nil {
			return OrderFetch{}, fmt.Errorf("%w: %v", ErrPayload, err)
		}
		p.V = FetchPayloadVersion
		return p, nil
	case typ == TypeStoreFetch && *v.V == 1:
		var old storeFetchV1
		if err := json.Unmarshal(b, &old); err != nil {
			return OrderFetch{}, fmt.Errorf("%w: %v", ErrPayload, err)
		}
		return OrderFetch{V: FetchPayloadVersion, Platform: old.Platform, Store: old.Store, Shop: old.Site,
			OrderID: old.OrderID, Event: FetchOrder, Delivery: old.Delivery,
			WooCommerce: &WooFetch{Domain: old.Domain, Topic: old.Topic, DesignKey: old.DesignKey}}, nil
	case typ != TypeOrderFetch && typ != TypeStoreFetch:
		return OrderFetch{}, fmt.Errorf("%w: task type %q is not an order fetch", ErrPayload, typ)
	}
	return OrderFetch{}, fmt.Errorf("%w: %s version %d, this worker reads 1 and %d", ErrPayload, typ, *v.V, FetchPayloadVersion)
}
