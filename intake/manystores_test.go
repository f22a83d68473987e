package intake_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/internal/netguard"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storesim"
)

// TestManyStoresPerPlatform: one deployment serves two BigCommerce stores and two
// Etsy shops, each with its hub store, order domain and API token; the second of
// each has a webhook secret of its own. Every order reaches its own hub store, read
// with its own store's token; a delivery signed with one store's secret but naming
// the other is refused.
func TestManyStoresPerPlatform(t *testing.T) {
	t.Parallel()
	const (
		bcHash2, bcToken2, bcSecret2 = "def456uvw", "bc-token-2", "bc-secret-of-store-2"
		etsyShop2, etsyToken2        = "42424242", "etsy-token-2"
	)
	etsySecret2 := "whsec_" + base64.StdEncoding.EncodeToString([]byte("the-second-shop-signing-key-32b!"))
	bc1 := storesim.NewBigCommerce(bcHash, bcToken, bcSecret)
	bc2 := storesim.NewBigCommerce(bcHash2, bcToken2, bcSecret2)
	etsy1 := storesim.NewEtsy(etsyShop, etsyKey, etsyToken, etsySecret)
	etsy2 := storesim.NewEtsy(etsyShop2, etsyKey, etsyToken2, etsySecret2)
	// One API server answering for every store, as api.bigcommerce.com and
	// openapi.etsy.com do.
	mux := http.NewServeMux()
	mux.Handle("/stores/"+bcHash+"/", bc1.Handler())
	mux.Handle("/stores/"+bcHash2+"/", bc2.Handler())
	mux.Handle("/v3/application/shops/"+etsyShop+"/", etsy1.Handler())
	mux.Handle("/v3/application/shops/"+etsyShop2+"/", etsy2.Handler())
	p := newPlatform(t, mux, func(c *intake.Config, apiURL string) {
		c.BigCommerce = intake.BigCommerce{Secrets: []string{bcSecret}, StoreHash: bcHash, Store: "hub-bc-1",
			Domain: "bc1.example", Token: bcToken, APIURL: apiURL, DesignOption: "design",
			Stores: []intake.BigCommerceStore{{StoreHash: bcHash2, Store: "hub-bc-2", Domain: "bc2.example", Token: bcToken2, Secrets: []string{bcSecret2}}}}
		c.Etsy = intake.Etsy{Secrets: []string{etsySecret}, ShopID: etsyShop, Store: "hub-etsy-1", Domain: "etsy1.example",
			APIKey: etsyKey, Token: etsyToken, APIURL: apiURL, DesignVariation: "Personalization",
			Shops: []intake.EtsyShop{{ShopID: etsyShop2, Store: "hub-etsy-2", Domain: "etsy2.example", Token: etsyToken2, Secrets: []string{etsySecret2}}}}
	})
	bc1.Put(bcOrder(100, 11, "Awaiting Fulfillment"))
	bc2.Put(bcOrder(200, 11, "Awaiting Fulfillment"))
	etsy1.Put(etsyReceipt(5001, "paid", true, etsyModified))
	etsy2.Put(etsyReceipt(6001, "paid", true, etsyModified))

	for _, wh := range []storesim.Webhook{p.bcWebhook(bc1, bcStatus, 100), p.bcWebhook(bc2, bcStatus, 200)} {
		if st := p.send(bcPath, wh); st != http.StatusOK {
			t.Fatalf("bigcommerce: %d", st)
		}
	}
	for _, wh := range []storesim.Webhook{p.etsyWebhook(etsy1, 5001), p.etsyFlat(etsySecret2, "msg_2", "order.paid", etsyShop2, 6001)} {
		if st := p.send(etsyPath, wh); st != http.StatusOK {
			t.Fatalf("etsy: %d", st)
		}
	}
	// Store 1's secret speaking for store 2: refused.
	forged := storesim.NewBigCommerce(bcHash2, bcToken2, bcSecret)
	forged.Put(bcOrder(201, 11, "Awaiting Fulfillment"))
	if st := p.send(bcPath, p.bcWebhook(forged, bcStatus, 201)); st != http.StatusUnauthorized {
		t.Errorf("store 2's webhook signed with store 1's secret: %d, want 401", st)
	}
	if st := p.send(etsyPath, p.etsyFlat(etsySecret, "msg_3", "order.paid", etsyShop2, 6001)); st != http.StatusUnauthorized {
		t.Errorf("shop 2's webhook signed with shop 1's secret: %d, want 401", st)
	}
	// A store no one configured: 422, as before.
	stranger := storesim.NewBigCommerce("zzz999", "t", bcSecret)
	if st := p.send(bcPath, p.bcWebhook(stranger, bcStatus, 1)); st != http.StatusUnprocessableEntity {
		t.Errorf("an unknown store: %d, want 422", st)
	}
	if errs := p.runFetches(); len(errs) > 0 {
		t.Fatal(errs)
	}
	got := p.work(t)
	for _, want := range []string{
		"push update hub-bc-1/bc1.example/100", "push update hub-bc-2/bc2.example/200",
		"push update hub-etsy-1/etsy1.example/5001", "push update hub-etsy-2/etsy2.example/6001",
	} {
		if !slices.Contains(got, want) {
			t.Errorf("missing %q in %q", want, got)
		}
	}
	for _, notWant := range []string{"201", "zzz999"} {
		for _, g := range got {
			if g == "push update hub-bc-2/bc2.example/"+notWant {
				t.Errorf("a refused delivery was enqueued: %q", g)
			}
		}
	}
	// Each store's API was read with its own token (the simulators refuse others).
	for name, n := range map[string]int{"bc1": len(bc1.Requests()), "bc2": len(bc2.Requests()), "etsy1": len(etsy1.Requests()), "etsy2": len(etsy2.Requests())} {
		if n == 0 {
			t.Errorf("%s's API was never read", name)
		}
	}
}

