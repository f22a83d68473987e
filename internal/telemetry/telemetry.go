// Package telemetry sets up OpenTelemetry tracing from the standard OTEL_*
// environment. Tracing is off unless the environment asks for it; then spans go to
// an OTLP/HTTP collector or, for debugging, to a console writer. Nothing is global:
// Setup returns the provider and propagator, and callers pass them on explicitly.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/exporters/stdout/stdouttrace"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Tracing is a tracer provider and the propagator that carries its context across
// processes (HTTP headers, task headers). A disabled Tracing has a no-op provider and
// a propagator that carries nothing, so call sites need no branches.
type Tracing struct {
	Provider   trace.TracerProvider
	Propagator propagation.TextMapPropagator
	// Exporter names the exporter in use: "otlp", "console", or "" when disabled.
	Exporter string
	shutdown func(context.Context) error
}

// Enabled reports whether spans are recorded and exported.
func (t *Tracing) Enabled() bool { return t.Exporter != "" }

// Shutdown flushes the spans still buffered and stops the exporter; call it last
// when the process stops, with a bounded ctx. It is a no-op when disabled.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil || t.shutdown == nil {
		return nil
	}
	return t.shutdown(ctx)
}

// Disabled returns a Tracing that records nothing.
func Disabled() *Tracing {
	return &Tracing{Provider: noop.NewTracerProvider(), Propagator: propagation.NewCompositeTextMapPropagator()}
}

// Option adjusts Setup.
type Option func(*options)

type options struct{ console io.Writer }

// WithConsole sets where the console exporter writes (default os.Stderr, so spans
// do not mix with a command's output on stdout).
func WithConsole(w io.Writer) Option { return func(o *options) { o.console = w } }

// Setup reads the OTEL_* environment through getenv and returns the tracing it asks
// for. Tracing is enabled when OTEL_SDK_DISABLED is not "true" and either
// OTEL_TRACES_EXPORTER is "otlp" or "console", or OTEL_EXPORTER_OTLP_ENDPOINT or
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is set (OTEL_TRACES_EXPORTER=none keeps it
// off). service is the default service.name (e.g. printworker-worker);
// OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES override it.
//
// The decision uses getenv; the SDK parts read the process environment themselves,
// as the OpenTelemetry specification defines them: the OTLP exporter its
// OTEL_EXPORTER_OTLP_* settings (endpoint, headers, timeout, compression, TLS), the
// resource OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES, and the sampler
// OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG. In production getenv is
// os.Getenv, so both agree.
func Setup(ctx context.Context, getenv func(string) string, service string, opts ...Option) (*Tracing, error) {
	o := options{console: os.Stderr}
	for _, opt := range opts {
		opt(&o)
	}
	exporter, err := exporterName(getenv)
	if err != nil || exporter == "" {
		return Disabled(), err
	}
	var exp sdktrace.SpanExporter
	switch exporter {
	case "otlp":
		exp, err = otlptracehttp.New(ctx)
	case "console":
		exp, err = stdouttrace.New(stdouttrace.WithWriter(o.console))
	}
	if err != nil {
		return Disabled(), fmt.Errorf("telemetry: %s exporter: %w", exporter, err)
	}
	// Later options win: the environment overrides the default service name.
	res, err := resource.New(ctx,
		resource.WithTelemetrySDK(),
		resource.WithAttributes(attribute.String("service.name", service)),
		resource.WithFromEnv(),
	)
	if err != nil && res == nil {
		_ = exp.Shutdown(ctx)
		return Disabled(), fmt.Errorf("telemetry: resource: %w", err)
	}
	// A partly bad OTEL_RESOURCE_ATTRIBUTES still yields the good attributes; the
	// error is reported to the caller, who logs it, without turning tracing off.
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(res),
		// No WithSampler: the SDK reads OTEL_TRACES_SAMPLER (default parentbased_always_on).
	)
	t := &Tracing{
		Provider:   tp,
		Propagator: propagation.TraceContext{},
		Exporter:   exporter,
		shutdown:   tp.Shutdown,
	}
	if err != nil {
		return t, fmt.Errorf("telemetry: resource (tracing stays on): %w", err)
	}
	return t, nil
}

// exporterName decides whether tracing is on and with which exporter.
func exporterName(getenv func(string) string) (string, error) {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return "", nil
	}
	switch v := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_EXPORTER"))); v {
	case "console":
		return v, nil
	case "otlp":
	case "none":
		return "", nil
	case "":
		if getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "" {
			return "", nil
		}
	default:
		return "", errors.New("telemetry: OTEL_TRACES_EXPORTER=" + v + ": want otlp, console or none (tracing stays off)")
	}
	// Only OTLP over HTTP is built in: sending HTTP to a gRPC port would fail on
	// every export, so say so at start instead.
	for _, k := range []string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"} {
		switch p := strings.TrimSpace(getenv(k)); p {
		case "", "http/protobuf":
		default:
			return "", errors.New("telemetry: " + k + "=" + p + ": only http/protobuf is supported (tracing stays off)")
		}
	}
	return "otlp", nil
}
