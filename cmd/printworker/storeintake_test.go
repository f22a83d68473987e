package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/testnet"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storesim"
)

// TestServeWooCommerceAndWix: serve's WooCommerce and Wix settings, from the
// environment and a key file, reach the intake: a signed order of each platform is
// taken and pushed to the store its site maps to.
func TestServeWooCommerceAndWix(t *testing.T) {
	rs := testredis.Start(t)
	wix, err := storesim.NewWix("inst-1")
	if err != nil {
		t.Fatal(err)
	}
	keyFile := filepath.Join(t.TempDir(), "wix.pem")
	if err := os.WriteFile(keyFile, wix.PublicKeyPEM(), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := testnet.FreeAddr(t)
	env := map[string]string{
		"PRINTWORKER_ADDR":                addr,
		"PRINTWORKER_REDIS_URL":           rs.URL(),
		"PRINTWORKER_WOOCOMMERCE_SECRET":  "woo-secret",
		"PRINTWORKER_WOOCOMMERCE_STORE":   "shop.example.com=store-woo",
		"PRINTWORKER_WIX_PUBLIC_KEY_FILE": keyFile,
		"PRINTWORKER_WIX_STORE":           "inst-1=store-wix",
		"PRINTWORKER_WIX_DOMAIN":          "inst-1=wix.example.com",
		"PRINTWORKER_LOG_LEVEL":           "error",
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	}()
	base := "http://" + addr
	testnet.WaitHTTP(t, base+"/healthz", done)

	created := time.Date(2024, 3, 14, 13, 0, 0, 0, time.UTC)
	woo := storesim.NewWooCommerce("woo-secret", "https://shop.example.com/", "", "")
	order := storesim.WooSampleOrder(42, "design", created)
	order.Status, order.DatePaidGMT = "pending", nil
	if st, _, err := woo.Webhook("order.created", order).Post(ctx, nil, base+"/webhooks/woocommerce"); err != nil || st != 200 {
		t.Fatalf("woocommerce: %d %v", st, err)
	}
	wo := storesim.WixSampleOrder("w-1", "design", created)
	wo.PaymentStatus = "NOT_PAID"
	if st, _, err := wix.Event("wix.ecom.v1.order_approved", wo).Post(ctx, nil, base+"/webhooks/wix"); err != nil || st != 200 {
		t.Fatalf("wix: %d %v", st, err)
	}
	want := []string{
		"order:push " + jobs.PushTaskID(jobs.OrderKey{Store: "store-wix", Domain: "wix.example.com", OrderID: "w-1"}, jobs.OpCreate, nil),
		"order:push " + jobs.PushTaskID(jobs.OrderKey{Store: "store-woo", Domain: "shop.example.com", OrderID: "42"}, jobs.OpCreate, nil),
	}
	if got := pendingTasks(t, rs); !slices.Equal(got, want) {
		t.Errorf("enqueued:\n got %q\nwant %q", got, want)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}
}

func TestServeRefusesBadWixKey(t *testing.T) {
	env := map[string]string{"PRINTWORKER_WIX_PUBLIC_KEY": "not a key"}
	err := run(context.Background(), []string{"serve"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--wix-public-key") {
		t.Fatalf("got %v, want a --wix-public-key usage error", err)
	}
}
