package intake_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/storesim"
)

const (
	bcHash   = "abc123xyz"
	bcToken  = "bc-api-token"
	bcSecret = "bc-client-secret"
	bcPath   = "/webhooks/bigcommerce"
	bcStatus = "store/order/statusUpdated"
)

func newBigCommerce(t *testing.T) (*platform, *storesim.BigCommerce) {
	t.Helper()
	sim := storesim.NewBigCommerce(bcHash, bcToken, bcSecret)
	sim.RetryAfter = 7 * time.Second
	p := newPlatform(t, sim.Handler(), func(c *intake.Config, apiURL string) {
		c.BigCommerce = intake.BigCommerce{Secrets: []string{"old-secret", bcSecret}, StoreHash: bcHash, Store: hubStore,
			Domain: hubDomain, Token: bcToken, APIURL: apiURL, DesignOption: "design"}
	})
	return p, sim
}

// bcOrder is a simulated order: two personalized lines (the option named "Design",
// and one found by the shape of its value) and one plain line.
func bcOrder(id, status int, statusName string) storesim.BCOrder {
	addr := storesim.BCAddress{FirstName: "Ada", LastName: "Lovelace", Street1: "12 St James's Sq", City: "London",
		Zip: "SW1Y 4JH", Country: "United Kingdom", CountryISO2: "GB", Phone: "+44 20 0000", Email: "ada@example.com"}
	ship := addr
	ship.City = "Oxford"
	return storesim.BCOrder{ID: id, StatusID: status, Status: statusName,
		Created:  time.Date(2024, 3, 14, 13, 0, 0, 0, time.UTC),
		Modified: time.Date(2024, 3, 14, 13, 5, 0, 0, time.UTC),
		Billing:  addr, Shipping: &ship,
		Products: []storesim.BCProduct{
			{Name: "Mug", Quantity: 2, Price: "12.5000", Options: []storesim.BCOption{{DisplayName: "Colour", DisplayValue: "Red"}, {DisplayName: "Design", DisplayValue: ref1001}}},
			{Name: "Sticker", Quantity: 1, Price: "3.0000"},
			{Name: "Shirt", Quantity: 3, Price: "20", Options: []storesim.BCOption{{DisplayName: "Your picture", Value: ref2001}}},
		}}
}

func (p *platform) bcWebhook(sim *storesim.BigCommerce, scope string, id int) storesim.Webhook {
	p.t.Helper()
	wh, err := sim.Webhook(scope, id, p.now)
	if err != nil {
		p.t.Fatal(err)
	}
	return wh
}

var bcWant = model.Order{OrderID: "101", Email: "ada@example.com", FirstName: "Ada", LastName: "Lovelace",
	Status: "awaiting fulfillment", Created: "2024-03-14T13:00:00.000Z", Updated: "2024-03-14T13:05:00.000Z",
	ShippingDetails: model.Address{City: "Oxford", CountryCode: "GB"}, BillingDetails: model.Address{Address1: "12 St James's Sq"},
	LineItems: []model.LineItem{{ID: 1001, Token: ref1001[5:], Quantity: 2, Price: 12.5}, {ID: 2001, Token: ref2001[5:], Quantity: 3, Price: 20}}}

func TestBigCommerceOrderStates(t *testing.T) {
	t.Parallel()
	key := hubStore + "/" + hubDomain + "/101"
	tests := []struct {
		name       string
		status     int
		statusName string
		scope      string
		want       []string
	}{
		{"awaiting fulfillment: pushed and exported", 11, "Awaiting Fulfillment", bcStatus,
			[]string{"export " + key + " " + ref1001 + " x2", "export " + key + " " + ref2001 + " x3", "push update " + key}},
		{"completed: pushed and exported", 10, "Completed", "store/order/created",
			[]string{"export " + key + " " + ref1001 + " x2", "export " + key + " " + ref2001 + " x3", "push update " + key}},
		{"pending: pushed, not exported", 1, "Pending", "store/order/created", []string{"push update " + key}},
		{"incomplete: pushed, not exported", 0, "Incomplete", "store/order/updated", []string{"push update " + key}},
		{"cancelled: hub delete", 5, "Cancelled", bcStatus, []string{"push delete " + hubStore + "/" + hubDomain + "/101"}},
		{"refunded: hub delete", 4, "Refunded", bcStatus, []string{"push delete " + hubStore + "/" + hubDomain + "/101"}},
		{"archived: hub delete without a read", 11, "Awaiting Fulfillment", "store/order/archived", []string{"push delete " + hubStore + "/" + hubDomain + "/101"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p, sim := newBigCommerce(t)
			sim.Put(bcOrder(101, tc.status, tc.statusName))
			if st := p.send(bcPath, p.bcWebhook(sim, tc.scope, 101)); st != http.StatusOK {
				t.Fatalf("webhook answered %d", st)
			}
			if n := len(p.fetchTasks()); n != 1 {
				t.Fatalf("%d fetch tasks, want 1", n)
			}
			if errs := p.runFetches(); len(errs) > 0 {
				t.Fatal(errs)
			}
			got := p.work(t)
			if !slices.Equal(got, tc.want) {
				t.Errorf("tasks:\n got %q\nwant %q", got, tc.want)
			}
			if tc.want[len(tc.want)-1] == "push update "+key {
				want := bcWant
				want.Status = map[int]string{11: "awaiting fulfillment", 10: "completed", 1: "pending", 0: "incomplete"}[tc.status]
				checkHubOrder(t, pushedOrder(t, p.tasks()), hubDomain, want)
			}
			if tc.scope == "store/order/archived" && len(sim.Requests()) != 0 {
				t.Errorf("archived order was read: %q", sim.Requests())
			}
		})
	}
}

