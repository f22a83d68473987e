package intake_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"testing"

	"github.com/printworker/printworker/events"
	"github.com/printworker/printworker/storesim"
)

// etsyFlat is a delivery in the flat form Etsy sends today, signed with secret
// ("whsec_..."): {"event_type", "resource_url", "shop_id"}, shop_id a number.
func (p *platform) etsyFlat(secret, id, eventType, shop string, receipt int) storesim.Webhook {
	p.t.Helper()
	body, err := json.Marshal(map[string]any{"event_type": eventType,
		"resource_url": "https://openapi.etsy.com/v3/application/shops/" + shop + "/receipts/" + strconv.Itoa(receipt),
		"shop_id":      json.Number(shop)})
	if err != nil {
		p.t.Fatal(err)
	}
	key, _ := base64.StdEncoding.DecodeString(secret[len("whsec_"):])
	sig, err := events.Sign(key, id, p.now, body)
	if err != nil {
		p.t.Fatal(err)
	}
	h := http.Header{}
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", strconv.FormatInt(p.now.Unix(), 10))
	h.Set("webhook-signature", sig)
	return storesim.Webhook{Header: h, Body: body}
}

// TestEtsyEventForms: both forms of Etsy's event names. order.paid (flat, as Etsy
// sends it) and ORDER_PAID (the first documented form) read the receipt and export
// it; order.canceled stops the order without a read; order.shipped is acknowledged
// and exports nothing again; an unknown event is ignored as before.
func TestEtsyEventForms(t *testing.T) {
	t.Parallel()
	key := hubStore + "/" + hubDomain + "/5001"
	paid := []string{"export " + key + " " + ref1002 + " x2", "push update " + key}
	tests := []struct {
		event  string
		status string
		want   []string
		reads  bool
	}{
		{"order.paid", "enqueued", paid, true},
		{"ORDER_PAID", "enqueued", paid, true},
		{"order.canceled", "enqueued", []string{"push delete " + key}, false},
		{"ORDER_CANCELED", "enqueued", []string{"push delete " + key}, false},
		{"order.shipped", "acknowledged", nil, false},
		{"order.delivered", "acknowledged", nil, false},
		{"shop.updated", "ignored", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.event, func(t *testing.T) {
			t.Parallel()
			p, sim := newEtsy(t, 0)
			sim.Put(etsyReceipt(5001, "paid", true, etsyModified))
			wh := p.etsyFlat(etsySecret, "msg_1", tc.event, etsyShop, 5001)
			r := p.post(etsyPath, wh.Body, wh.Header)
			if r.Status != http.StatusOK || r.Body.Status != tc.status {
				t.Fatalf("answered %d %s, want 200 %s", r.Status, r.Raw, tc.status)
			}
			if errs := p.runFetches(); len(errs) > 0 {
				t.Fatal(errs)
			}
			if got := p.work(t); !slices.Equal(got, tc.want) {
				t.Errorf("tasks:\n got %q\nwant %q", got, tc.want)
			}
			if n := len(sim.Requests()); (n > 0) != tc.reads {
				t.Errorf("%d API reads, want reads %v", n, tc.reads)
			}
		})
	}
}

// TestEtsyCancelBeforeLatePaid: order.canceled, then a late order.paid of the same
// receipt whose read still shows it paid (an older state): the cancel stands.
func TestEtsyCancelBeforeLatePaid(t *testing.T) {
	t.Parallel()
	p, sim := newEtsy(t, 0)
	sim.Put(etsyReceipt(5001, "paid", true, etsyModified))
	for i, ev := range []string{"order.canceled", "order.paid"} {
		wh := p.etsyFlat(etsySecret, "msg_"+strconv.Itoa(i), ev, etsyShop, 5001)
		if st := p.send(etsyPath, wh); st != http.StatusOK {
			t.Fatalf("%s: %d", ev, st)
		}
	}
	if errs := p.runFetches(); len(errs) > 0 {
		t.Fatal(errs)
	}
	key := hubStore + "/" + hubDomain + "/5001"
	if got := p.work(t); !slices.Equal(got, []string{"push delete " + key}) {
		t.Errorf("tasks %q: the late paid read re-created the cancelled order", got)
	}
}
