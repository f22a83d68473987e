package intake_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/printworker/printworker/intake"
)

// hookAPI is a platform's webhook API as documented, in memory: list (GET), create
// (POST) and update (PUT .../{id}) of subscriptions, each a JSON object with an id,
// behind the platform's authentication.
type hookAPI struct {
	mu    sync.Mutex
	hooks []map[string]any
	next  int
	// wrap and unwrap the platform's envelope ({"data": ...}, {"webhook": ...} or none).
	envelope string
	auth     func(*http.Request) bool
	calls    []string
}

func (a *hookAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.calls = append(a.calls, r.Method)
	if !a.auth(r) {
		http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
		return
	}
	wrap := func(v any) any {
		if a.envelope == "" {
			return v
		}
		return map[string]any{a.envelope: v}
	}
	list := a.envelope
	if list == "webhook" {
		list = "webhooks"
	}
	switch r.Method {
	case http.MethodGet:
		if list == "" {
			json.NewEncoder(w).Encode(a.hooks)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{list: a.hooks})
	case http.MethodPost, http.MethodPut:
		var in map[string]any
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if a.envelope == "webhook" {
			in, _ = in["webhook"].(map[string]any)
		}
		if r.Method == http.MethodPost {
			a.next++
			in["id"] = float64(a.next)
			a.hooks = append(a.hooks, in)
			w.WriteHeader(http.StatusCreated)
			json.NewEncoder(w).Encode(wrap(in))
			return
		}
		id := strings.TrimSuffix(r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:], ".json")
		for _, h := range a.hooks {
			if n, _ := h["id"].(float64); strconv.Itoa(int(n)) == id {
				for k, v := range in {
					h[k] = v
				}
				json.NewEncoder(w).Encode(wrap(h))
				return
			}
		}
		http.NotFound(w, r)
	}
}

func (a *hookAPI) snapshot() []map[string]any {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, _ := json.Marshal(a.hooks)
	var out []map[string]any
	json.Unmarshal(b, &out)
	return out
}

func actions(rs []intake.HookResult) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Action+" "+r.Topic)
	}
	return out
}

// TestRegisterBigCommerce: the four order scopes are created with the custom header;
// a hook of another destination is left alone, an inactive one of ours is updated;
// a second run changes nothing.
func TestRegisterBigCommerce(t *testing.T) {
	t.Parallel()
	const dest = "https://intake.example.com/webhooks/bigcommerce"
	api := &hookAPI{envelope: "data", auth: func(r *http.Request) bool {
		return r.Header.Get("X-Auth-Token") == "tok" && strings.HasPrefix(r.URL.Path, "/stores/abc/v3/hooks")
	}}
	api.hooks = []map[string]any{
		{"id": float64(90), "scope": "store/order/created", "destination": "https://other.example/hook", "is_active": true},
		{"id": float64(91), "scope": "store/order/updated", "destination": dest, "is_active": false, "headers": map[string]any{"X-Printworker-Secret": "s3cret"}},
	}
	api.next = 100
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	got, err := intake.RegisterBigCommerce(ctx, srv.Client(), srv.URL, "abc", "tok", dest, "X-Printworker-Secret", "s3cret")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"created store/order/created", "updated store/order/updated", "created store/order/statusUpdated", "created store/order/archived"}
	if !slices.Equal(actions(got), want) {
		t.Fatalf("first run %q, want %q", actions(got), want)
	}
	for _, h := range api.snapshot() {
		if h["destination"] != dest {
			if h["scope"] != "store/order/created" || h["destination"] != "https://other.example/hook" {
				t.Errorf("another integration's hook changed: %v", h)
			}
			continue
		}
		hdr, _ := h["headers"].(map[string]any)
		if h["is_active"] != true || hdr["X-Printworker-Secret"] != "s3cret" {
			t.Errorf("hook %v: not active with the header", h)
		}
	}
	got, err = intake.RegisterBigCommerce(ctx, srv.Client(), srv.URL, "abc", "tok", dest, "X-Printworker-Secret", "s3cret")
	if err != nil || slices.ContainsFunc(got, func(r intake.HookResult) bool { return r.Action != "unchanged" }) {
		t.Errorf("second run %q %v, want all unchanged", actions(got), err)
	}
	if _, err := intake.RegisterBigCommerce(ctx, srv.Client(), srv.URL, "abc", "wrong", dest, "X-Printworker-Secret", "s3cret"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("a wrong token: %v", err)
	}
}

