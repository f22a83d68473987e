// Package intake receives store webhooks and turns them into durable jobs.
//
// Endpoints accept orders: POST /webhooks/shopify (Shopify's order webhooks, signed
// with X-Shopify-Hmac-Sha256), POST /webhooks/woocommerce (X-WC-Webhook-Signature),
// POST /webhooks/wix (a JWT signed by Wix) and POST /webhooks/orders (hub-shaped
// orders from any store, signed with X-Printworker-Signature). Each request is
// verified before its body is parsed, mapped to the hub order of spec 2.1,
// deduplicated, enqueued, and answered within the enqueue timeout: nothing slow (hub
// calls, exports, store API reads) happens inline. The headers, the signature schemes
// and the mappings are documented in docs/intake.md.
package intake

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

// Order push operations, as the enqueuer takes them.
const (
	OpCreate = "create"
	OpUpdate = "update"
	OpDelete = "delete"
)

// Enqueuer starts the work for an order. A *jobs.Enqueuer provides it through
// JobsEnqueuer; each call must be durable when it returns nil, and enqueuing the same
// work twice must be harmless.
type Enqueuer interface {
	// PushOrder enqueues a create, update or delete of the order on the hub. For a
	// delete only OrderID and Domain are set.
	PushOrder(ctx context.Context, store, op string, o *model.Order) error
	// ExportOrder enqueues the export of every design of the order.
	ExportOrder(ctx context.Context, store string, o *model.Order) error
	// CancelOrder stops the order's pending exports (cancelled or deleted orders).
	CancelOrder(ctx context.Context, store string, o *model.Order) error
}

// Deliveries remembers webhooks already taken in, so a duplicate delivery enqueues
// nothing new even after its jobs have finished and left the queue.
type Deliveries interface {
	// Claim records key for ttl; it reports false when key was already recorded.
	Claim(ctx context.Context, key string, ttl time.Duration) (bool, error)
	// Release forgets key, so a delivery whose enqueue failed can be retried.
	Release(ctx context.Context, key string) error
}

// Server is the intake HTTP server's handler set.
type Server struct {
	cfg        Config
	enq        Enqueuer
	deliveries Deliveries
	ready      func(context.Context) error
	log        *slog.Logger
	now        func() time.Time
	reg        *prometheus.Registry
	m          metrics
	tp         trace.TracerProvider
	prop       propagation.TextMapPropagator
}

// Option adjusts a Server.
type Option func(*Server)

// WithClock sets the clock used to check signature timestamps (tests).
func WithClock(now func() time.Time) Option { return func(s *Server) { s.now = now } }

// WithLogger sets the logger (default slog.Default()).
func WithLogger(l *slog.Logger) Option { return func(s *Server) { s.log = l } }

// WithTracing records a server span per webhook request with tp, continuing a
// trace context the caller sent (W3C traceparent, read by prop). The enqueuer sees
// the span in its ctx, so a *jobs.Enqueuer with a propagator carries the trace into
// the tasks. Default: no spans.
func WithTracing(tp trace.TracerProvider, prop propagation.TextMapPropagator) Option {
	return func(s *Server) { s.tp, s.prop = tp, prop }
}

// New builds the intake. ready reports whether the queue's Redis is reachable
// (/readyz); deliveries may be nil, leaving duplicate detection to the job ids alone.
func New(cfg Config, enq Enqueuer, deliveries Deliveries, ready func(context.Context) error, opts ...Option) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if enq == nil {
		return nil, errors.New("intake: no enqueuer")
	}
	if ready == nil {
		ready = func(context.Context) error { return nil }
	}
	// Shop domains arrive lowercase from Shopify; match them however configured.
	cfg.Shopify.Stores = lowerKeys(cfg.Shopify.Stores)
	cfg.Shopify.Domains = lowerKeys(cfg.Shopify.Domains)
	cfg.WooCommerce.Stores = wooSiteKeys(cfg.WooCommerce.Stores)
	cfg.WooCommerce.Domains = wooSiteKeys(cfg.WooCommerce.Domains)
	cfg.Shopify.ShopSecrets = lowerKeysList(cfg.Shopify.ShopSecrets)
	cfg.WooCommerce.SiteSecrets = siteKeysList(cfg.WooCommerce.SiteSecrets)
	if _, ok := enq.(FetchEnqueuer); len(cfg.WooCommerce.allSecrets()) > 0 && cfg.WooCommerce.Hidden() && !ok {
		return nil, errors.New("intake: the woocommerce design meta key is hidden (starts with _): the enqueuer must enqueue order fetches")
	}
	s := &Server{cfg: cfg, enq: enq, deliveries: deliveries, ready: ready, log: slog.Default(), now: time.Now}
	for _, o := range opts {
		o(s)
	}
	s.reg = prometheus.NewRegistry()
	s.reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	s.m = newMetrics(s.reg)
	return s, nil
}

