package intake_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/netguard"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storesim"
)

const (
	wooSecret    = "woo-secret-current"
	wooSecretOld = "woo-secret-previous"
	wooSource    = "https://Woo.Example.com/"
	wooStore     = "store-woo"
	wooRef1      = "1001.3f2504e0-4f89-11d3-9a0c-0305e82c3301"
	wooRef2      = "1002.9a1c7e52-3b0d-4c8e-8f5a-2d6b7c8e9f01"
)

var wooCreated = time.Date(2024, 3, 14, 13, 0, 0, 0, time.UTC)

// wooHarness is the intake with WooCommerce configured (design meta key meta), and a
// simulated site signing with the current secret; sources are more sites mapped to
// the same store.
func wooHarness(t *testing.T, meta string, sources ...string) (*harness, *storesim.WooCommerce) {
	t.Helper()
	h := newHarness(t, func(c *intake.Config) {
		c.WooCommerce.Secrets = []string{wooSecret, wooSecretOld}
		c.WooCommerce.Stores = map[string]string{"woo.example.com": wooStore}
		c.WooCommerce.Domains = map[string]string{"https://woo.example.com": hubDomain}
		for _, src := range sources {
			c.WooCommerce.Stores[src] = wooStore
			c.WooCommerce.Domains[src] = hubDomain
		}
		c.WooCommerce.DesignMeta = meta
	})
	return h, storesim.NewWooCommerce(wooSecret, wooSource, "ck_test", "cs_test")
}

func (h *harness) postWoo(d storesim.WooDelivery) response {
	h.t.Helper()
	return h.post("/webhooks/woocommerce", d.Body, d.Header.Clone())
}

func wooKey(id int64) string { return wooStore + "/" + hubDomain + "/" + strconv.FormatInt(id, 10) }

func TestWooCommerceWebhook(t *testing.T) {
	t.Parallel()
	paid := storesim.WooSampleOrder(501, "design", wooCreated)
	unpaid := paid
	unpaid.Status, unpaid.DatePaidGMT = "pending", nil
	onHoldPaid := paid
	onHoldPaid.Status = "on-hold"
	cancelled := paid
	cancelled.Status = "cancelled"
	refunded := paid
	refunded.Status = "refunded"
	draft := unpaid
	draft.Status = "checkout-draft"
	displayKey := storesim.WooSampleOrder(502, "Design", wooCreated)
	for i := range displayKey.LineItems {
		for j := range displayKey.LineItems[i].MetaData {
			if displayKey.LineItems[i].MetaData[j].DisplayKey == "Design" {
				displayKey.LineItems[i].MetaData[j].Key = "pers_design_ref"
			}
		}
	}
	exports := func(id int64) []string {
		return []string{"export " + wooKey(id) + " " + wooRef1 + " x2", "export " + wooKey(id) + " " + wooRef2 + " x1"}
	}
	tests := []struct {
		name   string
		topic  string
		order  storesim.WooOrder
		result string
		tasks  []string
	}{
		{name: "paid order is created and exported", topic: "order.created", order: paid, result: "enqueued",
			tasks: append(exports(501), "push create "+wooKey(501))},
		{name: "unpaid order is pushed, not exported", topic: "order.created", order: unpaid, result: "enqueued",
			tasks: []string{"push create " + wooKey(501)}},
		{name: "an order on hold after payment is exported", topic: "order.updated", order: onHoldPaid, result: "enqueued",
			tasks: append(exports(501), "push update "+wooKey(501))},
		{name: "cancellation deletes the hub order and stops its work", topic: "order.updated", order: cancelled, result: "enqueued",
			tasks: []string{"push delete " + wooKey(501)}},
		{name: "refund deletes the hub order", topic: "order.updated", order: refunded, result: "enqueued",
			tasks: []string{"push delete " + wooKey(501)}},
		{name: "deletion carries the id alone", topic: "order.deleted", order: paid, result: "enqueued",
			tasks: []string{"push delete " + wooKey(501)}},
		{name: "restore creates the order again", topic: "order.restored", order: paid, result: "enqueued",
			tasks: append(exports(501), "push create "+wooKey(501))},
		{name: "checkout draft is not an order yet", topic: "order.created", order: draft, result: "ignored"},
		{name: "design found by the meta's display key", topic: "order.created", order: displayKey, result: "enqueued",
			tasks: append(exports(502), "push create "+wooKey(502))},
		{name: "other topics are taken and dropped", topic: "product.updated", order: paid, result: "ignored"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			meta := "design"
			if tc.order.ID == 502 {
				meta = "Design"
			}
			h, site := wooHarness(t, meta)
			checkStoreWebhook(t, h, h.postWoo(site.Webhook(tc.topic, tc.order)), tc.result, tc.tasks)
		})
	}
}

