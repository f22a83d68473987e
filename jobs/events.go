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

// Event task types and their queue. Events have their own queue so a slow or
// unreachable receiver never holds up exports.
const (
	TypeEventPublish = "event:publish"
	TypeEventDeliver = "event:deliver"
	QueueEvents      = "events"
)

// Event types, as sent in the body's "type".
const (
	EventFilesReady     = "order.files_ready"
	EventOrderCancelled = "order.cancelled"
	EventJobFailed      = "job.failed"
)

// EventPublish is one event to send to every endpoint configured for its store. The
// worker turns it into one EventDeliver per endpoint, so each endpoint retries on its
// own and an endpoint that fails never delays another.
type EventPublish struct {
	V int `json:"v"`
	// ID is the event's webhook-id: derived from the event's business identity, so
	// the same event raised twice (a re-run completion) is one event.
	ID   string    `json:"id"`
	Type string    `json:"type"`
	At   time.Time `json:"at"`
	OrderKey
	// Data holds the type's own fields (files, warnings, error), merged into the
	// body's data by the publisher.
	Data json.RawMessage `json:"data,omitempty"`
}

// EventDeliver is one event to one endpoint. Body is the exact signed body; the
// endpoint's URL and secret are looked up by Endpoint (an id derived from the URL)
// in the worker's configuration, so no secret is ever stored in Redis.
type EventDeliver struct {
	V        int    `json:"v"`
	ID       string `json:"id"`
	Store    string `json:"store"`
	Endpoint string `json:"endpoint"`
	Body     []byte `json:"body"`
}

// EventID is the webhook-id of an event of typ about order k; disc tells apart
// events of one type about one order (a revision, a generation, a task id).
func EventID(typ string, k OrderKey, disc string) string {
	sum := sha256.Sum256([]byte(typ + "\x00" + k.String() + "\x00" + disc))
	return "msg_" + hex.EncodeToString(sum[:16])
}

// EventOptions are the options of event tasks. The retry bound that matters is the
// worker's retry window of deliveries (events.Config.RetryFor); MaxRetry is only a
// backstop.
func EventOptions() TaskOptions {
	return TaskOptions{MaxRetry: 200, Timeout: time.Minute, Retention: 72 * time.Hour}
}

// NewEventPublishTask builds an event publish task.
func NewEventPublishTask(p EventPublish) (*asynq.Task, error) {
	p.V = PayloadVersion
	if p.ID == "" || p.Type == "" {
		return nil, errors.New("jobs: event: id and type are required")
	}
	if err := p.OrderKey.validate(); err != nil {
		return nil, fmt.Errorf("jobs: event: %w", err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("jobs: event payload: %w", err)
	}
	return asynq.NewTask(TypeEventPublish, b, EventOptions().asynq(QueueEvents, "event:"+p.ID)...), nil
}

// NewEventDeliverTask builds the delivery of one event to one endpoint.
func NewEventDeliverTask(p EventDeliver) (*asynq.Task, error) {
	p.V = PayloadVersion
	if p.ID == "" || p.Endpoint == "" || len(p.Body) == 0 {
		return nil, errors.New("jobs: event delivery: id, endpoint and body are required")
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("jobs: event delivery payload: %w", err)
	}
	id := "event:" + p.ID + ":" + url.PathEscape(p.Endpoint)
	return asynq.NewTask(TypeEventDeliver, b, EventOptions().asynq(QueueEvents, id)...), nil
}

// PublishEvent enqueues an event; the same event twice is one task.
func (e *Enqueuer) PublishEvent(ctx context.Context, p EventPublish) (Enqueued, error) {
	t, err := NewEventPublishTask(p)
	if err != nil {
		return Enqueued{}, err
	}
	return e.enqueue(ctx, t, "event:"+p.ID, QueueEvents)
}

// DeliverEvent enqueues the delivery of an event to one endpoint.
func (e *Enqueuer) DeliverEvent(ctx context.Context, p EventDeliver) (Enqueued, error) {
	t, err := NewEventDeliverTask(p)
	if err != nil {
		return Enqueued{}, err
	}
	return e.enqueue(ctx, t, "event:"+p.ID+":"+url.PathEscape(p.Endpoint), QueueEvents)
}

// publishCancelled raises the order.cancelled event. A failure is logged, not
// returned: the cancellation itself succeeded and must not be repeated for it.
func (e *Enqueuer) publishCancelled(ctx context.Context, k OrderKey, gen int64) {
	p := EventPublish{ID: EventID(EventOrderCancelled, k, fmt.Sprint(gen)), Type: EventOrderCancelled, At: time.Now().UTC(), OrderKey: k}
	if _, err := e.PublishEvent(ctx, p); err != nil {
		e.log.WarnContext(ctx, "order cancelled event not enqueued", "order", k.String(), "err", err)
	}
}
