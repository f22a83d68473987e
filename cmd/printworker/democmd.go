package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/demo"
	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/telemetry"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/routing"
	"github.com/printworker/printworker/worker"
)

// demoOptions are the demo command's settings: the shared flag groups of wiring.go
// (so every part can point at a real service exactly as `work` and `serve` do), with
// defaults that suit one process on a laptop. They are the demo package's Wiring.
type demoOptions struct {
	opt     demo.Options
	redis   *redisFlags
	hub     *hubFlags
	storage *storageFlags
	render  *renderFlags
	worker  *workerFlags
	log     *logFlags
	routing *routingFlags
	events  *eventFlags
}

func demoCommand() command {
	return command{
		name:    "demo",
		summary: "run the whole flow on embedded defaults and show the print files",
		run: func(ctx context.Context, e env, args []string) error {
			fs := newFlagSet(e, "demo", "demo [flags]\n\nStarts Redis (embedded unless --redis-url), the hub simulator (unless --hub-url), the intake\nand a worker in one process, sends signed sample orders to the intake (Shopify's, or --platform's\nstore simulator's), waits for every order's manifest and prints what was produced. See docs/demo.md.")
			o := demoOptions{
				redis: addRedisFlags(fs), hub: addHubFlags(fs), storage: addStorageFlags(fs),
				render: addRenderFlags(fs), worker: addWorkerFlags(fs), log: addLogFlags(fs),
				routing: addRoutingFlags(fs), events: addEventFlags(fs),
			}
			fs.DurationVar(&o.opt.Timeout, "timeout", 3*time.Minute, "how long to wait for every order's manifest")
			fs.BoolVar(&o.opt.Keep, "keep", false, "keep the services running after the demo (until Ctrl-C) to send your own webhooks")
			fs.StringVar(&o.opt.IntakeAddr, "intake-addr", "127.0.0.1:0", "listen address of the demo's intake (port 0: any free port)")
			fs.StringVar(&o.opt.Topic, "topic", intake.TopicPaid, "Shopify topic the sample orders are sent with (it is also the production topic)")
			fs.StringVar(&o.opt.Platform, "platform", demo.PlatformShopify, "store platform the sample orders come from: "+strings.Join(demo.Platforms, ", ")+"; all but shopify start that store's simulator, which sends the webhooks and serves the order API")
			fs.Var(flagAlias{fs.Lookup("storage-dir")}, "out", "folder receiving the print files, emptied on each run (same as --storage-dir)")
			for name, v := range map[string]string{
				"redis-url":           "",
				"storage-dir":         "printworker-demo",
				"concurrency":         "4",
				"shutdown-timeout":    "5s",
				"hub-rate-per-minute": "6000",
				"hub-rate-burst":      "100",
				"store-max-share":     "1", // one store: nobody to keep slots for
				"retry-base":          "1s",
				"retry-max":           "5s",
				"log-level":           "warn",
				"log-format":          "text",
				// One worker on its own Redis: a quiet fleet's idle poll would only
				// make each step of the flow (and the files-ready event) wait.
				"poll-idle":    "100ms",
				"poll-delayed": "1s",
			} {
				setDefault(fs, name, v)
			}
			if err := parseFlags(fs, e, args); err != nil {
				return helpOK(err)
			}
			return runDemo(ctx, e, o)
		},
	}
}

// runDemo sets up the demo's logger and tracing and runs it.
func runDemo(ctx context.Context, e env, o demoOptions) error {
	log, err := o.log.logger(e)
	if err != nil {
		return err
	}
	// Tracing (off unless OTEL_* asks) is set up first and flushed last: it sees the
	// spans of everything the demo stopped before.
	tr := setupTracing(ctx, e, "demo", log)
	defer stopTracing(tr, log)
	o.opt.Stdout, o.opt.Log, o.opt.Tracing = e.stdout, log, tr
	err = demo.Run(ctx, o.opt, &o)
	var ue *demo.UsageError
	if errors.As(err, &ue) {
		return usageError(ue.Msg)
	}
	return err
}

// setDefault changes a registered flag's default (value and help text).
func setDefault(fs *flag.FlagSet, name, v string) {
	f := fs.Lookup(name)
	if f == nil {
		panic("setDefault: no flag " + name)
	}
	if err := f.Value.Set(v); err != nil {
		panic(fmt.Sprintf("setDefault %s=%q: %v", name, v, err))
	}
	f.DefValue = v
}

// flagAlias is a second name for a flag.
type flagAlias struct{ f *flag.Flag }

func (a flagAlias) String() string {
	if a.f == nil {
		return ""
	}
	return a.f.Value.String()
}
func (a flagAlias) Set(v string) error { return a.f.Value.Set(v) }

