package intake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/internal/netguard"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

// FetchEnqueuer enqueues the follow-up read of an order whose webhook carries only
// its id (BigCommerce, Etsy). JobsEnqueuer provides it; an Enqueuer without it
// answers those webhooks 503.
type FetchEnqueuer interface {
	FetchOrder(ctx context.Context, p jobs.OrderFetch) error
}

func (a jobsEnqueuer) FetchOrder(ctx context.Context, p jobs.OrderFetch) error {
	_, err := a.e.FetchOrder(ctx, p)
	return err
}

// maxAPIResponse caps one store API response: an order with MaxLines lines fits
// many times over, and a hostile or broken API cannot make a worker buffer more.
const maxAPIResponse = 8 << 20

// maxPacingWait is the longest a fetch sleeps for a store's rate limit window
// within one attempt; a longer window ends the attempt with that Retry-After.
const maxPacingWait = 10 * time.Second

// orderReader reads the order of one fetch task from its platform's API and maps
// it: one per platform the Fetcher serves (BigCommerce, Etsy, WooCommerce).
type orderReader interface {
	readOrder(ctx context.Context, p jobs.OrderFetch) (fetched, error)
}

// fetched is a read order and what to do with it.
type fetched struct {
	order *model.Order
	plan  plan
	// skip, when set, says why there is nothing to do.
	skip string
	// stamp is the store's modification stamp of the order read (zero: the
	// order's own `updated`).
	stamp time.Time
}

// statePlan is what an order's state asks for, as the Shopify path does for its
// topics: a cancelled order stops its pending exports and leaves the hub; an unpaid
// one is pushed; a paid one is pushed and exported.
func statePlan(o *model.Order, st orderState) fetched {
	switch st {
	case stateCancelled:
		return fetched{order: &model.Order{OrderID: o.OrderID, Domain: o.Domain, LineItems: []model.LineItem{}},
			plan: plan{push: OpDelete, stop: true}, stamp: stampOf(o)}
	case statePaid:
		return fetched{order: o, plan: plan{push: OpUpdate, export: true}}
	}
	return fetched{order: o, plan: plan{push: OpUpdate}}
}

// Fetcher runs order fetch tasks (jobs.TypeOrderFetch, and jobs.TypeStoreFetch
// queued by older versions): it reads the order from the store's API with
// printworker's own credentials through the platform's reader, maps it, and
// enqueues the same push, export and cancel jobs a full webhook would. It is safe
// for concurrent use.
type Fetcher struct {
	cfg   Config
	enq   Enqueuer
	http  *http.Client
	log   *slog.Logger
	now   func() time.Time
	sleep func(context.Context, time.Duration) error
	woo   *WooCommerceAPI
	// wooSites are further sites' APIs (the stores file), by site key.
	wooSites []*WooCommerceAPI
	readers  map[string]orderReader

	// stale counts fetched orders dropped as older than the version applied
	// (RegisterMetrics; nil: not counted).
	stale *prometheus.CounterVec

	mu sync.Mutex
	// notBefore is, per store API, when its rate limit window reopens (the API
	// said no requests were left).
	notBefore map[string]time.Time
}

// FetcherOption adjusts a Fetcher.
type FetcherOption func(*Fetcher)

// WithHTTPTimeout bounds one API request (default 30s).
func WithHTTPTimeout(d time.Duration) FetcherOption {
	return func(f *Fetcher) { f.http.Timeout = d }
}

// WithFetchLogger sets the logger (default slog.Default()).
func WithFetchLogger(l *slog.Logger) FetcherOption { return func(f *Fetcher) { f.log = l } }

// WithFetchClock sets the clock and the sleep used for rate limit pacing (tests).
func WithFetchClock(now func() time.Time, sleep func(context.Context, time.Duration) error) FetcherOption {
	return func(f *Fetcher) { f.now, f.sleep = now, sleep }
}

// WithWooCommerceAPI sets the WooCommerce site whose orders the Fetcher reads (nil:
// none; its fetches then fail permanently with a reason naming the missing flags).
func WithWooCommerceAPI(api *WooCommerceAPI) FetcherOption { return func(f *Fetcher) { f.woo = api } }

