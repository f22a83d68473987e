package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/shopfloor"
	"github.com/printworker/printworker/worker"
)

// workCommand runs a worker: it takes tasks from Redis, pushes orders to the hub,
// exports designs into storage and writes manifests, until SIGINT or SIGTERM; then
// it stops taking tasks and waits --shutdown-timeout for the running ones.
func workCommand() command {
	return command{
		name:    "work",
		summary: "run a worker: push orders, export designs, write manifests",
		run: func(ctx context.Context, e env, args []string) error {
			fs := newFlagSet(e, "work", "work [flags]")
			lf := addLogFlags(fs)
			rf := addRedisFlags(fs)
			hf := addHubFlags(fs)
			sf := addStorageFlags(fs)
			renf := addRenderFlags(fs)
			wf := addWorkerFlags(fs)
			rof := addRoutingFlags(fs)
			ef := addEventFlags(fs)
			stf := addStoreFlags(fs)
			woof := addWooCommerceAPIFlags(fs)
			rvf := addReviewFlags(fs)
			swf := addSweepFlags(fs, stf, woof)
			metricsAddr := fs.String("metrics-addr", ":9464", "address of /metrics, /healthz and /readyz (empty: none)")
			if err := parseFlags(fs, e, args); err != nil {
				return helpOK(err)
			}
			log, err := lf.logger(e)
			if err != nil {
				return err
			}
			cfg, cfgErr := wf.config(sf.layout, log)
			cfg.StateTTL, cfg.TaskRetention = rf.stateRetention, rf.taskRetention
			cfg.ExportShards = rf.exportShards
			rf.slots = wf.concurrency // the idle Redis connections follow the slots
			router, rules, routeErr := rof.load(sf.kind)
			cfg.Routing = router
			setGangs(&cfg, rules)
			var printErr error
			cfg.Print, printErr = renf.colour.load()
			if printErr == nil {
				cfg.Profiles, printErr = renf.colour.loadProfiles(rules.Profiles()...)
			}
			var eventsErr error
			cfg.Events, eventsErr = ef.config()
			var reviewErr error
			cfg.Review, reviewErr = rvf.config()
			if reviewErr == nil {
				cfg.Preflight, reviewErr = rvf.preflightConfig()
			}
			tr := setupTracing(ctx, e, "worker", log)
			defer stopTracing(tr, log)
			sf.s3.HTTPClient = tracedHTTP(tr)
			var clients map[string]*hub.Client
			guard, hubErr := hf.netGuard()
			if hubErr == nil {
				hf.http = hubHTTP(tr, wf.concurrency, guard)
				clients, hubErr = hf.clients(log)
			}
			if len(clients) == 1 {
				// One store has nobody to keep slots for: its share would only
				// leave the worker's other slots idle.
				cfg.StoreShare = 0
			}
			deps := worker.Deps{Hubs: hubFor(clients), TracerProvider: tr.Provider, Propagator: tr.Propagator}
			var renderErr error
			if needsRenderer(cfg) {
				deps.Renderer, renderErr = renf.renderer()
			}
			if err := joinErrors(cfgErr, printErr, eventsErr, reviewErr, sf.validate(), routeErr, hubErr, renderErr); err != nil {
				return err
			}
			st, undoStorage, err := sf.openForStart(ctx)
			if err != nil {
				return err
			}
			started := false
			defer func() {
				if !started {
					undoStorage()
				}
			}()
			deps.Storage = st
			defer closeStorage(st) // after the drain: the worker no longer writes
			if deps.Buckets, err = openBuckets(ctx, sf, rules); err != nil {
				return err
			}
			rdb, err := rf.connect(ctx)
			if err != nil {
				return err
			}
			defer rdb.Close()
			deps.Redis = rdb
			// The intake's order fetches (docs/intake.md, "Order fetches") run here,
			// and enqueue what they read through one enqueuer.
			fenq, err := jobs.NewEnqueuer(rdb, jobs.EnqueuerConfig{Options: cfg.Jobs, KeyPrefix: cfg.KeyPrefix, Logger: log, Propagator: tr.Propagator, ExportShards: cfg.ExportShards})
			if err != nil {
				return err
			}
			woo, err := woof.api(guard)
			if err != nil {
				return err
			}
			reg := prometheus.NewRegistry()
			reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
			deps.Registerer = reg
			fw, err := stf.work(rdb, fenq, cfg.KeyPrefix, guard, woo, log)
			if err != nil {
				return err
			}
			if err := fw.handler.RegisterMetrics(reg); err != nil {
				return err
			}
			deps.Handlers = fw.handlers()
			// The reconciliation sweeps (docs/intake.md, "Reconciliation"), the Etsy
			// shop's at --etsy-poll-interval among them.
			sw, err := swf.build(rdb, fenq, cfg.KeyPrefix, guard, reg, log)
			if err != nil {
				return err
			}
			w, err := worker.New(cfg, deps)
			if err != nil {
				return usageError(err.Error())
			}
			log.Info("printworker work", "version", version, "redis", redactRedisURL(rf.url), "storage", st.Describe(),
				"stores", len(clients), "mode", cfg.Mode)

			// Telemetry outlives the worker: it is stopped last, after the drain.
			var stopMetrics func()
			if *metricsAddr != "" {
				ln, err := net.Listen("tcp", *metricsAddr)
				if err != nil {
					return fmt.Errorf("--metrics-addr: %w", err)
				}
				stopMetrics = serveMetrics(ln, reg, func(ctx context.Context) error { return rdb.Ping(ctx).Err() }, log)
			}
			started = true
			sctx, stopSweeps := context.WithCancel(ctx)
			waitSweeps := sw.start(sctx)
			err = w.Run(ctx)
			stopSweeps()
			waitSweeps()
			if stopMetrics != nil {
				stopMetrics()
			}
			return err
		},
	}
}

func needsRenderer(cfg worker.Config) bool {
	// The job ticket draws its text with the renderer's fonts (docs/shop-floor.md):
	// without them it is limited to Windows-1252.
	if cfg.Mode != worker.ModeDownload || cfg.ShopFloor.TicketSize != shopfloor.TicketOff {
		return true
	}
	for _, m := range cfg.Modes {
		if m != worker.ModeDownload {
			return true
		}
	}
	return false
}

// serveMetrics serves /metrics, /healthz (the process answers) and /readyz (Redis
// answers) on ln; the returned func stops it.
func serveMetrics(ln net.Listener, reg *prometheus.Registry, ready func(context.Context) error, log *slog.Logger) func() {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
		defer cancel()
		if err := ready(ctx); err != nil {
			http.Error(w, "redis: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			// The worker keeps working without metrics; the probes will tell.
			log.Error("metrics server stopped", "err", err)
		}
	}()
	return func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = hs.Shutdown(ctx)
	}
}
