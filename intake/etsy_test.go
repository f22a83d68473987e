package intake_test

import (
	"encoding/base64"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/printworker/printworker/events"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/storesim"
)

const (
	etsyShop  = "8675309"
	etsyKey   = "etsy-keystring"
	etsyToken = "etsy-oauth-token"
	etsyPath  = "/webhooks/etsy"
)

var etsySecret = "whsec_" + base64.StdEncoding.EncodeToString([]byte("etsy-signing-key-of-32-bytes!!!!"))

func newEtsy(t *testing.T, poll time.Duration) (*platform, *storesim.Etsy) {
	t.Helper()
	sim := storesim.NewEtsy(etsyShop, etsyKey, etsyToken, etsySecret)
	sim.RetryAfter = 3 * time.Second
	p := newPlatform(t, sim.Handler(), func(c *intake.Config, apiURL string) {
		c.Etsy = intake.Etsy{Secrets: []string{etsySecret}, ShopID: etsyShop, Store: hubStore, Domain: hubDomain,
			APIKey: etsyKey, Token: etsyToken, APIURL: apiURL, PollInterval: poll, DesignVariation: "Personalization"}
	})
	return p, sim
}

func etsyReceipt(id int, status string, paid bool, modified time.Time) storesim.EtsyReceipt {
	return storesim.EtsyReceipt{ID: id, Status: status, IsPaid: paid, BuyerEmail: "grace@example.com", Name: "Grace Brewster Hopper",
		FirstLine: "1 Navy Way", City: "Arlington", State: "VA", Zip: "22202", CountryISO: "US",
		Created: time.Date(2024, 3, 14, 12, 0, 0, 0, time.UTC), Modified: modified,
		Transactions: []storesim.EtsyTransaction{
			{Quantity: 2, Amount: 1999, Variations: [][2]string{{"Size", "L"}, {"Personalization", ref1002}}},
			{Quantity: 1, Amount: 500, Variations: [][2]string{{"Colour", "Blue"}}},
		}}
}

var etsyModified = time.Date(2024, 3, 14, 12, 30, 0, 0, time.UTC)

func (p *platform) etsyWebhook(sim *storesim.Etsy, id int) storesim.Webhook {
	p.t.Helper()
	wh, err := sim.Webhook(id, p.now)
	if err != nil {
		p.t.Fatal(err)
	}
	return wh
}

func TestEtsyReceiptStates(t *testing.T) {
	t.Parallel()
	key := hubStore + "/" + hubDomain + "/5001"
	tests := []struct {
		name   string
		status string
		paid   bool
		want   []string
	}{
		{"paid: pushed and exported", "paid", true, []string{"export " + key + " " + ref1002 + " x2", "push update " + key}},
		{"open, unpaid: pushed, not exported", "open", false, []string{"push update " + key}},
		{"canceled: hub delete", "canceled", true, []string{"push delete " + key}},
		{"fully refunded: hub delete", "fully refunded", true, []string{"push delete " + key}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, sim := newEtsy(t, 0)
			sim.Put(etsyReceipt(5001, tc.status, tc.paid, etsyModified))
			if st := p.send(etsyPath, p.etsyWebhook(sim, 5001)); st != http.StatusOK {
				t.Fatalf("webhook answered %d", st)
			}
			if errs := p.runFetches(); len(errs) > 0 {
				t.Fatal(errs)
			}
			if got := p.work(t); !slices.Equal(got, tc.want) {
				t.Errorf("tasks:\n got %q\nwant %q", got, tc.want)
			}
			if tc.want[len(tc.want)-1] == "push update "+key {
				checkHubOrder(t, pushedOrder(t, p.tasks()), hubDomain, model.Order{OrderID: "5001", Email: "grace@example.com",
					FirstName: "Grace", LastName: "Brewster Hopper", Status: tc.status,
					Created: "2024-03-14T12:00:00.000Z", Updated: "2024-03-14T12:30:00.000Z",
					ShippingDetails: model.Address{City: "Arlington", CountryCode: "US"}, BillingDetails: model.Address{Address1: "1 Navy Way"},
					LineItems: []model.LineItem{{ID: 1002, Token: ref1002[5:], Quantity: 2, Price: 19.99}}})
			}
		})
	}
}

