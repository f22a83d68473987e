package main

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

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/hub/hubsim"
	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/progress"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// The demo's sample Shopify orders, signed and sent to its own intake.
//
//go:embed demodata/*.json
var demoOrders embed.FS

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

// demoOptions are the demo's settings.
type demoOptions struct {
	out      string
	timeout  time.Duration
	mode     string
	topic    string
	redisURL string
	// A real hub instead of the simulator.
	hubURL, hubStore, hubKey, hubSecret, hubDomain string
	s3                                             storage.S3Config
	concurrency                                    int
	logLevel                                       string
}

func demoCommand() command {
	return command{
		name:    "demo",
		summary: "run the whole flow on embedded defaults and show the print files",
		run: func(ctx context.Context, e env, args []string) error {
			fs := newFlagSet(e, "demo", "demo [flags]\n\nStarts Redis (embedded unless --redis-url), the hub simulator (unless --hub-url), the intake\nand a worker in one process, sends signed sample Shopify orders to the intake, waits for\nevery order's manifest and prints what was produced. See docs/demo.md.")
			var o demoOptions
			fs.StringVar(&o.out, "out", "printworker-demo", "folder receiving the print files (replaced on each run); ignored with --s3-bucket")
			fs.DurationVar(&o.timeout, "timeout", 3*time.Minute, "how long to wait for every order's manifest")
			fs.StringVar(&o.mode, "mode", worker.ModeAuto, "export mode: render (local renderer), download (the hub's exports) or auto")
			fs.StringVar(&o.topic, "topic", intake.TopicPaid, "Shopify topic the sample orders are sent with")
			fs.StringVar(&o.redisURL, "redis-url", "", "Redis to use (redis://host:6379/0); empty starts an embedded one")
			fs.StringVar(&o.hubURL, "hub-url", "", "base URL of a real hub; empty runs the simulator in-process")
			fs.StringVar(&o.hubStore, "hub-store", demoStore, "hub store id (with --hub-url)")
			fs.StringVar(&o.hubKey, "hub-api-key", demoAPIKey, "hub API key (with --hub-url)")
			fs.StringVar(&o.hubSecret, "hub-secret", "", "hub API secret (with --hub-url)")
			fs.String("hub-secret-file", "", "file holding the hub API secret")
			fs.StringVar(&o.hubDomain, "hub-domain", demoDomain, "order domain configured on the hub account (with --hub-url)")
			fs.StringVar(&o.s3.Bucket, "s3-bucket", "", "S3 bucket receiving the files instead of --out")
			fs.StringVar(&o.s3.Endpoint, "s3-endpoint", "", "S3-compatible endpoint (http://minio:9000); empty for AWS")
			fs.StringVar(&o.s3.Region, "s3-region", "", "S3 region")
			fs.StringVar(&o.s3.AccessKey, "s3-access-key", "", "S3 access key (else the AWS credential chain)")
			fs.StringVar(&o.s3.SecretKey, "s3-secret-key", "", "S3 secret key")
			fs.String("s3-secret-key-file", "", "file holding the S3 secret key")
			fs.BoolVar(&o.s3.PathStyle, "s3-path-style", false, "path-style bucket addressing (most self-hosted stores)")
			fs.BoolVar(&o.s3.CreateBucket, "s3-create-bucket", false, "create the bucket when missing")
			fs.IntVar(&o.concurrency, "concurrency", 4, "tasks the worker runs at once")
			fs.StringVar(&o.logLevel, "log-level", "warn", "log level of the services: debug, info, warn or error")
			if err := parseFlags(fs, e, args); err != nil {
				return helpOK(err)
			}
			if _, err := worker.ParseMode(o.mode); err != nil {
				return usageError(err.Error())
			}
			if o.hubURL != "" && o.hubSecret == "" {
				return usageError("demo: --hub-url needs --hub-secret (or --hub-secret-file)")
			}
			return runDemo(ctx, e, o)
		},
	}
}