// Registry is the server's own Prometheus registry (served at /metrics).
func (s *Server) Registry() *prometheus.Registry { return s.reg }

// Handler routes the intake's endpoints.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("POST /webhooks/shopify", s.traced("POST /webhooks/shopify", s.instrument(endpointShopify, s.handleShopify)))
	mux.Handle("POST /webhooks/orders", s.traced("POST /webhooks/orders", s.instrument(endpointOrders, s.handleOrders)))
	mux.Handle("POST /webhooks/bigcommerce", s.traced("POST /webhooks/bigcommerce", s.instrument(endpointBigCommerce, s.handleBigCommerce)))
	mux.Handle("POST /webhooks/etsy", s.traced("POST /webhooks/etsy", s.instrument(endpointEtsy, s.handleEtsy)))
	mux.Handle("POST /webhooks/woocommerce", s.traced("POST /webhooks/woocommerce", s.instrument(endpointWooCommerce, s.handleWooCommerce)))
	mux.Handle("POST /webhooks/wix", s.traced("POST /webhooks/wix", s.instrument(endpointWix, s.handleWix)))
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", s.handleReady)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{Registry: s.reg}))
	return mux
}

// traced wraps a webhook endpoint in a server span named after its route. Probes
// and /metrics are not traced: they would drown the webhooks.
func (s *Server) traced(route string, h http.Handler) http.Handler {
	if s.tp == nil {
		return h
	}
	prop := s.prop
	if prop == nil {
		prop = propagation.NewCompositeTextMapPropagator()
	}
	return otelhttp.NewHandler(h, route, otelhttp.WithTracerProvider(s.tp), otelhttp.WithPropagators(prop),
		// The route's own metrics are Prometheus's; OpenTelemetry records spans only.
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()))
}

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.ready(ctx); err != nil {
		writeJSON(w, http.StatusServiceUnavailable, map[string]string{"status": "unavailable", "error": err.Error()})
		return
	}
	writeJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// event is one verified, decoded webhook, whichever endpoint it came through.
type event struct {
	endpoint string
	topic    string
	store    string
	// shop, when set, scopes the delivery id: a platform numbering its deliveries
	// per site (WooCommerce) gives two sites the same ids.
	shop       string
	order      *model.Order
	deliveryID string
	// plan, when planned, is what the event asks for, decided by the endpoint from
	// the order's state (WooCommerce, Wix) rather than from the topic.
	plan    plan
	planned bool
	// stamp is the store's modification stamp when the order cannot carry it (a
	// bare delete); zero: the order's own `updated` (storeorder.go).
	stamp time.Time
}

// result is what the intake answers for an event.
type result struct {
	Status string   `json:"status"`
	Reason string   `json:"reason,omitempty"`
	Topic  string   `json:"topic,omitempty"`
	Store  string   `json:"store,omitempty"`
	Order  string   `json:"order,omitempty"`
	Jobs   []string `json:"jobs,omitempty"`
}

