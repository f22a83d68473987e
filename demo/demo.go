// Package demo runs the whole flow in one process: an embedded Redis (or the one
// named), the hub simulator with sample designs (or a real hub), a store simulator,
// the intake, a worker and an event receiver; it sends signed sample orders to its
// own intake, waits for every manifest and reports what was produced
// (docs/demo.md). `printworker demo` is its command.
package demo

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/progress"
	"github.com/printworker/printworker/internal/telemetry"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/shopfloor"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// Orders are the demo's sample Shopify orders (demodata/*.json), signed and sent to
// its own intake.
//
//go:embed demodata/*.json
var Orders embed.FS

// The demo's own designs, laid over the simulator's samples: the sticker (1004)
// and the greeting card with its background over the whole card (1003), so it runs
// into the press profile's bleed.
//
//go:embed demodata/designs/*.json
var demoDesigns embed.FS

// ProfilesJSON is the demo's production profiles file (docs/profiles.md): the card as press-pdfx4, the
// sticker as sticker-cut, the T-shirt front as dtf-white, the mugs as PNG at 300 dpi.
//
//go:embed demodata/profiles/demo.json
var ProfilesJSON []byte

// The demo's fixed identities: one simulated hub account, one Shopify shop.
const (
	demoStore         = "demo-store"
	demoDomain        = "shop.example.com"
	demoShop          = "printworker-demo.myshopify.com"
	demoAPIKey        = "demo-key"
	demoAPISecret     = "demo-api-secret"
	demoShopifySecret = "demo-shopify-secret"
	demoMarker        = ".printworker-demo"
)

// demoRun holds the running parts of a demo.
type demoRun struct {
	o        Options
	w        Wiring
	out      io.Writer
	log      *slog.Logger
	tr       *telemetry.Tracing
	rdb      redis.UniversalClient
	enq      *jobs.Enqueuer
	store    Storage
	where    string
	intake   string // base URL
	hubStore string
	domain   string
	// receiver is the demo's own event receiver; nil when --events-url or
	// --events-file names real ones.
	receiver *demoReceiver
	// sim is the store simulator of --platform; nil for Shopify.
	sim *demoSim
	// started is when the run began: a manifest generated before is an earlier run's.
	started time.Time
	// sharedRedis: Redis came from --redis-url and outlives the run, so an earlier
	// run's manifests are kept for the re-exports of its orders.
	sharedRedis bool
	// redisURL is the Redis the demo uses: the flags', or the embedded one's.
	redisURL string
	// eventsSecret is the demo receiver's signing secret.
	eventsSecret string
	cleanup      []func()
}

// Run runs the demo until every sample order's manifest is there (or o.Timeout
// passes) and reports what was produced; with o.Keep it then serves until ctx ends.
// Errors the user fixes on the command line are *UsageError.
func Run(ctx context.Context, o Options, w Wiring) (err error) {
	// A Redis named by --redis-url may hold an earlier run's orders: those are
	// re-exported, and a finished order's state keeps its data only in its manifest.
	d := &demoRun{o: o, w: w, out: o.Stdout, log: o.Log, tr: o.Tracing, hubStore: demoStore, domain: demoDomain,
		started: time.Now(), sharedRedis: w.RedisURL() != "", redisURL: w.RedisURL()}
	defer func() {
		for i := len(d.cleanup) - 1; i >= 0; i-- {
			d.cleanup[i]()
		}
	}()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	if err := d.startRedis(ctx); err != nil {
		return err
	}
	hubs, err := d.startHub(ctx)
	if err != nil {
		return err
	}
	if err := d.openStorage(ctx); err != nil {
		return err
	}
	if !w.EventsNamed() {
		if d.receiver, d.eventsSecret, err = d.startReceiver(ctx); err != nil {
			return err
		}
	}
	if d.sim, err = d.startStore(ctx); err != nil {
		return err
	}
	if err := d.startWorker(ctx, hubs); err != nil {
		return err
	}
	if err := d.startIntake(ctx); err != nil {
		return err
	}

	orders, err := d.sendOrders(ctx)
	if err != nil {
		return err
	}
	manifests, err := d.wait(ctx, orders)
	if err != nil {
		return err
	}
	if d.receiver != nil {
		ids := make([]string, 0, len(manifests))
		for id := range manifests {
			ids = append(ids, id)
		}
		// Events go through their own queue after the manifest: a moment more.
		d.receiver.waitFilesReady(ctx, ids, time.Now().Add(min(d.o.Timeout, 30*time.Second)))
	}
	d.waitDayPages(ctx, time.Now().Add(min(d.o.Timeout, 30*time.Second)))
	d.report(manifests)
	if d.o.Keep {
		d.printPlayground()
		<-ctx.Done()
		fmt.Fprintln(d.out, "stopping")
	}
	return nil
}

