package reconcile

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/netguard"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storesim"
)

const (
	ref1 = "1001.3f2504e0-4f89-11d3-9a0c-0305e82c3301"
	ref2 = "1002.9a1c7e52-3b0d-4c8e-8f5a-2d6b7c8e9f01"
)

// sweepStore is one platform's store holding one paid, personalized order whose
// webhook was lost, the intake settings mapping it to hub store "store-1", and
// its lister.
type sweepStore struct {
	name string
	// domain is the order domain the intake maps the store to; id the order id.
	domain, id string
	setup      func(t *testing.T, cfg *intake.Config, changed time.Time) Lister
}

var sweepStores = []sweepStore{
	{name: "shopify", domain: "my-shop.myshopify.com", id: "5001", setup: func(t *testing.T, cfg *intake.Config, changed time.Time) Lister {
		sim := storesim.NewShopify("my-shop.myshopify.com", "secret", "shpat_1")
		o := storesim.ShopifySampleOrder(5001, changed.Add(-2*time.Minute))
		sim.Put(o)
		dropWebhook(t, func() (storesim.Webhook, error) { return sim.Webhook("orders/paid", 5001) })
		cfg.Shopify.Stores = map[string]string{"my-shop.myshopify.com": "store-1"}
		srv := httptest.NewServer(sim.Handler())
		t.Cleanup(srv.Close)
		return &Shopify{Client: testClient(&sleeps{}), ShopDomain: "my-shop.myshopify.com", BaseURL: srv.URL, Token: "shpat_1"}
	}},
	{name: "woocommerce", domain: "shop.example.com", id: "5002", setup: func(t *testing.T, cfg *intake.Config, changed time.Time) Lister {
		sim := storesim.NewWooCommerce("whs", "https://shop.example.com/", "ck", "cs")
		sim.Put(storesim.WooSampleOrder(5002, "design", changed.Add(-2*time.Minute)))
		cfg.WooCommerce.DefaultStore = "store-1"
		cfg.WooCommerce.Domains = map[string]string{"127.0.0.1": "shop.example.com"}
		srv := httptest.NewServer(sim)
		t.Cleanup(srv.Close)
		return &WooCommerce{Client: testClient(&sleeps{}), URL: srv.URL, ConsumerKey: "ck", ConsumerSecret: "cs"}
	}},
	{name: "bigcommerce", domain: "bc.example.com", id: "5003", setup: func(t *testing.T, cfg *intake.Config, changed time.Time) Lister {
		sim := storesim.NewBigCommerce("abc123", "tok", "secret")
		addr := storesim.BCAddress{FirstName: "Ann", LastName: "Lee", Street1: "1 Main St", City: "Springfield", Zip: "12345",
			Country: "United States", CountryISO2: "US", Email: "ann@example.com"}
		sim.Put(storesim.BCOrder{ID: 5003, StatusID: 11, Status: "Awaiting Fulfillment", Created: changed.Add(-time.Hour), Modified: changed,
			Billing: addr, Products: []storesim.BCProduct{
				{Quantity: 2, Price: "9.5", Options: []storesim.BCOption{{DisplayName: "Design", DisplayValue: ref1}}},
				{Quantity: 1, Price: "9.5", Options: []storesim.BCOption{{DisplayName: "Design", DisplayValue: ref2}}}}})
		dropWebhook(t, func() (storesim.Webhook, error) { return sim.Webhook("store/order/statusUpdated", 5003, changed) })
		srv := httptest.NewServer(sim.Handler())
		t.Cleanup(srv.Close)
		cfg.BigCommerce = intake.BigCommerce{StoreHash: "abc123", Store: "store-1", Domain: "bc.example.com", Token: "tok",
			APIURL: srv.URL, DesignOption: "design"}
		return &BigCommerce{Client: testClient(&sleeps{}), APIURL: srv.URL, StoreHash: "abc123", Token: "tok"}
	}},
	{name: "etsy", domain: "etsy-42", id: "5004", setup: func(t *testing.T, cfg *intake.Config, changed time.Time) Lister {
		sim := storesim.NewEtsy("42", "key", "tok", "whsec_"+base64.StdEncoding.EncodeToString([]byte("0123456789abcdef")))
		sim.Put(storesim.EtsyReceipt{ID: 5004, Status: "paid", IsPaid: true, BuyerEmail: "ann@example.com", Name: "Ann Lee",
			FirstLine: "1 Main St", City: "Springfield", Zip: "12345", CountryISO: "US", Created: changed.Add(-time.Hour), Modified: changed,
			Transactions: []storesim.EtsyTransaction{{Quantity: 1, Amount: 1250, Variations: [][2]string{{"Personalization", ref1}}},
				{Quantity: 2, Amount: 900, Variations: [][2]string{{"Personalization", ref2}}}}})
		dropWebhook(t, func() (storesim.Webhook, error) { return sim.Webhook(5004, changed) })
		srv := httptest.NewServer(sim.Handler())
		t.Cleanup(srv.Close)
		cfg.Etsy = intake.Etsy{ShopID: "42", Store: "store-1", APIKey: "key", Token: "tok", APIURL: srv.URL, DesignVariation: "Personalization"}
		return &Etsy{Client: testClient(&sleeps{}), APIURL: srv.URL, ShopID: "42", APIKey: "key", Token: "tok"}
	}},
	{name: "wix", domain: "wix.example.com", id: "w-5005", setup: func(t *testing.T, cfg *intake.Config, changed time.Time) Lister {
		sim := storesim.NewWixSite("site-1", "IST.key")
		sim.Put(storesim.WixSampleOrder("w-5005", "design", changed.Add(-2*time.Minute)))
		cfg.Wix.Stores = map[string]string{"inst-1": "store-1"}
		cfg.Wix.Domains = map[string]string{"inst-1": "wix.example.com"}
		srv := httptest.NewServer(sim.Handler())
		t.Cleanup(srv.Close)
		return &Wix{Client: testClient(&sleeps{}), APIURL: srv.URL, Instance: "inst-1", SiteID: "site-1", APIKey: "IST.key"}
	}},
}

