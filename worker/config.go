package worker

import (
	"cmp"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/printworker/printworker/events"
	"github.com/printworker/printworker/filenames"
	"github.com/printworker/printworker/gang/sheetjob"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/storage"
)

// Export modes.
const (
	// ModeRender renders every view with the local renderer.
	ModeRender = "render"
	// ModeDownload streams every view from the hub's export endpoint into storage.
	ModeDownload = "download"
	// ModeAuto renders, and downloads the views whose design uses something the
	// renderer does not draw.
	ModeAuto = "auto"
)

// ParseMode checks an export mode name.
func ParseMode(s string) (string, error) {
	switch s {
	case ModeRender, ModeDownload, ModeAuto:
		return s, nil
	}
	return "", fmt.Errorf("export mode %q: want render, download or auto", s)
}

// RateLimit is a token bucket: Burst calls at once, refilled at PerMinute.
type RateLimit struct {
	PerMinute float64
	Burst     int
}

// DefaultRateLimit follows hub-gaps.md: 60 calls a minute, bursts of 10, per store,
// shared by the whole fleet.
func DefaultRateLimit() RateLimit { return RateLimit{PerMinute: 60, Burst: 10} }

// Backoff is the retry delay of transient failures: Base doubled per retry, capped at
// Max, with jitter (a random delay between half and all of it) so a fleet that failed
// together does not retry together.
type Backoff struct {
	Base, Max time.Duration
}

// Config configures a Worker. Zero values take the defaults given per field.
type Config struct {
	// Concurrency is the number of tasks run at once; default 10.
	Concurrency int
	// Queues weighs the queues; default orders 6, complete 6, exports 3, events 2, sync 1, gang 1,
	// pages 1.
	Queues map[string]int
	// ExportShards is the number of export queue shards served (jobs.ExportQueue);
	// default 1. Each shard is served with the weight of the exports queue.
	ExportShards int
	// StrictPriority serves a queue only when every heavier one is empty.
	StrictPriority bool
	// ShutdownTimeout bounds the wait for running tasks on shutdown; tasks still
	// running then are abandoned and asynq hands them to another worker. Default 60s.
	ShutdownTimeout time.Duration
	// Timeouts bound one attempt per task type (the tighter of this and the task's
	// own timeout wins); defaults: push 1m, export 10m, complete 1m, sync 20m.
	Timeouts map[string]time.Duration
	// MemoryBudget bounds the memory of concurrent renders in bytes; default 1 GiB.
	// A render whose plan alone exceeds it fails permanently.
	MemoryBudget int64
	// Mode is the export mode of stores not in Modes; default auto.
	Mode  string
	Modes map[string]string
	// RateLimit applies to hub calls of stores not in RateLimits; default
	// DefaultRateLimit. PerMinute <= 0 disables limiting.
	RateLimit  RateLimit
	RateLimits map[string]RateLimit
	// RateLimitMaxWait is how long a task waits in its slot for its store's next hub
	// token before its first hub call; a longer wait sends it back to the queue for
	// about that long, counting no retry (DeferredError). Default
	// DefaultRateLimitMaxWait; negative: always wait in the slot.
	RateLimitMaxWait time.Duration
	// StoreShare caps the tasks of one store at this fraction of Concurrency (at
	// least one slot); a task over it goes back to the queue for StoreShareRetry
	// (default DefaultStoreShareRetry), counting no retry. 0 or 1: no cap.
	StoreShare      float64
	StoreShareRetry time.Duration
	// Backoff of transient failures; default 5s doubling to 10m.
	Backoff Backoff
	// HubRetry bounds the retries of idempotent hub reads inside one attempt;
	// default DefaultHubRetry.
	HubRetry HubRetry
	// RetryWindows bounds the retries of a task type by time since its first failure
	// (retrywindow.go); given types override DefaultRetryWindows one at a time.
	RetryWindows map[string]time.Duration
	// Layout names objects; default storage.DefaultLayout.
	Layout storage.Layout
	// Filenames names the files; an empty pattern takes the design view's own export
	// filename pattern (spec 2.8), else filenames.DefaultPattern.
	Filenames filenames.Options
	// FileDate picks the [date] of file names: "order" (default: the order's day,
	// the day of its folder) or "design" (the design's creation day, which [created]
	// always is).
	FileDate string
	// KeyPrefix prefixes the Redis keys of order state and rate limits.
	KeyPrefix string
	// StateTTL is how long an order's state lives after its last change
	// (jobs.DefaultStateTTL when 0); TaskRetention, when set, keeps every finished
	// task this long instead of its type's own retention (jobs.EnqueuerConfig).
	StateTTL      time.Duration
	TaskRetention time.Duration
	// Polling is how often an idle worker asks Redis for work; zero fields keep
	// the library's defaults (docs/operations.md, "Redis connections and polling").
	Polling Polling
	// Jobs are the options of tasks the worker enqueues itself (completion).
	Jobs *jobs.Options
	// Print holds the colour settings per store and product (CMYK profile, bleed,
	// black, ink limit; docs/colour.md); nil renders sRGB without bleed.
	Print *render.PrintSet
	// Profiles are the production profiles chosen per store, product and view
	// (docs/profiles.md); when set they replace Print. nil: none.
	Profiles *profiles.Set
	// Routing sends files to a key prefix and/or bucket by product, type, quantity,
	// rush and store (docs/routing.md); nil keeps every file at its layout key.
	Routing Router
	// Gangs are the gang groups the routing rules' "gang" actions name (docs/gang.md);
	// nil: nothing is ganged.
	Gangs sheetjob.Groups
	// GangLease is a group builder's lease (default sheetjob.DefaultLease); GangTick how
	// often the cut-offs are checked (default sheetjob.DefaultTick).
	GangLease, GangTick time.Duration
	// Events are the order events' endpoints and delivery settings; none: no events.
	Events events.Config
	// Review is which preflight findings hold an order for review (docs/shop-floor.md
	// "Review holds"); the zero value holds nothing (printworker work holds on
	// profiles.DefaultReview unless told otherwise).
	Review ReviewPolicy
	// Preflight is the check of every file rendered with a production profile
	// (docs/preflight.md "In the worker"); the zero value checks files up to
	// DefaultPreflightMax bytes.
	Preflight Preflight
	// ShopFloor holds the thumbnail, job ticket and staff page settings
	// (docs/shop-floor.md); the zero value makes all three.
	ShopFloor ShopFloor
	// MaxQuantity is the largest quantity of an order line (--max-quantity); an order
	// with more on a line is refused for good at its push and its completion. 0 is
	// jobs.DefaultMaxQuantity.
	MaxQuantity int
	Logger      *slog.Logger
}