// checkStoreWebhook checks a webhook's answer and the tasks it enqueued; the order a
// create pushes must pass the hub's validation with the sample order's fields (both
// simulators' samples hold the same customer and lines).
func checkStoreWebhook(t *testing.T, h *harness, r response, result string, tasks []string) {
	t.Helper()
	if r.Status != http.StatusOK || r.Body.Status != result {
		t.Fatalf("answer %d %s, want 200 %s", r.Status, r.Raw, result)
	}
	ts := h.tasks()
	if got := summary(t, ts); !slices.Equal(got, tasks) {
		t.Fatalf("tasks\n got %q\nwant %q", got, tasks)
	}
	if result != "enqueued" || !strings.HasPrefix(tasks[len(tasks)-1], "push c") {
		return
	}
	o := pushedOrder(t, ts)
	if err := hub.ValidateOrder(o, []string{hubDomain}); err != nil {
		t.Fatalf("pushed order is invalid for the hub: %v", err)
	}
	if o.Email != "zoe@example.com" || o.FirstName != "Zoë" || o.LastName != "Brandt" || o.ShippingDetails.City != "Köln" ||
		o.BillingDetails.Zip != "50667" || o.BillingDetails.Province != "NW" || o.BillingDetails.CountryCode != "DE" ||
		o.Created != "2024-03-14T13:00:00.000Z" || o.Updated != "2024-03-14T13:02:00.000Z" ||
		len(o.LineItems) != 2 || o.LineItems[0].Price != 12.5 || o.LineItems[0].Quantity != 2 || o.LineItems[1].Price != 20 {
		t.Fatalf("pushed order lost fields: %+v", o)
	}
}

func TestWooCommerceRefusals(t *testing.T) {
	t.Parallel()
	h, site := wooHarness(t, "design")
	order := storesim.WooSampleOrder(601, "design", wooCreated)

	// Signed with a secret the intake does not know.
	other := storesim.NewWooCommerce("not-the-secret", wooSource, "", "")
	if r := h.postWoo(other.Webhook("order.created", order)); r.Status != http.StatusUnauthorized || r.Body.Status != "unauthorized" {
		t.Fatalf("wrong secret: %d %s, want 401", r.Status, r.Raw)
	}
	// The body changed after signing.
	d := site.Webhook("order.created", order)
	d.Body = []byte(strings.Replace(string(d.Body), `"quantity":2`, `"quantity":200`, 1))
	if r := h.postWoo(d); r.Status != http.StatusUnauthorized {
		t.Fatalf("tampered body: %d %s, want 401", r.Status, r.Raw)
	}
	// Unsigned, and not the ping.
	d = site.Webhook("order.created", order)
	d.Header.Del("X-WC-Webhook-Signature")
	if r := h.postWoo(d); r.Status != http.StatusUnauthorized {
		t.Fatalf("unsigned: %d %s, want 401", r.Status, r.Raw)
	}
	// A site no mapping covers.
	stranger := storesim.NewWooCommerce(wooSecret, "https://elsewhere.example.org", "", "")
	if r := h.postWoo(stranger.Webhook("order.created", order)); r.Status != http.StatusUnprocessableEntity {
		t.Fatalf("unmapped site: %d %s, want 422", r.Status, r.Raw)
	}
	// The ping when the webhook is saved: 200, nothing trusted.
	if st, err := site.Ping(context.Background(), nil, h.url+"/webhooks/woocommerce"); err != nil || st != http.StatusOK {
		t.Fatalf("ping: %d %v, want 200", st, err)
	}
	if ts := h.tasks(); len(ts) != 0 {
		t.Fatalf("refused webhooks enqueued %q", summary(t, ts))
	}
	// The previous secret still verifies (rotation).
	old := storesim.NewWooCommerce(wooSecretOld, wooSource, "", "")
	if r := h.postWoo(old.Webhook("order.created", order)); r.Status != http.StatusOK || r.Body.Status != "enqueued" {
		t.Fatalf("previous secret: %d %s, want 200 enqueued", r.Status, r.Raw)
	}
}

