package intake_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/storesim"
)

const (
	wixInstance = "6a0b1c2d-0000-4e5f-8a9b-0c1d2e3f4a5b"
	wixStore    = "store-wix"
	wixOrderID  = "9f5f3e1a-7c2b-4d3e-9a8b-1c2d3e4f5a6b"
)

func wixKey() string { return wixStore + "/" + hubDomain + "/" + wixOrderID }

// wixHarness is the intake with Wix configured for the simulated site's key and a
// second, rotated-out key.
func wixHarness(t *testing.T) (*harness, *storesim.Wix) {
	t.Helper()
	site, err := storesim.NewWix(wixInstance)
	if err != nil {
		t.Fatal(err)
	}
	old, err := storesim.NewWix(wixInstance)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := intake.ParseWixPublicKeys(append(old.PublicKeyPEM(), site.PublicKeyPEM()...))
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, func(c *intake.Config) {
		c.Wix.PublicKeys = keys
		c.Wix.Stores = map[string]string{wixInstance: wixStore}
		c.Wix.Domains = map[string]string{wixInstance: hubDomain}
		c.Wix.DesignField = "Design"
	})
	return h, site
}

func (h *harness) postWix(d storesim.WixDelivery) response {
	h.t.Helper()
	return h.post("/webhooks/wix", d.Body, http.Header{})
}

var wixCreated = time.Date(2024, 3, 14, 13, 0, 0, 0, time.UTC)

func TestWixWebhook(t *testing.T) {
	t.Parallel()
	paid := storesim.WixSampleOrder(wixOrderID, "Design", wixCreated)
	unpaid := paid
	unpaid.PaymentStatus = "NOT_PAID"
	refunded := paid
	refunded.PaymentStatus = "FULLY_REFUNDED"
	cancelled := paid
	cancelled.Status = "CANCELED"
	initialized := unpaid
	initialized.Status = "INITIALIZED"
	exports := []string{"export " + wixKey() + " " + wooRef1 + " x2", "export " + wixKey() + " " + wooRef2 + " x1"}
	tests := []struct {
		name   string
		event  string
		order  storesim.WixOrder
		result string
		tasks  []string
	}{
		{"approved and paid: created and exported", intake.WixEventApproved, paid, "enqueued", append(exports, "push create "+wixKey())},
		{"approved, not paid: pushed, not exported", intake.WixEventApproved, unpaid, "enqueued", []string{"push create " + wixKey()}},
		{"paid later: updated and exported", intake.WixEventPaymentStatus, paid, "enqueued", append(exports, "push update "+wixKey())},
		{"cancelled: hub delete", intake.WixEventCanceled, cancelled, "enqueued", []string{"push delete " + wixKey()}},
		{"refunded: hub delete", intake.WixEventPaymentStatus, refunded, "enqueued", []string{"push delete " + wixKey()}},
		{"an order not approved yet is ignored", intake.WixEventUpdated, initialized, "ignored", nil},
		{"other events are taken and dropped", "wix.ecom.v1.order_fulfilled", paid, "ignored", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h, site := wixHarness(t)
			checkStoreWebhook(t, h, h.postWix(site.Event(tc.event, tc.order)), tc.result, tc.tasks)
		})
	}
}

func TestWixRefusals(t *testing.T) {
	t.Parallel()
	h, site := wixHarness(t)
	order := storesim.WixSampleOrder(wixOrderID, "Design", wixCreated)
	stranger, err := storesim.NewWix(wixInstance)
	if err != nil {
		t.Fatal(err)
	}
	good := site.Event(intake.WixEventApproved, order).Body
	parts := strings.Split(string(good), ".")
	enc := base64.RawURLEncoding
	for _, tc := range []struct {
		name string
		body string
	}{
		{"signed with another key", string(stranger.Event(intake.WixEventApproved, order).Body)},
		{"payload changed after signing", parts[0] + "." + enc.EncodeToString([]byte(`{"data":"{}"}`)) + "." + parts[2]},
		{"alg none", enc.EncodeToString([]byte(`{"alg":"none"}`)) + "." + parts[1] + "."},
		{"alg HS256", enc.EncodeToString([]byte(`{"alg":"HS256"}`)) + "." + parts[1] + "." + parts[2]},
		{"not a JWT", `{"data": "{}"}`},
		{"four segments", string(good) + ".x"},
	} {
		if r := h.post("/webhooks/wix", []byte(tc.body), http.Header{}); r.Status != http.StatusUnauthorized {
			t.Errorf("%s: %d %s, want 401", tc.name, r.Status, r.Raw)
		}
	}
	// Signed with the app's key, from a site no mapping covers.
	site.InstanceID = "another-instance"
	if r := h.postWix(site.Event(intake.WixEventApproved, order)); r.Status != http.StatusUnprocessableEntity {
		t.Errorf("unmapped instance: %d %s, want 422", r.Status, r.Raw)
	}
	if ts := h.tasks(); len(ts) != 0 {
		t.Fatalf("refused webhooks enqueued %q", summary(t, ts))
	}
}

// TestWixDuplicatesAndReordering: Wix retries unanswered deliveries and promises no
// order. Each event twice, in reverse order: the newer event's work is enqueued
// once, the older one arriving after it is stale (store order), its repeat a
// duplicate.
func TestWixDuplicatesAndReordering(t *testing.T) {
	t.Parallel()
	h, site := wixHarness(t)
	unpaid := storesim.WixSampleOrder(wixOrderID, "Design", wixCreated)
	unpaid.PaymentStatus = "NOT_PAID"
	paid := storesim.WixSampleOrder(wixOrderID, "Design", wixCreated)
	paid.UpdatedDate = wixCreated.Add(5 * time.Minute).Format(time.RFC3339Nano)
	ds := []storesim.WixDelivery{site.Event(intake.WixEventApproved, unpaid), site.Event(intake.WixEventPaymentStatus, paid)}
	sts, err := storesim.DeliverAll(context.Background(), nil, h.url+"/webhooks/wix", ds, storesim.DeliveryFaults{Duplicate: true, Reverse: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sts, []int{200, 200, 200, 200}) {
		t.Fatalf("answers %v, want 200 each", sts)
	}
	want := []string{
		"export " + wixKey() + " " + wooRef1 + " x2",
		"export " + wixKey() + " " + wooRef2 + " x1",
		"push update " + wixKey(),
	}
	if got := summary(t, h.tasks()); !slices.Equal(got, want) {
		t.Fatalf("tasks\n got %q\nwant %q", got, want)
	}
	h.wantOutcome("wix", "stale", 1)
	h.wantOutcome("wix", "duplicate", 2)
}
