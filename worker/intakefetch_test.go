package worker_test

import (
	"context"
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

// A BigCommerce order fetch registered through Deps.Handlers runs in the worker's
// queue with its retries: the store API answers 429 (Retry-After) and 503 first, and
// the order still reaches the hub and its files the storage, with a manifest.
func TestOrderFetchThroughWorker(t *testing.T) {
	t.Parallel()
	sim := storesim.NewBigCommerce("abc123", "tok", "secret")
	sim.RetryAfter = time.Second
	api := httptest.NewServer(sim.Handler())
	t.Cleanup(api.Close)
	e := newEnv(t, func(c *worker.Config, d *worker.Deps) {
		cfg := intake.DefaultConfig()
		cfg.BigCommerce = intake.BigCommerce{StoreHash: "abc123", Store: store, Domain: domain, Token: "tok",
			APIURL: api.URL, DesignOption: "design"}
		enq, err := jobs.NewEnqueuer(d.Redis, jobs.EnqueuerConfig{Options: c.Jobs})
		if err != nil {
			t.Fatal(err)
		}
		f, err := intake.NewFetcher(cfg, intake.JobsEnqueuer(enq), netguard.Must("127.0.0.1"), intake.WithHTTPTimeout(5*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		d.Handlers = map[string]asynq.Handler{jobs.TypeOrderFetch: f}
	})
	o := e.order("101", 1002, 1003)
	addr := storesim.BCAddress{FirstName: "Ann", LastName: "Lee", Street1: "1 Main St", City: "Springfield", Zip: "12345",
		Country: "United States", CountryISO2: "US", Email: "ann@example.com"}
	created := time.Date(2024, 6, 1, 9, 30, 0, 0, time.UTC)
	sim.Put(storesim.BCOrder{ID: 101, StatusID: 11, Status: "Awaiting Fulfillment", Created: created, Modified: created, Billing: addr,
		Products: []storesim.BCProduct{
			{Quantity: 2, Price: "9.5", Options: []storesim.BCOption{{DisplayName: "Design", DisplayValue: o.LineItems[0].Ref().String()}}},
			{Quantity: 3, Price: "9.5", Options: []storesim.BCOption{{DisplayName: "Design", DisplayValue: o.LineItems[1].Ref().String()}}},
		}})
	sim.Inject(storesim.RateLimited, storesim.ServerError)
	e.start()
	if _, err := e.enq.FetchOrder(context.Background(), jobs.OrderFetch{Platform: intake.PlatformBigCommerce, Store: store,
		Shop: "abc123", OrderID: "101", Event: jobs.FetchOrder, Delivery: "hash-1"}); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("101", 1)
	if len(m.LineItems) != 2 || m.Customer.LastName != "Lee" {
		t.Errorf("manifest lines %+v, customer %+v", m.LineItems, m.Customer)
	}
	e.waitQueuesIdle()
	if so, ok := e.sim.Order(store, "101", domain); !ok || so.Order.Email != "ann@example.com" || len(so.Order.LineItems) != 2 {
		t.Errorf("hub order: found %v, %+v", ok, so.Order)
	}
	if sim.Pending() != 0 || len(sim.Requests()) < 5 {
		t.Errorf("store API: %d faults left, requests %q", sim.Pending(), sim.Requests())
	}
}
