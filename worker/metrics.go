package worker

import (
	"errors"
	"net/http"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// metrics are the worker's own Prometheus series. Labels take values from small
// fixed sets (task types, outcomes, hub operations, status classes, modes). Queue
// depths come from QueueCollector in `printworker queue-metrics`, run once per fleet.
type metrics struct {
	tasks       *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	bytes       *prometheus.CounterVec
	hubCalls    *prometheus.CounterVec
	hubRetries  *prometheus.CounterVec
	rateWait    prometheus.Histogram
	budgetInUse prometheus.Gauge
	budgetTotal prometheus.Gauge
	viewsByMode *prometheus.CounterVec
	renderDur   *prometheus.HistogramVec
	uploadDur   *prometheus.HistogramVec
	pixels      prometheus.Counter
	storageErrs *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer, budget int64) (*metrics, error) {
	m := &metrics{
		tasks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "printworker", Name: "tasks_total",
			Help: "Tasks handled, by type and outcome (success, skipped, retry, rate_limited, deferred, permanent, canceled).",
		}, []string{"type", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "printworker", Name: "task_duration_seconds",
			Help:    "Task handling time, by type and outcome.",
			Buckets: []float64{.01, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600},
		}, []string{"type", "outcome"}),
		bytes: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "printworker", Name: "storage_bytes_written_total",
			Help: "Bytes written to storage, by kind (file, manifest).",
		}, []string{"kind"}),
		hubCalls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "printworker", Name: "hub_calls_total",
			Help: "Hub API calls, by operation and status class (2xx, 4xx, 429, 5xx, network; error: refused before sending, e.g. an invalid order).",
		}, []string{"op", "class"}),
		hubRetries: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "printworker", Name: "hub_retries_total",
			Help: "Hub reads retried inside a task attempt, by operation and the status class of the failed try.",
		}, []string{"op", "class"}),
		rateWait: prometheus.NewHistogram(prometheus.HistogramOpts{
			Namespace: "printworker", Name: "ratelimit_wait_seconds",
			Help:    "Time hub calls waited for the fleet-wide per-store rate limit.",
			Buckets: []float64{0, .01, .1, .5, 1, 2, 5, 10, 30, 60},
		}),
		budgetInUse: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "printworker", Name: "memory_budget_in_use_bytes",
			Help: "Render memory currently admitted by the memory budget.",
		}),
		budgetTotal: prometheus.NewGauge(prometheus.GaugeOpts{
			Namespace: "printworker", Name: "memory_budget_bytes",
			Help: "The worker's render memory budget.",
		}),
		viewsByMode: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "printworker", Name: "views_exported_total",
			Help: "Views exported, by mode (render, download).",
		}, []string{"mode"}),
		renderDur: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "printworker", Name: "render_duration_seconds",
			Help: "Time to render one view into storage (successful renders), by export type (png, pdf, pdf-simple).",
			// A vector PDF takes well under a second, a print-size PNG tens of seconds.
			Buckets: []float64{.05, .1, .25, .5, 1, 2.5, 5, 10, 20, 40, 60, 120, 300},
		}, []string{"type"}),
		uploadDur: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Namespace: "printworker", Name: "upload_duration_seconds",
			Help:    "Time of one successful storage write, by kind (file, manifest). A rendered file streams while it renders, so its upload spans the render.",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30, 60, 120, 300},
		}, []string{"kind"}),
		pixels: prometheus.NewCounter(prometheus.CounterOpts{
			Namespace: "printworker", Name: "pixels_rendered_total",
			Help: "Output raster pixels rendered (width x height of png and pdf-simple views; 0 for vector pdf).",
		}),
		storageErrs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Namespace: "printworker", Name: "storage_errors_total",
			Help: "Failed storage calls, by operation (put, get, stat); failures of the data source (renderer, hub download) and cancellations are not counted.",
		}, []string{"op"}),
	}
	// The fixed label values exist from the start, so rate() and alerts see a zero
	// rather than no series before the first event.
	for _, t := range []string{model.ExportPNG, model.ExportPDF, model.ExportPDFSimple} {
		m.renderDur.WithLabelValues(t)
	}
	for _, k := range []string{kindFile, kindManifest} {
		m.uploadDur.WithLabelValues(k)
	}
	for _, op := range []string{opPut, opGet, opStat} {
		m.storageErrs.WithLabelValues(op)
	}
	m.budgetTotal.Set(float64(budget))
	if reg != nil {
		for _, c := range []prometheus.Collector{m.tasks, m.duration, m.bytes, m.hubCalls, m.hubRetries, m.rateWait, m.budgetInUse, m.budgetTotal, m.viewsByMode,
			m.renderDur, m.uploadDur, m.pixels, m.storageErrs} {
			if err := reg.Register(c); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// Label values of the storage metrics.
const (
	kindFile     = "file"
	kindManifest = "manifest"
	opPut        = "put"
	opGet        = "get"
	opStat       = "stat"
)

// statusClass reduces a hub call's result to a label value.
func statusClass(err error) string {
	if err == nil {
		return "2xx"
	}
	var he *hub.Error
	if !errors.As(err, &he) {
		return "error"
	}
	switch {
	case errors.Is(he, hub.ErrRefused):
		return "refused" // the outbound guard: an internal address, nothing sent
	case errors.Is(he, hub.ErrTooSlow):
		return "slow"
	case he.Status == 0:
		return "network"
	case he.Status == http.StatusTooManyRequests:
		return "429"
	case he.Status >= 200 && he.Status < 300:
		return "2xx" // answered, then the body failed in transit
	}
	return strconv.Itoa(he.Status/100) + "xx"
}