// Outcomes, the metric label values and response statuses.
const (
	outcomeEnqueued       = "enqueued"
	outcomeSkipped        = "skipped"
	outcomeDuplicate      = "duplicate"
	outcomeIgnored        = "ignored"
	outcomeUnauthorized   = "unauthorized"
	outcomeBadRequest     = "bad_request"
	outcomeTooLarge       = "too_large"
	outcomeHeaderTooLarge = "header_too_large"
	outcomeUnprocessable  = "unprocessable"
	outcomeTooManyLines   = "too_many_lines"
	outcomeUnavailable    = "unavailable"
	// outcomeStale: older than the order's version applied already (store order).
	outcomeStale = "stale"
	// outcomeTestOrder: a store's test order, not exported without --print-test-orders.
	outcomeTestOrder = "test_order"
	// outcomeAcknowledged: an event taken and recorded that asks for no work
	// (Etsy order.shipped).
	outcomeAcknowledged = "acknowledged"
)

// plan lists what a topic asks for: the push op ("" for none), and whether the
// exports start or stop.
type plan struct {
	push         string
	export, stop bool
	// fetch, when set, is all there is to do: read the order from the store's API
	// in a task, which decides the rest.
	fetch *jobs.OrderFetch
	// restore lifts an earlier deletion first (the store brought the order back).
	restore bool
}

func (s *Server) planFor(topic string) (plan, bool) {
	var p plan
	switch topic {
	case TopicCreate:
		p.push = OpCreate
	case TopicUpdated, TopicPaid:
		p.push = OpUpdate
	case TopicCancelled:
		// The order still exists, cancelled: its data is updated and its pending
		// exports stop.
		p.push, p.stop = OpUpdate, true
	case TopicDelete:
		p.push, p.stop = OpDelete, true
	default:
		return p, false
	}
	p.export = topic == s.cfg.ProductionTopic
	return p, true
}

// process dedupes and enqueues a verified event. It returns the HTTP status and body.
func (s *Server) process(ctx context.Context, ev event) (int, result) {
	res := result{Topic: ev.topic, Store: ev.store, Order: ev.order.OrderID}
	p, ok := ev.plan, ev.planned
	if !ok {
		p, ok = s.planFor(ev.topic)
	}
	if !ok {
		res.Status, res.Reason = outcomeIgnored, "topic not handled"
		return http.StatusOK, res
	}
	if p.fetch == nil && p.push != OpDelete && !hub.HasCustomizations(ev.order) {
		// The hub only takes orders with customizations (spec 1.3).
		res.Status, res.Reason = outcomeSkipped, "no customizations"
		return http.StatusOK, res
	}
	if n := len(ev.order.LineItems); p.push != OpDelete && n > s.cfg.MaxLines {
		// Refused whole: printing some of an order's lines is worse than none.
		return s.refuseWhole(ctx, ev, res, outcomeTooManyLines,
			fmt.Sprintf("%d personalized lines, more than the limit of %d: nothing enqueued", n, s.cfg.MaxLines))
	}
	if reason := jobs.QuantityRefusal(ev.order, s.cfg.MaxQuantity); p.push != OpDelete && reason != "" {
		return s.refuseWhole(ctx, ev, res, outcomeQuantityTooLarge, reason+": nothing enqueued")
	}

	ctx, cancel := context.WithTimeout(ctx, s.cfg.EnqueueTimeout)
	defer cancel()

	claimed, dup, err := s.claim(ctx, ev)
	if err != nil {
		s.log.ErrorContext(ctx, "intake: duplicate check failed", "err", err, "order", ev.order.OrderID)
		res.Status, res.Reason = outcomeUnavailable, "queue unavailable, retry later"
		return http.StatusServiceUnavailable, res
	}
	if dup {
		res.Status, res.Reason = outcomeDuplicate, "already received"
		return http.StatusOK, res
	}
	stale, v, err := applyOrderStamp(ctx, s.enq, ev.store, ev.order, ev.stamp, p, s.now(), s.cfg.DeliveryTTL)
	if err != nil {
		s.release(ev, claimed)
		s.log.ErrorContext(ctx, "intake: store order check failed", "err", err, "order", ev.order.OrderID)
		res.Status, res.Reason = outcomeUnavailable, "queue unavailable, retry later"
		return http.StatusServiceUnavailable, res
	}
	if stale {
		// Kept claimed: the same delivery again is a duplicate of this drop.
		res.Status, res.Reason = outcomeStale, staleReason(v)
		s.log.WarnContext(ctx, "intake: stale delivery dropped", "reason", res.Reason, "endpoint", ev.endpoint,
			"topic", ev.topic, "store", ev.store, "domain", ev.order.Domain, "order", ev.order.OrderID, "updated", ev.order.Updated)
		return http.StatusOK, res
	}

	jobs, err := s.enqueue(ctx, ev, p)
	if err != nil {
		s.release(ev, claimed)
		var rc interface{ Retryable() bool }
		if errors.As(err, &rc) && !rc.Retryable() {
			s.log.WarnContext(ctx, "intake: order refused", "err", err, "order", ev.order.OrderID, "store", ev.store)
			res.Status, res.Reason = outcomeUnprocessable, err.Error()
			return http.StatusUnprocessableEntity, res
		}
		s.log.ErrorContext(ctx, "intake: enqueue failed", "err", err, "order", ev.order.OrderID, "store", ev.store)
		res.Status, res.Reason = outcomeUnavailable, "queue unavailable, retry later"
		return http.StatusServiceUnavailable, res
	}
	for _, j := range jobs {
		s.m.jobs.WithLabelValues(j).Inc()
	}
	s.log.InfoContext(ctx, "intake: order enqueued", "endpoint", ev.endpoint, "topic", ev.topic,
		"store", ev.store, "domain", ev.order.Domain, "order", ev.order.OrderID, "jobs", jobs)
	res.Status, res.Jobs = outcomeEnqueued, jobs
	return http.StatusOK, res
}

