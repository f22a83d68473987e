package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"log/slog"
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

// work registers --max-quantity for its push and completion check before the sweeps'
// intake flags: one setting, which the orders a sweep lists are held to as well.
func TestWorkMaxQuantityIsOneSetting(t *testing.T) {
	t.Parallel()
	fs := flag.NewFlagSet("work", flag.ContinueOnError)
	wf := addWorkerFlags(fs)
	swf := addSweepFlags(fs, addStoreFlags(fs), addWooCommerceAPIFlags(fs))
	if err := parseFlags(fs, env{getenv: func(string) string { return "" }}, []string{"--max-quantity", "5"}); err != nil {
		t.Fatal(err)
	}
	cfg, err := swf.intakeConfig()
	if err != nil {
		t.Fatal(err)
	}
	if wf.maxQuantity != 5 || cfg.MaxQuantity != 5 {
		t.Errorf("--max-quantity 5: worker %d, sweep intake %d", wf.maxQuantity, cfg.MaxQuantity)
	}
}