// dropWebhook has the simulator lose the order's webhook: Deliver never sends a
// dropped delivery (the intake URL here fails the test if anything reaches it).
func dropWebhook(t *testing.T, wh func() (storesim.Webhook, error)) {
	t.Helper()
	w, err := wh()
	if err != nil {
		t.Fatal(err)
	}
	intakeSrv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { t.Error("a dropped webhook was delivered") }))
	t.Cleanup(intakeSrv.Close)
	sts, err := storesim.Deliver(context.Background(), http.DefaultClient, intakeSrv.URL, []storesim.Webhook{w}, storesim.Schedule{Drop: storesim.Dropped{0}})
	if err != nil || len(sts) != 0 {
		t.Fatalf("dropped delivery: %v %v", sts, err)
	}
}

// pending lists the tasks waiting in every queue, "type id".
func pending(t *testing.T, rdb redis.UniversalClient) []string {
	t.Helper()
	insp := asynq.NewInspectorFromRedisClient(rdb)
	qs, err := insp.Queues()
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, q := range qs {
		ts, err := insp.ListPendingTasks(q)
		if errors.Is(err, asynq.ErrQueueNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, ti := range ts {
			out = append(out, ti.Type+" "+ti.ID)
		}
	}
	slices.Sort(out)
	return out
}

type sweepFixture struct {
	rdb   redis.UniversalClient
	enq   *jobs.Enqueuer
	sw    *Sweeper
	l     Lister
	reg   *prometheus.Registry
	clock *time.Time
}

func newSweepFixture(t *testing.T, ss sweepStore, changed time.Time) *sweepFixture {
	t.Helper()
	rs := testredis.Start(t)
	rdb := rs.Client(t)
	enq, err := jobs.NewEnqueuer(rdb, jobs.EnqueuerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := intake.DefaultConfig()
	l := ss.setup(t, &cfg, changed)
	f, err := intake.NewFetcher(cfg, intake.JobsEnqueuer(enq), netguard.Must("127.0.0.1"),
		intake.WithFetchLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	// Just past the settle time: the next sweep's overlap reads the order again.
	now := changed.Add(3 * time.Minute)
	fx := &sweepFixture{rdb: rdb, enq: enq, l: l, reg: prometheus.NewRegistry(), clock: &now}
	fx.sw, err = New(DefaultConfig(), rdb, f, enq.State(), []Lister{l}, WithClock(func() time.Time { return *fx.clock }),
		WithMetrics(NewMetrics(fx.reg)), WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	return fx
}

// Per platform: the order's webhook was dropped; one sweep finds it and enqueues
// its push and its exports (counted as recovered), and a second sweep, an
// interval later, reads it again in the overlap and enqueues nothing more.
func TestSweepRecoversDroppedWebhook(t *testing.T) {
	t.Parallel()
	changed := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	for _, ss := range sweepStores {
		t.Run(ss.name, func(t *testing.T) {
			t.Parallel()
			fx := newSweepFixture(t, ss, changed)
			ctx := context.Background()
			res, err := fx.sw.SweepInterval(ctx, fx.l)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Swept || res.Listed != 1 || res.Recovered != 1 {
				t.Fatalf("first sweep %+v, want 1 listed and recovered", res)
			}
			tasks := pending(t, fx.rdb)
			var push, exports, fetches int
			for _, task := range tasks {
				switch {
				case strings.HasPrefix(task, jobs.TypeOrderPush+" ") && strings.Contains(task, ss.id):
					push++
				case strings.HasPrefix(task, jobs.TypeDesignExport+" "):
					exports++
				case strings.HasPrefix(task, jobs.TypeOrderFetch+" ") && strings.Contains(task, ss.id):
					fetches++
				}
			}
			switch {
			case ss.name == intake.PlatformBigCommerce:
				// BigCommerce lists order headers only: the order's fetch reads its
				// lines and applies it, as for its webhook.
				if fetches != 1 || push != 0 {
					t.Errorf("enqueued %q: want the order's fetch", tasks)
				}
			case push != 1 || exports != 2:
				t.Errorf("enqueued %q: want the order's push and its 2 exports", tasks)
			}
			if got := testutil.ToFloat64(fx.sw.m.recovered.WithLabelValues(ss.name)); got != 1 {
				t.Errorf("recovered metric %v, want 1", got)
			}

			// The same interval: another worker's tick finds the slot taken.
			if again, err := fx.sw.SweepInterval(ctx, fx.l); err != nil || again.Swept {
				t.Errorf("second sweep in the same interval: %+v %v", again, err)
			}
			*fx.clock = fx.clock.Add(DefaultConfig().Interval)
			res, err = fx.sw.SweepInterval(ctx, fx.l)
			if err != nil {
				t.Fatal(err)
			}
			if !res.Swept || res.Recovered != 0 || res.Seen != 1 {
				t.Errorf("next interval's sweep %+v, want the order seen and nothing recovered", res)
			}
			if after := pending(t, fx.rdb); !slices.Equal(after, tasks) {
				t.Errorf("the second sweep enqueued:\n got %q\nwant %q", after, tasks)
			}
			if !res.Since.Before(changed) {
				t.Errorf("the second sweep read from %s: the watermark's margin must overlap the first", res.Since)
			}
		})
	}
}

// An order whose webhook came (the pipeline pushed this version) is handled, not
// enqueued again and not counted as recovered; an order changed within the
// settle time is left to the next sweep, whose watermark keeps it in reach.
func TestSweepLeavesHandledAndRecentOrders(t *testing.T) {
	t.Parallel()
	changed := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	fx := newSweepFixture(t, sweepStores[0], changed)
	ctx := context.Background()
	k := jobs.OrderKey{Store: "store-1", Domain: "my-shop.myshopify.com", OrderID: "5001"}
	if err := fx.enq.State().PushDone(ctx, k, jobs.OpUpdate, "2026-03-02T10:00:00.000Z"); err != nil {
		t.Fatal(err)
	}
	res, err := fx.sw.Sweep(ctx, fx.l, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Handled != 1 || res.Recovered != 0 || len(pending(t, fx.rdb)) != 0 {
		t.Errorf("sweep %+v, tasks %q: want the order handled and nothing enqueued", res, pending(t, fx.rdb))
	}

	*fx.clock = changed.Add(time.Minute) // within Settle of the change
	fx2 := newSweepFixture(t, sweepStores[1], changed)
	*fx2.clock = changed.Add(time.Minute)
	res, err = fx2.sw.Sweep(ctx, fx2.l, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Later != 1 || res.Recovered != 0 || len(pending(t, fx2.rdb)) != 0 {
		t.Errorf("sweep within settle %+v: want the order left for later", res)
	}
	if !res.Mark.Before(changed) {
		t.Errorf("watermark %s passed an order left for later (changed %s)", res.Mark, changed)
	}
	*fx2.clock = changed.Add(10 * time.Minute)
	if res, err = fx2.sw.Sweep(ctx, fx2.l, time.Time{}); err != nil || res.Recovered != 1 {
		t.Errorf("next sweep %+v %v: want the order recovered", res, err)
	}
}

// A sweep still running elsewhere (its lease held) makes this one a no-op.
func TestSweepLease(t *testing.T) {
	t.Parallel()
	fx := newSweepFixture(t, sweepStores[3], time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC))
	ctx := context.Background()
	l, err := jobs.TakeLease(ctx, fx.rdb, fx.sw.key("lease", fx.l), time.Minute)
	if err != nil || l == nil {
		t.Fatalf("lease: %v %v", l, err)
	}
	res, err := fx.sw.Sweep(ctx, fx.l, time.Time{})
	if err != nil || res.Swept {
		t.Errorf("sweep under another's lease: %+v %v", res, err)
	}
}

// An order the intake cannot take for now (Redis answered late, say) does not hold
// up the others: they are recovered, the watermark stays before it, and the next
// sweep takes it.
func TestSweepGoesOnPastAnOrderItCannotTakeYet(t *testing.T) {
	t.Parallel()
	changed := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	rs := testredis.Start(t)
	rdb := rs.Client(t)
	enq, err := jobs.NewEnqueuer(rdb, jobs.EnqueuerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	sim := storesim.NewShopify("my-shop.myshopify.com", "secret", "shpat_1")
	for i, id := range []int64{7001, 7002} {
		// Updated two minutes after creation: at changed and a second later.
		sim.Put(storesim.ShopifySampleOrder(id, changed.Add(-2*time.Minute+time.Duration(i)*time.Second)))
	}
	api := httptest.NewServer(sim.Handler())
	t.Cleanup(api.Close)
	cfg := intake.DefaultConfig()
	cfg.Shopify.Stores = map[string]string{"my-shop.myshopify.com": "store-1"}
	f, err := intake.NewFetcher(cfg, intake.JobsEnqueuer(enq), netguard.Must("127.0.0.1"),
		intake.WithFetchLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	var broken atomic.Bool
	broken.Store(true)
	feed := flakyFeeder{Feeder: f, fail: func(body []byte) bool {
		return broken.Load() && strings.Contains(string(body), "7001")
	}}
	now := changed.Add(3 * time.Minute)
	l := &Shopify{Client: testClient(&sleeps{}), ShopDomain: "my-shop.myshopify.com", BaseURL: api.URL, Token: "shpat_1"}
	sw, err := New(DefaultConfig(), rdb, feed, enq.State(), []Lister{l}, WithClock(func() time.Time { return now }),
		WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := sw.Sweep(ctx, l, time.Time{})
	if err != nil || res.Retry != 1 || res.Recovered != 1 {
		t.Fatalf("sweep %+v %v: want 7001 to retry and 7002 recovered", res, err)
	}
	if !res.Mark.Before(changed) {
		t.Errorf("watermark %s passed the order to retry (changed %s)", res.Mark, changed)
	}
	broken.Store(false)
	now = now.Add(10 * time.Minute)
	res, err = sw.Sweep(ctx, l, time.Time{})
	if err != nil || res.Recovered != 1 || res.Seen != 1 || res.Retry != 0 {
		t.Errorf("next sweep %+v %v: want 7001 recovered and 7002 seen", res, err)
	}
}

// flakyFeeder fails the orders fail picks with a transient error.
type flakyFeeder struct {
	Feeder
	fail func(body []byte) bool
}

func (f flakyFeeder) ApplyOrder(ctx context.Context, platform, shop string, body []byte, h intake.Handled) (intake.Applied, error) {
	if f.fail(body) {
		return intake.Applied{}, transientErr{}
	}
	return f.Feeder.ApplyOrder(ctx, platform, shop, body, h)
}

type transientErr struct{}

func (transientErr) Error() string   { return "enqueue: redis answered late" }
func (transientErr) Retryable() bool { return true }

// A sweep from a time after the watermark (reconcile --since 1h after a day's
// outage) does not move the watermark past what it did not read.
func TestSweepSinceAfterWatermarkKeepsIt(t *testing.T) {
	t.Parallel()
	changed := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	fx := newSweepFixture(t, sweepStores[2], changed)
	ctx := context.Background()
	mark := changed.Add(-20 * time.Hour)
	if err := fx.rdb.Set(ctx, fx.sw.key("mark", fx.l), mark.UnixMilli(), 0).Err(); err != nil {
		t.Fatal(err)
	}
	res, err := fx.sw.Sweep(ctx, fx.l, changed.Add(-time.Hour))
	if err != nil || res.Recovered != 1 {
		t.Fatalf("sweep %+v %v", res, err)
	}
	if got, _ := fx.rdb.Get(ctx, fx.sw.key("mark", fx.l)).Int64(); got != mark.UnixMilli() || !res.Mark.Equal(time.UnixMilli(mark.UnixMilli())) {
		t.Errorf("watermark %s (result %s), want it kept at %s", time.UnixMilli(got).UTC(), res.Mark, mark)
	}
}

// A sweep cut off at MaxPages moves the watermark to the last order it read (the
// list is sorted by change), and the next sweep goes on from there.
func TestSweepCutOffAtMaxPages(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t)
	rdb := rs.Client(t)
	enq, err := jobs.NewEnqueuer(rdb, jobs.EnqueuerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	sim := storesim.NewEtsy("42", "key", "tok", "whsec_"+base64.StdEncoding.EncodeToString([]byte("0123456789abcdef")))
	base := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	const n = etsyPageSize + 10
	for i := range n {
		sim.Put(storesim.EtsyReceipt{ID: 9000 + i, Status: "paid", IsPaid: true, BuyerEmail: "ann@example.com", Name: "Ann Lee",
			Created: base, Modified: base.Add(time.Duration(i) * time.Second),
			Transactions: []storesim.EtsyTransaction{{Quantity: 1, Amount: 100, Variations: [][2]string{{"Personalization", ref1}}}}})
	}
	api := httptest.NewServer(sim.Handler())
	t.Cleanup(api.Close)
	cfg := intake.DefaultConfig()
	cfg.Etsy = intake.Etsy{ShopID: "42", Store: "store-1", APIKey: "key", Token: "tok", APIURL: api.URL, DesignVariation: "Personalization"}
	feed, err := intake.NewFetcher(cfg, intake.JobsEnqueuer(enq), netguard.Must("127.0.0.1"), intake.WithFetchLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	rc := DefaultConfig()
	rc.MaxPages = 1
	now := base.Add(time.Hour)
	l := &Etsy{Client: testClient(&sleeps{}), APIURL: api.URL, ShopID: "42", APIKey: "key", Token: "tok"}
	sw, err := New(rc, rdb, feed, enq.State(), []Lister{l}, WithClock(func() time.Time { return now }), WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	res, err := sw.Sweep(ctx, l, time.Time{})
	if err != nil || res.Recovered != etsyPageSize {
		t.Fatalf("first sweep %+v %v: want one page recovered", res, err)
	}
	if want := base.Add((etsyPageSize - 1) * time.Second); !res.Mark.Equal(want) {
		t.Errorf("watermark %s, want the last order read, %s", res.Mark, want)
	}
	res, err = sw.Sweep(ctx, l, time.Time{})
	if err != nil || res.Recovered != 10 {
		t.Errorf("next sweep %+v %v: want the other 10 recovered", res, err)
	}
}
