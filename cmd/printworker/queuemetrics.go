package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hibiken/asynq"
	"github.com/hibiken/asynq/x/metrics"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// queueMetricsCommand serves asynq's queue metrics (sizes by state, latency, processed
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
			in := asynq.NewInspectorFromRedisClient(rdb)
			reg := prometheus.NewRegistry()
			reg.MustRegister(metrics.NewQueueMetricsCollector(in), collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))

			mux := http.NewServeMux()
			mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
			mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
			mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
				pctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
				defer cancel()
				if err := rdb.Ping(pctx).Err(); err != nil {
					http.Error(w, "redis: "+err.Error(), http.StatusServiceUnavailable)
					return
				}
				fmt.Fprintln(w, "ok")
			})
			ln, err := net.Listen("tcp", *addr)
			if err != nil {
				return fmt.Errorf("queue-metrics: %w", err)
			}
			srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
			log.Info("queue metrics serving", slog.String("addr", ln.Addr().String()))
			fmt.Fprintf(e.stdout, "queue metrics on http://%s/metrics\n", ln.Addr())
			errc := make(chan error, 1)
			go func() { errc <- srv.Serve(ln) }()
			select {
			case err := <-errc:
				return fmt.Errorf("queue-metrics: %w", err)
			case <-ctx.Done():
			}
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := srv.Shutdown(sctx); err != nil && !errors.Is(err, http.ErrServerClosed) {
				return err
			}
			return nil
		},
	}
}