// enqueue runs the plan: stop pending exports first (so a delete never races a
// fresh export), then the push, then the exports.
func (s *Server) enqueue(ctx context.Context, ev event, p plan) ([]string, error) {
	return runPlan(ctx, s.enq, ev.store, ev.order, p)
}

// runPlan enqueues a plan's work for order o of store (the intake's and the store
// fetch task's shared last step).
func runPlan(ctx context.Context, enq Enqueuer, store string, o *model.Order, p plan) ([]string, error) {
	var jobs []string
	if p.fetch != nil {
		f, ok := enq.(FetchEnqueuer)
		if !ok {
			return nil, errors.New("fetch: the enqueuer cannot enqueue order fetches")
		}
		if err := f.FetchOrder(ctx, *p.fetch); err != nil {
			return nil, fmt.Errorf("fetch: %w", err)
		}
		return []string{"fetch"}, nil
	}
	if r, ok := enq.(orderRestorer); ok && p.restore {
		if err := r.RestoreOrder(ctx, store, o); err != nil {
			return jobs, fmt.Errorf("restore: %w", err)
		}
		jobs = append(jobs, "restore")
	}
	if p.stop {
		if err := enq.CancelOrder(ctx, store, o); err != nil {
			return jobs, fmt.Errorf("cancel exports: %w", err)
		}
		jobs = append(jobs, "cancel")
	}
	if p.push != "" {
		if err := enq.PushOrder(ctx, store, p.push, o); err != nil {
			return jobs, fmt.Errorf("push %s: %w", p.push, err)
		}
		jobs = append(jobs, "push:"+p.push)
	}
	if p.export {
		if err := enq.ExportOrder(ctx, store, o); err != nil {
			return jobs, fmt.Errorf("export: %w", err)
		}
		jobs = append(jobs, "export")
	}
	return jobs, nil
}

