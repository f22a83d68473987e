package events

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"
	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
)

// Enqueuer is what the publisher needs to fan an event out into deliveries
// (*jobs.Enqueuer).
type Enqueuer interface {
	DeliverEvent(ctx context.Context, p jobs.EventDeliver) (jobs.Enqueued, error)
}

// Publisher handles the event tasks: publish (fan out to the store's endpoints) and
// deliver (sign and POST to one endpoint).
type Publisher struct {
	cfg    Config
	keys   map[string][]byte   // signing keys by endpoint id
	eps    map[string]Endpoint // by endpoint id
	rdb    redis.UniversalClient
	prefix string
	enq    Enqueuer
	now    func() time.Time
}

// NewPublisher checks cfg and returns a publisher; keyPrefix prefixes its Redis keys
// (the gone marks of endpoints that answered 410).
func NewPublisher(cfg Config, rdb redis.UniversalClient, keyPrefix string, enq Enqueuer) (*Publisher, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	p := &Publisher{cfg: cfg, keys: map[string][]byte{}, eps: map[string]Endpoint{},
		rdb: rdb, prefix: keyPrefix, enq: enq, now: time.Now}
	add := func(e Endpoint) {
		key, _ := DecodeSecret(e.Secret) // checked by Validate
		p.keys[e.ID()], p.eps[e.ID()] = key, e
	}
	for _, e := range cfg.Default {
		add(e)
	}
	for _, eps := range cfg.Stores {
		for _, e := range eps {
			add(e)
		}
	}
	return p, nil
}

