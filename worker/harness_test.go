package worker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/internal/tests3"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

const (
	store  = "demo-store"
	domain = "shop.example"
	apiKey = "test-key"
	secret = "test-secret"
)

// env is one pipeline under test: a private Redis, the hub simulator over HTTP, a
// real S3 protocol server, the worker and an enqueuer.
type env struct {
	t       *testing.T
	redis   *testredis.Server
	rdb     redis.UniversalClient
	sim     *hubsim.Server
	simURL  string
	s3      *tests3.Server
	store   *storage.S3
	enq     *jobs.Enqueuer
	insp    *asynq.Inspector
	reg     *prometheus.Registry
	w       *worker.Worker
	cfg     worker.Config
	stopped chan struct{}
	cancel  context.CancelFunc
	refs    map[int64]model.DesignRef
}

type envOption func(*worker.Config, *worker.Deps)

func withMode(m string) envOption {
	return func(c *worker.Config, _ *worker.Deps) { c.Mode = m }
}

// withExportShards spreads the exports over n queue shards (worker and enqueuer).
func withExportShards(n int) envOption {
	return func(c *worker.Config, _ *worker.Deps) { c.ExportShards = n }
}

// newEnv builds the pipeline; the worker is not started (see start).
func newEnv(t *testing.T, opts ...envOption) *env {
	t.Helper()
	return newEnvWrapped(t, nil, opts...)
}

// newEnvWrapped is newEnv with the hub client's and S3 client's HTTP transports
// wrapped by wrap (tracing tests wrap them in client spans); nil wraps nothing.
func newEnvWrapped(t *testing.T, wrap func(http.RoundTripper) http.RoundTripper, opts ...envOption) *env {
	t.Helper()
	e := &env{t: t, redis: testredis.Start(t)}
	e.rdb = e.redis.Client(t)
	sim, err := hubsim.New(hubsim.Config{
		Stores:      []hubsim.Store{{ID: store, Domains: []string{domain}, Keys: []hubsim.Key{{Key: apiKey, Secret: secret}}}},
		DesignsDir:  "../hubsim/testdata/designs",
		DesignStore: store,
	})
	if err != nil {
		t.Fatal(err)
	}
	e.sim = sim
	hs := httptest.NewServer(sim)
	t.Cleanup(hs.Close)
	e.simURL = hs.URL
	e.refs = map[int64]model.DesignRef{}
	for _, r := range sim.Designs() {
		e.refs[r.ID] = r
	}
	e.s3 = tests3.Start(t)
	s3cfg := e.s3.Config
	var hubHTTP *http.Client
	if wrap != nil {
		// A transport of the test's own, closed with it: goleak sees no idle
		// connection left behind.
		tr := http.DefaultTransport.(*http.Transport).Clone()
		t.Cleanup(tr.CloseIdleConnections)
		s3cfg.HTTPClient = &http.Client{Transport: wrap(tr)}
		hubHTTP = &http.Client{Transport: wrap(tr)}
	}
	e.store, err = storage.NewS3(context.Background(), s3cfg)
	if err != nil {
		t.Fatal(err)
	}
	client, err := hub.NewClient(hub.Config{Store: store, APIKey: apiKey, Secret: secret, BaseURL: hs.URL, Timeout: 10 * time.Second, HTTPClient: hubHTTP})
	if err != nil {
		t.Fatal(err)
	}
	rr, err := render.New(render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fast := jobs.DefaultOptions()
	fast.Export.MaxRetry, fast.Push.MaxRetry = 25, 25
	e.cfg = worker.Config{
		Concurrency:     6,
		ShutdownTimeout: 5 * time.Second,
		// Each step of a task chain and each retry is picked up at once, not after a
		// second's poll; what the tests check does not depend on the interval.
		Polling: worker.Polling{Idle: 20 * time.Millisecond, Delayed: 20 * time.Millisecond},
		Mode:    worker.ModeDownload,
		// Generous enough for a test's hub, small enough to be exercised.
		RateLimit: worker.RateLimit{PerMinute: 6000, Burst: 50},
		Backoff:   worker.Backoff{Base: 50 * time.Millisecond, Max: 500 * time.Millisecond},
		// In-attempt retries of hub reads as many as in production, with waits of
		// milliseconds; 429s keep the production wait budget.
		HubRetry: worker.HubRetry{Base: 5 * time.Millisecond, Max: 50 * time.Millisecond},
		Jobs:     &fast,
		// A completion's day page build waits a few polls, so the debounce is used.
		ShopFloor: worker.ShopFloor{DayPageDelay: 50 * time.Millisecond},
		Logger:    testLogger(t),
	}
	deps := worker.Deps{
		Redis:    e.rdb,
		Hubs:     func(s string) (worker.Hub, error) { return hubFor(s, client) },
		Storage:  e.store,
		Renderer: rr,
	}
	for _, o := range opts {
		o(&e.cfg, &deps)
	}
	e.reg = prometheus.NewRegistry()
	deps.Registerer = e.reg
	e.w, err = worker.New(e.cfg, deps)
	if err != nil {
		t.Fatal(err)
	}
	e.enq = e.newEnqueuer(e.cfg.Jobs)
	e.insp = asynq.NewInspectorFromRedisClient(e.rdb)
	return e
}

func (e *env) newEnqueuer(o *jobs.Options) *jobs.Enqueuer {
	enq, err := jobs.NewEnqueuer(e.rdb, jobs.EnqueuerConfig{Options: o, ExportShards: e.cfg.ExportShards})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { enq.Close() })
	return enq
}