// claim records the delivery id (when the sender gives one) and the event's business
// identity (topic, store and the mapped order's content). Shopify retries a delivery
// with the same webhook id, and may also deliver one event twice under different ids:
// either one marks a duplicate.
func (s *Server) claim(ctx context.Context, ev event) (claimed []string, dup bool, err error) {
	if s.deliveries == nil {
		return nil, false, nil
	}
	body, err := json.Marshal(ev.order)
	if err != nil {
		return nil, false, fmt.Errorf("order identity: %w", err)
	}
	sum := sha256.Sum256(body)
	keys := []string{"event:" + ev.endpoint + ":" + ev.topic + ":" + ev.store + ":" + hex.EncodeToString(sum[:16])}
	if ev.deliveryID != "" {
		scope := ev.endpoint + ":"
		if ev.shop != "" {
			scope += deliveryKey(ev.shop) + ":"
		}
		keys = append([]string{"delivery:" + scope + deliveryKey(ev.deliveryID)}, keys...)
	}
	for _, k := range keys {
		ok, err := s.deliveries.Claim(ctx, k, s.cfg.DeliveryTTL)
		if err != nil {
			s.release(ev, claimed)
			return nil, false, err
		}
		if !ok {
			s.release(ev, claimed)
			return nil, true, nil
		}
		claimed = append(claimed, k)
	}
	return claimed, false, nil
}

// deliveryKey is the sender's delivery id when short and plain (Shopify's are UUIDs),
// else its hash: the id is the sender's text and becomes part of a Redis key.
func deliveryKey(id string) string {
	plain := len(id) <= 128
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			plain = false
			break
		}
	}
	if plain {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return "sha256-" + hex.EncodeToString(sum[:16])
}

func lowerKeysList(m map[string][]string) map[string][]string {
	if m == nil {
		return nil
	}
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[strings.ToLower(strings.TrimSpace(k))] = v
	}
	return out
}

func siteKeysList(m map[string][]string) map[string][]string {
	if m == nil {
		return nil
	}
	out := make(map[string][]string, len(m))
	for k, v := range m {
		out[wooSiteKey(k)] = v
	}
	return out
}

func lowerKeys(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[strings.ToLower(strings.TrimSpace(k))] = v
	}
	return out
}

// release forgets claims after a failed enqueue, on a fresh context: the request's may
// be what failed.
func (s *Server) release(ev event, keys []string) {
	if s.deliveries == nil || len(keys) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	for _, k := range keys {
		if err := s.deliveries.Release(ctx, k); err != nil {
			s.log.Error("intake: could not release delivery claim; a retry of it will be taken as duplicate",
				"err", err, "key", k, "order", ev.order.OrderID)
		}
	}
}

// httpError is a request the intake refuses, with its status and reason.
type httpError struct {
	status  int
	outcome string
	reason  string
}

func (e *httpError) Error() string { return e.reason }

func badRequest(reason string) error {
	return &httpError{status: http.StatusBadRequest, outcome: outcomeBadRequest, reason: reason}
}

func unauthorized(reason string) error {
	return &httpError{status: http.StatusUnauthorized, outcome: outcomeUnauthorized, reason: reason}
}

func unprocessable(reason string) error {
	return &httpError{status: http.StatusUnprocessableEntity, outcome: outcomeUnprocessable, reason: reason}
}

// handlerFunc is an endpoint's own logic: it returns the status and body, or an error
// (an *httpError for refusals).
type handlerFunc func(w http.ResponseWriter, r *http.Request) (int, result, error)

// instrument answers errors as JSON and counts every request by endpoint and outcome.
func (s *Server) instrument(endpoint string, h handlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		status, res, err := h(w, r)
		if err != nil {
			var he *httpError
			if !errors.As(err, &he) {
				he = &httpError{status: http.StatusInternalServerError, outcome: outcomeUnavailable, reason: err.Error()}
			}
			status = he.status
			res = result{Status: he.outcome, Reason: he.reason}
			if he.status == http.StatusUnauthorized {
				// Say why only in the log: a prober learns nothing from the answer.
				s.log.WarnContext(r.Context(), "intake: refused unsigned or mis-signed webhook",
					"endpoint", endpoint, "reason", he.reason, "remote", r.RemoteAddr)
				res.Reason = "invalid signature"
			}
		}
		if status == http.StatusNotFound {
			http.NotFound(w, r)
		} else {
			writeJSON(w, status, res)
		}
		outcome := res.Status
		if status == http.StatusNotFound {
			outcome = "disabled"
		}
		s.m.requests.WithLabelValues(endpoint, outcome).Inc()
		s.m.duration.WithLabelValues(endpoint).Observe(time.Since(start).Seconds())
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
