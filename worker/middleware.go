package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

type ctxKey struct{}

// logger returns the task's logger (task id, type, attempt, store, order, design).
func (w *Worker) logger(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(ctxKey{}).(*slog.Logger); ok {
		return l
	}
	return w.log
}

// skipped marks a handler's success that did nothing (cancelled order, superseded
// task, duplicate): metrics count it apart from real work.
type skippedKey struct{}

type skipFlag struct{ reason string }

func markSkipped(ctx context.Context, reason string) {
	if f, ok := ctx.Value(skippedKey{}).(*skipFlag); ok {
		f.reason = reason
	}
}

// middleware gives each task a logger with its identity, a per-type timeout, panic
// recovery, error classification, and its metrics.
func (w *Worker) middleware(next asynq.Handler) asynq.Handler {
	return asynq.HandlerFunc(func(ctx context.Context, t *asynq.Task) (err error) {
		start := time.Now()
		id, _ := asynq.GetTaskID(ctx)
		retried, _ := asynq.GetRetryCount(ctx)
		var ident struct {
			Store   string `json:"store"`
			Domain  string `json:"domain"`
			OrderID string `json:"orderId"`
			Ref     string `json:"ref"`
			Rev     int64  `json:"rev"`
		}
		_ = json.Unmarshal(t.Payload(), &ident) // best effort: the handler reports bad payloads
		attrs := []any{"task_id", id, "type", t.Type(), "attempt", retried + 1}
		if ident.Store != "" {
			attrs = append(attrs, "store", ident.Store)
		}
		if ident.OrderID != "" {
			attrs = append(attrs, "order", ident.OrderID, "domain", ident.Domain)
		}
		if ident.Ref != "" {
			// The design id only: the token is a capability and stays out of logs.
			design, _, _ := strings.Cut(ident.Ref, ".")
			attrs = append(attrs, "design", design)
		}
		// The task continues the trace of whoever enqueued it (webhook, or the export
		// that completed the order); its span is the parent of the hub, render and
		// upload spans below.
		ctx = w.prop.Extract(ctx, propagation.MapCarrier(t.Headers()))
		ctx, span := w.tracer.Start(ctx, "process "+t.Type(), trace.WithSpanKind(trace.SpanKindConsumer),
			trace.WithAttributes(spanAttrs(id, t.Type(), retried+1, ident.Store, ident.OrderID, ident.Ref)...))
		if sc := span.SpanContext(); sc.IsSampled() {
			attrs = append(attrs, "trace_id", sc.TraceID().String())
		}
		log := w.log.With(attrs...)
		ctx = context.WithValue(ctx, ctxKey{}, log)
		skip := &skipFlag{}
		ctx = context.WithValue(ctx, skippedKey{}, skip)
		ctx, att := withAttempt(ctx)
		if d, ok := w.cfg.Timeouts[t.Type()]; ok && d > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, d)
			defer cancel()
		}

		defer func() {
			if p := recover(); p != nil {
				log.ErrorContext(ctx, "task panicked", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				err = fmt.Errorf("panic in %s handler: %v", t.Type(), p)
			}
			outcome, out := classify(err)
			outcome, out = w.applyWindow(ctx, t.Type(), outcome, out)
			if outcome == OutcomeSuccess && skip.reason != "" {
				outcome = OutcomeSkipped
			}
			span.SetAttributes(attribute.String("printworker.task.outcome", outcome))
			if outcome == OutcomeSuccess || outcome == OutcomeSkipped || outcome == OutcomeRateLimited || outcome == OutcomeDeferred {
				span.End() // a 429 or a deferral is retried without counting as a failure
			} else {
				endSpan(span, out)
			}
			elapsed := time.Since(start)
			w.m.tasks.WithLabelValues(t.Type(), outcome).Inc()
			w.m.duration.WithLabelValues(t.Type(), outcome).Observe(elapsed.Seconds())
			switch outcome {
			case OutcomeSuccess:
				log.InfoContext(ctx, "task done", "outcome", outcome, "duration", elapsed)
			case OutcomeSkipped:
				log.InfoContext(ctx, "task skipped", "outcome", outcome, "reason", skip.reason, "duration", elapsed)
			case OutcomeDeferred:
				var de *DeferredError
				errors.As(out, &de)
				log.InfoContext(ctx, "task deferred", "outcome", outcome, "reason", de.Reason, "after", de.After, "duration", elapsed)
			case OutcomePermanent:
				log.ErrorContext(ctx, "task failed permanently", "outcome", outcome, "err", out, "duration", elapsed)
			default:
				log.WarnContext(ctx, "task failed, will retry", "outcome", outcome, "err", out, "duration", elapsed)
			}
			err = out
			if err == nil {
				w.expireFinished(ctx, t.Type(), id, log)
			}
		}()
		if ident.Store != "" {
			// A store at its share of the slots sends its task back to the queue
			// unless one of its tasks here ends within storeShareWait; one that cannot
			// go back uncounted (its last try) runs over the share.
			release := w.shares.acquireWithin(ctx, ident.Store, !att.requeueable(), storeShareWait)
			if release == nil {
				return &DeferredError{Reason: "store " + ident.Store + " holds its share of the worker's slots", After: w.cfg.StoreShareRetry}
			}
			defer release()
		}
		return next.ProcessTask(ctx, t)
	})
}

// spanAttrs describes a task on its span; empty business fields are left out.
func spanAttrs(id, typ string, attempt int, store, order, ref string) []attribute.KeyValue {
	kv := []attribute.KeyValue{
		attribute.String("messaging.system", "asynq"),
		attribute.String("messaging.message.id", id),
		attribute.String("printworker.task.type", typ),
		attribute.Int("printworker.task.attempt", attempt),
	}
	if store != "" {
		kv = append(kv, attribute.String("printworker.store", store))
	}
	if order != "" {
		kv = append(kv, attribute.String("printworker.order", order))
	}
	if ref != "" {
		// The design id only: the token is a capability and stays out of telemetry.
		design, _, _ := strings.Cut(ref, ".")
		kv = append(kv, attribute.String("printworker.design", design))
	}
	return kv
}

// writeResult records a task's result for operators (asynq keeps it with the task
// for its retention); a failure to record is logged, not fatal to the work done.
func writeResult(ctx context.Context, log *slog.Logger, t *asynq.Task, b []byte) {
	rw := t.ResultWriter()
	if rw == nil {
		return // run outside a server
	}
	if _, err := rw.Write(b); err != nil {
		log.WarnContext(ctx, "task result not recorded", "err", err)
	}
}