// demoRun holds the running parts of a demo.
type demoRun struct {
	o        demoOptions
	e        env
	log      *slog.Logger
	rdb      *redis.Client
	enq      *jobs.Enqueuer
	store    demoStorage
	where    string
	intake   string // base URL
	hubStore string
	domain   string
	cleanup  []func()
}

// demoStorage is what the demo needs of a storage backend.
type demoStorage interface {
	worker.Storage
	Get(ctx context.Context, key string) (io.ReadCloser, storage.Info, error)
	Stat(ctx context.Context, key string) (storage.Info, error)
	Delete(ctx context.Context, key string) error
	URL(key string) string
}

func runDemo(ctx context.Context, e env, o demoOptions) (err error) {
	d := &demoRun{o: o, e: e, hubStore: demoStore, domain: demoDomain}
	defer func() {
		for i := len(d.cleanup) - 1; i >= 0; i-- {
			d.cleanup[i]()
		}
	}()
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(o.logLevel)); err != nil {
		return usageError("demo: --log-level: " + err.Error())
	}
	d.log = slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: lvl}))

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	if err := d.startRedis(); err != nil {
		return err
	}
	hubs, mode, err := d.startHub(ctx)
	if err != nil {
		return err
	}
	if err := d.openStorage(ctx); err != nil {
		return err
	}
	if err := d.startWorker(ctx, hubs, mode); err != nil {
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
	d.report(manifests)
	return nil
}

func (d *demoRun) startRedis() error {
	url := d.o.redisURL
	if url == "" {
		m := miniredis.NewMiniRedis()
		if err := m.StartAddr("127.0.0.1:0"); err != nil {
			return fmt.Errorf("demo: embedded redis: %w", err)
		}
		d.cleanup = append(d.cleanup, m.Close)
		url = "redis://" + m.Addr()
		fmt.Fprintf(d.e.stdout, "redis    embedded (miniredis) at %s\n", m.Addr())
	} else {
		fmt.Fprintf(d.e.stdout, "redis    %s\n", redactRedisURL(url))
	}
	opt, err := redis.ParseURL(url)
	if err != nil {
		return usageError("demo: --redis-url: " + err.Error())
	}
	d.rdb = redis.NewClient(opt)
	d.cleanup = append(d.cleanup, func() { d.rdb.Close() })
	pctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := d.rdb.Ping(pctx).Err(); err != nil {
		return fmt.Errorf("demo: redis %s: %w", redactRedisURL(url), err)
	}
	if err := claimDemoRedis(pctx, d.rdb); err != nil {
		return err
	}
	enq, err := jobs.NewEnqueuer(d.rdb, jobs.EnqueuerConfig{Logger: d.log})
	if err != nil {
		return err
	}
	d.enq = enq
	d.cleanup = append(d.cleanup, func() { enq.Close() })
	return nil
}

// demoRedisMarker marks a Redis database the demo has used.
const demoRedisMarker = "printworker:demo"

// claimDemoRedis refuses a database that holds anything but an earlier demo's data.
// The demo runs a worker, and a worker on a production queue would take real orders'
// tasks, fail them against the simulator and archive them.
func claimDemoRedis(ctx context.Context, rdb *redis.Client) error {
	n, err := rdb.DBSize(ctx).Result()
	if err != nil {
		return fmt.Errorf("demo: redis: %w", err)
	}
	if n > 0 {
		ok, err := rdb.Exists(ctx, demoRedisMarker).Result()
		if err != nil {
			return fmt.Errorf("demo: redis: %w", err)
		}
		if ok == 0 {
			return usageError(fmt.Sprintf("demo: the Redis database holds %d keys the demo did not write; its worker would take their tasks. Give the demo a database of its own (e.g. redis://host:6379/15)", n))
		}
	}
	if err := rdb.Set(ctx, demoRedisMarker, "used by printworker demo", 0).Err(); err != nil {
		return fmt.Errorf("demo: redis: %w", err)
	}
	return nil
}

