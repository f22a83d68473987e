package storesim_test

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"

	"github.com/printworker/printworker/storesim"
)

// The simulators' webhooks verify with the Standard Webhooks reference library, and
// the body is the platform's id-only shape.
func TestWebhooksVerifyWithReferenceLibrary(t *testing.T) {
	t.Parallel()
	bc := storesim.NewBigCommerce("h1", "tok", "client-secret")
	bc.Put(storesim.BCOrder{ID: 7, StatusID: 11})
	now := time.Now()
	wh, err := bc.Webhook("store/order/statusUpdated", 7, now)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := standardwebhooks.NewWebhookRaw([]byte("client-secret"))
	if err := ref.Verify(wh.Body, wh.Header); err != nil {
		t.Errorf("bigcommerce webhook: %v", err)
	}
	if !strings.Contains(string(wh.Body), `"producer":"stores/h1"`) || !strings.Contains(string(wh.Body), `"id":7`) {
		t.Errorf("bigcommerce body %s", wh.Body)
	}
	again, _ := bc.Webhook("store/order/statusUpdated", 7, now)
	if again.Header.Get("webhook-id") == wh.Header.Get("webhook-id") {
		t.Error("a repeated BigCommerce event reused the webhook-id")
	}

	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))
	et := storesim.NewEtsy("42", "key", "tok", secret)
	ewh, err := et.Webhook(9, now)
	if err != nil {
		t.Fatal(err)
	}
	eref, _ := standardwebhooks.NewWebhook(secret)
	if err := eref.Verify(ewh.Body, ewh.Header); err != nil {
		t.Errorf("etsy webhook: %v", err)
	}
	if !strings.Contains(string(ewh.Body), `/shops/42/receipts/9"`) {
		t.Errorf("etsy body %s", ewh.Body)
	}
}

// Faults are served in the order injected, then the API answers normally.
func TestFaultScript(t *testing.T) {
	t.Parallel()
	bc := storesim.NewBigCommerce("h1", "tok", "s")
	bc.Put(storesim.BCOrder{ID: 7, StatusID: 11})
	bc.RetryAfter = 2 * time.Second
	bc.HangFor = time.Minute
	srv := httptest.NewServer(bc.Handler())
	defer srv.Close()
	bc.Inject(storesim.RateLimited, storesim.ServerError, storesim.Hang)
	get := func(timeout time.Duration) (*http.Response, error) {
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/stores/h1/v2/orders/7", nil)
		req.Header.Set("X-Auth-Token", "tok")
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return resp, err
	}
	resp, err := get(10 * time.Second)
	if err != nil || resp.StatusCode != 429 || resp.Header.Get("Retry-After") != "2" || resp.Header.Get("X-Rate-Limit-Time-Reset-Ms") != "2000" {
		t.Fatalf("first: %v %+v", err, resp)
	}
	if resp, err = get(10 * time.Second); err != nil || resp.StatusCode != 503 {
		t.Fatalf("second: %v %+v", err, resp)
	}
	if _, err = get(100 * time.Millisecond); err == nil {
		t.Fatal("third: the hang answered")
	}
	if resp, err = get(10 * time.Second); err != nil || resp.StatusCode != 200 {
		t.Fatalf("fourth: %v %+v", err, resp)
	}
	if n := len(bc.Requests()); n != 4 || bc.Pending() != 0 {
		t.Errorf("%d requests seen, %d faults pending", n, bc.Pending())
	}
}

// Deliver sends the batch, then the duplicates, in order.
func TestDeliverDuplicates(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get("webhook-id"))
		mu.Unlock()
	}))
	defer srv.Close()
	bc := storesim.NewBigCommerce("h1", "tok", "s")
	a, _ := bc.Webhook("store/order/created", 1, time.Now())
	b, _ := bc.Webhook("store/order/created", 2, time.Now())
	sts, err := storesim.Deliver(context.Background(), http.DefaultClient, srv.URL, []storesim.Webhook{a, b}, storesim.Schedule{Duplicate: true})
	if err != nil || len(sts) != 4 {
		t.Fatalf("statuses %v, err %v", sts, err)
	}
	want := []string{a.Header.Get("webhook-id"), b.Header.Get("webhook-id"), a.Header.Get("webhook-id"), b.Header.Get("webhook-id")}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("sent %v, want %v", got, want)
	}
}
