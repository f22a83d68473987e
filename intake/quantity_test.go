package intake_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/printworker/printworker/intake"
)

// TestQuantityOverLimitEnqueuesNothing: a line ordering 10^12 is refused whole at
// the intake with a reason naming the line and the limit, on the Shopify and the
// generic endpoint, and nothing reaches the queue; at the limit the order is taken.
func TestQuantityOverLimitEnqueuesNothing(t *testing.T) {
	const limit = 50
	h := newHarness(t, func(c *intake.Config) { c.MaxQuantity = limit })
	shopifyOrder := func(qty int) []byte {
		return fmt.Appendf(nil, `{"id":5812345678902,"email":"a@example.com","created_at":"2024-03-14T09:26:53-04:00","updated_at":"2024-03-14T09:27:10-04:00","financial_status":"paid","line_items":[`+
			`{"id":9000,"quantity":1,"price":"1.00","properties":[{"name":"_design","value":"1000.6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"}]},`+
			`{"id":9001,"quantity":%d,"price":"1.00","properties":[{"name":"_design","value":"1001.6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"}]}]}`, qty)
	}
	const addr = `{"address1":"1 Main St","address2":"","city":"Town","companyName":"","country":"Japan","countryCode":"JP","firstName":"A","lastName":"B","phone":"","province":"","zip":"150-0002"}`
	genericOrder := func(qty int) []byte {
		return fmt.Appendf(nil, `{"orderId":"A-2","domain":"shop.example.org","status":"paid","email":"a@example.com","firstName":"A","lastName":"B",`+
			`"created":"2024-03-14T13:26:53.000Z","updated":"2024-03-14T13:27:10.000Z","billingDetails":`+addr+`,"shippingDetails":`+addr+
			`,"lineItems":[{"id":1000,"token":"6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b","quantity":%d,"price":1}]}`, qty)
	}
	const huge = 1_000_000_000_000
	body := shopifyOrder(huge)
	r := h.post("/webhooks/shopify", body, shopifyHeaders("orders/paid", body, "qty-1"))
	if r.Status != 200 || r.Body.Status != "quantity_too_large" || !strings.Contains(r.Body.Reason, "line 2 (design 1001) orders 1000000000000, more than the limit of 50 per line") {
		t.Errorf("shopify: %d %s", r.Status, r.Raw)
	}
	body = genericOrder(huge)
	r = h.post("/webhooks/orders", body, genericHeaders("store-9", ordersSecret, "orders/paid", h.now, body))
	if r.Status != 422 || r.Body.Status != "quantity_too_large" || !strings.Contains(r.Body.Reason, "more than the limit of 50 per line") {
		t.Errorf("generic: %d %s", r.Status, r.Raw)
	}
	if ts := h.tasks(); len(ts) != 0 {
		t.Fatalf("%d tasks enqueued for refused orders", len(ts))
	}
	body = shopifyOrder(limit)
	if r := h.post("/webhooks/shopify", body, shopifyHeaders("orders/paid", body, "qty-1")); r.Status != 200 || r.Body.Status != "enqueued" {
		t.Errorf("shopify at the limit: %d %s", r.Status, r.Raw)
	}
	body = genericOrder(limit)
	if r := h.post("/webhooks/orders", body, genericHeaders("store-9", ordersSecret, "orders/paid", h.now, body)); r.Status != 200 || r.Body.Status != "enqueued" {
		t.Errorf("generic at the limit: %d %s", r.Status, r.Raw)
	}
}