func TestBigCommerceRefusals(t *testing.T) {
	t.Parallel()
	p, sim := newBigCommerce(t)
	sim.Put(bcOrder(101, 11, "Awaiting Fulfillment"))
	good := p.bcWebhook(sim, bcStatus, 101)

	tests := []struct {
		name   string
		mutate func(*storesim.Webhook)
		status int
	}{
		{"wrong signature", func(w *storesim.Webhook) {
			w.Header.Set("webhook-signature", "v1,AAAA"+good.Header.Get("webhook-signature")[7:])
		}, http.StatusUnauthorized},
		{"other secret", func(w *storesim.Webhook) {
			other := storesim.NewBigCommerce(bcHash, bcToken, "not-the-secret")
			other.Put(bcOrder(101, 11, "x"))
			*w, _ = other.Webhook(bcStatus, 101, p.now)
		}, http.StatusUnauthorized},
		{"body changed", func(w *storesim.Webhook) { w.Body = append([]byte(nil), w.Body...); w.Body[len(w.Body)-2] ^= 1 }, http.StatusUnauthorized},
		{"no signature", func(w *storesim.Webhook) { w.Header.Del("webhook-signature") }, http.StatusUnauthorized},
		{"stale timestamp", func(w *storesim.Webhook) { *w, _ = sim.Webhook(bcStatus, 101, p.now.Add(-10*time.Minute)) }, http.StatusUnauthorized},
		{"too many signatures", func(w *storesim.Webhook) {
			w.Header.Set("webhook-signature", "v1,a v1,b v1,c v1,d v1,e v1,f")
		}, http.StatusBadRequest},
		{"huge signature header", func(w *storesim.Webhook) {
			w.Header.Set("webhook-signature", "v1,"+strings.Repeat("A", 2000))
		}, http.StatusRequestHeaderFieldsTooLarge},
	}
	for _, tc := range tests {
		wh := storesim.Webhook{Header: good.Header.Clone(), Body: good.Body}
		tc.mutate(&wh)
		if st := p.send(bcPath, wh); st != tc.status {
			t.Errorf("%s: status %d, want %d", tc.name, st, tc.status)
		}
	}
	if ts := p.tasks(); len(ts) != 0 {
		t.Errorf("refused webhooks enqueued %d tasks", len(ts))
	}
	// A signed webhook of another store is refused too.
	other := storesim.NewBigCommerce("otherstore", bcToken, bcSecret)
	wh, _ := other.Webhook(bcStatus, 101, p.now)
	if st := p.send(bcPath, wh); st != http.StatusUnprocessableEntity {
		t.Errorf("other store: status %d, want 422", st)
	}
	// A scope printworker does not act on is taken and dropped.
	wh, _ = sim.Webhook("store/product/updated", 101, p.now)
	if st := p.send(bcPath, wh); st != http.StatusOK || len(p.tasks()) != 0 {
		t.Errorf("product scope: status %d, %d tasks", st, len(p.tasks()))
	}
}