func hubFor(s string, c *hub.Client) (worker.Hub, error) {
	if s != store {
		return nil, fmt.Errorf("no hub client for store %q", s)
	}
	return c, nil
}

// start runs the worker until the test ends.
func (e *env) start() {
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	e.stopped = make(chan struct{})
	go func() {
		defer close(e.stopped)
		if err := e.w.Run(ctx); err != nil {
			e.t.Errorf("worker: %v", err)
		}
	}()
	e.t.Cleanup(e.stop)
}

func (e *env) stop() {
	if e.cancel != nil {
		e.cancel()
		<-e.stopped
		e.cancel = nil
	}
}

// exportFirstLine enqueues order id (one line of design) and runs the export task of
// that line through the worker's handler directly, returning what the handler
// returned: for tests of one handler outcome without the queue's retries.
func (e *env) exportFirstLine(ctx context.Context, id string, design int64) error {
	e.t.Helper()
	o := e.order(id, design)
	if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
		e.t.Fatal(err)
	}
	task, err := jobs.NewDesignExportTask(jobs.DesignExport{
		OrderKey: jobs.OrderKey{Store: store, Domain: domain, OrderID: id}, Ref: o.LineItems[0].Ref().String(),
	}, jobs.DefaultOptions().Export)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.w.Handler().ProcessTask(ctx, task)
}

// order builds a valid order with one line per design id.
func (e *env) order(id string, designs ...int64) *model.Order {
	o := &model.Order{
		OrderID: id, Domain: domain, Email: "ann@example.com", FirstName: "Ann", LastName: "Lee",
		Created: "2024-06-01T09:30:00.000Z", Updated: "2024-06-01T09:30:00.000Z", Status: "paid",
		ShippingDetails: model.Address{FirstName: "Ann", LastName: "Lee", Address1: "1 Main St", City: "Springfield", Zip: "12345", Country: "US", CountryCode: "US"},
		BillingDetails:  model.Address{FirstName: "Ann", LastName: "Lee", Address1: "1 Main St", City: "Springfield", Zip: "12345", Country: "US", CountryCode: "US"},
	}
	for i, d := range designs {
		r, ok := e.refs[d]
		if !ok {
			r = model.DesignRef{ID: d, Token: "00000000-0000-4000-8000-000000000000"}
		}
		o.LineItems = append(o.LineItems, model.LineItem{ID: r.ID, Token: r.Token, Quantity: i + 2, Price: 9.5})
	}
	return o
}

