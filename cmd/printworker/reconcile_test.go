package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/netguard"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storesim"
)

// printworker reconcile --platform woocommerce --since 24h, with serve's and
// work's WooCommerce flags: an order whose webhook was lost is enqueued (its push
// and its two exports) and reported recovered; run again, it is seen and nothing
// more is enqueued.
func TestReconcileCommand(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t)
	sim := storesim.NewWooCommerce("whs", "https://shop.example.com/", "ck_1", "cs_1")
	sim.Put(storesim.WooSampleOrder(77, "design", time.Now().Add(-time.Hour)))
	api := httptest.NewServer(sim)
	t.Cleanup(api.Close)
	env := map[string]string{
		"PRINTWORKER_REDIS_URL":                   rs.URL(),
		"PRINTWORKER_WOOCOMMERCE_URL":             api.URL,
		"PRINTWORKER_WOOCOMMERCE_CONSUMER_KEY":    "ck_1",
		"PRINTWORKER_WOOCOMMERCE_CONSUMER_SECRET": "cs_1",
		"PRINTWORKER_WOOCOMMERCE_DEFAULT_STORE":   "store-woo",
		"PRINTWORKER_LOG_LEVEL":                   "error",
	}
	sweep := func() string {
		t.Helper()
		var out bytes.Buffer
		err := run(context.Background(), []string{"reconcile", "--platform", "woocommerce", "--since", "24h"},
			func(k string) string { return env[k] }, &out, io.Discard)
		if err != nil {
			t.Fatalf("reconcile: %v\n%s", err, out.String())
		}
		return out.String()
	}
	if out := sweep(); !strings.Contains(out, "listed 1, recovered 1,") {
		t.Fatalf("first sweep: %q", out)
	}
	tasks := pendingTasks(t, rs)
	var push, exports int
	for _, task := range tasks {
		push += strings.Count(task, "order:push")
		exports += strings.Count(task, "design:export")
	}
	if push != 1 || exports != 2 {
		t.Errorf("enqueued %q: want one push and two exports", tasks)
	}
	if out := sweep(); !strings.Contains(out, "listed 1, recovered 0, handled 0, seen 1,") {
		t.Errorf("second sweep: %q", out)
	}
	if again := pendingTasks(t, rs); !slices.Equal(again, tasks) {
		t.Errorf("the second sweep enqueued:\n got %q\nwant %q", again, tasks)
	}
}

