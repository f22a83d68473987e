// Package worker runs printworker's tasks: it wires the handlers of every task type
// (order push, design export, order completion, template sync) to an asynq server
// with weighted queues, classifies errors for asynq's retry machinery, limits hub
// calls per store across the fleet, admits renders by a memory budget, and writes
// print files and manifests to storage.
package worker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/printworker/printworker/gang/sheetjob"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/storage"
)

// Storage is what the worker needs of a storage backend (*storage.S3, *storage.Dir).
type Storage interface {
	Put(ctx context.Context, obj storage.Object, body io.Reader) (storage.PutResult, error)
}

// linker is the optional part of a Storage that can link to an object (both storage
// backends can); manifests then carry links print staff open directly.
type linker interface {
	URL(key string) string
}

// objectURL is the link to key, or "" when the storage cannot make one.
func (w *Worker) objectURL(key string) string {
	if l, ok := w.deps.Storage.(linker); ok {
		return l.URL(key)
	}
	return ""
}

// Renderer is what the worker needs of the renderer (*render.Renderer).
type Renderer interface {
	Plan(d *model.DesignDetail, viewID string) (render.Plan, error)
	// PrepareView reads and measures the view's media without decoding them, so the
	// memory budget admits the render at the files' true size.
	PrepareView(ctx context.Context, d *model.DesignDetail, viewID string, media render.MediaSource) (*render.PreparedView, error)
}

// Deps are the worker's collaborators.
type Deps struct {
	// Redis holds the queue, the order state and the rate limit buckets. It stays
	// the caller's to close.
	Redis redis.UniversalClient
	Hubs  HubFor
	// Storage receives print files and manifests.
	Storage Storage
	// Buckets are the storages of the buckets the routing rules name.
	Buckets map[string]Storage
	// Renderer renders views; nil allows only download mode.
	Renderer Renderer
	// Registerer receives the worker's metrics; nil registers nowhere.
	Registerer prometheus.Registerer
	// TracerProvider records a consumer span per task with render and upload spans
	// inside; nil records nothing. Hub and S3 client spans come from the HTTP
	// clients the hub clients and storage were built with.
	TracerProvider trace.TracerProvider
	// Propagator reads the trace context tasks carry in their headers and writes it
	// into the tasks the worker enqueues (completion); nil carries nothing.
	Propagator propagation.TextMapPropagator
	// Handlers run task types the worker does not own, by type (the intake's order
	// and store fetches), behind the same middleware as its own.
	Handlers map[string]asynq.Handler
}

// Worker handles printworker's tasks.
type Worker struct {
	// inflight counts handlers running: asynq's Shutdown gives up on a task past
	// ShutdownTimeout (requeued, its context cancelled) but leaves its handler's
	// goroutine to end by itself, and Run waits for it so that nothing of the
	// worker writes logs or storage after Run has returned.
	inflight sync.WaitGroup
	cfg      Config
	deps     Deps
	log      *slog.Logger
	state    *jobs.State
	enq      *jobs.Enqueuer
	limiter  *Limiter
	shares   *storeShares
	windows  *retryWindows
	budget   *Budget
	gangs    *jobs.Gangs
	sheets   *sheetjob.Jobs
	m        *metrics
	tracer   trace.Tracer
	prop     propagation.TextMapPropagator
	srv      *asynq.Server
	mux      *asynq.ServeMux
	// undecodable wakes the sweep of task messages asynq cannot decode.
	undecodable chan struct{}
	// hooks let an internal test stop a day page build at a chosen point (dayRead:
	// after it read the day's generation and orders), to force the interleaving a
	// fleet produces only by chance, and fix the page's clock; nil in production.
	hooks struct {
		dayRead func()
		clock   func() time.Time
	}
}

