package worker

import (
	"context"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/internal/testredis"
)

// The queue metrics keep every series of a scrape when a completed task's hash has
// expired before asynq's janitor removed its entry (asynq's own exporter loses the
// whole scrape then).
func TestQueueCollector(t *testing.T) {
	t.Parallel()
	rdb := testredis.Start(t).Client(t)
	ctx := context.Background()
	cl := asynq.NewClientFromRedisClient(rdb)
	first := time.Now()
	for range 2 {
		if _, err := cl.Enqueue(asynq.NewTask("design:export", nil), asynq.Queue("exports")); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cl.Enqueue(asynq.NewTask("order:complete", nil), asynq.Queue("orders"), asynq.ProcessIn(time.Hour)); err != nil {
		t.Fatal(err)
	}
	// A completed task whose hash is gone: what Redis leaves at the end of a retention.
	if err := rdb.ZAdd(ctx, "asynq:{orders}:completed", redis.Z{Score: float64(first.Unix()), Member: "gone"}).Err(); err != nil {
		t.Fatal(err)
	}
	c := NewQueueCollector(rdb, slog.New(slog.DiscardHandler))
	c.now = func() time.Time { return first.Add(time.Minute) }
	want := `
# HELP asynq_queue_size Number of tasks in a queue, all states.
# TYPE asynq_queue_size gauge
asynq_queue_size{queue="exports"} 2
asynq_queue_size{queue="orders"} 2
# HELP asynq_tasks_enqueued_total Number of tasks in a queue by state (a current count despite the name).
# TYPE asynq_tasks_enqueued_total gauge
asynq_tasks_enqueued_total{queue="exports",state="active"} 0
asynq_tasks_enqueued_total{queue="exports",state="archived"} 0
asynq_tasks_enqueued_total{queue="exports",state="completed"} 0
asynq_tasks_enqueued_total{queue="exports",state="pending"} 2
asynq_tasks_enqueued_total{queue="exports",state="retry"} 0
asynq_tasks_enqueued_total{queue="exports",state="scheduled"} 0
asynq_tasks_enqueued_total{queue="orders",state="active"} 0
asynq_tasks_enqueued_total{queue="orders",state="archived"} 0
asynq_tasks_enqueued_total{queue="orders",state="completed"} 1
asynq_tasks_enqueued_total{queue="orders",state="pending"} 0
asynq_tasks_enqueued_total{queue="orders",state="retry"} 0
asynq_tasks_enqueued_total{queue="orders",state="scheduled"} 1
`
	if err := testutil.CollectAndCompare(c, strings.NewReader(want), "asynq_queue_size", "asynq_tasks_enqueued_total"); err != nil {
		t.Error(err)
	}
	// The oldest pending export has waited the minute the clock moved on, less the
	// moments the enqueues took.
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(c)
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	latency := map[string]float64{}
	for _, mf := range mfs {
		if mf.GetName() != "asynq_queue_latency_seconds" {
			continue
		}
		for _, m := range mf.GetMetric() {
			latency[m.GetLabel()[0].GetValue()] = m.GetGauge().GetValue()
		}
	}
	if got := latency["exports"]; got < 50 || got > 60 {
		t.Errorf("exports latency %v s, want about 60", got)
	}
	if got, ok := latency["orders"]; !ok || got != 0 {
		t.Errorf("orders latency %v (%v), want 0: nothing pending", got, ok)
	}
}
