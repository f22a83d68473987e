package demo

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/telemetry"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/routing"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// Options are the demo's own settings (its command's flags: --timeout, --keep,
// --intake-addr, --topic, --platform) and where it writes.
type Options struct {
	// Timeout bounds the wait for every order's manifest.
	Timeout time.Duration
	// Keep leaves the services running after the report, until ctx ends.
	Keep bool
	// IntakeAddr is the listen address of the demo's intake (port 0: any).
	IntakeAddr string
	// Topic is the Shopify topic the sample orders are sent with.
	Topic string
	// Platform is the store platform the sample orders come from (Platforms).
	Platform string
	// Stdout receives the report.
	Stdout io.Writer
	// Log and Tracing are the command's.
	Log     *slog.Logger
	Tracing *telemetry.Tracing
}

// Wiring is what the demo takes from its command's flags: the same flag groups as
// work and serve (Redis, hub, storage, render, worker, routing, events), so every
// part can point at a real service exactly as a fleet's would. cmd/printworker
// implements it.
type Wiring interface {
	// RedisURL is the Redis the flags name; "" has the demo start an embedded one.
	RedisURL() string
	// RedisName is RedisURL for the report, its password hidden.
	RedisName() string
	// ConnectRedis connects to url with the Redis flags' other settings.
	ConnectRedis(ctx context.Context, url string) (redis.UniversalClient, error)
	// ExportShards is --export-shards.
	ExportShards() int
	// RealHub reports the hub the flags name: its URL, store and first domain; ok is
	// false when they name none and the demo starts the simulator.
	RealHub() (url, store, domain string, ok bool)
	// Hubs makes the hub clients: of the flags, or of sim when it is not nil.
	Hubs(sim *SimHub, tr *telemetry.Tracing, log *slog.Logger) (worker.HubFor, func(), error)
	// StorageKind, StorageDir and StorageLayout are --storage, --storage-dir and
	// --storage-layout.
	StorageKind() string
	StorageDir() string
	StorageLayout() string
	// OpenStorage opens the storage the flags name, with dir in place of
	// --storage-dir.
	OpenStorage(ctx context.Context, dir string, tr *telemetry.Tracing) (Storage, func(), error)
	// EventsNamed reports whether the flags name event endpoints; when they do not,
	// the demo's own receiver gets the events.
	EventsNamed() bool
	// Worker is the worker's configuration and dependencies from the flags (all but
	// Redis, Hubs, Storage, Handlers and Renderer); eventsURL and eventsSecret, when
	// set, are the demo receiver's. Profiles is left to the demo.
	Worker(ctx context.Context, eventsURL, eventsSecret string, log *slog.Logger) (worker.Config, worker.Deps, *routing.Rules, error)
	// Renderer is the renderer the flags configure, or nil when cfg needs none.
	Renderer(cfg worker.Config) (*render.Renderer, error)
	// ProfilesNamed reports whether the flags name production profiles or colour
	// settings; then Profiles loads them, else the demo uses its own.
	ProfilesNamed() bool
	Profiles(routed ...string) (*profiles.Set, error)
	// ProfileDir is --profile-dir (ICC profiles).
	ProfileDir() string
	// FetchHandlers are the worker's handlers of the order fetches f makes.
	FetchHandlers(f *intake.Fetcher) map[string]asynq.Handler
	// Serve serves h on ln until ctx ends, then shuts down gracefully.
	Serve(ctx context.Context, ln net.Listener, h http.Handler) error
}

// SimHub is the hub simulator the demo started: what the hub clients need.
type SimHub struct {
	URL, Store, APIKey, Secret, Domain string
}

// Storage is what the demo needs of a storage backend.
type Storage interface {
	worker.Storage
	Get(ctx context.Context, key string) (io.ReadCloser, storage.Info, error)
	Delete(ctx context.Context, key string) error
	URL(key string) string
	Describe() string
}

// UsageError is a demo error the user fixes by changing the command line (exit
// status 2).
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usageError(msg string) error { return &UsageError{Msg: msg} }