// New checks the configuration and builds a worker; Run starts it.
func New(cfg Config, deps Deps) (*Worker, error) {
	var errs []error
	if err := cfg.Validate(); err != nil {
		errs = append(errs, err)
	}
	cfg = cfg.withDefaults()
	if deps.Redis == nil {
		errs = append(errs, errors.New("worker: no Redis"))
	}
	if deps.Hubs == nil {
		errs = append(errs, errors.New("worker: no hub clients"))
	}
	if deps.Storage == nil {
		errs = append(errs, errors.New("worker: no storage"))
	}
	errs = append(errs, checkBuckets(cfg.Routing, deps.Buckets)...)
	errs = append(errs, checkRoutingProfiles(cfg.Routing, cfg.Profiles)...)
	if deps.Renderer == nil {
		if cfg.Mode != ModeDownload {
			errs = append(errs, fmt.Errorf("worker: export mode %s needs a renderer", cfg.Mode))
		}
		for store, m := range cfg.Modes {
			if m != ModeDownload {
				errs = append(errs, fmt.Errorf("worker: store %s export mode %s needs a renderer", store, m))
			}
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	m, err := newMetrics(deps.Registerer, cfg.MemoryBudget)
	if err != nil {
		return nil, fmt.Errorf("worker: metrics: %w", err)
	}
	if deps.TracerProvider == nil {
		deps.TracerProvider = noop.NewTracerProvider()
	}
	if deps.Propagator == nil {
		deps.Propagator = propagation.NewCompositeTextMapPropagator()
	}
	enq, err := jobs.NewEnqueuer(deps.Redis, jobs.EnqueuerConfig{Options: cfg.Jobs, KeyPrefix: cfg.KeyPrefix, StateTTL: cfg.StateTTL, Retention: cfg.TaskRetention, Logger: cfg.Logger, Propagator: deps.Propagator, ExportShards: cfg.ExportShards})
	if err != nil {
		return nil, err
	}
	w := &Worker{
		cfg:    cfg,
		deps:   deps,
		log:    cfg.Logger,
		state:  enq.State(),
		enq:    enq,
		budget: NewBudget(cfg.MemoryBudget),
		gangs:  jobs.NewGangs(deps.Redis, cfg.KeyPrefix),
		m:      m,
		tracer: deps.TracerProvider.Tracer(tracerName),
		prop:   deps.Propagator,
	}
	w.limiter = NewLimiter(deps.Redis, cfg.KeyPrefix, cfg.rateFor)
	w.limiter.maxWait = cfg.RateLimitMaxWait
	w.shares = newStoreShares(cfg.StoreShare, cfg.Concurrency)
	// Event deliveries are bounded by time as exports are (events.Config.RetryFor).
	cfg.RetryWindows[jobs.TypeEventDeliver] = cfg.Events.RetryWindow()
	w.windows = &retryWindows{rdb: deps.Redis, prefix: cfg.KeyPrefix, windows: cfg.RetryWindows}
	w.limiter.observe = func(_ string, d time.Duration) { m.rateWait.Observe(d.Seconds()) }
	w.budget.changed = func(n int64) { m.budgetInUse.Set(float64(n)) }
	w.sheets = w.newSheetJobs()
	w.undecodable = make(chan struct{}, 1)

	w.mux = asynq.NewServeMux()
	w.mux.Use(w.middleware)
	w.mux.HandleFunc(jobs.TypeOrderPush, w.handlePush)
	w.mux.HandleFunc(jobs.TypeDesignExport, w.handleExport)
	w.mux.HandleFunc(jobs.TypeOrderComplete, w.handleComplete)
	w.mux.HandleFunc(jobs.TypeTemplatesSync, w.handleSync)
	w.mux.HandleFunc(jobs.TypeGangBuild, w.sheets.HandleBuild)
	w.mux.HandleFunc(jobs.TypeReprint, w.handleReprint)
	w.mux.HandleFunc(jobs.TypeReview, w.handleReview)
	w.mux.HandleFunc(jobs.TypeDayPage, w.handleDayPage)
	if err := w.registerEvents(); err != nil {
		return nil, err
	}
	for typ, h := range deps.Handlers {
		w.mux.Handle(typ, h)
	}

	w.srv = asynq.NewServerFromRedisClient(deps.Redis, asynq.Config{
		Concurrency:     cfg.Concurrency,
		Queues:          cfg.serveQueues(),
		StrictPriority:  cfg.StrictPriority,
		ShutdownTimeout: cfg.ShutdownTimeout,
		RetryDelayFunc:  cfg.Backoff.retryDelay,
		IsFailure:       isFailure,
		Logger:          asynqLogger{l: cfg.Logger, onError: w.noteAsynqError},
		LogLevel:        asynq.WarnLevel,
		ErrorHandler:    asynq.ErrorHandlerFunc(w.reportError),
		// Unless set, retries and scheduled tasks become due promptly: a 429's
		// Retry-After of a few seconds should not wait for a 5 s poll.
		DelayedTaskCheckInterval: cmp.Or(cfg.Polling.Delayed, time.Second),
		TaskCheckInterval:        cfg.Polling.Idle,
		JanitorInterval:          cfg.Polling.Janitor,
		JanitorBatchSize:         cfg.Polling.janitorBatch(),
	})
	return w, nil
}

// Handler returns the worker's task handler (middleware included), for running tasks
// without a server.
func (w *Worker) Handler() asynq.Handler { return asynq.HandlerFunc(w.route) }

// route hands a task to its handler. A type no handler serves ends at once as a bad
// payload (archived with the reason), as an unknown payload version does: asynq's
// own answer, "handler not found", is an error of no class, retried for hours
// (docs/pipeline.md, "Task messages that are not valid").
func (w *Worker) route(ctx context.Context, t *asynq.Task) error {
	w.inflight.Add(1)
	defer w.inflight.Done()
	if _, pattern := w.mux.Handler(t); pattern == "" {
		w.m.tasks.WithLabelValues("unknown", OutcomePermanent).Inc()
		return fmt.Errorf("%w: task type %q: this worker has no handler for it (upgrade the workers before the services that enqueue)", jobs.ErrPayload, printableType(t.Type()))
	}
	return w.mux.ProcessTask(ctx, t)
}

// printableType cuts an unknown task type for an error: at most 64 bytes.
func printableType(s string) string {
	if len(s) > 64 {
		return s[:64] + "..."
	}
	return s
}

// Run processes tasks until ctx ends, then shuts down gracefully: it stops fetching
// tasks, waits up to ShutdownTimeout for running ones, and leaves the rest to asynq,
// which hands them to another worker. It returns nil after a shutdown caused by ctx.
func (w *Worker) Run(ctx context.Context) error {
	if err := w.srv.Start(w.Handler()); err != nil {
		return fmt.Errorf("worker: start: %w", err)
	}
	w.log.InfoContext(ctx, "worker started", "concurrency", w.cfg.Concurrency, "queues", w.cfg.serveQueues(),
		"mode", w.cfg.Mode, "memory_budget_mib", w.cfg.MemoryBudget>>20)
	w.warnUnservedShards(ctx)
	sweepCtx, stopSweep := context.WithCancel(ctx)
	undecodable := make(chan struct{})
	go func() { defer close(undecodable); w.sweepUndecodable(sweepCtx) }()
	defer func() { stopSweep(); <-undecodable }()
	if w.sheets.HasCutoffs() {
		go w.sheets.RunScheduler(ctx)
	}
	swept, recovered := make(chan struct{}), make(chan struct{})
	go w.sweepLeftovers(ctx, swept)
	go w.recoverEarly(ctx, recovered)
	<-ctx.Done()
	<-swept
	<-recovered
	w.log.Info("worker stopping", "shutdown_timeout", w.cfg.ShutdownTimeout)
	w.srv.Stop()
	w.srv.Shutdown()
	w.waitHandlers()
	w.log.Info("worker stopped")
	return w.enq.Close()
}

// waitHandlers waits for the handlers asynq's Shutdown left running (their contexts
// are cancelled, so they end promptly), at most ShutdownTimeout more.
func (w *Worker) waitHandlers() {
	done := make(chan struct{})
	go func() { w.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(w.cfg.ShutdownTimeout):
		w.log.Warn("worker stopped with handlers still running past the shutdown timeout")
	}
}

// warnUnservedShards logs every export queue shard that holds tasks but is not
// served here: enqueuers with more shards than this worker (--export-queue-shards),
// or shards left over after the count was lowered. Their tasks wait until a worker
// serves them (docs/operations.md, "Export queue shards").
func (w *Worker) warnUnservedShards(ctx context.Context) {
	in := asynq.NewInspectorFromRedisClient(w.deps.Redis)
	qs, err := in.Queues()
	if err != nil {
		w.log.WarnContext(ctx, "export queue shards not checked", "err", err)
		return
	}
	served := w.cfg.serveQueues()
	for _, q := range qs {
		if _, ok := served[q]; ok || !jobs.IsExportQueue(q) {
			continue
		}
		info, err := in.GetQueueInfo(q)
		if err != nil || info.Size == 0 {
			continue
		}
		w.log.WarnContext(ctx, "export queue shard not served by this worker: raise --export-queue-shards",
			"queue", q, "tasks", info.Size, "export_queue_shards", w.cfg.ExportShards)
	}
}

// reportError logs a task's final failure (retries exhausted or permanent).
func (w *Worker) reportError(ctx context.Context, t *asynq.Task, err error) {
	retried, _ := asynq.GetRetryCount(ctx)
	maxRetry, _ := asynq.GetMaxRetry(ctx)
	if errors.Is(err, asynq.SkipRetry) || retried >= maxRetry {
		id, _ := asynq.GetTaskID(ctx)
		w.log.ErrorContext(ctx, "task failed for good, archived", "task_id", id, "type", t.Type(), "attempt", retried+1, "err", err)
		// An operator's retry of the archived task gets a whole retry window.
		if rerr := w.windows.reset(ctx, t.Type(), id); rerr != nil {
			w.log.WarnContext(ctx, "retry window not reset", "task_id", id, "err", rerr)
		}
		w.publishJobFailed(ctx, t, err)
	}
}

// asynqLogger routes asynq's own logs into slog.
type asynqLogger struct {
	l *slog.Logger
	// onError sees every error asynq logs (badmessages.go).
	onError func(string)
}

func (a asynqLogger) Debug(args ...any) { a.l.Debug(fmt.Sprint(args...), "component", "asynq") }
func (a asynqLogger) Info(args ...any)  { a.l.Info(fmt.Sprint(args...), "component", "asynq") }
func (a asynqLogger) Warn(args ...any)  { a.l.Warn(fmt.Sprint(args...), "component", "asynq") }
func (a asynqLogger) Error(args ...any) {
	msg := fmt.Sprint(args...)
	a.l.Error(msg, "component", "asynq")
	if a.onError != nil {
		a.onError(msg)
	}
}
func (a asynqLogger) Fatal(args ...any) {
	a.l.Error(fmt.Sprint(args...), "component", "asynq", "fatal", true)
}

// hubFor returns the store's hub behind the fleet-wide rate limit, its idempotent
// reads retried inside the attempt (each try through the limit).
func (w *Worker) hubFor(store string) (Hub, error) {
	h, err := w.deps.Hubs(store)
	if err != nil {
		return nil, &PermanentError{Reason: fmt.Sprintf("store %q: %v", store, err)}
	}
	limited := &limitedHub{h: h, store: store, lim: w.limiter, m: w.m}
	return &retryingHub{Hub: limited, cfg: w.cfg.HubRetry, w: w, store: store}, nil
}
