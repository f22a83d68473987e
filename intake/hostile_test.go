package intake_test

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/intake"
)

// Signature headers over their caps are answered 431 before any MAC is computed
// (issue 10: a 100k-entry header held a core for minutes).
func TestSignatureHeaderCaps(t *testing.T) {
	h := newHarness(t, nil)
	body := []byte(`{"orderId": "A-1", "domain": "shop.example.org"}`)
	sig := intake.Sign(ordersSecret, h.now, body)
	long := strings.TrimSuffix(strings.Repeat(sig+",", 10_000), ",")

	gh := genericHeaders("store-9", ordersSecret, "orders/delete", h.now, body)
	gh.Set(intake.HeaderSignature, long)
	start := time.Now()
	r := h.post("/webhooks/orders", body, gh)
	if r.Status != http.StatusRequestHeaderFieldsTooLarge || r.Body.Status != "header_too_large" {
		t.Errorf("10k signatures: %d %s, want 431", r.Status, r.Raw)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("10k signatures answered in %s", d)
	}

	gh = genericHeaders("store-9", ordersSecret, "orders/delete", h.now, body)
	gh.Set(intake.HeaderSignature, strings.TrimSuffix(strings.Repeat(sig+",", intake.MaxSignatures+1), ","))
	if r := h.post("/webhooks/orders", body, gh); r.Status != http.StatusBadRequest || !strings.Contains(r.Body.Reason, "signatures") {
		t.Errorf("%d signatures: %d %s, want 400 naming the limit", intake.MaxSignatures+1, r.Status, r.Raw)
	}

	sb := readFile(t, "order_customized.json")
	sh := shopifyHeaders("orders/paid", sb, "w-1")
	sh.Set("X-Shopify-Hmac-Sha256", strings.Repeat(sh.Get("X-Shopify-Hmac-Sha256"), 100))
	if r := h.post("/webhooks/shopify", sb, sh); r.Status != http.StatusRequestHeaderFieldsTooLarge {
		t.Errorf("long Shopify HMAC header: %d %s, want 431", r.Status, r.Raw)
	}
	if n := len(h.tasks()); n != 0 {
		t.Errorf("%d tasks enqueued", n)
	}
}

// A price Shopify's JSON cannot carry onward, or a quantity the hub refuses, is a
// permanent 4xx naming the line, never a 503 that Shopify retries for hours.
func TestShopifyPermanentLineValues(t *testing.T) {
	base := readFile(t, "order_customized.json")
	cases := []struct{ name, from, to, reason string }{
		{"price NaN", `"price": "19.90"`, `"price": "NaN"`, "price"},
		{"price Infinity", `"price": "19.90"`, `"price": "Infinity"`, "price"},
		{"price inf", `"price": "19.90"`, `"price": "inf"`, "price"},
		{"price +Inf", `"price": "19.90"`, `"price": "+Inf"`, "price"},
		{"price 1e400", `"price": "19.90"`, `"price": "1e400"`, "price"},
		{"quantity 0", `"quantity": 2,`, `"quantity": 0,`, "quantity"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, nil)
			body := bytes.Replace(base, []byte(c.from), []byte(c.to), 1)
			if bytes.Equal(body, base) {
				t.Fatalf("sample has no %s", c.from)
			}
			r := h.post("/webhooks/shopify", body, shopifyHeaders("orders/paid", body, "w-"+c.name))
			if r.Status < 400 || r.Status > 499 {
				t.Fatalf("got %d %s, want 4xx", r.Status, r.Raw)
			}
			if !strings.Contains(r.Body.Reason, "line_items[0]."+c.reason) {
				t.Errorf("reason %q does not name line_items[0].%s", r.Body.Reason, c.reason)
			}
			if n := len(h.tasks()); n != 0 {
				t.Errorf("%d tasks enqueued", n)
			}
		})
	}
}