// The demo.Wiring methods: the flag groups, as work and serve use them.

func (o *demoOptions) RedisURL() string  { return o.redis.url }
func (o *demoOptions) ExportShards() int { return o.redis.exportShards }

func (o *demoOptions) ConnectRedis(ctx context.Context, url string) (redis.UniversalClient, error) {
	o.redis.url = url
	o.redis.slots = o.worker.concurrency // the idle Redis connections follow the slots
	return o.redis.connect(ctx)
}

func (o *demoOptions) RealHub() (url, store, domain string, ok bool) {
	h := o.hub
	if h.baseURL == "" && h.storesFile == "" {
		return "", "", "", false
	}
	if len(h.domains) > 0 {
		domain = h.domains[0]
	}
	return h.baseURL, h.store, domain, true
}

func (o *demoOptions) Hubs(sim *demo.SimHub, tr *telemetry.Tracing, log *slog.Logger) (worker.HubFor, func(), error) {
	h := o.hub
	if sim != nil {
		h.baseURL, h.store, h.apiKey, h.secret = sim.URL, sim.Store, sim.APIKey, sim.Secret
		h.domains = stringList{sim.Domain}
	}
	guard, err := h.netGuard()
	if err != nil {
		return nil, nil, err
	}
	h.http = hubHTTP(tr, 0, guard)
	clients, err := h.clients(log)
	if err != nil {
		return nil, nil, err
	}
	return hubFor(clients), h.http.CloseIdleConnections, nil
}

func (o *demoOptions) StorageKind() string   { return o.storage.kind }
func (o *demoOptions) StorageDir() string    { return o.storage.dir }
func (o *demoOptions) StorageLayout() string { return o.storage.layout }

func (o *demoOptions) OpenStorage(ctx context.Context, dir string, tr *telemetry.Tracing) (demo.Storage, func(), error) {
	sf := o.storage
	sf.s3.HTTPClient = tracedHTTP(tr)
	sf.dir = dir
	st, err := sf.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	ds, ok := st.(demo.Storage)
	if !ok {
		closeStorage(st)
		return nil, nil, fmt.Errorf("storage %s cannot be read back", st.Describe())
	}
	return ds, func() { closeStorage(st) }, nil
}

func (o *demoOptions) EventsNamed() bool { return o.events.url != "" || o.events.file != "" }

func (o *demoOptions) Worker(ctx context.Context, eventsURL, eventsSecret string, log *slog.Logger) (worker.Config, worker.Deps, *routing.Rules, error) {
	var deps worker.Deps
	cfg, err := o.worker.config(o.storage.layout, log)
	if err != nil {
		return cfg, deps, nil, err
	}
	cfg.ExportShards = o.redis.exportShards
	if cfg.Print, err = o.render.colour.load(); err != nil {
		return cfg, deps, nil, err
	}
	if eventsURL != "" {
		o.events.url, o.events.secret = eventsURL, eventsSecret
	}
	if cfg.Events, err = o.events.config(); err != nil {
		return cfg, deps, nil, err
	}
	var rules *routing.Rules
	if cfg.Routing, rules, err = o.routing.load(o.storage.kind); err != nil {
		return cfg, deps, nil, err
	}
	setGangs(&cfg, rules)
	if deps.Buckets, err = openBuckets(ctx, o.storage, rules); err != nil {
		return cfg, deps, nil, err
	}
	return cfg, deps, rules, nil
}

func (o *demoOptions) Renderer(cfg worker.Config) (*render.Renderer, error) {
	if !needsRenderer(cfg) {
		return nil, nil
	}
	return o.render.renderer()
}

func (o *demoOptions) ProfilesNamed() bool {
	c := o.render.colour
	return c.prodProfile != "" || c.prodProfiles != "" || c.colourSet()
}

func (o *demoOptions) Profiles(routed ...string) (*profiles.Set, error) {
	return o.render.colour.loadProfiles(routed...)
}

func (o *demoOptions) ProfileDir() string { return o.render.colour.profileDir }

func (o *demoOptions) FetchHandlers(f *intake.Fetcher) map[string]asynq.Handler {
	return (&fetchWork{handler: f}).handlers()
}

func (o *demoOptions) Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	return serveHTTP(ctx, ln, h, 5*time.Second, o.opt.Log)
}

func (o *demoOptions) RedisName() string { return redactRedisURL(o.redis.url) }

// redactRedisURL hides a password in a Redis URL.
func redactRedisURL(s string) string {
	if i := strings.Index(s, "@"); i > 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + "***" + s[i:]
		}
	}
	return s
}
