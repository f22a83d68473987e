package intake

import "github.com/prometheus/client_golang/prometheus"

// metrics of the intake. Labels take values from small fixed sets only: endpoint
// (shopify, orders, woocommerce, wix), outcome (the result statuses), job
// (push:create, push:update, push:delete, export, cancel, restore, fetch).
type metrics struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
	jobs     *prometheus.CounterVec
}

func newMetrics(reg prometheus.Registerer) metrics {
	m := metrics{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "printworker_intake_webhooks_total",
			Help: "Webhooks received, by endpoint and outcome.",
		}, []string{"endpoint", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "printworker_intake_webhook_duration_seconds",
			Help:    "Time to verify, enqueue and answer a webhook.",
			Buckets: []float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5},
		}, []string{"endpoint"}),
		jobs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "printworker_intake_jobs_enqueued_total",
			Help: "Jobs enqueued by the intake, by kind.",
		}, []string{"job"}),
	}
	reg.MustRegister(m.requests, m.duration, m.jobs)
	return m
}