func TestEtsyRefusalsAndDuplicates(t *testing.T) {
	t.Parallel()
	p, sim := newEtsy(t, 0)
	sim.Put(etsyReceipt(5001, "paid", true, etsyModified))
	good := p.etsyWebhook(sim, 5001)

	bad := storesim.Webhook{Header: good.Header.Clone(), Body: good.Body}
	bad.Header.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(make([]byte, 32)))
	if st := p.send(etsyPath, bad); st != http.StatusUnauthorized {
		t.Errorf("wrong signature: status %d, want 401", st)
	}
	other := storesim.NewEtsy(etsyShop, etsyKey, etsyToken, "whsec_"+base64.StdEncoding.EncodeToString([]byte("another-key-another-key-another!!")))
	if st := p.send(etsyPath, p.etsyWebhook(other, 5001)); st != http.StatusUnauthorized {
		t.Errorf("other secret: status %d, want 401", st)
	}
	if ts := p.tasks(); len(ts) != 0 {
		t.Fatalf("refused webhooks enqueued %d tasks", len(ts))
	}
	// Etsy retries a delivery under the same webhook-id: one fetch.
	for range 3 {
		if st := p.send(etsyPath, good); st != http.StatusOK {
			t.Fatalf("webhook answered %d", st)
		}
	}
	if n := len(p.fetchTasks()); n != 1 {
		t.Errorf("%d fetch tasks for one delivery sent three times, want 1", n)
	}
	// Another shop's receipt, signed with this secret, is refused.
	elsewhere := storesim.NewEtsy("1234", etsyKey, etsyToken, etsySecret)
	if st := p.send(etsyPath, p.etsyWebhook(elsewhere, 5001)); st != http.StatusUnprocessableEntity {
		t.Errorf("other shop: status %d, want 422", st)
	}
}

func TestEtsyAPIFaults(t *testing.T) {
	t.Parallel()
	p, sim := newEtsy(t, 0)
	sim.Put(etsyReceipt(5001, "paid", true, etsyModified))
	if st := p.send(etsyPath, p.etsyWebhook(sim, 5001)); st != http.StatusOK {
		t.Fatalf("webhook answered %d", st)
	}
	sim.Inject(storesim.Hang, storesim.RateLimited, storesim.ServerError)
	for i := range 3 {
		errs := p.runFetches()
		if len(errs) != 1 {
			t.Fatalf("attempt %d: errors %v", i+1, errs)
		}
		allRetryable(t, errs)
	}
	if errs := p.runFetches(); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := p.work(t); len(got) != 2 {
		t.Errorf("after the faults: tasks %q, want the push and the export", got)
	}
}

// A signed webhook's resource_url is only read for the receipt id: a URL of another
// host than Etsy's API, of another shop or of no receipt is refused, and nothing is
// fetched from it.
func TestEtsyResourceURL(t *testing.T) {
	t.Parallel()
	p, sim := newEtsy(t, 0)
	for _, tc := range []struct {
		url    string
		status int
	}{
		{"https://openapi.etsy.com/v3/application/shops/999/receipts/1", http.StatusUnprocessableEntity},
		{"http://169.254.169.254/v3/application/shops/" + etsyShop + "/receipts/1", http.StatusBadRequest},
		{"https://evil.example/v3/application/shops/" + etsyShop + "/receipts/1", http.StatusBadRequest},
		{"http://openapi.etsy.com/v3/application/shops/" + etsyShop + "/receipts/1", http.StatusBadRequest},
		{"http://169.254.169.254/latest/meta-data", http.StatusBadRequest},
		{"https://openapi.etsy.com/v3/application/shops/" + etsyShop + "/receipts/0", http.StatusBadRequest},
		{"https://openapi.etsy.com/v3/application/shops/" + etsyShop + "/receipts/x", http.StatusBadRequest},
	} {
		body := []byte(`{"event_type":"ORDER_PAID","resource_url":"` + tc.url + `","shop_id":` + etsyShop + `}`)
		key, _ := base64.StdEncoding.DecodeString(etsySecret[len("whsec_"):])
		sig, err := events.Sign(key, "msg_x", p.now, body)
		if err != nil {
			t.Fatal(err)
		}
		h := http.Header{}
		h.Set("webhook-id", "msg_x")
		h.Set("webhook-timestamp", strconv.FormatInt(p.now.Unix(), 10))
		h.Set("webhook-signature", sig)
		if st := p.send(etsyPath, storesim.Webhook{Header: h, Body: body}); st != tc.status {
			t.Errorf("%s: status %d, want %d", tc.url, st, tc.status)
		}
	}
	if len(p.tasks()) != 0 || len(sim.Requests()) != 0 {
		t.Errorf("refused webhooks: %d tasks, %d API requests", len(p.tasks()), len(sim.Requests()))
	}
}