// TestBigCommerceHeaderSecret: hooks created with custom headers (POST /v3/hooks
// "headers"), as BigCommerce documents them, carry no signature: the configured
// header secret admits them (constant-time compare, any of the rotated values). A
// signature, when sent, is still checked; neither is 401 with nothing enqueued.
func TestBigCommerceHeaderSecret(t *testing.T) {
	t.Parallel()
	sim := storesim.NewBigCommerce(bcHash, bcToken, bcSecret)
	p := newPlatform(t, sim.Handler(), func(c *intake.Config, apiURL string) {
		c.BigCommerce = intake.BigCommerce{Secrets: []string{bcSecret}, HeaderSecrets: []string{"hdr-old", "hdr-current"},
			HeaderName: "X-Shop-Token", StoreHash: bcHash, Store: hubStore, Domain: hubDomain, Token: bcToken,
			APIURL: apiURL, DesignOption: "design"}
	})
	sim.Put(bcOrder(100, 11, "Awaiting Fulfillment"))
	signed := p.bcWebhook(sim, bcStatus, 100)
	unsigned := func(header, value string) storesim.Webhook {
		h := http.Header{"Content-Type": {"application/json"}}
		if header != "" {
			h.Set(header, value)
		}
		return storesim.Webhook{Header: h, Body: signed.Body}
	}
	wrongSig := storesim.Webhook{Header: signed.Header.Clone(), Body: signed.Body}
	wrongSig.Header.Set("webhook-signature", "v1,"+base64.StdEncoding.EncodeToString(make([]byte, 32)))
	wrongSig.Header.Set("X-Shop-Token", "hdr-current")
	for _, tc := range []struct {
		name string
		wh   storesim.Webhook
		want int
	}{
		{"no signature, no header", unsigned("", ""), http.StatusUnauthorized},
		{"wrong header value", unsigned("X-Shop-Token", "hdr-wrong"), http.StatusUnauthorized},
		{"the default header name instead of the configured one", unsigned("X-Printworker-Secret", "hdr-current"), http.StatusUnauthorized},
		{"a wrong signature beside a right header", wrongSig, http.StatusUnauthorized},
		{"header secret, current", unsigned("X-Shop-Token", "hdr-current"), http.StatusOK},
		{"header secret, the one rotated out", unsigned("x-shop-token", "hdr-old"), http.StatusOK},
		{"signed", signed, http.StatusOK},
	} {
		before := len(p.fetchTasks())
		if st := p.send(bcPath, tc.wh); st != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, st, tc.want)
		}
		if tc.want != http.StatusOK && len(p.fetchTasks()) != before {
			t.Errorf("%s: refused, yet enqueued", tc.name)
		}
	}
	// The three accepted deliveries are one event (BigCommerce's hash): one fetch.
	if n := len(p.fetchTasks()); n != 1 {
		t.Errorf("%d fetches, want 1", n)
	}

	// Only a header secret configured: a signed delivery (the signature cannot be
	// checked here) is taken on its header, and refused without it.
	hp := newPlatform(t, sim.Handler(), func(c *intake.Config, apiURL string) {
		c.BigCommerce = intake.BigCommerce{HeaderSecrets: []string{"hdr-current"}, StoreHash: bcHash, Store: hubStore,
			Domain: hubDomain, Token: bcToken, APIURL: apiURL, DesignOption: "design"}
	})
	withHeader := storesim.Webhook{Header: signed.Header.Clone(), Body: signed.Body}
	withHeader.Header.Set("X-Printworker-Secret", "hdr-current")
	if st := hp.send(bcPath, withHeader); st != http.StatusOK {
		t.Errorf("signed, right header, no signing secret configured: %d, want 200", st)
	}
	if st := hp.send(bcPath, signed); st != http.StatusUnauthorized {
		t.Errorf("signed, no header, no signing secret configured: %d, want 401", st)
	}
}