// Duplicates (same hash, new webhook-id) and reordering: one fetch per event.
func TestBigCommerceDuplicatesAndReordering(t *testing.T) {
	t.Parallel()
	p, sim := newBigCommerce(t)
	var hooks []storesim.Webhook
	for id := 101; id <= 104; id++ {
		sim.Put(bcOrder(id, 11, "Awaiting Fulfillment"))
		hooks = append(hooks, p.bcWebhook(sim, bcStatus, id))
	}
	// The same event again, as BigCommerce sends it: a new webhook-id, the same hash.
	hooks = append(hooks, p.bcWebhook(sim, bcStatus, 102))
	sts, err := storesim.Deliver(context.Background(), http.DefaultClient, p.url+bcPath, hooks,
		storesim.Schedule{Duplicate: true, Shuffle: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	for _, st := range sts {
		if st != http.StatusOK {
			t.Fatalf("statuses %v", sts)
		}
	}
	if n := len(p.fetchTasks()); n != 4 {
		t.Fatalf("%d fetch tasks, want one per order (4)", n)
	}
	if errs := p.runFetches(); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := p.work(t); len(got) != 4*3 {
		t.Errorf("tasks %q: want a push and two exports per order", got)
	}
}

// API faults (429 with Retry-After, 5xx, a timeout) fail the fetch retryably and
// lose nothing: the retry produces the order's jobs.
func TestBigCommerceAPIFaults(t *testing.T) {
	t.Parallel()
	p, sim := newBigCommerce(t)
	sim.Put(bcOrder(101, 11, "Awaiting Fulfillment"))
	if st := p.send(bcPath, p.bcWebhook(sim, bcStatus, 101)); st != http.StatusOK {
		t.Fatalf("webhook answered %d", st)
	}
	sim.Inject(storesim.RateLimited, storesim.ServerError, storesim.Hang)
	for i, want := range []string{"429", "503", "timeout"} {
		errs := p.runFetches()
		if len(errs) != 1 {
			t.Fatalf("attempt %d (%s): errors %v", i+1, want, errs)
		}
		allRetryable(t, errs)
		if want == "429" {
			var ra interface{ RetryAfter() time.Duration }
			if !errors.As(errs[0], &ra) || ra.RetryAfter() != 7*time.Second {
				t.Errorf("429: error %v does not carry the API's Retry-After of 7s", errs[0])
			}
		}
		if got := p.work(t); len(got) != 0 {
			t.Fatalf("a failed fetch enqueued %q", got)
		}
	}
	if errs := p.runFetches(); len(errs) > 0 {
		t.Fatal(errs)
	}
	if got := p.work(t); len(got) != 3 {
		t.Errorf("after the faults: tasks %q, want the push and two exports", got)
	}
}

// A 404 (the order is gone) is permanent; a wrong token is retried (the operator
// can renew it before the order is lost).
func TestBigCommerceErrorClasses(t *testing.T) {
	t.Parallel()
	p, sim := newBigCommerce(t)
	if st := p.send(bcPath, p.bcWebhook(sim, bcStatus, 999)); st != http.StatusOK {
		t.Fatalf("webhook answered %d", st)
	}
	errs := p.runFetches()
	if len(errs) != 1 || !errors.Is(errs[0], asynq.SkipRetry) {
		t.Errorf("unknown order: errors %v, want one wrapping SkipRetry", errs)
	}
	sim.Token = "rotated"
	errs = p.runFetches()
	allRetryable(t, errs)
	if len(errs) != 1 {
		t.Errorf("wrong token: errors %v, want one retryable", errs)
	}
}

// The API said its window is spent: the next request waits for the reset.
func TestBigCommercePacing(t *testing.T) {
	t.Parallel()
	p, sim := newBigCommerce(t)
	sim.Put(bcOrder(101, 11, "Awaiting Fulfillment"))
	sim.SpentWindow = 1500 * time.Millisecond
	if st := p.send(bcPath, p.bcWebhook(sim, bcStatus, 101)); st != http.StatusOK {
		t.Fatalf("webhook answered %d", st)
	}
	if errs := p.runFetches(); len(errs) > 0 {
		t.Fatal(errs)
	}
	if len(p.sleeps) != 2 || p.sleeps[0] != 1500*time.Millisecond {
		t.Errorf("pacing waits %v, want 1.5s before each of the 2 requests after the first", p.sleeps)
	}
}

// Hostile bodies cost bounded memory: over the intake's body cap both id-only
// endpoints answer 413 before verifying, and nothing is enqueued.
func TestIDOnlyEndpointsBodyCap(t *testing.T) {
	t.Parallel()
	p, sim := newBigCommerce(t)
	sim.Put(bcOrder(101, 11, "Awaiting Fulfillment"))
	wh := p.bcWebhook(sim, bcStatus, 101)
	wh.Body = append(append([]byte(nil), wh.Body...), strings.Repeat(" ", int(p.cfg.MaxBody))...)
	if st := p.send(bcPath, wh); st != http.StatusRequestEntityTooLarge {
		t.Errorf("bigcommerce: status %d, want 413", st)
	}
	e, esim := newEtsy(t, 0)
	ewh := e.etsyWebhook(esim, 5001)
	ewh.Body = append(append([]byte(nil), ewh.Body...), strings.Repeat(" ", int(e.cfg.MaxBody))...)
	if st := e.send(etsyPath, ewh); st != http.StatusRequestEntityTooLarge {
		t.Errorf("etsy: status %d, want 413", st)
	}
	if len(p.tasks())+len(e.tasks()) != 0 {
		t.Error("an oversized body enqueued work")
	}
}
