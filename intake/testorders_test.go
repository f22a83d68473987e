package intake_test

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/printworker/printworker/intake"
)

// TestShopifyTestOrders: a Shopify test order ("test": true in the order, or the
// X-Shopify-Test header) is acknowledged (200 test_order), counted, and enqueues
// nothing; with PrintTestOrders (--print-test-orders) it is exported like any order.
func TestShopifyTestOrders(t *testing.T) {
	t.Parallel()
	real := readFile(t, "order_customized.json")
	flagged := bytes.Replace(real, []byte(`"test": false`), []byte(`"test": true`), 1)
	if bytes.Equal(flagged, real) {
		t.Fatal("the fixture has no test field to flag")
	}
	for _, tc := range []struct {
		name   string
		body   []byte
		header bool
	}{
		{"test: true", flagged, false},
		{"X-Shopify-Test: true", real, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			for _, print := range []bool{false, true} {
				h := newHarness(t, func(c *intake.Config) { c.PrintTestOrders = print })
				hdr := shopifyHeaders("orders/paid", tc.body, "w-1")
				if tc.header {
					hdr.Set(intake.HeaderShopifyTest, "true")
				}
				r := h.post("/webhooks/shopify", tc.body, hdr)
				if r.Status != http.StatusOK {
					t.Fatalf("print %v: %d %s", print, r.Status, r.Raw)
				}
				exports := 0
				for _, s := range summary(t, h.tasks()) {
					if len(s) > 6 && s[:6] == "export" {
						exports++
					}
				}
				switch {
				case !print && (r.Body.Status != "test_order" || len(h.tasks()) != 0):
					t.Errorf("not printed: %s, %d tasks; want test_order and nothing enqueued", r.Raw, len(h.tasks()))
				case print && (r.Body.Status != "enqueued" || exports == 0):
					t.Errorf("printed: %s, %d exports; want exports", r.Raw, exports)
				}
				if !print {
					h.wantOutcome("shopify", "test_order", 1)
				}
			}
		})
	}
}
