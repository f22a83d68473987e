package storesim_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/printworker/printworker/storesim"
)

// Shopify's webhooks carry the order signed as Shopify signs it: base64 of the
// HMAC-SHA256 of the raw body, with the shop and topic headers.
func TestShopifyWebhookSigned(t *testing.T) {
	t.Parallel()
	sim := storesim.NewShopify("my-shop.myshopify.com", "shpss_1", "shpat_1")
	sim.Put(storesim.ShopifySampleOrder(42, time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)))
	wh, err := sim.Webhook("orders/paid", 42)
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, []byte("shpss_1"))
	m.Write(wh.Body)
	if got := wh.Header.Get("X-Shopify-Hmac-Sha256"); got != base64.StdEncoding.EncodeToString(m.Sum(nil)) {
		t.Errorf("signature %q", got)
	}
	if wh.Header.Get("X-Shopify-Topic") != "orders/paid" || wh.Header.Get("X-Shopify-Shop-Domain") != "my-shop.myshopify.com" || wh.Header.Get("X-Shopify-Webhook-Id") == "" {
		t.Errorf("headers %v", wh.Header)
	}
	if !bytes.Contains(wh.Body, []byte(`"id":42`)) || !bytes.Contains(wh.Body, []byte(`"updated_at":"2026-03-02T10:02:00+00:00"`)) {
		t.Errorf("body %s", wh.Body)
	}
}

// A dropped delivery is never sent; the others are, in order.
func TestDroppedDeliveries(t *testing.T) {
	t.Parallel()
	var got atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if strings.Contains(string(b), `"number":"2"`) {
			t.Error("the dropped delivery was sent")
		}
		got.Add(1)
	}))
	t.Cleanup(srv.Close)
	woo := storesim.NewWooCommerce("s", "https://shop.example.com/", "", "")
	created := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	var ds []storesim.WooDelivery
	for _, id := range []int64{1, 2, 3} {
		ds = append(ds, woo.Webhook("order.updated", storesim.WooSampleOrder(id, "design", created)))
	}
	sts, err := storesim.DeliverAll(context.Background(), nil, srv.URL, ds, storesim.DeliveryFaults{Drop: storesim.Dropped{1}})
	if err != nil || len(sts) != 2 || got.Load() != 2 {
		t.Errorf("statuses %v, %d received, %v: want 2", sts, got.Load(), err)
	}
}

func getJSON(t *testing.T, h http.Handler, req *http.Request) (*httptest.ResponseRecorder, []map[string]any) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var v []map[string]any
	if rec.Code == http.StatusOK {
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v", rec.Body, err)
		}
	}
	return rec, v
}

// The lists answer as their platforms do: WooCommerce leaves hidden meta out and
// counts pages; BigCommerce answers an empty page 204; Shopify refuses page_info
// with other filters; Wix never lists an order not approved yet.
func TestListsAnswerAsThePlatforms(t *testing.T) {
	t.Parallel()
	created := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

	woo := storesim.NewWooCommerce("s", "https://shop.example.com/", "ck", "cs")
	woo.Put(storesim.WooSampleOrder(1, "_design", created))
	req := httptest.NewRequest(http.MethodGet, "/wp-json/wc/v3/orders?modified_after=2026-03-01T00:00:00&per_page=1&page=1", nil)
	req.SetBasicAuth("ck", "cs")
	rec, orders := getJSON(t, woo, req)
	if rec.Header().Get("X-WP-TotalPages") != "1" || len(orders) != 1 || strings.Contains(rec.Body.String(), "_design") {
		t.Errorf("woocommerce: %d %v %s", rec.Code, rec.Header(), rec.Body)
	}

	bc := storesim.NewBigCommerce("h1", "tok", "s")
	bc.Put(storesim.BCOrder{ID: 1, StatusID: 11, Created: created, Modified: created})
	req = httptest.NewRequest(http.MethodGet, "/stores/h1/v2/orders?min_date_modified=2026-03-03T00:00:00Z", nil)
	req.Header.Set("X-Auth-Token", "tok")
	if rec, _ := getJSON(t, bc.Handler(), req); rec.Code != http.StatusNoContent || rec.Header().Get("X-Rate-Limit-Requests-Left") == "" {
		t.Errorf("bigcommerce empty page: %d %v", rec.Code, rec.Header())
	}

	sh := storesim.NewShopify("my-shop.myshopify.com", "s", "tok")
	req = httptest.NewRequest(http.MethodGet, "/admin/api/2025-01/orders.json?page_info=x&status=any", nil)
	req.Header.Set("X-Shopify-Access-Token", "tok")
	if rec, _ := getJSON(t, sh.Handler(), req); rec.Code != http.StatusBadRequest {
		t.Errorf("shopify page_info with status: %d", rec.Code)
	}

	wix := storesim.NewWixSite("site-1", "key")
	o := storesim.WixSampleOrder("w-1", "design", created)
	o.Status = "INITIALIZED"
	wix.Put(o)
	req = httptest.NewRequest(http.MethodPost, "/ecom/v1/orders/search", strings.NewReader(`{"search":{"cursorPaging":{"limit":10}}}`))
	req.Header.Set("Authorization", "key")
	req.Header.Set("wix-site-id", "site-1")
	rec = httptest.NewRecorder()
	wix.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), `"orders":[]`) {
		t.Errorf("wix: %d %s", rec.Code, rec.Body)
	}
}
