package telemetry

import (
	"net/http"
	"net/url"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/trace"
)

// Transport wraps base so that each request is a client span of t, carrying the
// trace context to the server, with its URL redacted (see RedactURL): hub URLs hold
// design and media tokens, which are capabilities and must not reach a trace
// backend. Metrics stay Prometheus's, so no OpenTelemetry meter is used.
func (t *Tracing) Transport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return otelhttp.NewTransport(redacting{base},
		otelhttp.WithTracerProvider(t.Provider), otelhttp.WithPropagators(t.Propagator),
		otelhttp.WithMeterProvider(metricnoop.NewMeterProvider()))
}

// redacting runs inside the otelhttp transport, where the request's context holds
// the client span, and replaces the span's url.full with the redacted URL.
type redacting struct{ next http.RoundTripper }

func (r redacting) RoundTrip(req *http.Request) (*http.Response, error) {
	trace.SpanFromContext(req.Context()).SetAttributes(attribute.String("url.full", RedactURL(req.URL)))
	return r.next.RoundTrip(req)
}

// RedactURL returns u without user info, query and fragment, and with every path
// segment that mixes letters and digits (tokens, UUIDs, signatures, file names with
// ids) replaced by "*". Segments of letters only (resource names), of digits only
// (numeric ids, dates, API versions like 2023-10) and short ones (v1) are kept, so
// the span still shows which resource was called.
func RedactURL(u *url.URL) string {
	if u == nil {
		return ""
	}
	segs := strings.Split(u.EscapedPath(), "/")
	for i, s := range segs {
		if !keepSegment(s) {
			segs[i] = "*"
		}
	}
	return u.Scheme + "://" + u.Host + strings.Join(segs, "/")
}

func keepSegment(s string) bool {
	if len(s) <= 3 {
		return true
	}
	letters, digits := false, false
	for _, c := range s {
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letters = true
		case c >= '0' && c <= '9':
			digits = true
		case c == '-' || c == '_' || c == '.':
		default:
			return false // escapes and anything else: not a plain name
		}
	}
	return !(letters && digits)
}
