package reconcile

import (
	"net/http"
	"testing"
	"time"

	"github.com/printworker/printworker/intake"
)

// The list pages are the store API's text: whatever they hold, a parser returns a
// page or an error, never panics, and every order it returns has an id, a change
// time and its body.
func checkPage(t *testing.T, p Page, err error) {
	t.Helper()
	if err != nil {
		if len(p.Orders) != 0 || p.Next != "" {
			t.Errorf("error %v with a page %+v", err, p)
		}
		return
	}
	for _, o := range p.Orders {
		if o.ID == "" || o.Modified.IsZero() || len(o.Raw) == 0 {
			t.Errorf("order %+v", o)
		}
	}
}

func FuzzShopifyPage(f *testing.F) {
	f.Add([]byte(`{"orders":[{"id":1001,"updated_at":"2026-03-02T10:00:00-05:00"}]}`), `<https://s.myshopify.com/admin/api/2025-01/orders.json?limit=250&page_info=abc>; rel="next"`)
	f.Add([]byte(`{"orders":[]}`), "")
	f.Add([]byte(`{"orders":[{"id":"x","updated_at":null}]}`), `<>; rel=next`)
	f.Fuzz(func(t *testing.T, body []byte, link string) {
		p, err := parseShopifyPage(body, link)
		checkPage(t, p, err)
	})
}

func FuzzWooCommercePage(f *testing.F) {
	f.Add([]byte(`[{"id":42,"date_modified_gmt":"2026-03-02T10:00:00"}]`), "3", 1)
	f.Add([]byte(`[]`), "0", 1)
	f.Add([]byte(`[{"id":-1,"date_modified_gmt":""}]`), "x", -5)
	f.Fuzz(func(t *testing.T, body []byte, total string, page int) {
		p, err := parseWooPage(body, total, page)
		checkPage(t, p, err)
	})
}

func FuzzBigCommercePage(f *testing.F) {
	f.Add([]byte(`[{"id":101,"date_modified":"Mon, 02 Mar 2026 10:00:00 +0000"}]`), 1)
	f.Add([]byte(``), 2)
	f.Add([]byte(`[{"id":1,"date_modified":"Mon, 02 Mar 2026 10:00:00 GMT"}]`), 0)
	f.Fuzz(func(t *testing.T, body []byte, page int) {
		p, err := parseBigCommercePage(body, page)
		checkPage(t, p, err)
	})
}

func FuzzEtsyPage(f *testing.F) {
	f.Add([]byte(`{"count":150,"results":[{"receipt_id":9,"update_timestamp":1772445600}]}`), 0)
	f.Add([]byte(`{"count":0,"results":[]}`), 100)
	f.Add([]byte(`{"count":1e9,"results":[{"receipt_id":9,"update_timestamp":99999999999999}]}`), -1)
	f.Fuzz(func(t *testing.T, body []byte, offset int) {
		p, err := parseEtsyPage(body, offset)
		checkPage(t, p, err)
	})
}

func FuzzWixPage(f *testing.F) {
	f.Add([]byte(`{"orders":[{"id":"w-1","updatedDate":"2026-03-02T10:00:00.000Z"}],"metadata":{"cursors":{"next":"abc"},"hasNext":true}}`))
	f.Add([]byte(`{"orders":[],"metadata":{"cursors":{},"hasNext":false}}`))
	f.Add([]byte(`{"orders":[{"id":"","updatedDate":"x"}]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := parseWixPage(body)
		checkPage(t, p, err)
	})
}

// Retry-After is the API's text too: the wait is never negative nor over an hour.
func FuzzRetryAfter(f *testing.F) {
	f.Add("2.0", "")
	f.Add("Wed, 21 Oct 2015 07:28:00 GMT", "")
	f.Add("", "15000")
	f.Add("1e308", "-1")
	now := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, ra, reset string) {
		h := http.Header{}
		h.Set("Retry-After", ra)
		h.Set("X-Rate-Limit-Time-Reset-Ms", reset)
		if d := intake.RetryAfter(h, now); d < 0 || d > time.Hour {
			t.Errorf("retryAfter(%q, %q) = %s", ra, reset, d)
		}
	})
}