// WithWooCommerceSites adds further WooCommerce sites whose orders the Fetcher reads
// (many stores per platform): a fetch reads the site its webhook came from.
func WithWooCommerceSites(apis ...*WooCommerceAPI) FetcherOption {
	return func(f *Fetcher) { f.wooSites = append(f.wooSites, apis...) }
}

// NewFetcher builds the fetch task handler. Requests dial through guard: the
// configured API base URLs are trusted (operator configuration), anything else an
// API redirects to is checked like any outbound fetch. The WooCommerce API brings
// its own client (WithWooCommerceAPI).
func NewFetcher(cfg Config, enq Enqueuer, guard *netguard.Guard, opts ...FetcherOption) (*Fetcher, error) {
	if enq == nil {
		return nil, errors.New("intake: fetcher: no enqueuer")
	}
	cfg = cfg.withAPIDefaults()
	if err := cfg.validateFetch(); err != nil {
		return nil, err
	}
	guard.Trust(cfg.BigCommerce.APIURL)
	guard.Trust(cfg.Etsy.APIURL)
	f := &Fetcher{
		cfg: cfg, enq: enq, log: slog.Default(), now: time.Now, sleep: sleepCtx,
		http:      &http.Client{Transport: guard.Transport(nil), Timeout: 30 * time.Second},
		notBefore: map[string]time.Time{},
	}
	for _, o := range opts {
		o(f)
	}
	sites := map[string]*WooCommerceAPI{}
	for _, api := range append([]*WooCommerceAPI{f.woo}, f.wooSites...) {
		if api == nil {
			continue
		}
		if err := api.Validate(); err != nil {
			return nil, err
		}
		sites[wooSiteKey(api.URL)] = api
	}
	f.readers = map[string]orderReader{
		PlatformBigCommerce: bigCommerceReader{f},
		PlatformEtsy:        etsyReader{f},
		PlatformWooCommerce: wooReader{api: f.woo, sites: sites},
	}
	return f, nil
}

// RegisterMetrics registers the fetches' counter with reg:
// printworker_fetch_stale_total{platform}, orders a fetch read older than the
// version applied already, dropped (docs/intake.md, "Store order").
func (f *Fetcher) RegisterMetrics(reg prometheus.Registerer) error {
	f.stale = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "printworker_fetch_stale_total",
		Help: "Orders a store fetch read older than the version applied already, dropped.",
	}, []string{"platform"})
	return reg.Register(f.stale)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// ProcessTask runs one fetch. A permanent failure (the order is gone, the API's
// answer cannot be mapped) wraps asynq.SkipRetry; everything else is retried.
func (f *Fetcher) ProcessTask(ctx context.Context, t *asynq.Task) error {
	p, err := jobs.DecodeOrderFetch(t.Type(), t.Payload())
	if err != nil {
		return err
	}
	err = f.fetch(ctx, p)
	var rc interface{ Retryable() bool }
	if err != nil && errors.As(err, &rc) && !rc.Retryable() && !errors.Is(err, asynq.SkipRetry) {
		err = fmt.Errorf("%w (%w)", err, asynq.SkipRetry)
	}
	return err
}

