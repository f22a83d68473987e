package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestTracingWiring checks the commands' tracing setup: off without OTEL_*
// variables (no traced HTTP client, so hub and S3 keep their own), and with the
// console exporter a traced client whose requests become spans of the role's
// service and carry a traceparent to the server.
func TestTracingWiring(t *testing.T) {
	log := slog.New(slog.DiscardHandler)
	off := setupTracing(context.Background(), env{getenv: func(string) string { return "" }, stderr: io.Discard}, "worker", log)
	if off.Enabled() || tracedHTTP(off) != nil {
		t.Errorf("tracing on without OTEL_* variables (exporter %q)", off.Exporter)
	}
	stopTracing(off, log)

	var stderr bytes.Buffer
	vars := map[string]string{"OTEL_TRACES_EXPORTER": "console"}
	on := setupTracing(context.Background(), env{getenv: func(k string) string { return vars[k] }, stderr: &stderr}, "worker", log)
	if !on.Enabled() {
		t.Fatal("OTEL_TRACES_EXPORTER=console left tracing off")
	}
	var traceparent string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		traceparent = r.Header.Get("traceparent")
	}))
	defer srv.Close()
	c := tracedHTTP(on)
	ctx, span := on.Provider.Tracer("test").Start(context.Background(), "task")
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL, nil)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	span.End()
	stopTracing(on, log)
	if !strings.Contains(traceparent, span.SpanContext().TraceID().String()) {
		t.Errorf("request carried traceparent %q, want trace %s", traceparent, span.SpanContext().TraceID())
	}
	for _, want := range []string{`"Name":"task"`, `"Name":"HTTP GET"`, `"Value":"printworker-worker"`} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("console spans lack %s", want)
		}
	}
}
