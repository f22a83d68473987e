package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"github.com/printworker/printworker/demo"
	"io"
	"net/http"
	"testing"

	"github.com/printworker/printworker/internal/testnet"
	"github.com/printworker/printworker/internal/testredis"
)

// TestServePrintTestOrders: a Shopify test order (X-Shopify-Test) is acknowledged
// and not enqueued by serve; with --print-test-orders (here its environment
// variable) it is enqueued like any order.
func TestServePrintTestOrders(t *testing.T) {
	body, err := demo.Orders.ReadFile("demodata/shopify-order-1.json")
	if err != nil {
		t.Fatal(err)
	}
	for _, print := range []string{"", "true"} {
		rs := testredis.Start(t)
		addr := testnet.FreeAddr(t)
		env := map[string]string{
			"PRINTWORKER_ADDR": addr, "PRINTWORKER_REDIS_URL": rs.URL(), "PRINTWORKER_LOG_LEVEL": "error",
			"PRINTWORKER_SHOPIFY_SECRET": "s3cret", "PRINTWORKER_SHOPIFY_DEFAULT_STORE": "store-7",
			"PRINTWORKER_PRINT_TEST_ORDERS": print,
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"serve"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
		}()
		testnet.WaitHTTP(t, "http://"+addr+"/healthz", done)
		req, _ := http.NewRequest(http.MethodPost, "http://"+addr+"/webhooks/shopify", bytes.NewReader(body))
		m := hmac.New(sha256.New, []byte("s3cret"))
		m.Write(body)
		req.Header.Set("X-Shopify-Hmac-Sha256", base64.StdEncoding.EncodeToString(m.Sum(nil)))
		req.Header.Set("X-Shopify-Topic", "orders/paid")
		req.Header.Set("X-Shopify-Shop-Domain", "printworker-demo.myshopify.com")
		req.Header.Set("X-Shopify-Test", "true")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var res struct{ Status string }
		json.NewDecoder(resp.Body).Decode(&res)
		resp.Body.Close()
		want, tasks := "test_order", 0
		if print != "" {
			want, tasks = "enqueued", 1
		}
		if got := len(pendingTasks(t, rs)); resp.StatusCode != 200 || res.Status != want || (got > 0) != (tasks > 0) {
			t.Errorf("--print-test-orders=%q: %d %s, %d tasks; want %s", print, resp.StatusCode, res.Status, got, want)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("serve: %v", err)
		}
	}
}