// fetch reads the order through its platform's reader and enqueues what it asks for.
func (f *Fetcher) fetch(ctx context.Context, p jobs.OrderFetch) error {
	r, ok := f.readers[p.Platform]
	if !ok {
		return fmt.Errorf("%w: platform %q", jobs.ErrPayload, p.Platform)
	}
	got, err := r.readOrder(ctx, p)
	if err != nil {
		return err
	}
	id := p.OrderID
	if got.order != nil {
		id = got.order.OrderID
	}
	log := f.log.With("platform", p.Platform, "store", p.Store, "order", id, "delivery", p.Delivery)
	if got.skip != "" {
		log.InfoContext(ctx, "intake: fetched order: nothing to do", "reason", got.skip)
		return nil
	}
	o, pl := got.order, got.plan
	if pl.push != OpDelete && !hub.HasCustomizations(o) {
		// The hub only takes orders with customizations (spec 1.3).
		log.InfoContext(ctx, "intake: fetched order: nothing to do", "reason", "no customizations")
		return nil
	}
	if n := len(o.LineItems); pl.push != OpDelete && n > f.cfg.MaxLines {
		return &fetchError{platform: p.Platform, what: "order " + o.OrderID,
			err: fmt.Errorf("%d personalized lines, more than the limit of %d: nothing enqueued", n, f.cfg.MaxLines)}
	}
	if reason := jobs.QuantityRefusal(o, f.cfg.MaxQuantity); pl.push != OpDelete && reason != "" {
		return &fetchError{platform: p.Platform, what: "order " + o.OrderID, err: errors.New(reason + ": nothing enqueued")}
	}
	// Two fetches of one order may run out of order: the store's stamp of what
	// each read decides, as for webhooks.
	stale, v, err := applyOrderStamp(ctx, f.enq, p.Store, o, got.stamp, pl, f.now(), f.cfg.DeliveryTTL)
	if err != nil {
		return err
	}
	if stale {
		log.WarnContext(ctx, "intake: fetched order is stale: dropped", "reason", staleReason(v), "updated", o.Updated)
		if f.stale != nil {
			f.stale.WithLabelValues(p.Platform).Inc()
		}
		return nil
	}
	done, err := runPlan(ctx, f.enq, p.Store, o, pl)
	if err != nil {
		return err
	}
	log.InfoContext(ctx, "intake: fetched order enqueued", "jobs", done)
	return nil
}

// fetchError is a failed store API read or an answer that cannot be mapped.
type fetchError struct {
	platform, what string
	status         int // HTTP status; 0 for a transport failure or a mapping error
	transport      bool
	after          time.Duration
	err            error
}

func (e *fetchError) Error() string {
	switch {
	case e.status != 0:
		return fmt.Sprintf("%s: %s: HTTP %d: %v", e.platform, e.what, e.status, e.err)
	default:
		return fmt.Sprintf("%s: %s: %v", e.platform, e.what, e.err)
	}
}

func (e *fetchError) Unwrap() error { return e.err }

// Retryable: transport failures, timeouts, 408, 429 and 5xx pass; so do 401 and 403,
// so an order survives an expired or revoked token until the operator renews it
// (the fetch retries for days). A 404 (the order is gone), other 4xx and answers
// that cannot be mapped are permanent.
func (e *fetchError) Retryable() bool {
	switch {
	case e.transport:
		return true
	case e.status == 0:
		return false
	case e.status == http.StatusTooManyRequests, e.status == http.StatusRequestTimeout, e.status >= 500,
		e.status == http.StatusUnauthorized, e.status == http.StatusForbidden:
		return true
	}
	return false
}

// RetryAfter is the wait the API asked for (the worker's retry delay honours it).
func (e *fetchError) RetryAfter() time.Duration { return e.after }

// getJSON reads one API resource into v; a 204 leaves v as it is (BigCommerce
// answers an empty list so). pace names the rate limit bucket (the store).
func (f *Fetcher) getJSON(ctx context.Context, platform, pace, rawURL string, header http.Header, v any) error {
	what := "GET " + redactQuery(rawURL)
	if err := f.waitPace(ctx, platform, pace, what); err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
	if err != nil {
		return &fetchError{platform: platform, what: what, err: err}
	}
	req.Header = header.Clone()
	req.Header.Set("Accept", "application/json")
	resp, err := f.http.Do(req)
	if err != nil {
		var ref *netguard.RefusedError
		if errors.As(err, &ref) {
			return &fetchError{platform: platform, what: what, err: err}
		}
		return &fetchError{platform: platform, what: what, transport: true, err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAPIResponse+1))
	if err != nil {
		return &fetchError{platform: platform, what: what, transport: true, err: err}
	}
	f.notePace(pace, resp.Header)
	if resp.StatusCode == http.StatusTooManyRequests {
		return &fetchError{platform: platform, what: what, status: resp.StatusCode, after: RetryAfter(resp.Header, f.now()),
			err: errors.New("rate limited")}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return &fetchError{platform: platform, what: what, status: resp.StatusCode, after: RetryAfter(resp.Header, f.now()),
			err: fmt.Errorf("%.200s", strings.TrimSpace(string(body)))}
	}
	if len(body) > maxAPIResponse {
		return &fetchError{platform: platform, what: what, err: fmt.Errorf("response larger than %d bytes", maxAPIResponse)}
	}
	if resp.StatusCode == http.StatusNoContent || len(strings.TrimSpace(string(body))) == 0 {
		return nil
	}
	if err := decodeJSON(body, v); err != nil {
		return &fetchError{platform: platform, what: what, err: err}
	}
	return nil
}