// startHub starts the simulator with the sample designs, or connects to a real hub.
func (d *demoRun) startHub(ctx context.Context) (worker.HubFor, string, error) {
	cfg := hub.Config{Store: demoStore, APIKey: demoAPIKey, Secret: demoAPISecret}
	if d.o.hubURL != "" {
		cfg = hub.Config{Store: d.o.hubStore, APIKey: d.o.hubKey, Secret: d.o.hubSecret, BaseURL: d.o.hubURL, Domains: []string{d.o.hubDomain}}
		d.hubStore, d.domain = d.o.hubStore, d.o.hubDomain
		fmt.Fprintf(d.e.stdout, "hub      %s (store %s)\n", d.o.hubURL, d.o.hubStore)
	} else {
		dir, err := os.MkdirTemp("", "printworker-demo-fixtures-")
		if err != nil {
			return nil, "", fmt.Errorf("demo: %w", err)
		}
		d.cleanup = append(d.cleanup, func() { os.RemoveAll(dir) })
		designs, err := fs.Sub(hubsim.SampleFixtures(), "designs")
		if err != nil {
			return nil, "", fmt.Errorf("demo: fixtures: %w", err)
		}
		if err := os.CopyFS(dir, designs); err != nil {
			return nil, "", fmt.Errorf("demo: fixtures: %w", err)
		}
		sim, err := hubsim.New(hubsim.Config{
			Stores:      []hubsim.Store{{ID: demoStore, Domains: []string{demoDomain}, Keys: []hubsim.Key{{Key: demoAPIKey, Secret: demoAPISecret}}}},
			DesignsDir:  dir,
			DesignStore: demoStore,
		})
		if err != nil {
			return nil, "", fmt.Errorf("demo: hub simulator: %w", err)
		}
		addr, _, err := sim.Start(ctx, "127.0.0.1:0")
		if err != nil {
			return nil, "", err
		}
		cfg.BaseURL = "http://" + addr.String()
		cfg.Domains = []string{demoDomain}
		fmt.Fprintf(d.e.stdout, "hub      simulator at %s (%d sample designs)\n", cfg.BaseURL, len(sim.Designs()))
	}
	cfg.Logger = d.log
	client, err := hub.NewClient(cfg)
	if err != nil {
		return nil, "", usageError("demo: " + err.Error())
	}
	store := cfg.Store
	hubs := func(s string) (worker.Hub, error) {
		if s != store {
			return nil, fmt.Errorf("no hub client for store %q", s)
		}
		return client, nil
	}
	return hubs, d.o.mode, nil
}

func (d *demoRun) openStorage(ctx context.Context) error {
	if d.o.s3.Bucket != "" {
		s3, err := storage.NewS3(ctx, d.o.s3)
		if err != nil {
			return fmt.Errorf("demo: %w", err)
		}
		d.store, d.where = s3, s3.Describe()
		fmt.Fprintf(d.e.stdout, "storage  %s\n", d.where)
		return nil
	}
	out, err := filepath.Abs(d.o.out)
	if err != nil {
		return fmt.Errorf("demo: --out: %w", err)
	}
	if err := prepareDemoDir(out); err != nil {
		return err
	}
	dir, err := storage.NewDir(out)
	if err != nil {
		return fmt.Errorf("demo: %w", err)
	}
	d.store, d.where = dir, out
	fmt.Fprintf(d.e.stdout, "storage  folder %s\n", out)
	return nil
}