// TestRegisterWooCommerce: the four order topics are created with the secret (basic
// auth with the REST key); a second run updates them (WooCommerce never shows a
// secret, so it is set again) and creates nothing more.
func TestRegisterWooCommerce(t *testing.T) {
	t.Parallel()
	const dest = "https://intake.example.com/webhooks/woocommerce"
	api := &hookAPI{auth: func(r *http.Request) bool {
		u, p, ok := r.BasicAuth()
		return ok && u == "ck" && p == "cs" && strings.HasPrefix(r.URL.Path, "/wp-json/wc/v3/webhooks")
	}}
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	got, err := intake.RegisterWooCommerce(ctx, srv.Client(), srv.URL, "ck", "cs", dest, "whsecret")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"created order.created", "created order.updated", "created order.deleted", "created order.restored"}
	if !slices.Equal(actions(got), want) {
		t.Fatalf("first run %q, want %q", actions(got), want)
	}
	got, err = intake.RegisterWooCommerce(ctx, srv.Client(), srv.URL, "ck", "cs", dest, "whsecret")
	if err != nil || slices.ContainsFunc(got, func(r intake.HookResult) bool { return r.Action != "updated" }) {
		t.Errorf("second run %q %v, want all updated", actions(got), err)
	}
	hooks := api.snapshot()
	if len(hooks) != 4 {
		t.Fatalf("%d webhooks, want 4", len(hooks))
	}
	for _, h := range hooks {
		if h["status"] != "active" || h["secret"] != "whsecret" || h["delivery_url"] != dest {
			t.Errorf("webhook %v", h)
		}
	}
}

// TestRegisterShopify: the five order topics are subscribed (format json); one
// subscribed to an old address is moved; a second run changes nothing.
func TestRegisterShopify(t *testing.T) {
	t.Parallel()
	const dest = "https://intake.example.com/webhooks/shopify"
	api := &hookAPI{envelope: "webhook", auth: func(r *http.Request) bool {
		return r.Header.Get("X-Shopify-Access-Token") == "shpat" && strings.HasPrefix(r.URL.Path, "/admin/api/2025-01/webhooks")
	}}
	api.hooks = []map[string]any{{"id": float64(7), "topic": "orders/paid", "address": "https://old.example/hook", "format": "json"}}
	api.next = 10
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	ctx := context.Background()
	got, err := intake.RegisterShopify(ctx, srv.Client(), srv.URL, "2025-01", "shpat", dest)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"created orders/create", "created orders/updated", "updated orders/paid", "created orders/cancelled", "created orders/delete"}
	if !slices.Equal(actions(got), want) {
		t.Fatalf("first run %q, want %q", actions(got), want)
	}
	for _, h := range api.snapshot() {
		if h["address"] != dest || h["format"] != "json" {
			t.Errorf("subscription %v", h)
		}
	}
	got, err = intake.RegisterShopify(ctx, srv.Client(), srv.URL, "2025-01", "shpat", dest)
	if err != nil || slices.ContainsFunc(got, func(r intake.HookResult) bool { return r.Action != "unchanged" }) {
		t.Errorf("second run %q %v, want all unchanged", actions(got), err)
	}
}

// TestDestination: the intake's webhook URL per platform; BigCommerce's port-443
// rule is enforced before any call.
func TestDestination(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ base, platform, want string }{
		{"https://intake.example.com", "bigcommerce", "https://intake.example.com/webhooks/bigcommerce"},
		{"https://intake.example.com:443/pw/", "bigcommerce", "https://intake.example.com:443/pw/webhooks/bigcommerce"},
		{"https://intake.example.com:8443", "bigcommerce", ""},
		{"http://intake.example.com", "bigcommerce", ""},
		{"http://intake.example.com:8080", "woocommerce", "http://intake.example.com:8080/webhooks/woocommerce"},
		{"intake.example.com", "shopify", ""},
	} {
		got, err := intake.Destination(tc.base, tc.platform)
		if got != tc.want || (err == nil) != (tc.want != "") {
			t.Errorf("%s %s: %q %v, want %q", tc.base, tc.platform, got, err, tc.want)
		}
	}
}
