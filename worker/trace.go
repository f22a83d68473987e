package worker

import (
	"context"
	"errors"
	"io"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/printworker/printworker/storage"
)

// tracerName is the instrumentation scope of the worker's spans.
const tracerName = "github.com/printworker/printworker/worker"

// endSpan records err (if any) on span and ends it.
func endSpan(span trace.Span, err error) {
	if err != nil {
		span.RecordError(err)
		span.SetStatus(codes.Error, err.Error())
	}
	span.End()
}

// upload writes one object to storage inside an upload span, timing successful
// writes and counting failed ones. A write that fails because its body failed (the
// renderer or the hub download broke off) or because ctx ended is not a storage
// error: the alert on storage errors must point at storage.
func (w *Worker) upload(ctx context.Context, kind string, obj storage.Object, body io.Reader) (storage.PutResult, error) {
	return w.uploadTo(ctx, w.deps.Storage, kind, obj, body)
}

// uploadTo is upload into st (a routed bucket's storage).
func (w *Worker) uploadTo(ctx context.Context, st Storage, kind string, obj storage.Object, body io.Reader) (storage.PutResult, error) {
	ctx, span := w.tracer.Start(ctx, "storage.put", trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(attribute.String("printworker.storage.kind", kind), attribute.String("printworker.storage.key", obj.Key)))
	w.removeLeftovers(ctx, st, obj.Key)
	src := &sourceReader{r: body}
	start := time.Now()
	put, err := st.Put(ctx, obj, src)
	switch {
	case err == nil:
		w.m.uploadDur.WithLabelValues(kind).Observe(time.Since(start).Seconds())
		span.SetAttributes(attribute.Int64("printworker.storage.bytes", put.Bytes))
	case src.err == nil && ctx.Err() == nil && !errors.Is(err, context.Canceled):
		w.m.storageErrs.WithLabelValues(opPut).Inc()
	}
	endSpan(span, err)
	return put, err
}

// sourceReader remembers the first error of the body itself (not io.EOF), telling a
// failed source apart from a failed storage write.
type sourceReader struct {
	r   io.Reader
	err error
}

func (s *sourceReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if err != nil && err != io.EOF && s.err == nil {
		s.err = err
	}
	return n, err
}
