package main

import (
	"context"
	"fmt"
	"log/slog"
	"net"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/printworker/printworker/worker"
)

// queueMetricsCommand serves the queue metrics under asynq's names (sizes by state, latency, processed
// and failed counts, paused queues) from Redis. Run exactly one per cluster: every
// scrape reads all queues from Redis, and one exporter per worker would multiply that
// load and the series. Workers export their own task metrics themselves.
func queueMetricsCommand() command {
	return command{
		name:    "queue-metrics",
		summary: "export queue metrics (asynq x/metrics) for Prometheus; one per cluster",
		run: func(ctx context.Context, e env, args []string) error {
			fs := newFlagSet(e, "queue-metrics", "queue-metrics [flags]")
			lf := addLogFlags(fs)
			rf := addRedisFlags(fs)
			addr := fs.String("metrics-addr", ":9090", "address of /metrics, /healthz and /readyz")
			if err := parseFlags(fs, e, args); err != nil {
				return helpOK(err)
			}
			log, err := lf.logger(e)
			if err != nil {
				return err
			}
			rdb, err := rf.connect(ctx)
			if err != nil {
				return err
			}
			defer rdb.Close()
			reg := prometheus.NewRegistry()
			reg.MustRegister(worker.NewQueueCollector(rdb, log), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

			ln, err := net.Listen("tcp", *addr)
			if err != nil {
				return fmt.Errorf("queue-metrics: %w", err)
			}
			log.Info("queue metrics serving", slog.String("addr", ln.Addr().String()))
			fmt.Fprintf(e.stdout, "queue metrics on http://%s/metrics\n", ln.Addr())
			stop := serveMetrics(ln, reg, func(ctx context.Context) error { return rdb.Ping(ctx).Err() }, log)
			<-ctx.Done()
			stop()
			return nil
		},
	}
}