func (d *demoRun) startRedis(ctx context.Context) error {
	if d.redisURL == "" {
		m := miniredis.NewMiniRedis()
		if err := m.StartAddr("127.0.0.1:0"); err != nil {
			return fmt.Errorf("demo: embedded redis: %w", err)
		}
		d.cleanup = append(d.cleanup, m.Close)
		d.redisURL = "redis://" + m.Addr()
		fmt.Fprintf(d.out, "redis    embedded (miniredis) at %s\n", m.Addr())
	} else {
		fmt.Fprintf(d.out, "redis    %s\n", d.w.RedisName())
	}
	rdb, err := d.w.ConnectRedis(ctx, d.redisURL)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	d.rdb = rdb
	d.cleanup = append(d.cleanup, func() { rdb.Close() })
	if err := claimDemoRedis(ctx, d.rdb); err != nil {
		return err
	}
	enq, err := jobs.NewEnqueuer(d.rdb, jobs.EnqueuerConfig{Logger: d.log, Propagator: d.tr.Propagator, ExportShards: d.w.ExportShards()})
	if err != nil {
		return err
	}
	d.enq = enq
	d.cleanup = append(d.cleanup, func() { enq.Close() })
	return nil
}

// RedisMarker marks a Redis database the demo has used: the one key it leaves
// without an expiry.
const RedisMarker = "printworker:demo"

// claimDemoRedis refuses a database that holds anything but an earlier demo's data.
// The demo runs a worker, and a worker on a production queue would take real orders'
// tasks, fail them against the simulator and archive them.
func claimDemoRedis(ctx context.Context, rdb redis.UniversalClient) error {
	n, err := rdb.DBSize(ctx).Result()
	if err != nil {
		return fmt.Errorf("demo: redis: %w", err)
	}
	if n > 0 {
		ok, err := rdb.Exists(ctx, RedisMarker).Result()
		if err != nil {
			return fmt.Errorf("demo: redis: %w", err)
		}
		if ok == 0 {
			return usageError(fmt.Sprintf("demo: the Redis database holds %d keys the demo did not write; its worker would take their tasks. Give the demo a database of its own (e.g. redis://host:6379/15)", n))
		}
	}
	if err := rdb.Set(ctx, RedisMarker, "used by printworker demo", 0).Err(); err != nil {
		return fmt.Errorf("demo: redis: %w", err)
	}
	return nil
}

// startHub starts the simulator with the sample designs and points the hub flags at
// it, unless they already name a real hub.
func (d *demoRun) startHub(ctx context.Context) (worker.HubFor, error) {
	var sim *SimHub
	if url, store, domain, ok := d.w.RealHub(); ok {
		if store == "" {
			return nil, usageError("demo: a real hub needs --hub-store (the store the sample orders go to)")
		}
		d.hubStore = store
		if domain != "" {
			d.domain = domain
		}
		fmt.Fprintf(d.out, "hub      %s (store %s, domain %s)\n", url, d.hubStore, d.domain)
	} else {
		dir, err := os.MkdirTemp("", "printworker-demo-fixtures-")
		if err != nil {
			return nil, fmt.Errorf("demo: %w", err)
		}
		d.cleanup = append(d.cleanup, func() { os.RemoveAll(dir) })
		if err := WriteFixtures(dir); err != nil {
			return nil, fmt.Errorf("demo: fixtures: %w", err)
		}
		hs, err := hubsim.New(hubsim.Config{
			Stores:      []hubsim.Store{{ID: demoStore, Domains: []string{demoDomain}, Keys: []hubsim.Key{{Key: demoAPIKey, Secret: demoAPISecret}}}},
			DesignsDir:  dir,
			DesignStore: demoStore,
		})
		if err != nil {
			return nil, fmt.Errorf("demo: hub simulator: %w", err)
		}
		simCtx, stopSim := context.WithCancel(ctx)
		addr, simDone, err := hs.Start(simCtx, "127.0.0.1:0")
		if err != nil {
			stopSim()
			return nil, err
		}
		d.cleanup = append(d.cleanup, func() { stopSim(); <-simDone })
		// Runs before the simulator stops, after the worker: the hub client (on the
		// default transport) may hold connections it dialled and never used, which
		// the simulator's shutdown would otherwise wait 5 s for.
		d.cleanup = append(d.cleanup, func() {
			if t, ok := http.DefaultTransport.(*http.Transport); ok {
				t.CloseIdleConnections()
			}
		})
		sim = &SimHub{URL: "http://" + addr.String(), Store: demoStore, APIKey: demoAPIKey, Secret: demoAPISecret, Domain: demoDomain}
		fmt.Fprintf(d.out, "hub      simulator at %s (%d sample designs)\n", sim.URL, len(hs.Designs()))
	}
	hubs, closeIdle, err := d.w.Hubs(sim, d.tr, d.log)
	if err != nil {
		return nil, err
	}
	d.cleanup = append(d.cleanup, closeIdle)
	return hubs, nil
}