// A generic order whose every line is malformed is refused (422) like one with one
// bad line beside a good one; only an order without lines is skipped.
func TestGenericMalformedLines(t *testing.T) {
	order := func(lines string) []byte {
		return []byte(`{"orderId": "A-2", "domain": "shop.example.org", "status": "paid",
  "created": "2024-03-14T13:26:53.000Z", "updated": "2024-03-14T13:27:10.000Z",
  "email": "a@example.org", "firstName": "A", "lastName": "B",
  "billingDetails": {"address1": "", "address2": "", "city": "", "companyName": "", "country": "", "countryCode": "", "firstName": "", "lastName": "", "phone": "", "province": "", "zip": ""},
  "shippingDetails": {"address1": "", "address2": "", "city": "", "companyName": "", "country": "", "countryCode": "", "firstName": "", "lastName": "", "phone": "", "province": "", "zip": ""},
  "lineItems": [` + lines + `]}`)
	}
	good := `{"id": 1001, "token": "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b", "quantity": 1, "price": 1}`
	badToken := `{"id": 1001, "token": "not a token!", "quantity": 1, "price": 1}`
	badID := `{"id": 0, "token": "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b", "quantity": 1, "price": 1}`
	zeroQty := `{"id": 1001, "token": "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b", "quantity": 0, "price": 1}`
	cases := []struct {
		name   string
		body   []byte
		status int
		result string
		reason string
	}{
		{"one bad line beside a good one", order(good + "," + badToken), 422, "unprocessable", "lineItems[1].token"},
		{"every line malformed", order(badToken + "," + badID), 422, "unprocessable", "lineItems[0].token"},
		{"only line has quantity 0", order(zeroQty), 422, "unprocessable", "lineItems[0].quantity"},
		{"no lines at all", order(""), 200, "skipped", "no customizations"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, nil)
			r := h.post("/webhooks/orders", c.body, genericHeaders("store-9", ordersSecret, "orders/paid", h.now, c.body))
			if r.Status != c.status || r.Body.Status != c.result {
				t.Fatalf("got %d %s, want %d %s", r.Status, r.Raw, c.status, c.result)
			}
			if !strings.Contains(r.Body.Reason, c.reason) {
				t.Errorf("reason %q does not mention %q", r.Body.Reason, c.reason)
			}
			if n := len(h.tasks()); n != 0 {
				t.Errorf("%d tasks enqueued", n)
			}
		})
	}
}

// TestTooManyLinesEnqueuesNothing: an order with more personalized lines than
// MaxLines is refused whole, on both endpoints, and nothing reaches the queue:
// Shopify gets 200 (a retry could never succeed), the generic sender 422.
func TestTooManyLinesEnqueuesNothing(t *testing.T) {
	const limit = 3
	h := newHarness(t, func(c *intake.Config) { c.MaxLines = limit })
	lines := func(n int, shopify bool) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			if shopify {
				fmt.Fprintf(&b, `{"id":%d,"quantity":1,"price":"1.00","properties":[{"name":"_design","value":"%d.6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"}]}`, 9000+i, 1000+i)
			} else {
				fmt.Fprintf(&b, `{"id":%d,"token":"6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b","quantity":1,"price":1}`, 1000+i)
			}
		}
		return b.String()
	}
	shopifyOrder := func(n int) []byte {
		return []byte(`{"id":5812345678901,"email":"a@example.com","created_at":"2024-03-14T09:26:53-04:00","updated_at":"2024-03-14T09:27:10-04:00","financial_status":"paid","line_items":[` + lines(n, true) + `]}`)
	}
	const addr = `{"address1":"1 Main St","address2":"","city":"Town","companyName":"","country":"Japan","countryCode":"JP","firstName":"A","lastName":"B","phone":"","province":"","zip":"150-0002"}`
	genericOrder := func(n int) []byte {
		return []byte(`{"orderId":"A-1","domain":"shop.example.org","status":"paid","email":"a@example.com","firstName":"A","lastName":"B",` +
			`"created":"2024-03-14T13:26:53.000Z","updated":"2024-03-14T13:27:10.000Z","billingDetails":` + addr + `,"shippingDetails":` + addr + `,"lineItems":[` + lines(n, false) + `]}`)
	}

	body := shopifyOrder(limit + 1)
	r := h.post("/webhooks/shopify", body, shopifyHeaders("orders/paid", body, "many-1"))
	if r.Status != 200 || r.Body.Status != "too_many_lines" || !strings.Contains(r.Body.Reason, "4 personalized lines, more than the limit of 3") {
		t.Errorf("shopify: %d %s", r.Status, r.Raw)
	}
	body = genericOrder(limit + 1)
	r = h.post("/webhooks/orders", body, genericHeaders("store-9", ordersSecret, "orders/paid", h.now, body))
	if r.Status != 422 || r.Body.Status != "too_many_lines" {
		t.Errorf("generic: %d %s", r.Status, r.Raw)
	}
	if ts := h.tasks(); len(ts) != 0 {
		t.Fatalf("%d tasks enqueued for refused orders", len(ts))
	}

	// At the limit both are taken (and the refusals claimed nothing: the same
	// delivery ids may come back with a fixed order).
	body = shopifyOrder(limit)
	if r := h.post("/webhooks/shopify", body, shopifyHeaders("orders/paid", body, "many-1")); r.Status != 200 || r.Body.Status != "enqueued" {
		t.Errorf("shopify at the limit: %d %s", r.Status, r.Raw)
	}
	body = genericOrder(limit)
	if r := h.post("/webhooks/orders", body, genericHeaders("store-9", ordersSecret, "orders/paid", h.now, body)); r.Status != 200 || r.Body.Status != "enqueued" {
		t.Errorf("generic at the limit: %d %s", r.Status, r.Raw)
	}
}
