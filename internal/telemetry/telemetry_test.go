package telemetry_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/propagation"

	"github.com/printworker/printworker/internal/telemetry"
)

func envOf(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

// startSpan starts and ends one span and reports whether it was recorded, and the
// headers the propagator writes for it.
func startSpan(t *testing.T, tr *telemetry.Tracing) (bool, propagation.MapCarrier) {
	t.Helper()
	ctx, span := tr.Provider.Tracer("test").Start(context.Background(), "probe")
	recording := span.IsRecording()
	c := propagation.MapCarrier{}
	tr.Propagator.Inject(ctx, c)
	span.End()
	return recording, c
}

func TestSetupOff(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
	}{
		{"no OTEL variables", nil},
		{"unrelated OTEL variables", map[string]string{"OTEL_SERVICE_NAME": "x", "OTEL_TRACES_SAMPLER": "always_on"}},
		{"exporter none", map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}},
		{"sdk disabled", map[string]string{"OTEL_SDK_DISABLED": "true", "OTEL_TRACES_EXPORTER": "otlp"}},
		{"sdk disabled, endpoint set", map[string]string{"OTEL_SDK_DISABLED": "TRUE", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://127.0.0.1:1/v1/traces"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := telemetry.Setup(context.Background(), envOf(tt.env), "printworker-test")
			if err != nil {
				t.Fatal(err)
			}
			if tr.Enabled() {
				t.Fatalf("tracing on with %v (exporter %q)", tt.env, tr.Exporter)
			}
			rec, c := startSpan(t, tr)
			if rec || len(c) != 0 {
				t.Errorf("disabled tracing recorded a span (%v) or propagated %v", rec, c)
			}
			if err := tr.Shutdown(context.Background()); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestSetupUnsupported(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"OTEL_TRACES_EXPORTER": "zipkin"}, "zipkin"},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc"},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, "http/json"},
	}
	for _, tt := range tests {
		tr, err := telemetry.Setup(context.Background(), envOf(tt.env), "printworker-test")
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: err = %v, want one naming %s", tt.env, err, tt.want)
		}
		if tr == nil || tr.Enabled() {
			t.Errorf("%v: an unsupported setting must leave a usable, disabled Tracing; got %+v", tt.env, tr)
		}
	}
}

func TestSetupConsole(t *testing.T) {
	t.Setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test")
	var out bytes.Buffer
	tr, err := telemetry.Setup(context.Background(), envOf(map[string]string{"OTEL_TRACES_EXPORTER": "console"}), "printworker-worker", telemetry.WithConsole(&out))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Exporter != "console" {
		t.Fatalf("exporter %q", tr.Exporter)
	}
	rec, c := startSpan(t, tr)
	if !rec || !strings.HasPrefix(c.Get("traceparent"), "00-") {
		t.Errorf("recording %v, propagated %v: want a recorded span and a W3C traceparent", rec, c)
	}
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"Name":"probe"`, `"Value":"printworker-worker"`, `"Value":"test"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("console output lacks %s:\n%s", want, out.String())
		}
	}
}

// TestSetupOTLP exports to a real HTTP endpoint configured by the standard
// variables, which the exporter reads from the process environment.
func TestSetupOTLP(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type")+" "+r.Header.Get("X-Token"))
		mu.Unlock()
		if len(b) == 0 {
			t.Error("empty export")
		}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer srv.Close()
	env := map[string]string{
		"OTEL_EXPORTER_OTLP_ENDPOINT": srv.URL,
		"OTEL_EXPORTER_OTLP_HEADERS":  "X-Token=s3cret",
		"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf",
		"OTEL_SERVICE_NAME":           "custom-name",
	}
	for k, v := range env {
		t.Setenv(k, v)
	}
	tr, err := telemetry.Setup(context.Background(), envOf(env), "printworker-intake")
	if err != nil {
		t.Fatal(err)
	}
	if tr.Exporter != "otlp" {
		t.Fatalf("exporter %q, want otlp (an endpoint is set)", tr.Exporter)
	}
	if rec, _ := startSpan(t, tr); !rec {
		t.Error("span not recorded")
	}
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "POST /v1/traces application/x-protobuf s3cret" {
		t.Errorf("collector received %q, want one POST /v1/traces with the configured header", got)
	}
}

func TestSetupSampler(t *testing.T) {
	t.Setenv("OTEL_TRACES_SAMPLER", "always_off")
	tr, err := telemetry.Setup(context.Background(), envOf(map[string]string{"OTEL_TRACES_EXPORTER": "console"}), "p", telemetry.WithConsole(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Shutdown(context.Background())
	if rec, _ := startSpan(t, tr); rec {
		t.Error("OTEL_TRACES_SAMPLER=always_off still recorded a span")
	}
}