// Body is the JSON body of every event, as Standard Webhooks recommends: a type, the
// time the event happened, and the event's data.
type Body struct {
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// BuildBody is the body of an event: its Data object with the order's store, domain
// and id added. Keys come out sorted, so the same event gives the same bytes.
func BuildBody(p jobs.EventPublish) ([]byte, error) {
	data := map[string]json.RawMessage{}
	if len(p.Data) > 0 {
		if err := json.Unmarshal(p.Data, &data); err != nil {
			return nil, fmt.Errorf("event %s data: %w", p.ID, err)
		}
	}
	for k, v := range map[string]string{"store": p.Store, "domain": p.Domain, "orderId": p.OrderID} {
		data[k], _ = json.Marshal(v)
	}
	d, err := json.Marshal(data)
	if err != nil {
		return nil, err
	}
	return json.Marshal(Body{Type: p.Type, Timestamp: p.At.UTC().Format(time.RFC3339Nano), Data: d})
}

// HandlePublish fans an event out: one delivery task per endpoint of its store, each
// with the same body and webhook-id. A store without endpoints has nothing to do.
func (p *Publisher) HandlePublish(ctx context.Context, t *asynq.Task) error {
	ev, err := jobs.Decode[jobs.EventPublish](t.Payload())
	if err != nil {
		return err
	}
	eps := p.cfg.endpointsFor(ev.Store)
	if len(eps) == 0 {
		p.cfg.Logger.DebugContext(ctx, "event has no endpoint", "event", ev.ID, "type", ev.Type, "store", ev.Store)
		return nil
	}
	body, err := BuildBody(ev)
	if err != nil {
		return fmt.Errorf("%w: %v", jobs.ErrPayload, err)
	}
	var errs []error
	for _, e := range eps {
		if _, err := p.enq.DeliverEvent(ctx, jobs.EventDeliver{ID: ev.ID, Store: ev.Store, Endpoint: e.ID(), Body: body}); err != nil {
			errs = append(errs, fmt.Errorf("endpoint %s: %w", e.Redacted(), err))
		}
	}
	// A retry re-enqueues every delivery; those already enqueued are duplicates by
	// task id, so no endpoint gets the event twice from this.
	return errors.Join(errs...)
}

// HandleDeliver signs and sends one event to one endpoint.
func (p *Publisher) HandleDeliver(ctx context.Context, t *asynq.Task) error {
	d, err := jobs.Decode[jobs.EventDeliver](t.Payload())
	if err != nil {
		return err
	}
	e, ok := p.eps[d.Endpoint]
	if !ok {
		p.cfg.Logger.WarnContext(ctx, "event endpoint no longer configured, delivery dropped", "event", d.ID, "endpoint", d.Endpoint, "store", d.Store)
		return nil
	}
	log := p.cfg.Logger.With("event", d.ID, "endpoint", e.Redacted(), "store", d.Store)
	gone, err := p.rdb.Exists(ctx, p.goneKey(d.Store, d.Endpoint)).Result()
	if err != nil {
		return fmt.Errorf("event %s: check endpoint state: %w", d.ID, err)
	}
	if gone > 0 {
		log.WarnContext(ctx, "event not delivered: endpoint answered 410 Gone before, deliveries to it are stopped")
		return nil
	}
	err = p.send(ctx, e, d)
	var de *DeliveryError
	switch {
	case err == nil:
		log.InfoContext(ctx, "event delivered")
		return nil
	case errors.As(err, &de) && de.Status == http.StatusGone:
		if err := p.rdb.Set(ctx, p.goneKey(d.Store, d.Endpoint), p.now().UTC().Format(time.RFC3339), GoneFor).Err(); err != nil {
			return fmt.Errorf("event %s: record endpoint gone: %w", d.ID, err)
		}
		log.WarnContext(ctx, "endpoint answered 410 Gone: its deliveries are stopped")
		return fmt.Errorf("%w; deliveries to this endpoint are stopped: %w", err, asynq.SkipRetry)
	}
	return err
}

// GoneFor is how long deliveries to an endpoint stay stopped after it answered 410
// Gone. An operator resumes them sooner by deleting the mark or changing the
// endpoint's URL; after GoneFor one delivery tries again, and a second 410 stops the
// endpoint for another GoneFor. The mark expires so that Redis keeps nothing forever
// for stores and endpoints long gone.
const GoneFor = 30 * 24 * time.Hour

// goneKey marks an endpoint that answered 410 for a store, for GoneFor.
func (p *Publisher) goneKey(store, endpoint string) string {
	return p.prefix + ":events:gone:" + store + ":" + endpoint
}

// DeliveryError is a receiver's non-2xx answer or a failed request. Every such
// failure is retried (a 4xx is often a receiver being deployed or a secret being
// rotated) except 410 Gone.
type DeliveryError struct {
	Endpoint string // redacted URL
	Status   int    // 0: no answer
	Reason   string // the status line and a body excerpt, or the network error
}

func (e *DeliveryError) Error() string {
	return fmt.Sprintf("event delivery to %s: %s", e.Endpoint, e.Reason)
}

// Retryable is false only for 410 Gone.
func (e *DeliveryError) Retryable() bool { return e.Status != http.StatusGone }

// send makes one attempt. The timestamp is the attempt's own (receivers reject
// timestamps older than 5 minutes), the webhook-id the event's (receivers
// deduplicate by it).
func (p *Publisher) send(ctx context.Context, e Endpoint, d jobs.EventDeliver) error {
	ts := p.now()
	sig, err := Sign(p.keys[d.Endpoint], d.ID, ts, d.Body)
	if err != nil {
		return fmt.Errorf("sign event %s: %w", d.ID, err)
	}
	ctx, cancel := context.WithTimeout(ctx, p.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(d.Body))
	if err != nil {
		return &DeliveryError{Endpoint: e.Redacted(), Reason: "bad request: " + err.Error()}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "printworker-events")
	req.Header.Set(standardwebhooks.HeaderWebhookID, d.ID)
	req.Header.Set(standardwebhooks.HeaderWebhookTimestamp, strconv.FormatInt(ts.Unix(), 10))
	req.Header.Set(standardwebhooks.HeaderWebhookSignature, sig)
	resp, err := p.cfg.HTTPClient.Do(req)
	if err != nil {
		// The url.Error names the full URL (its query may hold a token): keep only
		// the cause.
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) && ue.Unwrap() != nil {
			err = ue.Unwrap()
		}
		return &DeliveryError{Endpoint: e.Redacted(), Reason: "no answer: " + err.Error()}
	}
	defer resp.Body.Close()
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // reuse the connection
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return nil
	}
	// The status code and its text, never the receiver's status line or body as sent:
	// only a short printable reason from it (hub.Reason).
	reason := fmt.Sprintf("%d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	if r := hub.Reason(excerpt); r != "" {
		reason += ": " + strconv.Quote(r)
	}
	return &DeliveryError{Endpoint: e.Redacted(), Status: resp.StatusCode, Reason: reason}
}
