package intake

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/model"
)

// FuzzEtsyEvent feeds arbitrary Etsy webhook bodies through the event decoding:
// no panic; a receipt id is taken only from an https URL of Etsy's API host (or the
// configured API's), of the delivery's shop, and is a positive integer.
//
//	go test ./intake -run XXX -fuzz FuzzEtsyEvent -fuzztime 30s
func FuzzEtsyEvent(f *testing.F) {
	f.Add([]byte(`{"event_type": "order.paid", "resource_url": "https://openapi.etsy.com/v3/application/shops/12345/receipts/54321", "shop_id": 12345}`))
	f.Add([]byte(`{"event_type": "ORDER_PAID", "resource_url": "https://api.etsy.com/v3/application/shops/12345/receipts/1", "shop_id": "12345"}`))
	f.Add([]byte(`{"event_type": "order.canceled", "resource_url": "http://169.254.169.254/v3/application/shops/12345/receipts/1", "shop_id": 12345}`))
	f.Add([]byte(`{"event_type": "order.shipped", "resource_url": "https://openapi.etsy.com.evil/v3/application/shops/12345/receipts/1", "shop_id": 1}`))
	f.Add([]byte(`{"event_type": "ORDER_CANCELLED", "resource_url": "https://OPENAPI.ETSY.COM/shops/12345/receipts/18446744073709551615"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		var wh etsyWebhook
		if decodeJSON(body, &wh) != nil {
			return
		}
		kind := etsyEventKind(wh.EventType)
		if kind < etsyFetch || kind > etsyIgnored {
			t.Fatalf("kind %d", kind)
		}
		const api = "http://127.0.0.1:9999"
		id, err := etsyReceiptID(wh.ResourceURL, wh.ShopID.str(), api)
		if err != nil {
			return
		}
		u, perr := url.Parse(wh.ResourceURL)
		if perr != nil {
			t.Fatalf("accepted an unparsable URL %q", wh.ResourceURL)
		}
		host := strings.ToLower(u.Host)
		if !(u.Scheme == "https" && (host == "openapi.etsy.com" || host == "api.etsy.com")) && u.Scheme+"://"+host != api {
			t.Fatalf("accepted host %q of %q", u.Host, wh.ResourceURL)
		}
		if n, err := strconv.ParseUint(id, 10, 64); err != nil || n == 0 {
			t.Fatalf("receipt id %q", id)
		}
		if !strings.Contains(u.Path, "/shops/"+wh.ShopID.str()+"/receipts/") {
			t.Fatalf("receipt of another shop accepted: %q for shop %q", wh.ResourceURL, wh.ShopID.str())
		}
	})
}

// FuzzBigCommerceHeaderSecret feeds arbitrary custom header values to the
// BigCommerce authentication: no panic, accepted only for a configured value,
// 431 above the cap.
//
//	go test ./intake -run XXX -fuzz FuzzBigCommerceHeaderSecret -fuzztime 30s
func FuzzBigCommerceHeaderSecret(f *testing.F) {
	f.Add("hdr-current")
	f.Add("hdr-current ")
	f.Add("")
	f.Add(strings.Repeat("x", 2000))
	cfg := DefaultConfig()
	cfg.BigCommerce = BigCommerce{HeaderSecrets: []string{"hdr-old", "hdr-current"}, StoreHash: "s", Store: "h", DesignOption: "design"}
	s := &Server{cfg: cfg, now: time.Now}
	f.Fuzz(func(t *testing.T, v string) {
		h := http.Header{}
		h.Set(DefaultBigCommerceHeader, v)
		_, err := s.verifyBigCommerce(h, []byte(`{}`), nil, cfg.BigCommerce.HeaderSecrets)
		sent := h.Get(DefaultBigCommerceHeader)
		switch {
		case err == nil && sent != "hdr-old" && sent != "hdr-current":
			t.Fatalf("accepted %q", sent)
		case err != nil && (sent == "hdr-old" || sent == "hdr-current"):
			t.Fatalf("refused %q: %v", sent, err)
		}
	})
}

// FuzzStamp feeds arbitrary `updated` values to the stamp reading: no panic; a
// stamp is read only from an RFC 3339 time, and equals it.
//
//	go test ./intake -run XXX -fuzz FuzzStamp -fuzztime 30s
func FuzzStamp(f *testing.F) {
	f.Add("2024-03-14T13:26:53.000Z")
	f.Add("2024-03-14T09:26:53-04:00")
	f.Add("Thu, 14 Mar 2024 13:00:00 +0000")
	f.Add("")
	f.Fuzz(func(t *testing.T, v string) {
		got := stampOf(&model.Order{Updated: v})
		want, err := time.Parse(time.RFC3339Nano, v)
		if err != nil && !got.IsZero() || err == nil && !got.Equal(want) {
			t.Fatalf("%q: stamp %s (parse %v)", v, got, err)
		}
	})
}
