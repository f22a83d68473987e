package hubsim

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/hub"
)

const (
	store   = "demo-store"
	key     = "demo-key"
	secret  = "demo-secret"
	domain  = "shop.example.com"
	fixture = "testdata/designs"
)

// testConfig has two stores: demo-store with an active and a disabled key and the
// fixture designs, and other-store.
func testConfig() Config {
	return Config{
		Stores: []Store{
			{ID: store, Domains: []string{domain, "second.example.com"}, Keys: []Key{
				{Key: key, Secret: secret}, {Key: "old-key", Secret: "old-secret", Disabled: true}}},
			{ID: "other-store", Domains: []string{"other.example.com"}, Keys: []Key{{Key: "other-key", Secret: "other-secret"}}},
		},
		DesignsDir: fixture,
	}
}

// start runs a simulator over real HTTP.
func start(t testing.TB, mutate func(*Config)) (*Server, *httptest.Server) {
	t.Helper()
	cfg := testConfig()
	if mutate != nil {
		mutate(&cfg)
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	ts := httptest.NewServer(s)
	t.Cleanup(ts.Close)
	return s, ts
}

// req describes one hand-signed request.
type req struct {
	v       hub.Version
	method  string
	path    string
	store   string
	key     string
	secret  string
	parts   []string // verification string parts after the store id
	body    any      // marshalled unless []byte
	headers map[string]string
	// sig overrides the computed signature when set.
	sig string
	// noSign leaves out the authentication headers.
	noSign bool
	// word is the vendor word of the header names (default Service).
	word string
	enc  hub.SignatureEncoding
}

type resp struct {
	status int
	header http.Header
	body   []byte
}

func (r resp) json(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("decoding %s: %v", r.body, err)
	}
}

func (r resp) apiErr(t *testing.T) apiError {
	t.Helper()
	var e apiError
	r.json(t, &e)
	if e.Error == "" {
		t.Fatalf("error body without message: %s", r.body)
	}
	return e
}

func do(t *testing.T, ts *httptest.Server, q req) resp {
	t.Helper()
	r, err := send(t, ts.Client(), ts, q)
	if err != nil {
		t.Fatalf("%s %s: %v", q.method, q.path, err)
	}
	return r
}

// send makes the request with client and returns what arrived; err is a transport or
// body-reading failure (the faults tests expect those).
func send(t testing.TB, client *http.Client, ts *httptest.Server, q req) (resp, error) {
	t.Helper()
	hr := build(t, ts, q)
	res, err := client.Do(hr)
	if err != nil {
		return resp{}, err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return resp{status: res.StatusCode, header: res.Header, body: b}, err
}

// build makes a hand-signed request.
func build(t testing.TB, ts *httptest.Server, q req) *http.Request {
	t.Helper()
	if q.store == "" {
		q.store, q.key, q.secret = store, key, secret
	}
	var body io.Reader
	switch b := q.body.(type) {
	case nil:
	case []byte:
		body = bytes.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		body = bytes.NewReader(j)
	}
	hr, err := http.NewRequestWithContext(t.Context(), q.method, ts.URL+q.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if !q.noSign {
		h := hub.HeadersFor(q.v, q.word)
		sig := q.sig
		if sig == "" {
			enc := q.enc
			if enc == "" {
				enc = hub.EncodingHex
			}
			sig = hub.Sign(q.secret, enc, append([]string{q.store}, q.parts...)...)
		}
		hr.Header.Set(h.Store, q.store)
		hr.Header.Set(h.APIKey, q.key)
		hr.Header.Set(h.Signature, sig)
	}
	for k, v := range q.headers {
		hr.Header.Set(k, v)
	}
	return hr
}

func wantStatus(t *testing.T, r resp, want int) {
	t.Helper()
	if r.status != want {
		t.Fatalf("status %d, want %d; body %s", r.status, want, r.body)
	}
}

// validOrder is an order body that passes every rule, as a generic map so tests can
// remove or break single properties.
func validOrder(id string) map[string]any {
	addr := func() map[string]any {
		return map[string]any{"address1": "Hauptstr. 1", "address2": "", "city": "Berlin", "companyName": "",
			"country": "Germany", "countryCode": "DE", "firstName": "Anna", "lastName": "Muster",
			"phone": "+49 30 1234567", "province": "", "zip": "10115"}
	}
	return map[string]any{
		"billingDetails": addr(), "shippingDetails": addr(),
		"created": "2024-03-05T10:20:30.000Z", "updated": "2024-03-05T10:21:00.000Z",
		"domain": domain, "email": "anna@example.com", "firstName": "Anna", "lastName": "Muster",
		"lineItems": []any{map[string]any{"id": 1001, "token": "7d9f2c4e-1b3a-4c5d-8e6f-0a1b2c3d4e5f", "quantity": 2, "price": 19.9}},
		"orderId":   id, "status": "paid",
	}
}

// loadTemplate reads a template payload fixture as a generic map.
func loadTemplate(t *testing.T, name string) map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/templates", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// set assigns v at a dotted path with [i] indexes ("views[0].elements[1].rotation");
// v == deleteKey removes the key.
func set(t *testing.T, m map[string]any, path string, v any) {
	t.Helper()
	var cur any = m
	parts := strings.Split(path, ".")
	for i, p := range parts {
		name, idx := p, -1
		if j := strings.IndexByte(p, '['); j >= 0 {
			name = p[:j]
			if _, err := fmtSscan(p[j:], &idx); err != nil {
				t.Fatalf("path %q: %v", path, err)
			}
		}
		obj, ok := cur.(map[string]any)
		if !ok {
			t.Fatalf("path %q: %q is not an object", path, name)
		}
		last := i == len(parts)-1
		if idx < 0 {
			if last {
				if v == deleteKey {
					delete(obj, name)
				} else {
					obj[name] = v
				}
				return
			}
			cur = obj[name]
			continue
		}
		arr, ok := obj[name].([]any)
		if !ok || idx >= len(arr) {
			t.Fatalf("path %q: %q[%d] missing", path, name, idx)
		}
		if last {
			arr[idx] = v
			return
		}
		cur = arr[idx]
	}
}

type deleteMarker struct{}

var deleteKey = deleteMarker{}

func fmtSscan(s string, idx *int) (int, error) { return fmt.Sscanf(s, "[%d]", idx) }
