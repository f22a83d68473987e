package worker

import (
	"context"
	"log/slog"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/jobs"
)

// QueueCollector exports every asynq queue's size by state, latency and totals under
// the names of asynq's own exporter (asynq/x/metrics), so dashboards and alerts keep
// working. It reads with jobs.ReadQueueStats: asynq's exporter fails a whole scrape
// whenever its memory estimate trips over an expired completed task, which on a busy
// fleet is most scrapes. The memory estimate is left out; Redis's own INFO memory is
// the figure to watch (docs/observability.md).
type QueueCollector struct {
	rdb redis.UniversalClient
	log *slog.Logger
	now func() time.Time
}

// collectTimeout bounds one scrape's reads.
const collectTimeout = 10 * time.Second

// NewQueueCollector returns a collector reading rdb at each scrape.
func NewQueueCollector(rdb redis.UniversalClient, log *slog.Logger) *QueueCollector {
	return &QueueCollector{rdb: rdb, log: log, now: time.Now}
}

var (
	queueTasksDesc = prometheus.NewDesc("asynq_tasks_enqueued_total",
		"Number of tasks in a queue by state (a current count despite the name).", []string{"queue", "state"}, nil)
	queueSizeDesc = prometheus.NewDesc("asynq_queue_size",
		"Number of tasks in a queue, all states.", []string{"queue"}, nil)
	queueLatencyDesc = prometheus.NewDesc("asynq_queue_latency_seconds",
		"Seconds the oldest pending task of a queue has waited.", []string{"queue"}, nil)
	queueProcessedDesc = prometheus.NewDesc("asynq_tasks_processed_total",
		"Tasks processed (succeeded or failed), all-time, by queue.", []string{"queue"}, nil)
	queueFailedDesc = prometheus.NewDesc("asynq_tasks_failed_total",
		"Task attempts that failed, all-time, by queue.", []string{"queue"}, nil)
	queuePausedDesc = prometheus.NewDesc("asynq_queue_paused_total",
		"1 when the queue is paused.", []string{"queue"}, nil)
)

// Describe sends the descriptors of every series.
func (c *QueueCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{queueTasksDesc, queueSizeDesc, queueLatencyDesc, queueProcessedDesc, queueFailedDesc, queuePausedDesc} {
		ch <- d
	}
}

// Collect reads every queue asynq knows (jobs.Queues) and sends its series; a
// queue that cannot be read is logged and left out of this scrape, the others are sent.
func (c *QueueCollector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), collectTimeout)
	defer cancel()
	queues, err := jobs.Queues(ctx, c.rdb)
	if err != nil {
		c.log.Warn("queue metrics: list queues", slog.Any("err", err))
		return
	}
	now := c.now()
	for _, q := range queues {
		s, err := jobs.ReadQueueStats(ctx, c.rdb, q, now)
		if err != nil {
			c.log.Warn("queue metrics: read queue", slog.String("queue", q), slog.Any("err", err))
			continue
		}
		for _, st := range []struct {
			name string
			n    int
		}{{"active", s.Active}, {"pending", s.Pending}, {"scheduled", s.Scheduled}, {"retry", s.Retry}, {"archived", s.Archived}, {"completed", s.Completed}} {
			ch <- prometheus.MustNewConstMetric(queueTasksDesc, prometheus.GaugeValue, float64(st.n), q, st.name)
		}
		paused := 0.0
		if s.Paused {
			paused = 1
		}
		ch <- prometheus.MustNewConstMetric(queueSizeDesc, prometheus.GaugeValue, float64(s.Size()), q)
		ch <- prometheus.MustNewConstMetric(queueLatencyDesc, prometheus.GaugeValue, s.Latency.Seconds(), q)
		ch <- prometheus.MustNewConstMetric(queueProcessedDesc, prometheus.CounterValue, float64(s.ProcessedTotal), q)
		ch <- prometheus.MustNewConstMetric(queueFailedDesc, prometheus.CounterValue, float64(s.FailedTotal), q)
		ch <- prometheus.MustNewConstMetric(queuePausedDesc, prometheus.GaugeValue, paused, q)
	}
}