// TestBigCommerceFetchInStoreOrder: two fetches of one order run out of order: the
// one that read the cancelled order (newer date_modified) runs first, then one that
// read it paid (older). The older read is stale: dropped without a retry, and the
// order stays deleted with nothing exported.
func TestBigCommerceFetchInStoreOrder(t *testing.T) {
	t.Parallel()
	p, sim := newBigCommerce(t)
	reg := prometheus.NewRegistry()
	if err := p.fetcher.RegisterMetrics(reg); err != nil {
		t.Fatal(err)
	}
	cancelled := bcOrder(100, 5, "Cancelled")
	cancelled.Modified = cancelled.Modified.Add(time.Minute)
	sim.Put(cancelled)
	if st := p.send(bcPath, p.bcWebhook(sim, bcStatus, 100)); st != http.StatusOK {
		t.Fatalf("cancel: %d", st)
	}
	if errs := p.runFetches(); len(errs) > 0 {
		t.Fatal(errs)
	}
	sim.Put(bcOrder(100, 11, "Awaiting Fulfillment")) // what the late fetch reads
	if st := p.send(bcPath, p.bcWebhook(sim, bcStatus, 100)); st != http.StatusOK {
		t.Fatalf("paid: %d", st)
	}
	if errs := p.runFetches(); len(errs) > 0 {
		t.Fatalf("a stale fetch must end without a retry: %v", errs)
	}
	key := hubStore + "/" + hubDomain + "/100"
	if got := p.work(t); !slices.Equal(got, []string{"push delete " + key}) {
		t.Errorf("tasks %q, want the delete alone", got)
	}
	if n, err := testutil.GatherAndCount(reg, "printworker_fetch_stale_total"); err != nil || n != 1 {
		t.Errorf("stale fetch counter: %d series, %v", n, err)
	}
}