func (d *demoRun) openStorage(ctx context.Context) error {
	dir := d.w.StorageDir()
	if d.w.StorageKind() == "dir" {
		out, err := filepath.Abs(dir)
		if err != nil {
			return fmt.Errorf("demo: --out: %w", err)
		}
		if err := prepareDemoDir(out, d.sharedRedis); err != nil {
			return err
		}
		dir = out
	}
	st, closeSt, err := d.w.OpenStorage(ctx, dir, d.tr)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	d.cleanup = append(d.cleanup, closeSt) // after the worker stops
	d.store, d.where = st, st.Describe()
	if d.w.StorageKind() == "dir" {
		d.where = dir
	}
	fmt.Fprintf(d.out, "storage  %s\n", st.Describe())
	return nil
}

// prepareDemoDir empties the demo's output folder so a re-run starts clean. With
// keepManifests (a Redis that outlives the runs) the orders' manifests stay: a
// re-run re-exports the orders its Redis already took, and a finished order's data
// (customer, shipping address) is kept in its manifest, not in Redis. It refuses a
// non-empty folder the demo did not create, so a mistyped --out never deletes
// someone's files.
func prepareDemoDir(out string, keepManifests bool) error {
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("demo: --out: %w", err)
	case len(entries) > 0:
		if _, err := os.Stat(filepath.Join(out, demoMarker)); err != nil {
			return usageError(fmt.Sprintf("demo: --out %s is not empty and was not made by the demo; choose another folder", out))
		}
		if keepManifests {
			if err := emptyAllButManifests(out); err != nil {
				return fmt.Errorf("demo: cleaning %s: %w", out, err)
			}
			break
		}
		for _, en := range entries {
			if err := os.RemoveAll(filepath.Join(out, en.Name())); err != nil {
				return fmt.Errorf("demo: cleaning %s: %w", out, err)
			}
		}
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("demo: --out: %w", err)
	}
	return os.WriteFile(filepath.Join(out, demoMarker), []byte("made by printworker demo; emptied on each run\n"), 0o644)
}

func (d *demoRun) startWorker(ctx context.Context, hubs worker.HubFor) error {
	var eventsURL string
	if d.receiver != nil {
		eventsURL = d.receiver.url
	}
	cfg, deps, rules, err := d.w.Worker(ctx, eventsURL, d.eventsSecret, d.log)
	if err != nil {
		return err
	}
	deps.Redis, deps.Hubs, deps.Storage = d.rdb, hubs, d.store
	deps.TracerProvider, deps.Propagator = d.tr.Provider, d.tr.Propagator
	if cfg.Profiles, err = d.demoProfiles(rules.Profiles()...); err != nil {
		return err
	}
	if deps.Renderer, err = d.w.Renderer(cfg); err != nil {
		return err
	}
	if deps.Handlers, err = d.sim.fetchHandlers(d.intakeConfig(), intake.JobsEnqueuer(d.enq), d); err != nil {
		return usageError("demo: " + err.Error())
	}
	w, err := worker.New(cfg, deps)
	if err != nil {
		return usageError("demo: " + err.Error())
	}
	wctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(wctx) }()
	d.cleanup = append(d.cleanup, func() {
		stop()
		if err := <-done; err != nil {
			d.log.Warn("worker stopped with an error", "err", err)
		}
	})
	fmt.Fprintf(d.out, "worker   mode %s, %d tasks at once\n", cfg.Mode, cfg.Concurrency)
	return nil
}

