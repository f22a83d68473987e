package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/model"
)

// TestEnqueueCarriesTraceContext checks that a task enqueued under a span carries
// the span's W3C trace context in its headers, keeps its per-type options, and that
// a task enqueued without a span (or without a propagator) carries nothing.
func TestEnqueueCarriesTraceContext(t *testing.T) {
	rs := testredis.Start(t)
	rdb := rs.Client(t)
	insp := asynq.NewInspectorFromRedisClient(rdb)
	tp := sdktrace.NewTracerProvider()
	defer tp.Shutdown(context.Background())
	opts := DefaultOptions()
	opts.Export.MaxRetry, opts.Export.Timeout = 7, 3*time.Minute

	order := func(id string) *model.Order {
		return &model.Order{OrderID: id, Domain: "d", Created: "2024-06-01T09:30:00.000Z",
			LineItems: []model.LineItem{{ID: 42, Token: "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b", Quantity: 1}}}
	}
	tests := []struct {
		name     string
		prop     propagation.TextMapPropagator
		withSpan bool
		want     bool
	}{
		{"span and propagator", propagation.TraceContext{}, true, true},
		{"no span", propagation.TraceContext{}, false, false},
		{"no propagator", nil, true, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e, err := NewEnqueuer(rdb, EnqueuerConfig{Options: &opts, Propagator: tt.prop})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			var traceID string
			if tt.withSpan {
				c, s := tp.Tracer("test").Start(ctx, "webhook")
				defer s.End()
				ctx, traceID = c, s.SpanContext().TraceID().String()
			}
			res, err := e.ExportOrder(ctx, "s", order("o-"+string(rune('a'+i))))
			if err != nil || len(res.Tasks) != 1 {
				t.Fatalf("export: %+v %v", res, err)
			}
			info, err := insp.GetTaskInfo(QueueExports, res.Tasks[0].TaskID)
			if err != nil {
				t.Fatal(err)
			}
			if info.MaxRetry != 7 || info.Timeout != 3*time.Minute || info.Queue != QueueExports {
				t.Errorf("task options lost: max retry %d timeout %s queue %s", info.MaxRetry, info.Timeout, info.Queue)
			}
			tpHeader := info.Headers["traceparent"]
			switch {
			case tt.want && (len(tpHeader) != 55 || tpHeader[3:35] != traceID):
				t.Errorf("traceparent %q, want one of trace %s", tpHeader, traceID)
			case !tt.want && len(info.Headers) != 0:
				t.Errorf("headers %v, want none", info.Headers)
			}
			// The payload is unchanged: trace context never enters the business data.
			if _, err := Decode[DesignExport](info.Payload); err != nil {
				t.Errorf("payload: %v", err)
			}
		})
	}
}
