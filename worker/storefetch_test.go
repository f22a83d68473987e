package worker_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/netguard"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storesim"
	"github.com/printworker/printworker/worker"
)

// TestStoreFetchThroughTheWorker: a WooCommerce order fetch task (an order whose
// design references sit under a hidden meta key) runs in the worker through
// Deps.Handlers: the simulated site answers 429 with Retry-After, then 502, then
// the order; the worker retries, and the order ends pushed, exported and with its
// manifest.
func TestStoreFetchThroughTheWorker(t *testing.T) {
	site := storesim.NewWooCommerce("", "", "ck", "cs")
	api := httptest.NewServer(site)
	t.Cleanup(api.Close)
	t.Cleanup(site.Close)
	e := newEnv(t, func(_ *worker.Config, d *worker.Deps) {
		enq, err := jobs.NewEnqueuer(d.Redis, jobs.EnqueuerConfig{})
		if err != nil {
			t.Fatal(err)
		}
		woo := &intake.WooCommerceAPI{URL: api.URL, ConsumerKey: "ck", ConsumerSecret: "cs",
			HTTP: &http.Client{Timeout: 10 * time.Second, CheckRedirect: intake.NoRedirect}}
		f, err := intake.NewFetcher(intake.DefaultConfig(), intake.JobsEnqueuer(enq), netguard.Must("127.0.0.1"),
			intake.WithWooCommerceAPI(woo), intake.WithFetchLogger(testLogger(t)))
		if err != nil {
			t.Fatal(err)
		}
		d.Handlers = map[string]asynq.Handler{jobs.TypeOrderFetch: f}
	})
	var ids []int64
	for id := range e.refs {
		ids = append(ids, id)
	}
	if len(ids) < 2 {
		t.Fatalf("the simulator holds %d designs, want 2", len(ids))
	}
	o := storesim.WooSampleOrder(7001, "_design", time.Date(2024, 6, 1, 9, 30, 0, 0, time.UTC))
	for i := range 2 {
		r := e.refs[ids[i]]
		o.LineItems[i].MetaData[len(o.LineItems[i].MetaData)-1].Value = r.String()
	}
	site.Put(o)
	site.Fail(storesim.WooFault{Status: http.StatusTooManyRequests, RetryAfter: "1"}, storesim.WooFault{Status: http.StatusBadGateway})

	if _, err := e.enq.FetchOrder(context.Background(), jobs.OrderFetch{
		Platform: intake.PlatformWooCommerce, Store: store, OrderID: "7001", Event: jobs.FetchOrder, Delivery: "d1",
		WooCommerce: &jobs.WooFetch{Domain: domain, Topic: intake.WooTopicCreated, DesignKey: "_design"},
	}); err != nil {
		t.Fatal(err)
	}
	e.start()
	m := e.manifest("7001", 1)
	if len(m.Files) < 2 {
		t.Fatalf("manifest lists %d files, want the views of 2 designs", len(m.Files))
	}
	if n := len(site.Requests()); n != 3 {
		t.Errorf("%d api requests, want 3 (429, 502, the order)", n)
	}
	if n := e.hubRequests(http.MethodPost, "/2022-08/orders"); n != 1 {
		t.Errorf("%d order pushes to the hub, want 1", n)
	}
}
