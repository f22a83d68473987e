package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/telemetry"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/worker"
)

// TestTraceWebhookToUpload follows one order from a signed webhook through the
// intake, real Redis and the worker into storage, and checks that every span shares
// the webhook's trace: the webhook span is the ancestor of the task spans, the export
// task's span is the parent of its hub calls, its render and its upload, and the
// render's media fetches and the upload's S3 requests are their children.
func TestTraceWebhookToUpload(t *testing.T) {
	t.Parallel()
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())
	prop := propagation.TraceContext{}
	tracing := &telemetry.Tracing{Provider: tp, Propagator: prop}
	e := newEnvWrapped(t, tracing.Transport, withMode(worker.ModeRender), func(_ *worker.Config, d *worker.Deps) {
		d.TracerProvider, d.Propagator = tp, prop
	})

	const hookSecret = "hook-secret"
	cfg := intake.DefaultConfig()
	cfg.Orders.Secrets = []string{hookSecret}
	enq, err := jobs.NewEnqueuer(e.rdb, jobs.EnqueuerConfig{Options: e.cfg.Jobs, Propagator: prop})
	if err != nil {
		t.Fatal(err)
	}
	in, err := intake.New(cfg, intake.JobsEnqueuer(enq), nil, nil, intake.WithTracing(tp, prop), intake.WithLogger(testLogger(t)))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(in.Handler())
	defer hs.Close()

	e.start()
	body, err := json.Marshal(e.order("T-1", 1003))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	req, err := http.NewRequest(http.MethodPost, hs.URL+"/webhooks/orders", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set(intake.HeaderStore, store)
	req.Header.Set(intake.HeaderTopic, intake.TopicPaid)
	req.Header.Set(intake.HeaderTimestamp, fmt.Sprint(now.Unix()))
	req.Header.Set(intake.HeaderSignature, intake.Sign(hookSecret, now, body))
	resp, err := hs.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("webhook answered %d", resp.StatusCode)
	}
	m := e.manifest("T-1", 1)
	e.waitQueuesIdle()
	e.stop() // every task span has ended
	if len(m.Files) == 0 || m.Files[0].Mode != worker.ModeRender {
		t.Fatalf("manifest files %+v, want rendered files", m.Files)
	}

	got := spans.GetSpans()
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, s := range got {
		byID[s.SpanContext.SpanID()] = s
	}
	find := func(name string, kind trace.SpanKind) []tracetest.SpanStub {
		var out []tracetest.SpanStub
		for _, s := range got {
			if s.Name == name && s.SpanKind == kind {
				out = append(out, s)
			}
		}
		return out
	}
	hooks := find("POST /webhooks/orders", trace.SpanKindServer)
	if len(hooks) != 1 {
		t.Fatalf("%d webhook spans, want 1; spans: %s", len(hooks), names(got))
	}
	hook := hooks[0]
	traceID := hook.SpanContext.TraceID()
	for _, s := range got {
		if !s.Parent.IsValid() && s.SpanKind == trace.SpanKindClient && s.Name == "HTTP GET" {
			continue // the test's own reads of the manifest, through the same S3 client
		}
		if s.SpanContext.TraceID() != traceID {
			t.Errorf("span %q in trace %s, want the webhook's %s", s.Name, s.SpanContext.TraceID(), traceID)
		}
	}
	// Design tokens are capabilities: no span may carry one (hub URLs hold them).
	token := e.refs[1003].Token
	for _, s := range got {
		for _, kv := range s.Attributes {
			if strings.Contains(kv.Value.String(), token) {
				t.Errorf("span %q attribute %s holds the design token: %s", s.Name, kv.Key, kv.Value.String())
			}
		}
	}
	// ancestor reports whether a is an ancestor of s through recorded spans.
	ancestor := func(a, s tracetest.SpanStub) bool {
		for p := s.Parent.SpanID(); p.IsValid(); {
			if p == a.SpanContext.SpanID() {
				return true
			}
			ps, ok := byID[p]
			if !ok {
				return false
			}
			p = ps.Parent.SpanID()
		}
		return false
	}
	parent := func(s tracetest.SpanStub) string {
		if p, ok := byID[s.Parent.SpanID()]; ok {
			return p.Name
		}
		return "(none)"
	}
	for _, typ := range []string{jobs.TypeOrderPush, jobs.TypeDesignExport, jobs.TypeOrderComplete} {
		ts := find("process "+typ, trace.SpanKindConsumer)
		if len(ts) != 1 {
			t.Errorf("%d %s task spans, want 1; spans: %s", len(ts), typ, names(got))
			continue
		}
		if !ancestor(hook, ts[0]) {
			t.Errorf("task span %s has parent %s: the webhook span is not its ancestor", typ, parent(ts[0]))
		}
	}
	exports := find("process "+jobs.TypeDesignExport, trace.SpanKindConsumer)
	if len(exports) != 1 {
		t.FailNow()
	}
	export := exports[0]
	attrs := map[string]string{}
	for _, kv := range export.Attributes {
		attrs[string(kv.Key)] = kv.Value.String()
	}
	for k, want := range map[string]string{"printworker.store": store, "printworker.order": "T-1", "printworker.design": "1003",
		"printworker.task.type": jobs.TypeDesignExport, "printworker.task.attempt": "1", "printworker.task.outcome": worker.OutcomeSuccess} {
		if attrs[k] != want {
			t.Errorf("export span %s = %q, want %q", k, attrs[k], want)
		}
	}
	if !strings.HasPrefix(attrs["messaging.message.id"], "export:") {
		t.Errorf("export span task id %q", attrs["messaging.message.id"])
	}
	children := map[string]int{}
	for _, s := range got {
		if s.Parent.SpanID() == export.SpanContext.SpanID() {
			name := s.Name + "/" + s.SpanKind.String()
			if k := storageKind(s); k != "file" && k != "" {
				// Thumbnails (docs/shop-floor.md) are uploads of their own kind.
				name = s.Name + "[" + k + "]/" + s.SpanKind.String()
			}
			children[name]++
		}
	}
	for _, want := range []string{"render/internal", "storage.put/internal"} {
		if children[want] != len(m.Files) {
			t.Errorf("export span has %d %s children, want %d (one per view); children: %v", children[want], want, len(m.Files), children)
		}
	}
	if n := children["storage.put[thumbnail]/internal"]; n != len(m.Files) {
		t.Errorf("export span has %d thumbnail uploads, want %d (one per rendered view)", n, len(m.Files))
	}
	t.Logf("export span children: %v", children)
	hubCalls := 0
	for name, n := range children {
		if strings.HasSuffix(name, "/client") {
			hubCalls += n
		}
	}
	if hubCalls == 0 {
		t.Errorf("no hub client span under the export span; children: %v", children)
	}
	// The render's media fetches are its children (design 1003 holds a picture).
	for _, r := range find("render", trace.SpanKindInternal) {
		if n := childCount(got, r, trace.SpanKindClient); n == 0 {
			t.Errorf("render span without media request spans")
		}
	}
	// The manifest's upload belongs to the completion task; the day's staff page to
	// the day page build the completion enqueued, in the same trace
	// (docs/shop-floor.md).
	putKinds := func(task tracetest.SpanStub) map[string]int {
		kinds := map[string]int{}
		for _, s := range got {
			if s.Name == "storage.put" && s.Parent.SpanID() == task.SpanContext.SpanID() {
				kinds[storageKind(s)]++
			}
		}
		return kinds
	}
	if completes := find("process "+jobs.TypeOrderComplete, trace.SpanKindConsumer); len(completes) == 1 {
		// The manifest, after the job ticket and the order's staff page.
		if kinds := putKinds(completes[0]); kinds["manifest"] != 1 || kinds["shopfloor"] != 2 || len(kinds) != 2 {
			t.Errorf("completion span has storage.put children %v, want 1 manifest and 2 shopfloor (ticket, order page)", kinds)
		}
	}
	if days := find("process "+jobs.TypeDayPage, trace.SpanKindConsumer); len(days) != 1 {
		t.Errorf("%d day page build spans, want 1; spans: %s", len(days), names(got))
	} else {
		if !ancestor(hook, days[0]) {
			t.Errorf("day page build span has parent %s: the webhook span is not its ancestor", parent(days[0]))
		}
		if kinds := putKinds(days[0]); kinds["shopfloor"] != 2 || len(kinds) != 1 {
			t.Errorf("day page build span has storage.put children %v, want 2 shopfloor (the day's index.json and page)", kinds)
		}
	}
	// The S3 requests of the upload are its children.
	for _, up := range find("storage.put", trace.SpanKindInternal) {
		if n := childCount(got, up, trace.SpanKindClient); n == 0 {
			t.Errorf("upload span without S3 request spans")
		}
	}
}

func names(spans tracetest.SpanStubs) string {
	var b strings.Builder
	for _, s := range spans {
		fmt.Fprintf(&b, "%s(%s) ", s.Name, s.SpanKind)
	}
	return b.String()
}

// childCount counts the spans of kind whose parent is p.
func childCount(spans tracetest.SpanStubs, p tracetest.SpanStub, kind trace.SpanKind) int {
	n := 0
	for _, s := range spans {
		if s.Parent.SpanID() == p.SpanContext.SpanID() && s.SpanKind == kind {
			n++
		}
	}
	return n
}

// storageKind is the printworker.storage.kind of a storage.put span ("" for others).
func storageKind(s tracetest.SpanStub) string {
	for _, kv := range s.Attributes {
		if kv.Key == "printworker.storage.kind" {
			return kv.Value.AsString()
		}
	}
	return ""
}