// intakeConfig is the demo intake's configuration: the Shopify shop, or the
// simulated store of --platform.
func (d *demoRun) intakeConfig() intake.Config {
	cfg := intake.DefaultConfig()
	cfg.Shopify.Secrets = []string{demoShopifySecret}
	cfg.Shopify.Stores = map[string]string{demoShop: d.hubStore}
	cfg.Shopify.Domains = map[string]string{demoShop: d.domain}
	// The samples are sent with --topic; making it the production topic too means
	// every run prints, whichever topic is chosen.
	cfg.ProductionTopic = d.o.Topic
	// The embedded Redis runs in this process, beside four renders: a store's 5 s
	// enqueue bound (answered 503, the store sends again) would turn a busy laptop
	// into failed demo orders.
	cfg.EnqueueTimeout = 30 * time.Second
	if d.sim != nil {
		d.sim.intakeConfig(&cfg, d.hubStore, d.domain)
	}
	return cfg
}

func (d *demoRun) startIntake(ctx context.Context) error {
	cfg := d.intakeConfig()
	deliveries := intake.NewRedisDeliveries(d.rdb, "")
	srv, err := intake.New(cfg, intake.JobsEnqueuer(d.enq), deliveries, deliveries.Ping, intake.WithLogger(d.log), intake.WithTracing(d.tr.Provider, d.tr.Propagator))
	if err != nil {
		return usageError("demo: " + err.Error())
	}
	ln, err := net.Listen("tcp", d.o.IntakeAddr)
	if err != nil {
		return fmt.Errorf("demo: intake: %w", err)
	}
	ictx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- d.w.Serve(ictx, ln, srv.Handler()) }()
	d.cleanup = append(d.cleanup, func() { stop(); <-done })
	d.intake = "http://" + ln.Addr().String()
	fmt.Fprintf(d.out, "intake   %s/webhooks/%s\n", d.intake, d.o.Platform)
	return nil
}

// demoOrder is one sample order sent.
type demoOrder struct {
	key      jobs.OrderKey
	name     string
	manifest string // key of its manifest
}

// sendOrders signs each sample order as Shopify does and posts it to the intake. An
// order the intake already took (a re-run against the same Redis) is re-exported
// through the operator's path, so its files and manifest are written again.
func (d *demoRun) sendOrders(ctx context.Context) ([]demoOrder, error) {
	files, err := fs.Glob(Orders, "demodata/*.json")
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var out []demoOrder
	if d.sim != nil {
		fmt.Fprintf(d.out, "\nsending %d orders through the %s simulator\n", len(files), d.o.Platform)
	} else {
		fmt.Fprintf(d.out, "\nsending %d signed Shopify orders (%s)\n", len(files), d.o.Topic)
	}
	for _, f := range files {
		body, err := Orders.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var so demoSample
		if err := json.Unmarshal(body, &so); err != nil {
			return nil, fmt.Errorf("demo: %s: %w", f, err)
		}
		k := jobs.OrderKey{Store: d.hubStore, Domain: d.domain, OrderID: string(so.ID)}
		manifest, err := d.manifestKey(k, so.CreatedAt)
		if err != nil {
			return nil, usageError("demo: --storage-layout: " + err.Error())
		}
		// A previous run's manifest (shared storage, e.g. S3) goes, unless this
		// run's Redis may re-export the order from it; the wait below takes only a
		// manifest generated by this run.
		if !d.sharedRedis {
			if err := d.store.Delete(ctx, manifest); err != nil {
				d.log.Debug("previous manifest not deleted", "key", manifest, "err", err)
			}
		}
		res, err := d.deliver(ctx, body, f, &so)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(d.out, "  %-6s %-22s -> %s %s\n", so.Name, path.Base(f), res.Status, strings.Join(res.Jobs, " "))
		switch res.Status {
		case "enqueued":
		case "duplicate":
			// Taken by an earlier run on this Redis: export it again, explicitly.
			if _, err := d.enq.ReExport(ctx, k); err != nil {
				return nil, fmt.Errorf("demo: re-export %s: %w", so.Name, err)
			}
			fmt.Fprintf(d.out, "  %-6s %-22s    re-export enqueued\n", "", "")
		default:
			return nil, fmt.Errorf("demo: intake answered %s for %s: %s", res.Status, f, res.Reason)
		}
		out = append(out, demoOrder{key: k, name: so.Name, manifest: manifest})
	}
	return out, nil
}

