package intake

import (
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
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
	f.Add([]byte(`{"id": 1, "created_at": "2024-03-14T09:26:53-04:00", "updated_at": "2024-03-14T09:26:53-04:00", "line_items": [{"quantity": 1, "price": "NaN", "properties": [{"name": "_design", "value": "1.6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"}]}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var so shopifyOrder
		if decodeJSON(body, &so) != nil {
			return
		}
		o, err := mapShopifyOrder(&so, shopifyMapping{domain: "shop.example.com", designProperty: "_design"})
		if err != nil {
			return
		}
		checkAccepted(t, o)
	})
}

// checkAccepted fails t unless a mapped store order has valid lines, encodes to
// JSON and carries strict timestamps.
func checkAccepted(t *testing.T, o *model.Order) {
	t.Helper()
	for i, li := range o.LineItems {
		if err := li.Ref().Validate(); err != nil {
			t.Fatalf("line %d: accepted an invalid reference: %v", i, err)
		}
		if li.Quantity < 1 || li.Price < 0 {
			t.Fatalf("line %d: quantity below 1 or negative price: %+v", i, li)
		}
	}
	// Whatever is accepted must travel on: a NaN price once passed here and
	// failed at the enqueue, answered 503.
	if _, err := json.Marshal(o); err != nil {
		t.Fatalf("accepted an order that cannot be encoded: %v", err)
	}
	for _, ts := range []string{o.Created, o.Updated} {
		if _, err := hub.ParseTimestamp(ts); err != nil {
			t.Fatalf("accepted a timestamp not in the strict form: %v", err)
		}
	}
}

// FuzzSignatureHeader feeds arbitrary X-Printworker-Signature values to the
// verification: it must never panic, never compute more than one MAC per secret,
// refuse headers over the cap, and accept only a header holding the right signature.
//
//	go test ./intake -run XXX -fuzz FuzzSignatureHeader -fuzztime 30s
func FuzzSignatureHeader(f *testing.F) {
	now := time.Unix(1710424800, 0)
	body := []byte(`{"orderId":"1"}`)
	good := Sign("s2", now, body)
	for _, seed := range []string{good, "sha256=" + strings.Repeat("0", 64) + "," + good, "", ",,,,,,", "sha256=", "v1=abc,sha256=zz",
		hostileSignatures(MaxSignatures), hostileSignatures(MaxSignatures + 1), strings.ToUpper(good)} {
		f.Add(seed)
	}
	secrets := []string{"s1", "s2", "s3"}
	f.Fuzz(func(t *testing.T, header string) {
		n := 0
		err := countingVerifier(&n).generic(secrets, "1710424800", header, body, now, time.Minute)
		if n > len(secrets) {
			t.Fatalf("%d MACs for %d secrets", n, len(secrets))
		}
		if len(header) > maxSignatureHeader && (err == nil || statusOf(t, err) != http.StatusRequestHeaderFieldsTooLarge) {
			t.Fatalf("header of %d bytes: %v, want 431", len(header), err)
		}
		if err == nil && !strings.Contains(strings.ToLower(header), good[len(SignaturePrefix):]) {
			t.Fatalf("accepted %q without the right signature", header)
		}
	})
}

// FuzzGenericOrder feeds arbitrary verified bodies to the /webhooks/orders mapping:
// it must never panic; what it accepts has an identity, every line valid, and
// encodes to JSON (the enqueue and the duplicate check both encode it).
//
//	go test ./intake -run XXX -fuzz FuzzGenericOrder -fuzztime 30s
func FuzzGenericOrder(f *testing.F) {
	f.Add(TopicPaid, []byte(`{"orderId": "A-1", "domain": "d.example", "lineItems": []}`))
	f.Add(TopicPaid, []byte(`{"orderId": "A-1", "domain": "d.example", "lineItems": [{"id": 0, "token": "x", "quantity": 0, "price": -1}]}`))
	f.Add(TopicDelete, []byte(`{"orderId": "A-1", "domain": "d.example", "lineItems": [{"id": 1}]}`))
	f.Add(TopicCreate, []byte(`{"orderId": "A-2", "domain": "shop.example.org", "status": "paid", "created": "2024-03-14T13:26:53.000Z", "updated": "2024-03-14T13:27:10.000Z", "email": "a@example.org", "firstName": "A", "lastName": "B", "billingDetails": {}, "shippingDetails": {}, "lineItems": [{"id": 1001, "token": "6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b", "quantity": 1, "price": 1e308}]}`))
	f.Add(TopicPaid, []byte(`{"orderId": "A-1", "domain": "d.example", "lineItems": [{"price": 1e400}]}`))
	f.Fuzz(func(t *testing.T, topic string, body []byte) {
		o, err := genericOrder(topic, body)
		if err != nil {
			var he *httpError
			if !errors.As(err, &he) || he.status < 400 || he.status > 499 {
				t.Fatalf("refusal %v is not a 4xx", err)
			}
			return
		}
		if strings.TrimSpace(o.OrderID) == "" || strings.TrimSpace(o.Domain) == "" {
			t.Fatalf("accepted an order without identity: %+v", o)
		}
		if len(o.LineItems) > 0 {
			if err := hub.ValidateOrder(o, nil); err != nil {
				t.Fatalf("accepted lines the hub refuses: %v", err)
			}
		}
		if _, err := json.Marshal(o); err != nil {
			t.Fatalf("accepted an order that cannot be encoded: %v", err)
		}
	})
}