// redactQuery drops a URL's query from messages (it may carry filters, never
// credentials, but logs need the path only).
func redactQuery(u string) string {
	base, _, _ := strings.Cut(u, "?")
	return base
}

// RetryAfter reads Retry-After (seconds, fractional as Shopify sends "2.0", or an
// HTTP date), else BigCommerce's X-Rate-Limit-Time-Reset-Ms; 0 when neither is
// usable. At most an hour: the header is the API's text. The order fetches and the
// reconciliation sweeps' list reads share it.
func RetryAfter(h http.Header, now time.Time) time.Duration {
	var d time.Duration
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 && !math.IsInf(s, 0) {
			d = time.Duration(min(s, 3600) * float64(time.Second))
		} else if t, err := http.ParseTime(v); err == nil {
			d = t.Sub(now)
		}
	}
	if d <= 0 {
		if ms, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-Rate-Limit-Time-Reset-Ms")), 10, 64); err == nil && ms > 0 {
			d = time.Duration(min(ms, 3600_000)) * time.Millisecond
		}
	}
	return min(max(d, 0), time.Hour)
}

// notePace records that a store's window is spent (X-Rate-Limit-Requests-Left: 0),
// so the next request to it waits for the window's reset instead of drawing a 429.
func (f *Fetcher) notePace(pace string, h http.Header) {
	if strings.TrimSpace(h.Get("X-Rate-Limit-Requests-Left")) != "0" {
		return
	}
	ms, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-Rate-Limit-Time-Reset-Ms")), 10, 64)
	if err != nil || ms <= 0 {
		return
	}
	f.mu.Lock()
	f.notBefore[pace] = f.now().Add(time.Duration(min(ms, 3600_000)) * time.Millisecond)
	f.mu.Unlock()
}

func (f *Fetcher) waitPace(ctx context.Context, platform, pace, what string) error {
	f.mu.Lock()
	d := f.notBefore[pace].Sub(f.now())
	f.mu.Unlock()
	if d <= 0 {
		return nil
	}
	if d > maxPacingWait {
		return &fetchError{platform: platform, what: what, status: http.StatusTooManyRequests, after: d,
			err: errors.New("rate limit window spent")}
	}
	return f.sleep(ctx, d)
}

// validateFetch checks the API settings of the platforms a worker is set up for (a
// store hash, a shop id or polling): a worker without them refuses those fetches
// with a clear error instead.
func (c Config) validateFetch() error {
	var errs []error
	for _, b := range c.BigCommerce.stores() {
		if b.StoreHash == "" || b.Store == "" || b.Token == "" {
			errs = append(errs, fmt.Errorf("intake: bigcommerce store %q: fetches need a store hash, a hub store and a token", b.StoreHash))
		}
	}
	if len(c.BigCommerce.stores()) > 0 && strings.TrimSpace(c.BigCommerce.DesignOption) == "" {
		errs = append(errs, errors.New("intake: bigcommerce design option must not be empty"))
	}
	if e := c.Etsy; len(e.shops()) > 0 || e.PollInterval > 0 {
		errs = append(errs, e.validateShops(true)...)
		if e.PollInterval < 0 {
			errs = append(errs, fmt.Errorf("intake: etsy poll interval %s is negative", e.PollInterval))
		}
		if strings.TrimSpace(e.DesignVariation) == "" {
			errs = append(errs, errors.New("intake: etsy design variation must not be empty"))
		}
	}
	return errors.Join(errs...)
}