// deliver sends one sample order, as Shopify or through the store simulator, and
// sends it again while the intake answers "unavailable" (503), as the stores do:
// on a busy machine the embedded Redis can miss the intake's enqueue bound (Wix's
// is one second) while the worker renders. The stores retry for hours; the demo
// retries with a growing pause until its --timeout.
func (d *demoRun) deliver(ctx context.Context, body []byte, name string, so *demoSample) (intakeAnswer, error) {
	deadline := time.Now().Add(d.o.Timeout)
	pause := demoResendPause
	for try := 1; ; try++ {
		var (
			res intakeAnswer
			err error
		)
		if d.sim != nil {
			res, err = d.sim.send(ctx, d.intake, so)
		} else {
			res, err = d.post(ctx, body, name)
		}
		if err != nil || res.Status != "unavailable" || time.Now().Add(pause).After(deadline) {
			return res, err
		}
		d.log.Warn("intake unavailable, sending the order again", "order", so.Name, "try", try, "after", pause)
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, demoResendPauseMax)
	}
}

// demoResendPause is deliver's first pause before sending an order again; it
// doubles up to demoResendPauseMax.
const (
	demoResendPause    = time.Second
	demoResendPauseMax = 8 * time.Second
)

type intakeAnswer struct {
	Status string   `json:"status"`
	Reason string   `json:"reason"`
	Jobs   []string `json:"jobs"`
}

func (d *demoRun) post(ctx context.Context, body []byte, name string) (intakeAnswer, error) {
	var a intakeAnswer
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, d.intake+"/webhooks/shopify", bytes.NewReader(body))
	if err != nil {
		return a, err
	}
	m := hmac.New(sha256.New, []byte(demoShopifySecret))
	m.Write(body)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Shopify-Hmac-Sha256", base64.StdEncoding.EncodeToString(m.Sum(nil)))
	req.Header.Set("X-Shopify-Topic", d.o.Topic)
	req.Header.Set("X-Shopify-Shop-Domain", demoShop)
	req.Header.Set("X-Shopify-Webhook-Id", "demo-"+path.Base(name))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return a, fmt.Errorf("demo: post %s: %w", name, err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&a); err != nil {
		return a, fmt.Errorf("demo: intake answer for %s (HTTP %d): %w", name, resp.StatusCode, err)
	}
	return a, nil
}

// manifestKey is where the worker writes the order's manifest: the layout under the
// order's date folder, which is the UTC day it was created (jobs fixes it at the
// first export, from the order's created time).
func (d *demoRun) manifestKey(k jobs.OrderKey, created time.Time) (string, error) {
	return storage.Layout{Pattern: d.w.StorageLayout()}.ManifestKey(storage.KeyVars{Store: k.Store, Domain: k.Domain, Order: k.OrderID, Date: created})
}

// wait polls for every order's manifest, showing progress, until all exist or the
// timeout passes; on timeout it names what is missing and why, as far as the queue
// knows.
func (d *demoRun) wait(ctx context.Context, orders []demoOrder) (map[string]*worker.Manifest, error) {
	fmt.Fprintln(d.out)
	bar := progress.New(d.out, "manifests", len(orders))
	deadline := time.Now().Add(d.o.Timeout)
	got := map[string]*worker.Manifest{}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	var checked time.Time
	for {
		for _, o := range orders {
			if got[o.key.OrderID] != nil {
				continue
			}
			m, err := d.readManifest(ctx, o.manifest)
			if err != nil || !d.thisRun(m) {
				continue
			}
			got[o.key.OrderID] = m
			bar.Add(1)
		}
		if len(got) == len(orders) {
			bar.Finish()
			return got, nil
		}
		if time.Now().After(deadline) {
			bar.Finish()
			return nil, d.timeoutError(orders, got)
		}
		// Every task ended and some failed for good: no manifest can come, so the
		// demo says why now instead of waiting out --timeout.
		if time.Since(checked) >= 500*time.Millisecond {
			checked = time.Now()
			if failed := d.failedForGood(ctx); failed != "" {
				bar.Finish()
				return nil, d.failedError(orders, got, failed)
			}
		}
		select {
		case <-ctx.Done():
			bar.Finish()
			return nil, fmt.Errorf("demo: %w", ctx.Err())
		case <-tick.C:
		}
	}
}