// prepareDemoDir empties the demo's output folder so a re-run starts clean (and its
// wait for manifests is not fooled by a previous run's). It refuses a non-empty folder
// the demo did not create, so a mistyped --out never deletes someone's files.
func prepareDemoDir(out string) error {
	entries, err := os.ReadDir(out)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("demo: --out: %w", err)
	case len(entries) > 0:
		if _, err := os.Stat(filepath.Join(out, demoMarker)); err != nil {
			return usageError(fmt.Sprintf("demo: --out %s is not empty and was not made by the demo; choose another folder", out))
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

func (d *demoRun) startWorker(ctx context.Context, hubs worker.HubFor, mode string) error {
	var rnd worker.Renderer
	if mode != worker.ModeDownload {
		r, err := render.New(render.Options{})
		if err != nil {
			return fmt.Errorf("demo: renderer: %w", err)
		}
		rnd = r
	}
	w, err := worker.New(worker.Config{
		Concurrency:     d.o.concurrency,
		Mode:            mode,
		ShutdownTimeout: 5 * time.Second,
		// The simulator and a local folder need no protection from bursts.
		RateLimit: worker.RateLimit{PerMinute: 6000, Burst: 100},
		Backoff:   worker.Backoff{Base: time.Second, Max: 5 * time.Second},
		Logger:    d.log,
	}, worker.Deps{Redis: d.rdb, Hubs: hubs, Storage: d.store, Renderer: rnd})
	if err != nil {
		return fmt.Errorf("demo: %w", err)
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
	fmt.Fprintf(d.e.stdout, "worker   mode %s, %d at once\n", mode, d.o.concurrency)
	return nil
}

func (d *demoRun) startIntake(ctx context.Context) error {
	cfg := intake.DefaultConfig()
	cfg.Shopify.Secrets = []string{demoShopifySecret}
	cfg.Shopify.Stores = map[string]string{demoShop: d.hubStore}
	cfg.Shopify.Domains = map[string]string{demoShop: d.domain}
	cfg.ProductionTopic = intake.TopicPaid
	if d.o.topic != intake.TopicPaid {
		cfg.ProductionTopic = d.o.topic
	}
	deliveries := intake.NewRedisDeliveries(d.rdb, "")
	srv, err := intake.New(cfg, intake.JobsEnqueuer(d.enq), deliveries, deliveries.Ping, intake.WithLogger(d.log))
	if err != nil {
		return usageError("demo: " + err.Error())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("demo: intake: %w", err)
	}
	ictx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- serveHTTP(ictx, ln, srv.Handler(), 5*time.Second, d.log) }()
	d.cleanup = append(d.cleanup, func() { stop(); <-done })
	d.intake = "http://" + ln.Addr().String()
	fmt.Fprintf(d.e.stdout, "intake   %s/webhooks/shopify\n", d.intake)
	return nil
}

// demoOrder is one sample order sent.
type demoOrder struct {
	file  string
	key   jobs.OrderKey
	name  string
	lines int
}

// sendOrders signs each sample order as Shopify does and posts it to the intake. An
// order the intake already took (a re-run against the same Redis) is re-exported
// through the operator's path, so its files and manifest are written again.
func (d *demoRun) sendOrders(ctx context.Context) ([]demoOrder, error) {
	files, err := fs.Glob(demoOrders, "demodata/*.json")
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	var out []demoOrder
	fmt.Fprintf(d.e.stdout, "\nsending %d signed Shopify orders (%s)\n", len(files), d.o.topic)
	for _, f := range files {
		body, err := demoOrders.ReadFile(f)
		if err != nil {
			return nil, err
		}
		var so struct {
			ID        json.Number `json:"id"`
			Name      string      `json:"name"`
			LineItems []any       `json:"line_items"`
		}
		if err := json.Unmarshal(body, &so); err != nil {
			return nil, fmt.Errorf("demo: %s: %w", f, err)
		}
		k := jobs.OrderKey{Store: d.hubStore, Domain: d.domain, OrderID: string(so.ID)}
		// Clear a previous run's manifest (shared storage, e.g. S3) so the wait below
		// sees this run's.
		if key, ok := d.manifestKey(ctx, k); ok {
			_ = d.store.Delete(ctx, key)
		}
		res, err := d.post(ctx, body, f)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(d.e.stdout, "  %-6s %-22s -> %s %s\n", so.Name, path.Base(f), res.Status, strings.Join(res.Jobs, " "))
		switch res.Status {
		case "enqueued":
		case "duplicate":
			// Taken by an earlier run on this Redis: export it again, explicitly.
			if _, err := d.enq.ReExport(ctx, k); err != nil {
				return nil, fmt.Errorf("demo: re-export %s: %w", so.Name, err)
			}
			fmt.Fprintf(d.e.stdout, "  %-6s %-22s    re-export enqueued\n", "", "")
		default:
			return nil, fmt.Errorf("demo: intake answered %s for %s: %s", res.Status, f, res.Reason)
		}
		out = append(out, demoOrder{file: f, key: k, name: so.Name, lines: len(so.LineItems)})
	}
	return out, nil
}

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
	req.Header.Set("X-Shopify-Topic", d.o.topic)
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

// manifestKey is where the worker writes the order's manifest: the default layout
// under the order's date, as recorded in its export state.
func (d *demoRun) manifestKey(ctx context.Context, k jobs.OrderKey) (string, bool) {
	snap, err := d.enq.State().Snapshot(ctx, k)
	if err != nil || snap.Date == "" {
		return "", false
	}
	date, err := time.Parse(time.DateOnly, snap.Date)
	if err != nil {
		return "", false
	}
	key, err := storage.Layout{}.ManifestKey(storage.KeyVars{Store: k.Store, Order: k.OrderID, Date: date})
	return key, err == nil
}

// wait polls for every order's manifest, showing progress, until all exist or the
// timeout passes; on timeout it names what is missing and why, as far as the queue
// knows.
func (d *demoRun) wait(ctx context.Context, orders []demoOrder) (map[string]*worker.Manifest, error) {
	fmt.Fprintln(d.e.stdout)
	bar := progress.New(d.e.stdout, "manifests", len(orders))
	deadline := time.Now().Add(d.o.timeout)
	got := map[string]*worker.Manifest{}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		for _, o := range orders {
			if got[o.key.OrderID] != nil {
				continue
			}
			key, ok := d.manifestKey(ctx, o.key)
			if !ok {
				continue
			}
			m, err := d.readManifest(ctx, key)
			if err != nil {
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
		select {
		case <-ctx.Done():
			bar.Finish()
			return nil, fmt.Errorf("demo: %w", ctx.Err())
		case <-tick.C:
		}
	}
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
	var missing []string
	for _, o := range orders {
		if got[o.key.OrderID] == nil {
			missing = append(missing, o.name)
		}
	}
	reason := ""
	insp := asynq.NewInspectorFromRedisClient(d.rdb)
	for _, q := range []string{jobs.QueueOrders, jobs.QueueExports} {
		archived, err := insp.ListArchivedTasks(q)
		if err != nil || len(archived) == 0 {
			continue
		}
		reason = fmt.Sprintf("; a %s task failed: %s", archived[0].Type, archived[0].LastErr)
		break
	}
	return fmt.Errorf("demo: no manifest after %s for %s%s (raise --timeout, or --log-level info to watch)",
		d.o.timeout, strings.Join(missing, ", "), reason)
}

// report prints where the files are and a table of them.
func (d *demoRun) report(manifests map[string]*worker.Manifest) {
	ids := make([]string, 0, len(manifests))
	for id := range manifests {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	files, warnings := 0, 0
	fmt.Fprintln(d.e.stdout)
	tw := tabwriter.NewWriter(d.e.stdout, 0, 0, 2, ' ', 0)
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
	fmt.Fprintf(d.e.stdout, "\n%d orders, %d files, %d warnings (details in each manifest.json). Files are in\n  %s\n", len(ids), files, warnings, d.where)
	for _, id := range ids {
		m := manifests[id]
		if len(m.Files) > 0 {
			fmt.Fprintf(d.e.stdout, "  %s\n", d.store.URL(path.Dir(m.Files[0].Key)+"/"+storage.ManifestName))
		}
	}
}

// fileSize is a file's print size: pixels at dpi for PNG, the page in points (and
// inches) for PDF.
func fileSize(f worker.FileRecord) string {
	switch {
	case f.Type == hub.ExportPNG && f.WidthPx > 0:
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

// redactRedisURL hides a password in a Redis URL.
func redactRedisURL(s string) string {
	if i := strings.Index(s, "@"); i > 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + "***" + s[i:]
		}
	}
	return s
}