// TestWooCommerceTwoSitesHiddenMeta: two WooCommerce sites with the reference under
// a hidden key: each webhook's fetch reads its own site's REST API (the flags' site
// and one more from the stores file), each order reaching its own hub store.
func TestWooCommerceTwoSitesHiddenMeta(t *testing.T) {
	t.Parallel()
	siteA, apiA := wooSite(t)
	siteA.Source = apiA.URL + "/"
	siteB := storesim.NewWooCommerce(wooSecret, "", "ck_b", "cs_b")
	apiB := httptest.NewServer(siteB)
	t.Cleanup(apiB.Close)
	t.Cleanup(siteB.Close)
	siteB.Source = apiB.URL + "/"
	h := newHarness(t, func(c *intake.Config) {
		c.WooCommerce.Secrets = []string{wooSecret}
		c.WooCommerce.DesignMeta = "_design_ref"
		c.WooCommerce.Stores = map[string]string{apiA.URL: "hub-a", apiB.URL: "hub-b"}
		c.WooCommerce.Domains = map[string]string{apiA.URL: "a.example", apiB.URL: "b.example"}
	})
	for _, s := range []*storesim.WooCommerce{siteA, siteB} {
		o := storesim.WooSampleOrder(801, "_design_ref", wooCreated)
		s.Put(o)
		if r := h.postWoo(s.Webhook("order.created", o)); r.Status != http.StatusOK || r.Body.Status != "enqueued" {
			t.Fatalf("webhook: %d %s", r.Status, r.Raw)
		}
	}
	enq, err := jobs.NewEnqueuer(h.rdb, jobs.EnqueuerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Timeout: 5 * time.Second, CheckRedirect: intake.NoRedirect}
	f, err := intake.NewFetcher(intake.DefaultConfig(), intake.JobsEnqueuer(enq), netguard.Must("127.0.0.1"), intake.WithFetchLogger(slogDiscard()),
		intake.WithWooCommerceAPI(&intake.WooCommerceAPI{URL: apiA.URL, ConsumerKey: "ck_test", ConsumerSecret: "cs_test", HTTP: client}),
		intake.WithWooCommerceSites(&intake.WooCommerceAPI{URL: apiB.URL, ConsumerKey: "ck_b", ConsumerSecret: "cs_b", HTTP: client}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range h.tasks() {
		if tk.Type == jobs.TypeOrderFetch {
			if err := f.ProcessTask(context.Background(), asynq.NewTask(tk.Type, tk.Payload)); err != nil {
				t.Fatal(err)
			}
		}
	}
	got := summary(t, h.tasks())
	for _, want := range []string{"push create hub-a/a.example/801", "push create hub-b/b.example/801"} {
		if !slices.Contains(got, want) {
			t.Errorf("missing %q in %q", want, got)
		}
	}
	if len(siteA.Requests()) != 1 || len(siteB.Requests()) != 1 {
		t.Errorf("reads: site A %q, site B %q; want one each", siteA.Requests(), siteB.Requests())
	}
}

// TestShopifyShopSecrets: shops with secrets of their own (the stores file): each
// shop's deliveries must carry its own secret; the flags' secrets serve the other
// shops only.
func TestShopifyShopSecrets(t *testing.T) {
	t.Parallel()
	const second = "Second.myshopify.com"
	h := newHarness(t, func(c *intake.Config) {
		c.Shopify.Stores["second.myshopify.com"] = "store-2"
		c.Shopify.ShopSecrets = map[string][]string{second: {"second-secret"}}
	})
	body := readFile(t, "order_customized.json")
	for i, tc := range []struct {
		shop, secret string
		want         int
	}{
		{shopDomain, shopSecret, http.StatusOK},
		{shopDomain, "second-secret", http.StatusUnauthorized},
		{"second.myshopify.com", shopSecret, http.StatusUnauthorized},
		{"second.myshopify.com", "second-secret", http.StatusOK},
	} {
		hdr := shopifyHeaders("orders/paid", body, "w-"+string(rune('a'+i)))
		hdr.Set("X-Shopify-Shop-Domain", tc.shop)
		hdr.Set("X-Shopify-Hmac-Sha256", shopifySign(tc.secret, body))
		if r := h.post("/webhooks/shopify", body, hdr); r.Status != tc.want {
			t.Errorf("shop %s signed with %s: %d %s, want %d", tc.shop, tc.secret, r.Status, r.Raw, tc.want)
		}
	}
}
