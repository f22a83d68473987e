package reconcile

import (
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/printworker/printworker/storesim"
)

// sleeps records the waits a Client asked for, returning at once.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

func testClient(s *sleeps) *Client {
	return &Client{HTTP: &http.Client{Timeout: 10 * time.Second}, Sleep: s.sleep}
}

// listAll reads every page of l from since.
func listAll(t *testing.T, l Lister, since time.Time) ([]Listed, int) {
	t.Helper()
	var out []Listed
	cursor, pages := "", 0
	for {
		p, err := l.List(context.Background(), since, cursor)
		if err != nil {
			t.Fatalf("%s page %d: %v", l.Platform(), pages+1, err)
		}
		pages++
		out = append(out, p.Orders...)
		if p.Next == "" {
			return out, pages
		}
		if pages > 10 {
			t.Fatalf("%s: more than 10 pages", l.Platform())
		}
		cursor = p.Next
	}
}

var (
	listBase  = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	listSince = listBase.Add(-time.Minute)
)

// simStore is one platform's simulator holding orders, and its lister.
type simStore struct {
	name string
	// size is the platform's page size.
	size int
	// build puts n orders changed from listBase on, a second apart, and 3 changed
	// before listSince; inject429 makes the next request a 429 asking for 3 s.
	build func(t *testing.T, s *sleeps, n int) (l Lister, inject429 func(), requests func() []string)
}

var simStores = []simStore{
	{name: "shopify", size: shopifyPageSize, build: func(t *testing.T, s *sleeps, n int) (Lister, func(), func() []string) {
		sim := storesim.NewShopify("my-shop.myshopify.com", "secret", "shpat_1")
		sim.RetryAfter = 3 * time.Second
		for i := range n + 3 {
			o := storesim.ShopifySampleOrder(int64(1000+i), listBase)
			o.UpdatedAt = storesim.ShopifyStamp(modified(i, n))
			sim.Put(o)
		}
		srv := httptest.NewServer(sim.Handler())
		t.Cleanup(srv.Close)
		return &Shopify{Client: testClient(s), ShopDomain: "my-shop.myshopify.com", BaseURL: srv.URL, Token: "shpat_1"},
			func() { sim.Inject(storesim.RateLimited) }, sim.Requests
	}},
	{name: "woocommerce", size: wooPageSize, build: func(t *testing.T, s *sleeps, n int) (Lister, func(), func() []string) {
		sim := storesim.NewWooCommerce("whs", "https://shop.example.com/", "ck", "cs")
		for i := range n + 3 {
			o := storesim.WooSampleOrder(int64(1000+i), "design", listBase)
			o.DateModifiedGMT = storesim.WooGMT(modified(i, n))
			sim.Put(o)
		}
		srv := httptest.NewServer(sim)
		t.Cleanup(srv.Close)
		return &WooCommerce{Client: testClient(s), URL: srv.URL, ConsumerKey: "ck", ConsumerSecret: "cs"},
			func() { sim.Fail(storesim.WooFault{Status: http.StatusTooManyRequests, RetryAfter: "3"}) }, sim.Requests
	}},
	{name: "bigcommerce", size: bcPageSize, build: func(t *testing.T, s *sleeps, n int) (Lister, func(), func() []string) {
		sim := storesim.NewBigCommerce("abc123", "tok", "secret")
		sim.RetryAfter = 3 * time.Second
		for i := range n + 3 {
			sim.Put(storesim.BCOrder{ID: 1000 + i, StatusID: 11, Created: listBase, Modified: modified(i, n)})
		}
		srv := httptest.NewServer(sim.Handler())
		t.Cleanup(srv.Close)
		return &BigCommerce{Client: testClient(s), APIURL: srv.URL, StoreHash: "abc123", Token: "tok"},
			func() { sim.Inject(storesim.RateLimited) }, sim.Requests
	}},
	{name: "etsy", size: etsyPageSize, build: func(t *testing.T, s *sleeps, n int) (Lister, func(), func() []string) {
		sim := storesim.NewEtsy("42", "key", "tok", "whsec_"+base64.StdEncoding.EncodeToString([]byte("0123456789abcdef")))
		sim.RetryAfter = 3 * time.Second
		for i := range n + 3 {
			sim.Put(storesim.EtsyReceipt{ID: 1000 + i, Status: "paid", IsPaid: true, Created: listBase, Modified: modified(i, n)})
		}
		srv := httptest.NewServer(sim.Handler())
		t.Cleanup(srv.Close)
		return &Etsy{Client: testClient(s), APIURL: srv.URL, ShopID: "42", APIKey: "key", Token: "tok"},
			func() { sim.Inject(storesim.RateLimited) }, sim.Requests
	}},
	{name: "wix", size: wixPageSize, build: func(t *testing.T, s *sleeps, n int) (Lister, func(), func() []string) {
		sim := storesim.NewWixSite("site-1", "IST.key")
		sim.RetryAfter = 3 * time.Second
		for i := range n + 3 {
			o := storesim.WixSampleOrder("w-"+strconv.Itoa(1000+i), "design", listBase)
			o.UpdatedDate = modified(i, n).Format(time.RFC3339Nano)
			sim.Put(o)
		}
		srv := httptest.NewServer(sim.Handler())
		t.Cleanup(srv.Close)
		return &Wix{Client: testClient(s), APIURL: srv.URL, Instance: "inst-1", SiteID: "site-1", APIKey: "IST.key"},
			func() { sim.Inject(storesim.RateLimited) }, sim.Requests
	}},
}

