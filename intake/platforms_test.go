package intake_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/netguard"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/storesim"
)

// This file holds the harness shared by the id-only platforms (BigCommerce, Etsy):
// the intake with its real Redis, a store simulator serving the API, and the fetch
// task handler, run on the fetch tasks the intake enqueued.

// platform is one id-only platform under test.
type platform struct {
	*harness
	cfg     intake.Config
	fetcher *intake.Fetcher
	enq     *jobs.Enqueuer
	api     *httptest.Server
	// sleeps records the pacing waits the fetcher asked for (none are slept).
	sleeps []time.Duration
}

// newPlatform starts the intake with configure applied, the simulator's API served
// by apiHandler, and a fetcher reading it. The API is on loopback, reached through
// the outbound guard's allow-list (as --fetch-allow 127.0.0.1 would).
func newPlatform(t *testing.T, apiHandler http.Handler, configure func(c *intake.Config, apiURL string)) *platform {
	t.Helper()
	p := &platform{}
	p.api = httptest.NewServer(apiHandler)
	t.Cleanup(p.api.Close)
	p.harness = newHarness(t, func(c *intake.Config) {
		configure(c, p.api.URL)
		p.cfg = *c
	})
	enq, err := jobs.NewEnqueuer(p.rdb, jobs.EnqueuerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { enq.Close() })
	p.enq = enq
	// The API URL is not registered with the guard by the test: NewFetcher trusts
	// the configured bases itself; the allow-list covers the loopback address too.
	p.fetcher, err = intake.NewFetcher(p.cfg, intake.JobsEnqueuer(enq), netguard.Must("127.0.0.1"),
		intake.WithHTTPTimeout(300*time.Millisecond), intake.WithFetchLogger(slogDiscard()),
		intake.WithFetchClock(func() time.Time { return p.now }, func(_ context.Context, d time.Duration) error {
			p.sleeps = append(p.sleeps, d)
			return nil
		}))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// send posts a simulator's webhook to the intake endpoint and returns the status.
func (p *platform) send(path string, wh storesim.Webhook) int {
	p.t.Helper()
	st, err := storesim.Send(context.Background(), http.DefaultClient, p.url+path, wh)
	if err != nil {
		p.t.Fatal(err)
	}
	return st
}

// fetchTasks lists the pending fetch tasks.
func (p *platform) fetchTasks() []task {
	var out []task
	for _, tk := range p.tasks() {
		if tk.Type == jobs.TypeOrderFetch {
			out = append(out, tk)
		}
	}
	return out
}

// runFetches runs every pending fetch task once, as a worker would, and removes
// the ones that succeeded. It returns the errors of the others (left pending).
func (p *platform) runFetches() []error {
	p.t.Helper()
	var errs []error
	for _, tk := range p.fetchTasks() {
		err := p.fetcher.ProcessTask(context.Background(), asynq.NewTask(tk.Type, tk.Payload))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := p.insp.DeleteTask(tk.Queue, tk.ID); err != nil {
			p.t.Fatal(err)
		}
	}
	return errs
}

// work lists the non-fetch tasks as summary strings, sorted.
func (p *platform) work(t *testing.T) []string {
	var ts []task
	for _, tk := range p.tasks() {
		if tk.Type != jobs.TypeOrderFetch {
			ts = append(ts, tk)
		}
	}
	s := summary(t, ts)
	slices.Sort(s)
	return s
}

// checkHubOrder checks that the pushed order has every field the hub requires
// (spec 2.1-2.3) and the expected content.
func checkHubOrder(t *testing.T, o *model.Order, domain string, want model.Order) {
	t.Helper()
	if err := hub.ValidateOrder(o, []string{domain}); err != nil {
		t.Errorf("pushed order is invalid for the hub: %v", err)
	}
	for _, f := range []struct{ name, got, want string }{
		{"orderId", o.OrderID, want.OrderID}, {"domain", o.Domain, domain}, {"email", o.Email, want.Email},
		{"firstName", o.FirstName, want.FirstName}, {"lastName", o.LastName, want.LastName},
		{"status", o.Status, want.Status}, {"created", o.Created, want.Created}, {"updated", o.Updated, want.Updated},
		{"shipping city", o.ShippingDetails.City, want.ShippingDetails.City},
		{"shipping country code", o.ShippingDetails.CountryCode, want.ShippingDetails.CountryCode},
		{"billing address1", o.BillingDetails.Address1, want.BillingDetails.Address1},
	} {
		if f.got != f.want {
			t.Errorf("%s = %q, want %q", f.name, f.got, f.want)
		}
	}
	if len(o.LineItems) != len(want.LineItems) {
		t.Fatalf("line items %+v, want %+v", o.LineItems, want.LineItems)
	}
	for i, li := range o.LineItems {
		w := want.LineItems[i]
		if li.ID != w.ID || li.Token != w.Token || li.Quantity != w.Quantity || li.Price != w.Price {
			t.Errorf("line %d = %+v, want %+v", i, li, want.LineItems[i])
		}
	}
}

// allRetryable checks that every error is retryable, as the worker would judge.
func allRetryable(t *testing.T, errs []error) {
	t.Helper()
	for _, err := range errs {
		var rc interface{ Retryable() bool }
		if !errors.As(err, &rc) || !rc.Retryable() || errors.Is(err, asynq.SkipRetry) {
			t.Errorf("error %v: want a retryable error", err)
		}
	}
}

// A worker set up for a platform without its API settings refuses to start.
func TestFetcherConfig(t *testing.T) {
	t.Parallel()
	enq := intake.JobsEnqueuer(nil)
	for _, tc := range []struct {
		name string
		set  func(*intake.Config)
		ok   bool
	}{
		{"nothing configured", func(*intake.Config) {}, true},
		{"bigcommerce without token", func(c *intake.Config) { c.BigCommerce.StoreHash, c.BigCommerce.Store = "h", "s" }, false},
		{"bigcommerce complete", func(c *intake.Config) {
			c.BigCommerce.StoreHash, c.BigCommerce.Store, c.BigCommerce.Token = "h", "s", "t"
		}, true},
		{"etsy polling without shop", func(c *intake.Config) { c.Etsy.PollInterval = time.Minute }, false},
		{"etsy shop not numeric", func(c *intake.Config) {
			c.Etsy.ShopID, c.Etsy.Store, c.Etsy.APIKey, c.Etsy.Token = "shop", "s", "k", "t"
		}, false},
		{"etsy complete", func(c *intake.Config) { c.Etsy.ShopID, c.Etsy.Store, c.Etsy.APIKey, c.Etsy.Token = "42", "s", "k", "t" }, true},
	} {
		cfg := intake.DefaultConfig()
		tc.set(&cfg)
		_, err := intake.NewFetcher(cfg, enq, nil)
		if (err == nil) != tc.ok {
			t.Errorf("%s: err %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}
