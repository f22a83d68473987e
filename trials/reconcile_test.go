//go:build trial

package trials

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/testnet"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storesim"
)

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
	metrics := testnet.FreeAddr(t)
	ctx := context.Background()
	work := exec.Command(buildPrintworker(t), fx.workArgs(hub.URL, "--metrics-addr", metrics, "--mode", "download", "--log-level", "error",
		"--reconcile-interval", "2s", "--reconcile-margin", "2h",
		"--shopify-api-token", "my-shop.myshopify.com=shpat_1", "--shopify-api-url", api.URL,
		"--shopify-store", "my-shop.myshopify.com="+fx.store, "--shopify-domain", "my-shop.myshopify.com="+fx.domain)...)
	work.Env = []string{"PATH=" + os.Getenv("PATH")}
	var logs bytes.Buffer
	work.Stdout, work.Stderr = &logs, &logs
	if err := work.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_ = work.Process.Signal(syscall.SIGTERM)
		if err := work.Wait(); err != nil {
			t.Errorf("work: %v\n%s", err, logs.String())
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
	waitUntil(t, 2*time.Minute, "the swept order's manifest", func() { t.Log(logs.String()) }, func() bool { return fx.manifests(t) == 1 })
	if m := scrape(); !strings.Contains(m, `printworker_reconcile_recovered_total{platform="shopify"} 1`) {
		t.Errorf("metrics after the first sweep:\n%s", grepLines(m, "printworker_reconcile"))
	}
	exports := len(fx.sim.Requests())
	waitUntil(t, 2*time.Minute, "the next sweep", func() { t.Log(logs.String()) }, func() bool {
		return strings.Contains(scrape(), `printworker_reconcile_orders_total{outcome="seen",platform="shopify"} 1`)
	})
	waitUntil(t, 2*time.Minute, "idle queues", func() {}, func() bool {
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
