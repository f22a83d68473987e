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
	"github.com/printworker/printworker/reconcile"
	"github.com/printworker/printworker/storesim"
	"github.com/printworker/printworker/worker"
)

// A lost webhook reconciled end to end, per platform: the store took a paid,
// personalized order, its webhook was dropped, and one sweep of the store's order
// list brings it to the hub and its files to storage with a manifest; the next
// interval's sweep reads it again in its overlap and sends nothing more to the
// hub. Shopify's order is mapped from the list itself; BigCommerce's list has no
// lines, so the sweep enqueues the order's fetch, which the worker runs.
func TestReconcileLostWebhookEndToEnd(t *testing.T) {
	t.Parallel()
	created := time.Date(2024, 6, 1, 9, 30, 0, 0, time.UTC)
	for _, tc := range []struct {
		name, id string
		setup    func(t *testing.T, e *env, cfg *intake.Config) reconcile.Lister
	}{
		{name: "shopify", id: "6001", setup: func(t *testing.T, e *env, cfg *intake.Config) reconcile.Lister {
			sim := storesim.NewShopify("my-shop.myshopify.com", "secret", "shpat_1")
			o := storesim.ShopifySampleOrder(6001, created)
			o.LineItems[0].Properties[0].Value = e.refs[1002].String()
			o.LineItems[1].Properties[0].Value = e.refs[1003].String()
			sim.Put(o)
			drop(t, func() (storesim.Webhook, error) { return sim.Webhook("orders/paid", 6001) })
			cfg.Shopify.Stores = map[string]string{"my-shop.myshopify.com": store}
			cfg.Shopify.Domains = map[string]string{"my-shop.myshopify.com": domain}
			api := httptest.NewServer(sim.Handler())
			t.Cleanup(api.Close)
			return &reconcile.Shopify{Client: &reconcile.Client{HTTP: api.Client()}, ShopDomain: "my-shop.myshopify.com", BaseURL: api.URL, Token: "shpat_1"}
		}},
		{name: "bigcommerce", id: "6002", setup: func(t *testing.T, e *env, cfg *intake.Config) reconcile.Lister {
			sim := storesim.NewBigCommerce("abc123", "tok", "secret")
			addr := storesim.BCAddress{FirstName: "Ann", LastName: "Lee", Street1: "1 Main St", City: "Springfield", Zip: "12345",
				Country: "United States", CountryISO2: "US", Email: "ann@example.com"}
			sim.Put(storesim.BCOrder{ID: 6002, StatusID: 11, Status: "Awaiting Fulfillment", Created: created, Modified: created.Add(time.Minute),
				Billing: addr, Products: []storesim.BCProduct{
					{Quantity: 2, Price: "9.5", Options: []storesim.BCOption{{DisplayName: "Design", DisplayValue: e.refs[1002].String()}}},
					{Quantity: 3, Price: "9.5", Options: []storesim.BCOption{{DisplayName: "Design", DisplayValue: e.refs[1003].String()}}}}})
			drop(t, func() (storesim.Webhook, error) { return sim.Webhook("store/order/statusUpdated", 6002, created) })
			api := httptest.NewServer(sim.Handler())
			t.Cleanup(api.Close)
			cfg.BigCommerce = intake.BigCommerce{StoreHash: "abc123", Store: store, Domain: domain, Token: "tok", APIURL: api.URL, DesignOption: "design"}
			return &reconcile.BigCommerce{Client: &reconcile.Client{HTTP: api.Client()}, APIURL: api.URL, StoreHash: "abc123", Token: "tok"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			// The worker runs order fetches (BigCommerce's sweep enqueues one) through
			// the fetcher the sweep feeds, made once the store is set up.
			var feed *intake.Fetcher
			e := newEnv(t, func(_ *worker.Config, d *worker.Deps) {
				d.Handlers = map[string]asynq.Handler{jobs.TypeOrderFetch: asynq.HandlerFunc(func(ctx context.Context, task *asynq.Task) error {
					return feed.ProcessTask(ctx, task)
				})}
			})
			cfg := intake.DefaultConfig()
			l := tc.setup(t, e, &cfg)
			feed, err := intake.NewFetcher(cfg, intake.JobsEnqueuer(e.enq), netguard.Must("127.0.0.1"), intake.WithFetchLogger(testLogger(t)))
			if err != nil {
				t.Fatal(err)
			}
			now := created.Add(5 * time.Minute)
			sw, err := reconcile.New(reconcile.DefaultConfig(), e.rdb, feed, e.enq.State(), []reconcile.Lister{l},
				reconcile.WithClock(func() time.Time { return now }), reconcile.WithLogger(testLogger(t)))
			if err != nil {
				t.Fatal(err)
			}
			e.start()
			ctx := context.Background()
			res, err := sw.SweepInterval(ctx, l)
			if err != nil || res.Recovered != 1 {
				t.Fatalf("first sweep %+v, %v: want the order recovered", res, err)
			}
			m := e.manifest(tc.id, 1)
			if len(m.LineItems) != 2 || len(m.LineItems[0].Files) == 0 || len(m.LineItems[1].Files) == 0 {
				t.Errorf("manifest lines %+v", m.LineItems)
			}
			e.waitQueuesIdle()
			if so, ok := e.sim.Order(store, tc.id, domain); !ok || len(so.Order.LineItems) != 2 {
				t.Errorf("hub order: found %v, %+v", ok, so.Order)
			}
			hubCalls := len(e.sim.Requests())

			now = now.Add(reconcile.DefaultConfig().Interval)
			res, err = sw.SweepInterval(ctx, l)
			if err != nil || !res.Swept || res.Seen != 1 || res.Recovered != 0 {
				t.Fatalf("second sweep %+v, %v: want the order seen", res, err)
			}
			e.waitQueuesIdle()
			if n := len(e.sim.Requests()); n != hubCalls {
				t.Errorf("the second sweep made %d hub calls", n-hubCalls)
			}
		})
	}
}

// drop has the simulator lose a webhook: Deliver never sends a dropped delivery.
func drop(t *testing.T, wh func() (storesim.Webhook, error)) {
	t.Helper()
	w, err := wh()
	if err != nil {
		t.Fatal(err)
	}
	in := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("a dropped webhook was delivered") }))
	t.Cleanup(in.Close)
	if sts, err := storesim.Deliver(context.Background(), in.Client(), in.URL, []storesim.Webhook{w}, storesim.Schedule{Drop: storesim.Dropped{0}}); err != nil || len(sts) != 0 {
		t.Fatalf("dropped delivery sent: %v %v", sts, err)
	}
}
