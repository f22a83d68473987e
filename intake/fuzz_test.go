package intake

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/hub"
)

// FuzzShopifyMapping feeds arbitrary bodies through the Shopify decoding and mapping:
// it must never panic, and whatever it accepts must be a hub order whose every line
// carries a valid design reference and whose timestamps are in the strict form.
//
//	go test ./intake -run XXX -fuzz FuzzShopifyMapping -fuzztime 30s
func FuzzShopifyMapping(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join("testdata", "order_*.json"))
	for _, p := range paths {
		if strings.HasSuffix(p, ".hub.json") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"id": 1, "line_items": [{"properties": {"x": "1.6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"}}]}`))
	f.Add([]byte(`{"id": "1", "created_at": 5}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var so shopifyOrder
		if decodeJSON(body, &so) != nil {
			return
		}
		o, err := mapShopifyOrder(&so, shopifyMapping{domain: "shop.example.com", designProperty: "_design"})
		if err != nil {
			return
		}
		for i, li := range o.LineItems {
			if err := li.Ref().Validate(); err != nil {
				t.Fatalf("line %d: accepted an invalid reference: %v", i, err)
			}
			if li.Quantity < 0 || li.Price < 0 {
				t.Fatalf("line %d: negative quantity or price: %+v", i, li)
			}
		}
		for _, ts := range []string{o.Created, o.Updated} {
			if _, err := hub.ParseTimestamp(ts); err != nil {
				t.Fatalf("accepted a timestamp not in the strict form: %v", err)
			}
		}
	})
}