// modified is order i's change time: the first n from listBase on, a second
// apart; the rest before listSince.
func modified(i, n int) time.Time {
	if i < n {
		return listBase.Add(time.Duration(i) * time.Second)
	}
	return listSince.Add(-time.Duration(i) * time.Minute)
}

// Every lister reads all the orders changed since the bound, oldest change first,
// each once, over the pages its platform serves, and none changed before; a 429
// is waited out for the time its Retry-After asks, and the page read again.
func TestListersPaginateAndWaitOutRateLimits(t *testing.T) {
	t.Parallel()
	for _, ss := range simStores {
		t.Run(ss.name, func(t *testing.T) {
			t.Parallel()
			var s sleeps
			n := ss.size + ss.size/2
			l, inject429, requests := ss.build(t, &s, n)
			inject429()
			got, pages := listAll(t, l, listSince)
			if pages != 2 {
				t.Errorf("%d pages, want 2", pages)
			}
			if len(got) != n {
				t.Fatalf("%d orders, want %d", len(got), n)
			}
			ids := map[string]bool{}
			for i, o := range got {
				if ids[o.ID] {
					t.Errorf("order %s listed twice", o.ID)
				}
				ids[o.ID] = true
				if !o.Modified.Equal(modified(i, n)) {
					t.Errorf("order %d: modified %s, want %s", i, o.Modified, modified(i, n))
				}
				if len(o.Raw) == 0 {
					t.Errorf("order %s: no body", o.ID)
				}
			}
			if !slices.Contains(s.all(), 3*time.Second) {
				t.Errorf("waits %v, want the 429's 3s", s.all())
			}
			if r := requests(); len(r) != 3 {
				t.Errorf("requests %q: want the 429, its retry and the second page", r)
			}
		})
	}
}

// A 503 is retried with the backoff; 401 ends the listing at once with a
// permanent error; a 429 asking for longer than MaxWait ends it retryable.
func TestClientClassifiesFailures(t *testing.T) {
	t.Parallel()
	var s sleeps
	sim := storesim.NewBigCommerce("abc123", "tok", "secret")
	sim.Put(storesim.BCOrder{ID: 1, StatusID: 11, Created: listBase, Modified: listBase})
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	c := testClient(&s)
	c.Backoff = func(n int) time.Duration { return time.Duration(n+1) * time.Millisecond }
	l := &BigCommerce{Client: c, APIURL: srv.URL, StoreHash: "abc123", Token: "tok"}

	sim.Inject(storesim.ServerError, storesim.ServerError)
	if got, _ := listAll(t, l, listSince); len(got) != 1 {
		t.Errorf("after two 503s: %d orders, want 1", len(got))
	}
	if w := s.all(); !slices.Equal(w, []time.Duration{time.Millisecond, 2 * time.Millisecond}) {
		t.Errorf("backoff waits %v", w)
	}

	bad := &BigCommerce{Client: c, APIURL: srv.URL, StoreHash: "abc123", Token: "wrong"}
	_, err := bad.List(context.Background(), listSince, "")
	var rc interface{ Retryable() bool }
	if err == nil || !errors.As(err, &rc) || rc.Retryable() {
		t.Errorf("401: %v, want a permanent error", err)
	}

	sim.RetryAfter = time.Hour
	c.MaxWait = time.Minute
	sim.Inject(storesim.RateLimited)
	_, err = l.List(context.Background(), listSince, "")
	if err == nil || !errors.As(err, &rc) || !rc.Retryable() {
		t.Errorf("429 for an hour: %v, want a retryable error", err)
	}
}

// Shopify's next-page link is the API's text, and the token goes with it: a link
// to another origin is refused.
func TestShopifyRefusesForeignNextPage(t *testing.T) {
	t.Parallel()
	l := &Shopify{Client: testClient(&sleeps{}), ShopDomain: "my-shop.myshopify.com", BaseURL: "https://my-shop.myshopify.com"}
	if _, err := l.List(context.Background(), listSince, "https://evil.example/admin/api/2025-01/orders.json?page_info=x"); err == nil {
		t.Fatal("a next page on another origin was followed")
	}
}

// An answer saying the window is spent (BigCommerce's X-Rate-Limit-Requests-Left:
// 0) makes the client wait for the window's reset before the next request.
func TestClientPacesSpentWindow(t *testing.T) {
	t.Parallel()
	var s sleeps
	sim := storesim.NewBigCommerce("abc123", "tok", "secret")
	sim.SpentWindow = 7 * time.Second
	sim.Put(storesim.BCOrder{ID: 1, StatusID: 11, Created: listBase, Modified: listBase})
	srv := httptest.NewServer(sim.Handler())
	t.Cleanup(srv.Close)
	l := &BigCommerce{Client: testClient(&s), APIURL: srv.URL, StoreHash: "abc123", Token: "tok"}
	if got, _ := listAll(t, l, listSince); len(got) != 1 {
		t.Fatalf("%d orders", len(got))
	}
	if w := s.all(); !slices.Equal(w, []time.Duration{7 * time.Second}) {
		t.Errorf("waits %v, want the window's 7s", w)
	}
}