// A platform without order API credentials is a usage error naming the docs.
func TestReconcileCommandNeedsCredentials(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t)
	env := map[string]string{"PRINTWORKER_REDIS_URL": rs.URL()}
	err := run(context.Background(), []string{"reconcile", "--platform", "shopify"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "no shopify store has order API credentials") {
		t.Errorf("got %v", err)
	}
	err = run(context.Background(), []string{"reconcile", "--platform", "amazon"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--platform") {
		t.Errorf("got %v", err)
	}
}

// work's flags make one lister per store with order API credentials: every
// Shopify shop with a token, every Wix instance with a site, the BigCommerce store;
// the Etsy shop with --etsy-poll-interval gets a sweeper of its own at that pace.
func TestSweepFlagsListers(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("work", flag.ContinueOnError)
	stf := addStoreFlags(fs)
	woof := addWooCommerceAPIFlags(fs)
	swf := addSweepFlags(fs, stf, woof)
	// The stores file's further BigCommerce store and Etsy shop are swept too.
	storesFile := filepath.Join(t.TempDir(), "stores.json")
	if err := os.WriteFile(storesFile, []byte(`{"bigcommerce": [{"storeHash": "h2", "store": "s2", "token": "t2"}],
		"etsy": [{"shopId": "43", "store": "s2", "token": "t3"}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	err := parseFlags(fs, env{getenv: func(string) string { return "" }}, []string{
		"--stores-file", storesFile,
		"--shopify-api-token", "b.myshopify.com=t2,a.myshopify.com=t1", "--shopify-default-store", "s1",
		"--wix-api-key", "IST.k", "--wix-site", "inst-1=site-1", "--wix-default-store", "s1",
		"--bigcommerce-store-hash", "h1", "--bigcommerce-store", "s1", "--bigcommerce-token", "t",
		"--etsy-shop-id", "42", "--etsy-store", "s1", "--etsy-api-key", "k", "--etsy-token", "t", "--etsy-poll-interval", "2m",
	})
	if err != nil {
		t.Fatal(err)
	}
	s, err := swf.build(nil, &jobs.Enqueuer{}, "printworker", netguard.Must(), nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range s.listers() {
		got = append(got, l.Platform()+" "+l.Shop())
	}
	want := []string{"shopify a.myshopify.com", "shopify b.myshopify.com", "bigcommerce h1", "bigcommerce h2", "wix inst-1", "etsy 42", "etsy 43"}
	if !slices.Equal(got, want) {
		t.Errorf("listers %q, want %q", got, want)
	}
	if s.etsy == nil || len(s.etsy.Listers()) != 2 || s.sweeper(s.etsy.Listers()[0]) != s.etsy {
		t.Errorf("the Etsy shop with a poll interval has no sweeper of its own")
	}
}

// A worker of the fleet (work --reconcile-interval) recovers a Shopify order whose
// webhook was lost: its first sweep brings the order to the hub and its files to
// storage with a manifest, counted in printworker_reconcile_recovered_total; its
// next sweep reads the order again (the margin overlaps) and exports nothing more.
func TestWorkReconcilesLostWebhook(t *testing.T) {
	t.Parallel()
	fx := newProcessFixture(t, "sweep", 0)
	refs := map[int64]string{}
	for _, r := range fx.sim.Designs() {
		refs[r.ID] = r.String()
	}
	shop := storesim.NewShopify("my-shop.myshopify.com", "shpss_1", "shpat_1")
	o := storesim.ShopifySampleOrder(8001, time.Now().Add(-time.Hour))
	o.LineItems[0].Properties[0].Value = refs[1002]
	o.LineItems[1].Properties[0].Value = refs[1003]
	shop.Put(o)
	wh, err := shop.Webhook("orders/paid", 8001)
	if err != nil {
		t.Fatal(err)
	}
	if sts, err := storesim.Deliver(context.Background(), nil, "http://127.0.0.1:1/never", []storesim.Webhook{wh}, storesim.Schedule{Drop: storesim.Dropped{0}}); err != nil || len(sts) != 0 {
		t.Fatalf("dropped delivery sent: %v %v", sts, err)
	}
	api := httptest.NewServer(shop.Handler())
	t.Cleanup(api.Close)
	hub := httptest.NewServer(fx.sim)
	t.Cleanup(hub.Close)
	metrics := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, fx.workArgs(hub.URL, "--metrics-addr", metrics, "--mode", "download", "--log-level", "error",
			"--reconcile-interval", "2s", "--reconcile-margin", "2h",
			"--shopify-api-token", "my-shop.myshopify.com=shpat_1", "--shopify-api-url", api.URL,
			"--shopify-store", "my-shop.myshopify.com="+fx.store, "--shopify-domain", "my-shop.myshopify.com="+fx.domain),
			func(string) string { return "" }, io.Discard, io.Discard)
	}()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("work: %v", err)
		}
	}()
	scrape := func() string {
		resp, err := http.Get("http://" + metrics + "/metrics")
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	waitFor(t, func() bool { return fx.manifests(t) == 1 })
	if m := scrape(); !strings.Contains(m, `printworker_reconcile_recovered_total{platform="shopify"} 1`) {
		t.Errorf("metrics after the first sweep:\n%s", grepLines(m, "printworker_reconcile"))
	}
	exports := len(fx.sim.Requests())
	waitFor(t, func() bool {
		return strings.Contains(scrape(), `printworker_reconcile_orders_total{outcome="seen",platform="shopify"} 1`)
	})
	waitFor(t, func() bool {
		info, err := jobs.ReadQueueStats(ctx, fx.rdb, jobs.QueueOrders, time.Now())
		return err == nil && info.Busy() == 0
	})
	if n := len(fx.sim.Requests()); n != exports || fx.manifests(t) != 1 {
		t.Errorf("the next sweep made %d hub calls, %d manifests", n-exports, fx.manifests(t))
	}
	if m := scrape(); !strings.Contains(m, `printworker_reconcile_recovered_total{platform="shopify"} 1`) {
		t.Errorf("metrics after the next sweep:\n%s", grepLines(m, "printworker_reconcile"))
	}
}

func grepLines(s, sub string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
