package main

import (
	"bytes"
	"context"
	"io"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/testredis"
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