// failedForGood names the tasks of this run that failed for good (archived) once no
// task of any queue waits, runs or retries; "" while one does, or when none failed.
func (d *demoRun) failedForGood(ctx context.Context) string {
	qs, err := jobs.Queues(ctx, d.rdb)
	if err != nil {
		return ""
	}
	insp := asynq.NewInspectorFromRedisClient(d.rdb)
	var failed []string
	for _, q := range qs {
		info, err := insp.GetQueueInfo(q)
		if err != nil {
			return ""
		}
		if info.Pending+info.Active+info.Scheduled+info.Retry+info.Aggregating > 0 {
			return ""
		}
		if info.Archived == 0 {
			continue
		}
		archived, err := insp.ListArchivedTasks(q, asynq.PageSize(100))
		if err != nil {
			return ""
		}
		for _, a := range archived {
			// An earlier run's task (a Redis given with --redis-url) is not this run's.
			if a.LastFailedAt.Before(d.started) {
				continue
			}
			failed = append(failed, fmt.Sprintf("task %s %s (queue %s): %s", a.Type, a.ID, q, a.LastErr))
		}
	}
	switch len(failed) {
	case 0:
		return ""
	case 1:
		return failed[0]
	}
	// The first says why; the others mostly say the same.
	return fmt.Sprintf("%s; and %d more task(s)", failed[0], len(failed)-1)
}

// missingOrders names the orders that have no manifest yet.
func missingOrders(orders []demoOrder, got map[string]*worker.Manifest) []string {
	var missing []string
	for _, o := range orders {
		if got[o.key.OrderID] == nil {
			missing = append(missing, o.name)
		}
	}
	return missing
}

// failedError says which orders have no manifest and which tasks failed for good.
func (d *demoRun) failedError(orders []demoOrder, got map[string]*worker.Manifest, failed string) error {
	missing := missingOrders(orders, got)
	return fmt.Errorf("demo: stopped: no manifest for %s, and no task is left to make one; failed for good: %s (fix that and run again; --log-level info shows each step)",
		strings.Join(missing, ", "), failed)
}

