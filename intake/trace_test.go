package intake_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/model"
)

// spanEnqueuer records the span context each enqueue saw.
type spanEnqueuer struct {
	mu  sync.Mutex
	got []trace.SpanContext
}

func (s *spanEnqueuer) rec(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.got = append(s.got, trace.SpanContextFromContext(ctx))
	return nil
}
func (s *spanEnqueuer) PushOrder(ctx context.Context, _, _ string, _ *model.Order) error {
	return s.rec(ctx)
}
func (s *spanEnqueuer) ExportOrder(ctx context.Context, _ string, _ *model.Order) error {
	return s.rec(ctx)
}
func (s *spanEnqueuer) CancelOrder(ctx context.Context, _ string, _ *model.Order) error {
	return s.rec(ctx)
}

// TestWebhookSpans checks that a webhook is a server span that the enqueue runs
// under (so the jobs continue its trace), that a caller's traceparent makes it a
// child, and that probes and /metrics are not traced.
func TestWebhookSpans(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())
	enq := &spanEnqueuer{}
	cfg := intake.DefaultConfig()
	cfg.Shopify.Secrets, cfg.Shopify.DefaultStore = []string{shopSecret}, "s1"
	srv, err := intake.New(cfg, enq, nil, nil, intake.WithTracing(tp, propagation.TraceContext{}))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	defer hs.Close()

	body := readFile(t, "order_customized.json")
	req, _ := http.NewRequest(http.MethodPost, hs.URL+"/webhooks/shopify", strings.NewReader(string(body)))
	for k, v := range shopifyHeaders("orders/paid", body, "w-1") {
		req.Header[k] = v
	}
	const caller = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	req.Header.Set("traceparent", caller)
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted && resp.StatusCode != http.StatusOK {
		t.Fatalf("webhook answered %d", resp.StatusCode)
	}
	for _, p := range []string{"/healthz", "/readyz", "/metrics"} {
		r, err := hs.Client().Get(hs.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
	}

	got := spans.GetSpans()
	if len(got) != 1 {
		t.Fatalf("%d spans, want the webhook's only: %v", len(got), got)
	}
	s := got[0]
	if s.Name != "POST /webhooks/shopify" || s.SpanKind != trace.SpanKindServer {
		t.Errorf("span %q kind %s", s.Name, s.SpanKind)
	}
	if s.SpanContext.TraceID().String() != caller[3:35] || s.Parent.SpanID().String() != caller[36:52] {
		t.Errorf("span trace %s parent %s, want the caller's traceparent %s", s.SpanContext.TraceID(), s.Parent.SpanID(), caller)
	}
	if len(enq.got) == 0 {
		t.Fatal("nothing enqueued")
	}
	for _, sc := range enq.got {
		if sc.SpanID() != s.SpanContext.SpanID() {
			t.Errorf("enqueue ran under span %s, want the webhook span %s", sc.SpanID(), s.SpanContext.SpanID())
		}
	}
}