// Defaults.
const (
	DefaultConcurrency     = 10
	DefaultShutdownTimeout = 60 * time.Second
	DefaultMemoryBudget    = 1 << 30
)

// DefaultQueues weighs order data before exports before events before template sync.
func DefaultQueues() map[string]int {
	return map[string]int{jobs.QueueOrders: 6, jobs.QueueComplete: 6, jobs.QueueExports: 3, jobs.QueueEvents: 2, jobs.QueueSync: 1, jobs.QueueGang: 1, jobs.QueuePages: 1}
}

// DefaultTimeouts per task type.
func DefaultTimeouts() map[string]time.Duration {
	return map[string]time.Duration{
		jobs.TypeOrderPush:     time.Minute,
		jobs.TypeDesignExport:  10 * time.Minute,
		jobs.TypeOrderComplete: time.Minute,
		jobs.TypeTemplatesSync: 20 * time.Minute,
		jobs.TypeGangBuild:     25 * time.Minute,
		jobs.TypeReprint:       10 * time.Minute,
		jobs.TypeReview:        10 * time.Minute,
		jobs.TypeDayPage:       5 * time.Minute,
	}
}

func (c Config) withDefaults() Config {
	if c.Concurrency <= 0 {
		c.Concurrency = DefaultConcurrency
	}
	if c.Queues == nil {
		c.Queues = DefaultQueues()
	}
	if c.ExportShards <= 0 {
		c.ExportShards = 1
	}
	if c.ShutdownTimeout == 0 {
		c.ShutdownTimeout = DefaultShutdownTimeout
	}
	t := DefaultTimeouts()
	for k, v := range c.Timeouts {
		t[k] = v
	}
	c.Timeouts = t
	if c.MemoryBudget == 0 {
		c.MemoryBudget = DefaultMemoryBudget
	}
	if c.Mode == "" {
		c.Mode = ModeAuto
	}
	if c.RateLimit == (RateLimit{}) {
		c.RateLimit = DefaultRateLimit()
	}
	if c.RateLimitMaxWait == 0 {
		c.RateLimitMaxWait = DefaultRateLimitMaxWait
	}
	if c.StoreShareRetry <= 0 {
		c.StoreShareRetry = DefaultStoreShareRetry
	}
	if c.Backoff.Base == 0 {
		c.Backoff.Base = 5 * time.Second
	}
	if c.Backoff.Max == 0 {
		c.Backoff.Max = 10 * time.Minute
	}
	if c.GangLease <= 0 {
		c.GangLease = sheetjob.DefaultLease
	}
	if c.GangTick <= 0 {
		c.GangTick = sheetjob.DefaultTick
	}
	if c.FileDate == "" {
		c.FileDate = "order"
	}
	c.HubRetry = c.HubRetry.withDefaults()
	rw := DefaultRetryWindows()
	for k, v := range c.RetryWindows {
		rw[k] = v
	}
	c.RetryWindows = rw
	if c.KeyPrefix == "" {
		c.KeyPrefix = jobs.DefaultKeyPrefix
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Validate reports every bad value at once (defaults applied first).
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("worker config: "+format, a...)) }
	if c.ShutdownTimeout < 0 {
		bad("shutdown timeout %s is negative", c.ShutdownTimeout)
	}
	for q, w := range c.Queues {
		if w <= 0 {
			bad("queue %q weight %d: want > 0", q, w)
		}
	}
	if err := jobs.ValidateExportShards(c.ExportShards); err != nil {
		bad("%v", err)
	}
	for typ, d := range c.Timeouts {
		if d < time.Second {
			bad("%s timeout %s: want >= 1s", typ, d)
		}
	}
	if c.GangLease < time.Second || c.GangTick < time.Second {
		bad("gang lease %s and tick %s: want >= 1s", c.GangLease, c.GangTick)
	}
	if c.MemoryBudget < 0 {
		bad("memory budget %d is negative", c.MemoryBudget)
	}
	if _, err := ParseMode(c.Mode); err != nil {
		bad("%v", err)
	}
	for store, m := range c.Modes {
		if _, err := ParseMode(m); err != nil {
			bad("store %q: %v", store, err)
		}
	}
	for store, r := range c.RateLimits {
		if r.PerMinute > 0 && r.Burst < 1 {
			bad("store %q rate limit burst %d: want >= 1", store, r.Burst)
		}
	}
	if c.RateLimit.PerMinute > 0 && c.RateLimit.Burst < 1 {
		bad("rate limit burst %d: want >= 1", c.RateLimit.Burst)
	}
	if c.StoreShare < 0 || c.StoreShare > 1 {
		bad("store share %g: want between 0 and 1", c.StoreShare)
	}
	if c.Backoff.Base <= 0 || c.Backoff.Max < c.Backoff.Base {
		bad("backoff base %s max %s: want 0 < base <= max", c.Backoff.Base, c.Backoff.Max)
	}
	if err := c.HubRetry.validate(); err != nil {
		bad("%v", err)
	}
	for typ, d := range c.RetryWindows {
		if d < time.Second {
			bad("%s retry window %s: want >= 1s", typ, d)
		}
	}
	if c.FileDate != "design" && c.FileDate != "order" {
		bad("file date %q: want design or order", c.FileDate)
	}
	if err := c.Layout.Validate(); err != nil {
		bad("layout: %v", err)
	}
	if err := c.Events.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := c.Review.validate(); err != nil {
		bad("%v", err)
	}
	if c.Jobs != nil {
		if err := c.Jobs.Validate(); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// serveQueues are the queues the asynq server serves: Queues, with the exports queue
// split into its shards. Every shard has the exports queue's weight (a shard Queues
// names keeps its own) and the other queues' weights are multiplied by the shard
// count, so the exports as a whole keep their share of the fetches: asynq tries the
// queues in a random order weighted by these numbers.
func (c Config) serveQueues() map[string]int {
	w, ok := c.Queues[jobs.QueueExports]
	if c.ExportShards <= 1 || !ok {
		return c.Queues
	}
	out := make(map[string]int, len(c.Queues)+c.ExportShards)
	for q, v := range c.Queues {
		out[q] = v * c.ExportShards
	}
	for _, q := range jobs.ExportQueues(c.ExportShards) {
		out[q] = cmp.Or(c.Queues[q], w)
	}
	return out
}

func (c Config) modeFor(store string) string {
	if m, ok := c.Modes[store]; ok {
		return m
	}
	return c.Mode
}

func (c Config) rateFor(store string) RateLimit {
	if r, ok := c.RateLimits[store]; ok {
		return r
	}
	return c.RateLimit
}

// Polling sets how often an idle worker's asynq server polls Redis. Each poll costs
// one command per queue (seven, plus the export shards beyond the first), so these,
// not the tasks, are what an idle fleet sends Redis.
type Polling struct {
	// Idle: how long the fetcher sleeps when every queue was empty (asynq's
	// TaskCheckInterval; its default 1 s). A task enqueued meanwhile waits for it
	// unless another worker is awake.
	Idle time.Duration
	// Delayed: how often scheduled tasks and retries that came due move to their
	// queue (DelayedTaskCheckInterval; default 1 s here): a retry runs up to this
	// much after its delay.
	Delayed time.Duration
	// Janitor: how often finished tasks past their retention are deleted
	// (JanitorInterval; asynq's default 8 s). Each run deletes up to
	// janitorBatch of them per queue.
	Janitor time.Duration
}

// janitorRate is how many expired finished tasks the janitor deletes per queue per
// 8 s, whatever its interval: asynq's own rate (100 per run every 8 s). A slower
// janitor with asynq's fixed batch of 100 deleted less than a busy worker finishes:
// at one run a minute, six workers could delete at most 36,000 an hour from a
// queue, fewer than a fleet of six finishes in one (49,000 in the fleet benchmark),
// so expired tasks would pile up in Redis.
const janitorRate = 100

// janitorBatch is the janitor's batch for its interval (janitorRate per 8 s), at
// least asynq's 100 and at most 10,000 (one script deletes them all).
func (p Polling) janitorBatch() int {
	return min(max(int(p.Janitor/(8*time.Second))*janitorRate, 100), 10_000)
}

// QuietPolling is what `printworker work` polls with by default: about 2.3 commands
// a second per idle worker serving the default eight export queue shards (14 queues;
// docs/operations.md, "Redis connections and polling").
func QuietPolling() Polling {
	return Polling{Idle: 30 * time.Second, Delayed: time.Minute, Janitor: 3 * time.Minute}
}