// waitDayPages waits until the day page builds have run: a completion enqueues its
// day's build to run after --day-page-delay and does not wait for it
// (docs/shop-floor.md, "Day page").
func (d *demoRun) waitDayPages(ctx context.Context, deadline time.Time) {
	insp := asynq.NewInspectorFromRedisClient(d.rdb)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(deadline) {
		info, err := insp.GetQueueInfo(jobs.QueuePages)
		if errors.Is(err, asynq.ErrQueueNotFound) || err == nil && info.Pending+info.Scheduled+info.Active+info.Retry == 0 {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// thisRun reports whether m was generated by this run (its time has whole seconds).
func (d *demoRun) thisRun(m *worker.Manifest) bool {
	at, err := time.Parse(time.RFC3339, m.GeneratedAt)
	return err == nil && !at.Before(d.started.Truncate(time.Second))
}

// emptyAllButManifests deletes every file under dir but the orders' manifests.
func emptyAllButManifests(dir string) error {
	return filepath.WalkDir(dir, func(p string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() || de.Name() == storage.ManifestName {
			return err
		}
		return os.Remove(p)
	})
}

func (d *demoRun) readManifest(ctx context.Context, key string) (*worker.Manifest, error) {
	rc, _, err := d.store.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var m worker.Manifest
	if err := json.NewDecoder(rc).Decode(&m); err != nil {
		return nil, err
	}
	return &m, nil
}

func (d *demoRun) timeoutError(orders []demoOrder, got map[string]*worker.Manifest) error {
	missing := missingOrders(orders, got)
	reason := ""
	insp := asynq.NewInspectorFromRedisClient(d.rdb)
	// Every queue asynq knows: a failed task says why, whichever queue it ran in.
	qs, _ := jobs.Queues(context.Background(), d.rdb)
	for _, q := range qs {
		archived, err := insp.ListArchivedTasks(q)
		if err != nil || len(archived) == 0 {
			continue
		}
		reason = fmt.Sprintf("; a %s task failed: %s", archived[0].Type, archived[0].LastErr)
		break
	}
	return fmt.Errorf("demo: no manifest after %s for %s%s (raise --timeout, or --log-level info to watch)",
		d.o.Timeout, strings.Join(missing, ", "), reason)
}

// report prints where the files are and a table of them.
func (d *demoRun) report(manifests map[string]*worker.Manifest) {
	ids := make([]string, 0, len(manifests))
	for id := range manifests {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	files, warnings := 0, 0
	fmt.Fprintln(d.out)
	tw := tabwriter.NewWriter(d.out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ORDER\tFILE\tTYPE\tSIZE\tBYTES\tWARNINGS")
	for _, id := range ids {
		m := manifests[id]
		for _, f := range m.Files {
			files++
			warnings += len(f.Warnings)
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\n", m.OrderID, path.Base(f.Key), f.Type, fileSize(f), f.Bytes, warningSummary(f.Warnings))
		}
	}
	tw.Flush()
	fmt.Fprintf(d.out, "\n%s, %s, %s (details in each manifest.json). Files are in\n  %s\n", count(len(ids), "order"), count(files, "file"), count(warnings, "warning"), d.where)
	for _, id := range ids {
		m := manifests[id]
		// The manifest's own key: routing rules may have put the files elsewhere.
		created, _ := time.Parse(time.RFC3339Nano, m.OrderCreated)
		if key, err := (storage.Layout{Pattern: d.w.StorageLayout()}).ManifestKey(m.KeyVars(created)); err == nil {
			fmt.Fprintf(d.out, "  %s\n", d.store.URL(key))
		} else if len(m.Files) > 0 {
			fmt.Fprintf(d.out, "  %s\n", d.store.URL(path.Dir(m.Files[0].Key)+"/"+storage.ManifestName))
		}
	}
	d.reportMachines(ids, manifests)
	d.reportShopFloor(ids, manifests)
	if d.receiver != nil {
		d.receiver.report(d)
	}
}

// reportMachines prints each machine folder the routing rules filled, with how many
// print files it holds (docs/routing.md#machine-folders); nothing without rules.
func (d *demoRun) reportMachines(ids []string, manifests map[string]*worker.Manifest) {
	type folder struct {
		files   int
		example string
	}
	folders := map[string]*folder{}
	var names []string
	for _, id := range ids {
		for _, f := range manifests[id].Files {
			mf := f.Machine
			if mf == nil {
				continue
			}
			name := path.Dir(mf.Key)
			if mf.Bucket != "" {
				name = "s3://" + mf.Bucket + "/" + name
			} else {
				name = d.store.URL(name)
			}
			if folders[name] == nil {
				folders[name] = &folder{example: path.Base(mf.Key)}
				names = append(names, name)
			}
			folders[name].files++
		}
	}
	if len(names) == 0 {
		return
	}
	slices.Sort(names)
	fmt.Fprintf(d.out, "\nmachine folders (print files only, for the RIPs; routing rules)\n")
	for _, n := range names {
		fmt.Fprintf(d.out, "  %s  (%d print files, e.g. %s)\n", n, folders[n].files, folders[n].example)
	}
}

// printKeys prints the links to keys (the empty ones left out) under one label.
func (d *demoRun) printKeys(label string, keys []string) {
	for _, k := range keys {
		if k == "" {
			continue
		}
		fmt.Fprintf(d.out, "  %-12s %s\n", label, d.store.URL(k))
		label = ""
	}
}

// reportShopFloor prints where print staff find the day's page, each order's page and
// job ticket, and the thumbnails (docs/shop-floor.md).
func (d *demoRun) reportShopFloor(ids []string, manifests map[string]*worker.Manifest) {
	fmt.Fprintf(d.out, "\nshop floor (open the day page in a browser; print the tickets)\n")
	layout := storage.Layout{Pattern: d.w.StorageLayout()}
	days := map[string]int{}
	var dayKeys []string
	thumbs, example := 0, ""
	for _, id := range ids {
		m := manifests[id]
		created, _ := time.Parse(time.RFC3339Nano, m.OrderCreated)
		if folder, ok, err := layout.DayFolder(m.KeyVars(created)); err == nil && ok {
			key := folder + "/" + shopfloor.StaffPageName
			if days[key] == 0 {
				dayKeys = append(dayKeys, key)
			}
			days[key]++
		}
		for _, f := range m.Files {
			if f.Thumbnail != "" {
				thumbs++
				if example == "" && f.Bucket == "" {
					example = f.Thumbnail
				}
			}
		}
	}
	for _, k := range dayKeys {
		fmt.Fprintf(d.out, "  day page     %s  (%d orders)\n", d.store.URL(k), days[k])
	}
	var pages, tickets []string
	for _, id := range ids {
		pages = append(pages, manifests[id].StaffPage)
		tickets = append(tickets, manifests[id].Ticket)
	}
	d.printKeys("order page", pages)
	d.printKeys("job ticket", tickets)
	if thumbs > 0 {
		fmt.Fprintf(d.out, "  thumbnails   %d JPEGs next to their files, e.g. %s\n", thumbs, d.store.URL(example))
	}
}

// fileSize is a file's print size: pixels at dpi for PNG, the page in points (and
// inches) for PDF.
func fileSize(f worker.FileRecord) string {
	switch {
	case f.Type == model.ExportPNG && f.WidthPx > 0:
		return fmt.Sprintf("%dx%d px @ %g dpi", f.WidthPx, f.HeightPx, f.DPI)
	case f.PageWidthPt > 0:
		return fmt.Sprintf("%.0fx%.0f pt (%.2fx%.2f in)", f.PageWidthPt, f.PageHeightPt, f.PageWidthPt/72, f.PageHeightPt/72)
	}
	return "?"
}

// warningSummary is the count and the first warning's code, to keep the table narrow.
func warningSummary(ws []render.Warning) string {
	switch len(ws) {
	case 0:
		return "-"
	case 1:
		return ws[0].Code
	}
	return fmt.Sprintf("%s (+%d more)", ws[0].Code, len(ws)-1)
}

// printPlayground tells how to send webhooks to the running demo.
func (d *demoRun) printPlayground() {
	fmt.Fprintf(d.out, `
The services keep running until Ctrl-C. Send an order yourself (change its "id" first,
or the intake answers "duplicate"):

  body=demo/demodata/shopify-order-1.json
  sig=$(openssl dgst -sha256 -hmac %s -binary < "$body" | base64)
  curl -sS %s/webhooks/shopify -H "X-Shopify-Hmac-Sha256: $sig" \
    -H "X-Shopify-Topic: orders/paid" -H "X-Shopify-Shop-Domain: %s" \
    -H "Content-Type: application/json" --data-binary @"$body"

Health: %s/healthz, %s/readyz; metrics: %s/metrics. Files appear in %s.
`, demoShopifySecret, d.intake, demoShop, d.intake, d.intake, d.intake, d.where)
}

// WriteFixtures writes the designs the demo's hub simulator serves into dir: the
// simulator's samples with the demo's own laid over them.
func WriteFixtures(dir string) error {
	designs, err := fs.Sub(hubsim.SampleFixtures(), "designs")
	if err != nil {
		return err
	}
	if err := os.CopyFS(dir, designs); err != nil {
		return err
	}
	own, err := fs.Sub(demoDesigns, "demodata/designs")
	if err != nil {
		return err
	}
	return copyOver(dir, own)
}

// copyOver copies the files of fsys into dir, replacing files of the same name.
func copyOver(dir string, fsys fs.FS) error {
	files, err := fs.Glob(fsys, "*")
	if err != nil {
		return err
	}
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// demoProfiles are the profiles --profile and --profiles give, else (unless colour
// flags say otherwise) the demo's own: its products made as a print shop would.
func (d *demoRun) demoProfiles(routed ...string) (*profiles.Set, error) {
	if d.w.ProfilesNamed() {
		return d.w.Profiles(routed...)
	}
	f, err := profiles.Parse(ProfilesJSON)
	if err == nil {
		var set *profiles.Set
		if set, err = profiles.Load(f, "", profiles.Options{ProfileDir: d.w.ProfileDir()}, routed...); err == nil {
			return set, nil
		}
	}
	return nil, fmt.Errorf("demo: the demo's production profiles: %w", err)
}
