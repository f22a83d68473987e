package worker_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

	"github.com/printworker/printworker/internal/tests3"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/worker"
)

// histogram returns the sample count and sum of one labelled series of a histogram.
func histogram(t *testing.T, reg *prometheus.Registry, name, label, value string) (uint64, float64) {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		if mf.GetType() != dto.MetricType_HISTOGRAM {
			t.Fatalf("%s is a %s, want a histogram", name, mf.GetType())
		}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label && l.GetValue() == value {
					return m.GetHistogram().GetSampleCount(), m.GetHistogram().GetSampleSum()
				}
			}
		}
	}
	t.Fatalf("no series %s{%s=%q}", name, label, value)
	return 0, 0
}

// TestExportMetrics renders a real order (a png design, and one with pdf and
// pdf-simple views) and checks the render, upload, pixel and storage error series
// against what the manifest says was stored; then makes storage fail and checks
// that each failed write is counted once.
func TestExportMetrics(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withMode(worker.ModeRender))
	if n, err := testutil.GatherAndCount(e.reg, "printworker_render_duration_seconds", "printworker_upload_duration_seconds",
		"printworker_pixels_rendered_total", "printworker_storage_errors_total"); err != nil || n != 3+2+1+3 {
		t.Errorf("%d series before any work, want every fixed label value present (9)", n)
	}
	e.start()
	ctx := context.Background()
	o := e.order("M-1", 1001, 1002)
	if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("M-1", 1)

	byType := map[string]uint64{}
	var pixels float64
	for _, f := range m.Files {
		e.checkFile(f)
		if f.Mode != worker.ModeRender {
			t.Fatalf("%s: mode %s, want render", f.Key, f.Mode)
		}
		byType[f.Type]++
		pixels += float64(f.WidthPx) * float64(f.HeightPx)
	}
	for _, typ := range []string{model.ExportPNG, model.ExportPDF, model.ExportPDFSimple} {
		if byType[typ] == 0 {
			t.Fatalf("the order has no %s view: the test covers nothing for it (%v)", typ, byType)
		}
		n, sum := histogram(t, e.reg, "printworker_render_duration_seconds", "type", typ)
		if n != byType[typ] || sum <= 0 {
			t.Errorf("render_duration_seconds{type=%s}: %d samples (sum %g), want %d", typ, n, sum, byType[typ])
		}
	}
	if pixels == 0 {
		t.Fatal("no raster pixels in the manifest")
	}
	if got := counter(t, e.reg, "printworker_pixels_rendered_total"); got != pixels {
		t.Errorf("pixels_rendered_total = %g, want %g (width x height of the raster files)", got, pixels)
	}
	if n, _ := histogram(t, e.reg, "printworker_upload_duration_seconds", "kind", "file"); n != uint64(len(m.Files)) {
		t.Errorf("upload_duration_seconds{kind=file}: %d samples, want %d", n, len(m.Files))
	}
	if n, _ := histogram(t, e.reg, "printworker_upload_duration_seconds", "kind", "manifest"); n != 1 {
		t.Errorf("upload_duration_seconds{kind=manifest}: %d samples, want 1", n)
	}
	storageErrors := func() float64 {
		return counter(t, e.reg, "printworker_storage_errors_total", "op", "put")
	}
	if got := storageErrors(); got != 0 {
		t.Errorf("storage_errors_total{op=put} = %g after a clean export", got)
	}

	// Storage answers 503 to everything: every export attempt fails its write.
	e.s3.SetFault(tests3.FaultUnavailable)
	if _, err := e.enq.ExportOrder(ctx, store, e.order("M-2", 1003)); err != nil {
		t.Fatal(err)
	}
	retries := func() float64 {
		return counter(t, e.reg, "printworker_tasks_total", "type", jobs.TypeDesignExport, "outcome", worker.OutcomeRetry)
	}
	for deadline := time.Now().Add(60 * time.Second); retries() < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("export never retried: %s", e.queueReport())
		}
	}
	e.stop()
	if got, want := storageErrors(), retries(); got != want {
		t.Errorf("storage_errors_total{op=put} = %g, want %g (one per failed export attempt)", got, want)
	}
}

// counter returns the value of the counter series of name with the given label
// pairs (exactly those labels).
func counter(t *testing.T, reg *prometheus.Registry, name string, labels ...string) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			got := map[string]string{}
			for _, l := range m.GetLabel() {
				got[l.GetName()] = l.GetValue()
			}
			if maps.Equal(got, want) {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0 // a labelled series not created yet counts nothing
}
