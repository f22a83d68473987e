package intake

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/events"
	"github.com/printworker/printworker/model"
)

// checkMapped is what every accepted mapping must be: lines with valid design
// references and at least one copy, timestamps in the hub's strict form.
func checkMapped(t *testing.T, o *model.Order) {
	t.Helper()
	for i, li := range o.LineItems {
		if li.Ref().Validate() != nil || li.Quantity < 1 || li.Price < 0 {
			t.Fatalf("line %d accepted: %+v", i, li)
		}
	}
	for _, ts := range []string{o.Created, o.Updated} {
		if _, err := time.Parse("2006-01-02T15:04:05.000Z", ts); err != nil {
			t.Fatalf("timestamp %q is not strict: %v", ts, err)
		}
	}
}

// FuzzBigCommerceMapping feeds arbitrary order and products bodies through the
// BigCommerce decoding and mapping.
//
//	go test ./intake -run XXX -fuzz FuzzBigCommerceMapping -fuzztime 30s
func FuzzBigCommerceMapping(f *testing.F) {
	f.Add([]byte(`{"id": 101, "status_id": 11, "status": "Awaiting Fulfillment", "date_created": "Thu, 14 Mar 2024 13:00:00 +0000", "date_modified": "Thu, 14 Mar 2024 13:05:00 +0000", "billing_address": {"first_name": "Ada", "email": "a@b.c", "zip": 12345}}`),
		[]byte(`[{"id": 1, "quantity": 2, "price_inc_tax": "12.5000", "product_options": [{"display_name": "Design", "display_value": "1001.6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"}]}]`))
	f.Add([]byte(`{"id": "x"}`), []byte(`[{"quantity": 0, "product_options": [{"display_name": "design", "value": "1.6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"}]}]`))
	f.Add([]byte(`{"id": 1, "date_created": "2024-03-14T13:00:00Z", "date_modified": "nope"}`), []byte(`null`))
	f.Add([]byte(`{"id": 1, "date_created": "2024-03-14T13:00:00Z", "date_modified": "2024-03-14T13:00:00Z"}`), []byte(`[{"quantity": 1, "price_inc_tax": "Inf", "product_options": [{"display_name": "design", "display_value": "1.6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"}]}]`))
	f.Fuzz(func(t *testing.T, order, products []byte) {
		var bo bcOrder
		var lines []bcProduct
		if decodeJSON(order, &bo) != nil || decodeJSON(products, &lines) != nil {
			return
		}
		o, st, err := mapBigCommerceOrder(&bo, nil, lines, "d.example", "design")
		if err != nil {
			return
		}
		if st != bcState(bo.StatusID) {
			t.Fatalf("state %d for status %d", st, bo.StatusID)
		}
		checkMapped(t, o)
	})
}

// FuzzEtsyMapping feeds arbitrary receipts through the Etsy decoding and mapping.
//
//	go test ./intake -run XXX -fuzz FuzzEtsyMapping -fuzztime 30s
func FuzzEtsyMapping(f *testing.F) {
	f.Add([]byte(`{"receipt_id": 5001, "status": "paid", "is_paid": true, "name": "Grace Hopper", "create_timestamp": 1710417600, "update_timestamp": 1710419400, "transactions": [{"quantity": 2, "price": {"amount": 1999, "divisor": 100}, "variations": [{"formatted_name": "Personalization", "formatted_value": "1002.0a1b2c3d-4e5f-4a6b-8c7d-8e9f0a1b2c3d"}]}]}`))
	f.Add([]byte(`{"receipt_id": 1, "create_timestamp": 1, "update_timestamp": 1, "transactions": [{"quantity": 1, "price": {"amount": 1, "divisor": 0}, "variations": [{"formatted_name": "personalization", "formatted_value": "1.6f1c2a3b-4d5e-4f60-8a7b-9c0d1e2f3a4b"}]}]}`))
	f.Add([]byte(`{"receipt_id": "0", "status": "canceled"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var r etsyReceipt
		if decodeJSON(body, &r) != nil {
			return
		}
		o, _, err := mapEtsyReceipt(&r, "d.example", "Personalization")
		if err != nil {
			return
		}
		checkMapped(t, o)
	})
}

// FuzzStandardSignature feeds arbitrary Standard Webhooks headers to the verifier:
// it never panics and accepts nothing not signed with a configured key over exactly
// the id, timestamp and body sent.
//
//	go test ./intake -run XXX -fuzz FuzzStandardSignature -fuzztime 30s
func FuzzStandardSignature(f *testing.F) {
	key := []byte("fuzz-key")
	now := time.Unix(1710424800, 0)
	good, _ := events.Sign(key, "msg_1", now, []byte(`{}`))
	f.Add("msg_1", "1710424800", good, []byte(`{}`))
	f.Add("msg_1", "1710424800", "v1,AAAA v1,"+good[3:], []byte(`{}`))
	f.Add("", "x", "v2,abc", []byte(`{"a":1}`))
	f.Add("msg_1", "99999999999999999999999", strings.Repeat("v1,a ", 300), []byte(nil))
	f.Fuzz(func(t *testing.T, id, ts, sig string, body []byte) {
		h := http.Header{}
		h.Set("webhook-id", id)
		h.Set("webhook-timestamp", ts)
		h.Set("webhook-signature", sig)
		got, err := verifyStandard([][]byte{[]byte("other"), key}, h, body, now, 5*time.Minute)
		if err != nil {
			return
		}
		// Accepted: the signature must be the key's over exactly these values.
		want, _ := events.Sign(key, got, parseUnix(t, ts), body)
		if !strings.Contains(" "+strings.TrimSpace(h.Get("webhook-signature"))+" ", " "+want+" ") {
			t.Fatalf("accepted %q for id %q ts %q", sig, id, ts)
		}
	})
}

func parseUnix(t *testing.T, s string) time.Time {
	t.Helper()
	var sec int64
	for _, c := range strings.TrimSpace(s) {
		if c < '0' || c > '9' {
			t.Fatalf("accepted timestamp %q", s)
		}
		sec = sec*10 + int64(c-'0')
	}
	return time.Unix(sec, 0)
}