// waitBound ends a wait that would otherwise hang a stuck test. It is no performance
// assertion: the whole package's tests share two cores with other packages under
// -race in CI, so it is generous.
const waitBound = 3 * time.Minute

// orderDir is the folder of the test order id (of domain) under the default layout.
func orderDir(id string) string {
	return store + "/2024-06-01/" + storage.OrderFolderValue(id, domain)
}

// manifest waits for the order's manifest of at least revision rev and returns it.
// The wait is bounded only to fail a stuck test with a message; nothing asserts on
// how long the pipeline takes.
func (e *env) manifest(orderID string, rev int64) worker.Manifest {
	e.t.Helper()
	key := orderDir(orderID) + "/manifest.json"
	deadline := time.Now().Add(waitBound)
	for {
		m, err := e.readManifest(key)
		if err == nil && m.Revision >= rev {
			return m
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("manifest %s (revision %d) not written: %v; %s", key, rev, err, e.queueReport())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (e *env) readManifest(key string) (worker.Manifest, error) {
	var m worker.Manifest
	rc, _, err := e.store.Get(context.Background(), key)
	if err != nil {
		return m, err
	}
	defer rc.Close()
	err = json.NewDecoder(rc).Decode(&m)
	return m, err
}

func (e *env) object(key string) []byte {
	e.t.Helper()
	rc, _, err := e.store.Get(context.Background(), key)
	if err != nil {
		e.t.Fatalf("object %s: %v", key, err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		e.t.Fatal(err)
	}
	return b
}

// queues are the queues the tests wait on: orders, completions, every export shard,
// sync, pages.
func (e *env) queues() []string {
	return slices.Concat([]string{jobs.QueueOrders, jobs.QueueComplete}, jobs.ExportQueues(e.cfg.ExportShards), []string{jobs.QueueSync, jobs.QueuePages})
}

// queueReport summarizes the queues for failure messages.
func (e *env) queueReport() string {
	var b strings.Builder
	for _, q := range e.queues() {
		info, err := jobs.ReadQueueStats(context.Background(), e.rdb, q, time.Now())
		if err != nil {
			fmt.Fprintf(&b, "%s: %v; ", q, err)
			continue
		}
		fmt.Fprintf(&b, "%s: pending %d active %d scheduled %d retry %d archived %d completed %d; ", q, info.Pending, info.Active, info.Scheduled, info.Retry, info.Archived, info.Completed)
		if tasks, err := e.insp.ListArchivedTasks(q); err == nil {
			for _, t := range tasks {
				fmt.Fprintf(&b, "archived %s: %s; ", t.ID, t.LastErr)
			}
		}
		if tasks, err := e.insp.ListRetryTasks(q); err == nil {
			for _, t := range tasks {
				fmt.Fprintf(&b, "retry %s: %s; ", t.ID, t.LastErr)
			}
		}
	}
	return b.String()
}

// waitQueuesIdle waits until no task is pending, active, scheduled or retrying.
func (e *env) waitQueuesIdle() {
	e.t.Helper()
	deadline := time.Now().Add(waitBound)
	for {
		// An unreadable queue is not idle.
		sum, err := jobs.SumQueueStats(context.Background(), e.rdb, time.Now(), e.queues()...)
		if err == nil && sum.Busy() == 0 {
			return
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("queues not idle: %s", e.queueReport())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// hubRequests counts the simulator's logged requests matching the method and path
// prefix.
func (e *env) hubRequests(method, pathPrefix string) int {
	n := 0
	for _, r := range e.sim.Requests() {
		if r.Method == method && strings.HasPrefix(r.Path, pathPrefix) {
			n++
		}
	}
	return n
}

// testLogger sends logs to the test log when -v, else nowhere.
func testLogger(t *testing.T) *slog.Logger {
	if !testing.Verbose() || os.Getenv("PRINTWORKER_TEST_LOGS") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(&tlog{t: t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tlog struct {
	mu sync.Mutex
	t  *testing.T
}

func (l *tlog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
