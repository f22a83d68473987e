package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestStoresRegister: printworker stores register --platform woocommerce creates the
// four order webhooks through the site's REST API and prints one line per topic;
// BigCommerce's port-443 rule and a missing secret are refused before any call.
func TestStoresRegister(t *testing.T) {
	var posts atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "ck" || p != "cs" {
			http.Error(w, "no", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodGet {
			w.Write([]byte(`[]`))
			return
		}
		var in map[string]any
		json.NewDecoder(r.Body).Decode(&in)
		if in["secret"] != "whsec" || in["delivery_url"] != "https://intake.example.com/webhooks/woocommerce" {
			http.Error(w, "bad webhook", http.StatusBadRequest)
			return
		}
		in["id"] = posts.Add(1)
		json.NewEncoder(w).Encode(in)
	}))
	t.Cleanup(srv.Close)
	out, _, err := runCLI(t, nil, "stores", "register", "--platform", "woocommerce", "--intake-url", "https://intake.example.com",
		"--woocommerce-url", srv.URL, "--woocommerce-consumer-key", "ck", "--woocommerce-consumer-secret", "cs", "--woocommerce-secret", "whsec")
	if err != nil {
		t.Fatalf("register: %v\n%s", err, out)
	}
	for _, topic := range []string{"order.created", "order.updated", "order.deleted", "order.restored"} {
		if !strings.Contains(out, "created  "+topic+"  https://intake.example.com/webhooks/woocommerce") {
			t.Errorf("no line for %s in\n%s", topic, out)
		}
	}
	if posts.Load() != 4 {
		t.Errorf("%d webhooks created, want 4", posts.Load())
	}
	for _, args := range [][]string{
		{"--platform", "bigcommerce", "--intake-url", "https://intake.example.com:8443", "--bigcommerce-header-secret", "x"},
		{"--platform", "bigcommerce", "--intake-url", "https://intake.example.com"},
		{"--platform", "magento", "--intake-url", "https://intake.example.com"},
	} {
		if _, _, err := runCLI(t, nil, append([]string{"stores", "register"}, args...)...); exitOf(err) != 2 {
			t.Errorf("%v: %v, want a usage error", args, err)
		}
	}
}
