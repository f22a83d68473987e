package telemetry_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/printworker/printworker/internal/telemetry"
)

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://hub.example/2023-10/designs/1003/6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b", "https://hub.example/2023-10/designs/1003/*"},
		{"https://hub.example/v1/export/1003/6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b/view/front", "https://hub.example/v1/export/1003/*/view/front"},
		{"https://hub.example/media/5f2b9c0e1a/Zk3Qx9a?sig=abc#frag", "https://hub.example/media/*/*"},
		{"https://user:pw@s3.example/bucket/demo-store/2024-06-01/A-1001/manifest.json", "https://s3.example/bucket/demo-store/2024-06-01/*/manifest.json"},
		{"http://127.0.0.1:9000/printworker-test/a%2Fb", "http://127.0.0.1:9000/printworker-test/*"},
	}
	for _, tt := range tests {
		u, err := url.Parse(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := telemetry.RedactURL(u); got != tt.want {
			t.Errorf("RedactURL(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}

// TestTransportRedacts checks that a traced request's span holds no token: not in
// its URL attribute, nor anywhere else.
func TestTransportRedacts(t *testing.T) {
	const token = "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"
	spans := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(spans))
	defer tp.Shutdown(context.Background())
	tr := &telemetry.Tracing{Provider: tp, Propagator: propagation.TraceContext{}}
	var traceparent string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		traceparent = r.Header.Get("traceparent")
		w.WriteHeader(http.StatusNotFound)
	}))
	defer srv.Close()
	tport := srv.Client().Transport.(*http.Transport).Clone()
	defer tport.CloseIdleConnections()
	c := &http.Client{Transport: tr.Transport(tport)}
	resp, err := c.Get(srv.URL + "/2023-10/designs/1003/" + token + "?token=" + token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got := spans.GetSpans()
	if len(got) != 1 {
		t.Fatalf("%d spans, want 1", len(got))
	}
	s := got[0]
	if traceparent == "" || !strings.Contains(traceparent, s.SpanContext.TraceID().String()) {
		t.Errorf("server got traceparent %q, want the client span's trace", traceparent)
	}
	url := ""
	for _, kv := range s.Attributes {
		if strings.Contains(kv.Value.String(), token[:8]) {
			t.Errorf("span attribute %s = %q holds the token", kv.Key, kv.Value.String())
		}
		if kv.Key == "url.full" {
			url = kv.Value.AsString()
		}
	}
	if url != srv.URL+"/2023-10/designs/1003/*" {
		t.Errorf("url.full = %q", url)
	}
}
