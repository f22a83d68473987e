package reconcile

import "github.com/prometheus/client_golang/prometheus"

// Metrics are the sweeps' Prometheus metrics.
type Metrics struct {
	recovered *prometheus.CounterVec
	orders    *prometheus.CounterVec
	sweeps    *prometheus.CounterVec
	lastOK    *prometheus.GaugeVec
}

// NewMetrics registers the metrics with reg.
func NewMetrics(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		recovered: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "printworker_reconcile_recovered_total",
			Help: "Orders a reconciliation sweep found and enqueued that no webhook had brought."}, []string{"platform"}),
		orders: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "printworker_reconcile_orders_total",
			Help: "Orders reconciliation sweeps listed, by what became of them (recovered, handled, seen, skipped, failed, retry)."}, []string{"platform", "outcome"}),
		sweeps: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "printworker_reconcile_sweeps_total",
			Help: "Reconciliation sweeps run by this process, by outcome (ok, failed)."}, []string{"platform", "outcome"}),
		lastOK: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "printworker_reconcile_last_success_timestamp_seconds",
			Help: "When a sweep of the platform last finished without error in this process."}, []string{"platform"}),
	}
	reg.MustRegister(m.recovered, m.orders, m.sweeps, m.lastOK)
	return m
}

func (m *Metrics) order(platform, outcome string) {
	if m == nil {
		return
	}
	m.orders.WithLabelValues(platform, outcome).Inc()
	if outcome == "recovered" {
		m.recovered.WithLabelValues(platform).Inc()
	}
}

func (m *Metrics) sweep(platform string, res Result, err error) {
	if m == nil || (!res.Swept && err == nil) {
		return
	}
	if err != nil {
		m.sweeps.WithLabelValues(platform, "failed").Inc()
		return
	}
	m.sweeps.WithLabelValues(platform, "ok").Inc()
	m.lastOK.WithLabelValues(platform).SetToCurrentTime()
}
