package intake

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/storesim"
)

func wooSeedBodies(f *testing.F) {
	created := time.Date(2024, 3, 14, 13, 0, 0, 0, time.UTC)
	for _, meta := range []string{"design", "_design"} {
		o := storesim.WooSampleOrder(42, meta, created)
		b, err := json.Marshal(o)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"id": 1}`))
	f.Add([]byte(`{"id": "1", "status": "processing", "date_created_gmt": "2024-03-14T13:00:00", "line_items": [{"quantity": "1", "price": "NaN", "meta_data": [{"key": "design", "value": "1.3f2504e0-4f89-11d3-9a0c-0305e82c3301"}]}]}`))
	f.Add([]byte(`{"id": 1, "status": "processing", "date_created_gmt": "2024-03-14T13:00:00", "line_items": [{"quantity": 1, "price": 1e400, "meta_data": [{"key": "x", "value": {"a": "1.3f2504e0-4f89-11d3-9a0c-0305e82c3301"}}]}]}`))
	f.Add([]byte(`{"id": 1, "status": "completed", "date_created_gmt": "2024-03-14T13:00:00Z", "billing": null, "line_items": [{"quantity": 0, "price": 1, "meta_data": [{"key": "design", "value": 17}]}]}`))
}

// FuzzWooCommerceMapping feeds arbitrary verified bodies through the WooCommerce
// decoding, mapping and planning: never a panic; a refusal is a 4xx; what is
// accepted has valid lines, strict timestamps and encodes to JSON.
//
//	go test ./intake -run XXX -fuzz FuzzWooCommerceMapping -fuzztime 30s
func FuzzWooCommerceMapping(f *testing.F) {
	wooSeedBodies(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		var wo wooOrder
		if decodeJSON(body, &wo) != nil {
			return
		}
		for _, topic := range []string{WooTopicCreated, WooTopicUpdated, WooTopicRestored} {
			o, p, _, err := mapWooEvent(topic, &wo, wooMapping{domain: "shop.example.com", designMeta: "design"})
			if err != nil {
				var he *httpError
				if !errors.As(err, &he) || he.status < 400 || he.status > 499 {
					t.Fatalf("refusal %v is not a 4xx", err)
				}
				return
			}
			if p.export && p.push == OpDelete {
				t.Fatalf("a deleted order is exported: %+v", p)
			}
			checkAccepted(t, o)
		}
	})
}

// FuzzWooCommerceSignature feeds arbitrary X-WC-Webhook-Signature values to the
// verification: never a panic, a header over the cap is a 431, and only the right
// signature passes.
//
//	go test ./intake -run XXX -fuzz FuzzWooCommerceSignature -fuzztime 30s
func FuzzWooCommerceSignature(f *testing.F) {
	body := []byte(`{"id":1}`)
	good := storesim.WooSign("s2", body)
	for _, seed := range []string{good, "", " " + good + " ", strings.Repeat("A", 300), "!!!!", good[:20], strings.ToLower(good)} {
		f.Add(seed)
	}
	secrets := []string{"s1", "s2"}
	f.Fuzz(func(t *testing.T, header string) {
		err := verifyBase64HMAC(HeaderWooSignature, maxWooSignatureHeader, secrets, header, body)
		if len(header) > maxWooSignatureHeader && (err == nil || statusOf(t, err) != http.StatusRequestHeaderFieldsTooLarge) {
			t.Fatalf("header of %d bytes: %v, want 431", len(header), err)
		}
		if err == nil && strings.TrimSpace(header) != good {
			t.Fatalf("accepted %q", header)
		}
	})
}

// A hostile WooCommerce body costs what the body cap allows: a body over
// MaxBody is refused before it is read whole or verified.
func TestWooCommerceBodyCap(t *testing.T) {
	cfg := DefaultConfig()
	cfg.MaxBody = 1 << 10
	cfg.WooCommerce.Secrets = []string{"s"}
	s := &Server{cfg: cfg}
	body := bytes.Repeat([]byte("["), 4<<10)
	req, _ := http.NewRequest(http.MethodPost, "/webhooks/woocommerce", bytes.NewReader(body))
	req.Header.Set(HeaderWooSignature, storesim.WooSign("s", body))
	_, _, err := s.handleWooCommerce(nil, req)
	if err == nil || statusOf(t, err) != http.StatusRequestEntityTooLarge {
		t.Fatalf("want 413, got %v", err)
	}
}
