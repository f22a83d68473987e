package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/internal/testnet"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storesim"
)

// TestWooCommerceCancelBeforeOlderUpdate is the out-of-order case end to
// end: WooCommerce delivers an order's cancellation (newer) before its completion
// (older). serve and work run in process against a real Redis and the hub
// simulator: the hub never holds the order and no file of it is written. A second
// order, completed in the same run, is exported whole: the pipeline works, the
// stale delivery alone was dropped.
func TestWooCommerceCancelBeforeOlderUpdate(t *testing.T) {
	rs := testredis.Start(t)
	const store, domain = "store-woo", "shop.example.com"
	sim, err := hubsim.New(hubsim.Config{
		Stores:     []hubsim.Store{{ID: store, Domains: []string{domain}, Keys: []hubsim.Key{{Key: "k", Secret: "s3cret"}}}},
		DesignsDir: "../../hubsim/testdata/designs", DesignStore: store,
	})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(sim)
	t.Cleanup(hs.Close)
	out := t.TempDir()
	addr := testnet.FreeAddr(t)
	env := map[string]string{
		"PRINTWORKER_ADDR":               addr,
		"PRINTWORKER_REDIS_URL":          rs.URL(),
		"PRINTWORKER_WOOCOMMERCE_SECRET": "woo-secret",
		"PRINTWORKER_WOOCOMMERCE_STORE":  "shop.example.com=" + store,
		"PRINTWORKER_LOG_LEVEL":          "error",
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served, worked := make(chan error, 1), make(chan error, 1)
	go func() {
		served <- run(ctx, []string{"serve"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	}()
	go func() {
		worked <- run(ctx, []string{"work", "--poll-idle", "100ms", "--poll-delayed", "100ms", "--redis-url", rs.URL(),
			"--hub-url", hs.URL, "--hub-store", store, "--hub-api-key", "k", "--hub-secret", "s3cret",
			"--storage", "dir", "--storage-dir", out}, func(string) string { return "" }, io.Discard, io.Discard)
	}()
	base := "http://" + addr
	testnet.WaitHTTP(t, base+"/healthz", served)

	designs := sim.Designs()
	if len(designs) == 0 {
		t.Fatal("the simulator has no designs")
	}
	created := time.Now().UTC().Add(-time.Hour).Truncate(time.Second)
	wooOrder := func(id int64, status string, modified time.Time) storesim.WooOrder {
		o := storesim.WooSampleOrder(id, "design", created)
		o.Status, o.DateModifiedGMT = status, storesim.WooGMT(modified)
		o.LineItems = o.LineItems[:1]
		o.LineItems[0].MetaData[0].Value = designs[0].String()
		o.LineItems[0].MetaData[0].DisplayValue = designs[0].String()
		return o
	}
	site := storesim.NewWooCommerce("woo-secret", "https://shop.example.com/", "", "")
	post := func(o storesim.WooOrder) string {
		t.Helper()
		st, body, err := site.Webhook("order.updated", o).Post(ctx, nil, base+"/webhooks/woocommerce")
		if err != nil || st != 200 {
			t.Fatalf("order %d %s: %d %v %s", o.ID, o.Status, st, err, body)
		}
		var res struct{ Status string }
		if err := json.Unmarshal(body, &res); err != nil {
			t.Fatal(err)
		}
		return res.Status
	}
	// Order 42: completed at +2 min, cancelled at +3 min; the cancellation arrives first.
	if got := post(wooOrder(42, "cancelled", created.Add(3*time.Minute))); got != "enqueued" {
		t.Fatalf("the cancellation was %s", got)
	}
	if got := post(wooOrder(42, "completed", created.Add(2*time.Minute))); got != "stale" {
		t.Fatalf("the older completion was %s, want stale", got)
	}
	// Order 43, in order: exported.
	if got := post(wooOrder(43, "completed", created.Add(2*time.Minute))); got != "enqueued" {
		t.Fatalf("order 43 was %s", got)
	}

	// Wait (bounded) until the queues are idle and order 43's manifest is written
	// (held for review: the default).
	rdb := rs.Client(t)
	insp := asynq.NewInspectorFromRedisClient(rdb)
	deadline := time.Now().Add(2 * time.Minute)
	for !(idle(t, rdb, insp) && exists(out, "43@"+domain, "manifest.json")) {
		if time.Now().After(deadline) {
			var files []string
			_ = filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
				files = append(files, p)
				return nil
			})
			t.Fatalf("order 43 was not exported (idle %v): %q", idle(t, rdb, insp), files)
		}
		select {
		case err := <-worked:
			t.Fatalf("work stopped: %v", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
	if _, ok := sim.Order(store, "42", domain); ok {
		t.Error("the hub holds the cancelled order 42")
	}
	if _, ok := sim.Order(store, "43", domain); !ok {
		t.Error("the hub lacks order 43")
	}
	if exists(out, "42@"+domain, "") {
		t.Error("files of the cancelled order 42 were written")
	}
	cancel()
	for _, ch := range []chan error{served, worked} {
		if err := <-ch; err != nil {
			t.Errorf("stopped with %v", err)
		}
	}
}

// idle reports whether no task is waiting, running or retrying in any queue.
func idle(t *testing.T, rdb redis.UniversalClient, insp *asynq.Inspector) bool {
	t.Helper()
	qs, err := jobs.Queues(context.Background(), rdb)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		info, err := insp.GetQueueInfo(q)
		if errors.Is(err, asynq.ErrQueueNotFound) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		if info.Pending+info.Active+info.Scheduled+info.Retry+info.Aggregating > 0 {
			return false
		}
	}
	return true
}

// exists reports whether a file named name ("": any file) lies in a folder named
// dir anywhere under root.
func exists(root, dir, name string) bool {
	found := false
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (name == "" || d.Name() == name) &&
			slices.Contains(strings.Split(filepath.ToSlash(p), "/"), dir) {
			found = true
		}
		return nil
	})
	return found
}
