package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"github.com/printworker/printworker/demo"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/internal/testnet"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storesim"
)

// TestServeStoresFile: serve with a BigCommerce store and an Etsy shop from flags
// and one more of each from --stores-file takes the webhooks of all four, each fetch
// naming its own hub store; a file with an unknown field is refused at start.
func TestServeStoresFile(t *testing.T) {
	rs := testredis.Start(t)
	etsySecret1 := "whsec_" + base64.StdEncoding.EncodeToString([]byte("etsy-signing-key-of-32-bytes!!!!"))
	etsySecret2 := "whsec_" + base64.StdEncoding.EncodeToString([]byte("the-second-shop-signing-key-32b!"))
	dir := t.TempDir()
	file := filepath.Join(dir, "stores.json")
	if err := os.WriteFile(file, []byte(`{
  "bigcommerce": [{"storeHash": "store2", "store": "hub-bc-2", "token": "t2", "headerSecrets": ["hdr-2"]}],
  "etsy": [{"shopId": "222", "store": "hub-etsy-2", "token": "e2", "secrets": ["`+etsySecret2+`"]}],
  "shopify": [{"shop": "second.myshopify.com", "store": "hub-shop-2", "secrets": ["shop-2-secret"]}]
}`), 0o600); err != nil {
		t.Fatal(err)
	}
	addr := testnet.FreeAddr(t)
	env := map[string]string{
		"PRINTWORKER_ADDR": addr, "PRINTWORKER_REDIS_URL": rs.URL(), "PRINTWORKER_LOG_LEVEL": "error",
		"PRINTWORKER_BIGCOMMERCE_SECRET": "bc-secret-1", "PRINTWORKER_BIGCOMMERCE_STORE_HASH": "store1", "PRINTWORKER_BIGCOMMERCE_STORE": "hub-bc-1",
		"PRINTWORKER_ETSY_SECRET": etsySecret1, "PRINTWORKER_ETSY_SHOP_ID": "111", "PRINTWORKER_ETSY_STORE": "hub-etsy-1",
		"PRINTWORKER_STORES_FILE": file,
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"serve"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	}()
	base := "http://" + addr
	testnet.WaitHTTP(t, base+"/healthz", done)

	now := time.Now()
	bc1 := storesim.NewBigCommerce("store1", "t1", "bc-secret-1")
	bc2 := storesim.NewBigCommerce("store2", "t2", "unused")
	var whs []storesim.Webhook
	for _, b := range []*storesim.BigCommerce{bc1, bc2} {
		wh, err := b.Webhook("store/order/statusUpdated", 7, now)
		if err != nil {
			t.Fatal(err)
		}
		whs = append(whs, wh)
	}
	// Store 2's hooks were created with a custom header, unsigned.
	for _, k := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
		whs[1].Header.Del(k)
	}
	whs[1].Header.Set("X-Printworker-Secret", "hdr-2")
	for i, wh := range whs {
		if st, err := storesim.Send(ctx, http.DefaultClient, base+"/webhooks/bigcommerce", wh); err != nil || st != 200 {
			t.Fatalf("bigcommerce store %d: %d %v", i+1, st, err)
		}
	}
	for _, shop := range []*storesim.Etsy{storesim.NewEtsy("111", "k", "e1", etsySecret1), storesim.NewEtsy("222", "k", "e2", etsySecret2)} {
		wh, err := shop.Webhook(9, now)
		if err != nil {
			t.Fatal(err)
		}
		if st, err := storesim.Send(ctx, http.DefaultClient, base+"/webhooks/etsy", wh); err != nil || st != 200 {
			t.Fatalf("etsy shop %s: %d %v", shop.ShopID, st, err)
		}
	}
	// A Shopify shop of the file only, with its own secret.
	order, err := demo.Orders.ReadFile("demodata/shopify-order-1.json")
	if err != nil {
		t.Fatal(err)
	}
	for secret, want := range map[string]int{"shop-2-secret": 200, "another": 401} {
		req, _ := http.NewRequest(http.MethodPost, base+"/webhooks/shopify", bytes.NewReader(order))
		m := hmac.New(sha256.New, []byte(secret))
		m.Write(order)
		req.Header.Set("X-Shopify-Hmac-Sha256", base64.StdEncoding.EncodeToString(m.Sum(nil)))
		req.Header.Set("X-Shopify-Topic", "orders/create")
		req.Header.Set("X-Shopify-Shop-Domain", "second.myshopify.com")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("shopify shop of the file signed with %s: %d, want %d", secret, resp.StatusCode, want)
		}
	}
	var got []string
	insp := asynq.NewInspectorFromRedisClient(rs.Client(t))
	qs, err := jobs.Queues(ctx, rs.Client(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range qs {
		ts, _ := insp.ListPendingTasks(q)
		for _, ti := range ts {
			if ti.Type != jobs.TypeOrderFetch {
				continue
			}
			p, err := jobs.DecodeOrderFetch(ti.Type, ti.Payload)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, p.Platform+" "+p.Shop+" -> "+p.Store)
		}
	}
	slices.Sort(got)
	want := []string{"bigcommerce store1 -> hub-bc-1", "bigcommerce store2 -> hub-bc-2", "etsy 111 -> hub-etsy-1", "etsy 222 -> hub-etsy-2"}
	if !slices.Equal(got, want) {
		t.Errorf("fetches\n got %q\nwant %q", got, want)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("serve: %v", err)
	}

	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"bigcommerce": [{"storeHash": "s", "store": "h", "secret": "typo"}]}`), 0o600)
	env["PRINTWORKER_STORES_FILE"] = bad
	err = run(context.Background(), []string{"serve"}, func(k string) string { return env[k] }, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "secret") {
		t.Errorf("a stores file with an unknown field: %v", err)
	}
}