// TestWooCommerceDuplicatesAndReordering: WooCommerce retries a delivery whose
// answer it lost and runs its queue concurrently. Each delivery twice, in reverse
// order: the newer event's work is enqueued once, the older one arriving after it is
// stale (store order) and enqueues nothing, its repeat is a duplicate.
func TestWooCommerceDuplicatesAndReordering(t *testing.T) {
	t.Parallel()
	h, site := wooHarness(t, "design")
	unpaid := storesim.WooSampleOrder(701, "design", wooCreated)
	unpaid.Status, unpaid.DatePaidGMT = "pending", nil
	paid := storesim.WooSampleOrder(701, "design", wooCreated)
	paid.DateModifiedGMT = storesim.WooGMT(wooCreated.Add(5 * time.Minute))
	ds := []storesim.WooDelivery{site.Webhook("order.created", unpaid), site.Webhook("order.updated", paid)}
	sts, err := storesim.DeliverAll(context.Background(), nil, h.url+"/webhooks/woocommerce", ds, storesim.DeliveryFaults{Duplicate: true, Reverse: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(sts, []int{200, 200, 200, 200}) {
		t.Fatalf("answers %v, want 200 each", sts)
	}
	want := []string{
		"export " + wooKey(701) + " " + wooRef1 + " x2",
		"export " + wooKey(701) + " " + wooRef2 + " x1",
		"push update " + wooKey(701),
	}
	if got := summary(t, h.tasks()); !slices.Equal(got, want) {
		t.Fatalf("tasks\n got %q\nwant %q", got, want)
	}
	h.wantOutcome("woocommerce", "stale", 1)
	h.wantOutcome("woocommerce", "duplicate", 2)
}

// TestWooCommerceHiddenMetaFetch: with the reference under a hidden key the webhook
// enqueues an order fetch; the fetch reads the order through the simulated REST API,
// rides out 429 with Retry-After, 5xx and a hung answer as retryable errors, and
// finally enqueues the order's push and exports: no order is lost.
func TestWooCommerceHiddenMetaFetch(t *testing.T) {
	t.Parallel()
	site, api := wooSite(t)
	site.Source = api.URL + "/"
	h, _ := wooHarness(t, "_design_ref", api.URL)
	order := storesim.WooSampleOrder(801, "_design_ref", wooCreated)
	site.Put(order)

	d := site.Webhook("order.created", order)
	if strings.Contains(string(d.Body), "_design_ref") {
		t.Fatal("the simulator sent a hidden meta key in the webhook body")
	}
	for range 2 {
		if r := h.postWoo(d); r.Status != http.StatusOK {
			t.Fatalf("webhook: %d %s", r.Status, r.Raw)
		}
	}
	ts := h.tasks()
	if len(ts) != 1 || ts[0].Type != jobs.TypeOrderFetch {
		t.Fatalf("tasks %q, want one order fetch", summary(t, ts))
	}
	fetch := ts[0]
	if err := h.insp.DeleteTask(fetch.Queue, fetch.ID); err != nil {
		t.Fatal(err)
	}

	f := wooFetcher(t, h, &intake.WooCommerceAPI{URL: api.URL, ConsumerKey: "ck_test", ConsumerSecret: "cs_test",
		// The hung answer ends at the client's timeout.
		HTTP: &http.Client{Timeout: 300 * time.Millisecond, CheckRedirect: intake.NoRedirect}})
	site.Fail(storesim.WooFault{Status: 429, RetryAfter: "7"}, storesim.WooFault{Status: 502}, storesim.WooFault{Hang: true})
	task := asynq.NewTask(fetch.Type, fetch.Payload)
	var errs []error
	for range 10 {
		err := f.ProcessTask(context.Background(), task)
		if err == nil {
			break
		}
		errs = append(errs, err)
	}
	if len(errs) != 3 {
		t.Fatalf("%d failed attempts (%v), want 3", len(errs), errs)
	}
	for i, err := range errs {
		var r interface{ Retryable() bool }
		if !errors.As(err, &r) || !r.Retryable() {
			t.Errorf("attempt %d: %v is not retryable", i, err)
		}
	}
	var ra interface{ RetryAfter() time.Duration }
	if !errors.As(errs[0], &ra) || ra.RetryAfter() != 7*time.Second {
		t.Errorf("429: %v does not carry Retry-After 7s", errs[0])
	}
	if got, want := summary(t, h.tasks()), wooCreatedTasks(801); !slices.Equal(got, want) {
		t.Fatalf("tasks after the fetch\n got %q\nwant %q", got, want)
	}
	reqs := site.Requests()
	if len(reqs) != 4 || reqs[3] != "GET /wp-json/wc/v3/orders/801?all_item_meta=true" {
		t.Fatalf("api requests %q", reqs)
	}

	// An order of another site is not read from this one.
	other := storesim.NewWooCommerce(wooSecret, wooSource, "", "")
	if r := h.postWoo(other.Webhook("order.created", order)); r.Status != http.StatusOK {
		t.Fatalf("webhook: %d %s", r.Status, r.Raw)
	}
	for _, tk := range h.tasks() {
		if tk.Type != jobs.TypeOrderFetch {
			continue
		}
		err := f.ProcessTask(context.Background(), asynq.NewTask(tk.Type, tk.Payload))
		var r interface{ Retryable() bool }
		if err == nil || !errors.As(err, &r) || r.Retryable() || !strings.Contains(err.Error(), "woo.example.com") {
			t.Errorf("fetch of another site's order: %v, want a permanent error naming the site", err)
		}
	}
	if n := len(site.Requests()); n != 4 {
		t.Errorf("%d api requests, want 4: another site's order was fetched", n)
	}

	// Wrong credentials and a vanished order are permanent.
	for _, tc := range []struct {
		name string
		api  intake.WooCommerceAPI
		id   string
	}{
		{"wrong key", intake.WooCommerceAPI{URL: api.URL, ConsumerKey: "ck_test", ConsumerSecret: "wrong"}, "801"},
		{"unknown order", intake.WooCommerceAPI{URL: api.URL, ConsumerKey: "ck_test", ConsumerSecret: "cs_test"}, "999"},
	} {
		_, err := tc.api.Order(context.Background(), tc.id)
		var r interface{ Retryable() bool }
		if err == nil || !errors.As(err, &r) || r.Retryable() {
			t.Errorf("%s: %v, want a permanent error", tc.name, err)
		}
	}
}

// TestWooCommerceLegacyStoreFetch: a store:fetch task an older version enqueued
// (payload version 1, its own layout) still runs: the order fetch handler reads it
// as an order fetch, fetches the order and enqueues its push and exports.
func TestWooCommerceLegacyStoreFetch(t *testing.T) {
	t.Parallel()
	site, api := wooSite(t)
	h, _ := wooHarness(t, "_design_ref", api.URL)
	site.Put(storesim.WooSampleOrder(802, "_design_ref", wooCreated))
	f := wooFetcher(t, h, &intake.WooCommerceAPI{URL: api.URL, ConsumerKey: "ck_test", ConsumerSecret: "cs_test"})
	// The payload as jobs.StoreFetch wrote it.
	legacy := `{"v":1,"store":"` + wooStore + `","domain":"` + hubDomain + `","orderId":"802","platform":"woocommerce",` +
		`"topic":"order.created","designKey":"_design_ref","delivery":"d-802"}`
	if err := f.ProcessTask(context.Background(), asynq.NewTask(jobs.TypeStoreFetch, []byte(legacy))); err != nil {
		t.Fatal(err)
	}
	if got, want := summary(t, h.tasks()), wooCreatedTasks(802); !slices.Equal(got, want) {
		t.Fatalf("tasks after the legacy fetch\n got %q\nwant %q", got, want)
	}
}

// wooSite is a simulated WooCommerce site with its REST API served.
func wooSite(t *testing.T) (*storesim.WooCommerce, *httptest.Server) {
	t.Helper()
	site := storesim.NewWooCommerce(wooSecret, "", "ck_test", "cs_test")
	api := httptest.NewServer(site)
	t.Cleanup(api.Close)
	t.Cleanup(site.Close)
	return site, api
}

// wooFetcher is the order fetch handler over the site's API woo, enqueueing into
// the harness's Redis.
func wooFetcher(t *testing.T, h *harness, woo *intake.WooCommerceAPI) *intake.Fetcher {
	t.Helper()
	enq, err := jobs.NewEnqueuer(h.rdb, jobs.EnqueuerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	f, err := intake.NewFetcher(intake.DefaultConfig(), intake.JobsEnqueuer(enq), netguard.Must("127.0.0.1"),
		intake.WithWooCommerceAPI(woo), intake.WithFetchLogger(slogDiscard()))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// wooCreatedTasks are the tasks of storesim.WooSampleOrder id, created and paid.
func wooCreatedTasks(id int64) []string {
	return []string{
		"export " + wooKey(id) + " " + wooRef1 + " x2",
		"export " + wooKey(id) + " " + wooRef2 + " x1",
		"push create " + wooKey(id),
	}
}

func TestWooCommerceAPIRefusesPlainHTTP(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"http://shop.example.com", "ftp://shop.example.com", "shop.example.com"} {
		a := intake.WooCommerceAPI{URL: u, ConsumerKey: "k", ConsumerSecret: "s"}
		if err := a.Validate(); err == nil {
			t.Errorf("%s: accepted", u)
		}
	}
	for _, u := range []string{"https://shop.example.com", "http://127.0.0.1:8080", "http://[::1]:80/shop"} {
		a := intake.WooCommerceAPI{URL: u, ConsumerKey: "k", ConsumerSecret: "s"}
		if err := a.Validate(); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}

// TestWooCommerceRestoreAfterDelete: an order trashed in WooCommerce (hub delete,
// exports stopped) and restored is created and exported again: the deletion does
// not stick to it.
func TestWooCommerceRestoreAfterDelete(t *testing.T) {
	t.Parallel()
	h, site := wooHarness(t, "design")
	order := storesim.WooSampleOrder(901, "design", wooCreated)
	enq, err := jobs.NewEnqueuer(h.rdb, jobs.EnqueuerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	k := jobs.OrderKey{Store: wooStore, Domain: hubDomain, OrderID: "901"}
	for _, topic := range []string{"order.deleted", "order.restored"} {
		if r := h.postWoo(site.Webhook(topic, order)); r.Status != http.StatusOK || r.Body.Status != "enqueued" {
			t.Fatalf("%s: %d %s", topic, r.Status, r.Raw)
		}
		if topic == "order.deleted" {
			// What the worker records once the hub deleted the order.
			if err := enq.State().PushDone(context.Background(), k, jobs.OpDelete, ""); err != nil {
				t.Fatal(err)
			}
		}
	}
	want := []string{
		"export " + wooKey(901) + " " + wooRef1 + " x2",
		"export " + wooKey(901) + " " + wooRef2 + " x1",
		"push create " + wooKey(901),
		"push delete " + wooKey(901),
	}
	if got := summary(t, h.tasks()); !slices.Equal(got, want) {
		t.Fatalf("tasks\n got %q\nwant %q", got, want)
	}
	if reason, err := enq.State().PushStale(context.Background(), k, "2024-03-14T13:02:00.000Z"); err != nil || reason != "" {
		t.Fatalf("the restored order's create would be skipped: %q %v", reason, err)
	}
}
