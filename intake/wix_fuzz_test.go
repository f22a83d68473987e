package intake

import (
	"bytes"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/storesim"
)

// wixFuzzSite is one simulated site shared by the fuzzers (a key pair per
// iteration would make key generation the whole cost).
func wixFuzzSite(tb testing.TB) (*storesim.Wix, []*rsa.PublicKey) {
	tb.Helper()
	site, err := storesim.NewWix("inst-1")
	if err != nil {
		tb.Fatal(err)
	}
	keys, err := ParseWixPublicKeys(site.PublicKeyPEM())
	if err != nil {
		tb.Fatal(err)
	}
	return site, keys
}

// FuzzWixJWT feeds arbitrary bodies to the RS256 verification: never a panic, only
// RS256 tokens signed by the key pass, and a refusal is a 401.
//
//	go test ./intake -run XXX -fuzz FuzzWixJWT -fuzztime 30s
func FuzzWixJWT(f *testing.F) {
	site, keys := wixFuzzSite(f)
	good := site.Event(WixEventApproved, storesim.WixSampleOrder("o-1", "design", time.Unix(1710421200, 0)))
	f.Add(good.Body)
	parts := bytes.Split(good.Body, []byte("."))
	f.Add(bytes.Join([][]byte{[]byte("eyJhbGciOiJub25lIn0"), parts[1], nil}, []byte(".")))
	f.Add([]byte("a.b.c"))
	f.Add([]byte(strings.Repeat(".", 100)))
	f.Add(bytes.Join([][]byte{parts[0], parts[1], bytes.Repeat([]byte("A"), 5000)}, []byte(".")))
	f.Fuzz(func(t *testing.T, token []byte) {
		payload, err := verifyRS256(keys, token)
		if err != nil {
			var he *httpError
			if !errors.As(err, &he) || (he.status != http.StatusUnauthorized && he.status != http.StatusBadRequest) {
				t.Fatalf("refusal %v is not a 401 or 400", err)
			}
			return
		}
		// No signature can be made without the private key: what passes signs the
		// simulator's header and payload.
		signed := good.Body[:bytes.LastIndexByte(good.Body, '.')]
		tok := bytes.TrimSpace(token)
		if !bytes.HasPrefix(tok, append(signed, '.')) || !json.Valid(payload) {
			t.Fatalf("accepted a token that is not the signed one: %q", token)
		}
	})
}

// FuzzWixMapping feeds arbitrary verified event data (the innermost JSON string)
// through the envelope decoding, mapping and planning: never a panic; refusals are
// 4xx; what is accepted has valid lines and strict timestamps.
//
//	go test ./intake -run XXX -fuzz FuzzWixMapping -fuzztime 30s
func FuzzWixMapping(f *testing.F) {
	site, keys := wixFuzzSite(f)
	o := storesim.WixSampleOrder("o-1", "design", time.Unix(1710421200, 0))
	b, _ := json.Marshal(map[string]any{"id": "e-1", "actionEvent": map[string]any{"body": map[string]any{"order": o}}})
	f.Add(WixEventApproved, b)
	f.Add(WixEventUpdated, []byte(`{"id": "e", "updatedEvent": {"currentEntity": {"id": "x", "status": "APPROVED", "createdDate": "2024-03-14T13:00:00Z", "lineItems": [{"quantity": 1, "price": {"amount": "NaN"}, "catalogReference": {"options": {"customTextFields": {"design": "1.3f2504e0-4f89-11d3-9a0c-0305e82c3301"}}}}]}}}`))
	f.Add(WixEventCanceled, []byte(`{"id": "e", "actionEvent": {"body": {"order": null}}}`))
	f.Add(WixEventApproved, []byte(`{"id": "e", "actionEvent": {"body": {"order": {"id": "x", "createdDate": "yesterday"}}}}`))
	cfg := DefaultConfig()
	cfg.Wix.PublicKeys = keys
	cfg.Wix.DefaultStore = "s"
	s := &Server{cfg: cfg, now: func() time.Time { return time.Unix(1710421200, 0) }}
	f.Fuzz(func(t *testing.T, eventType string, data []byte) {
		payload, err := verifyRS256(keys, site.Sign(eventType, data))
		if err != nil {
			t.Fatalf("the simulator's token was refused: %v", err)
		}
		ev, skip, err := s.wixEvent(payload)
		if err != nil {
			var he *httpError
			if !errors.As(err, &he) || he.status < 400 || he.status > 499 {
				t.Fatalf("refusal %v is not a 4xx", err)
			}
			return
		}
		if skip != "" {
			return
		}
		if ev.plan.export && ev.plan.push == OpDelete {
			t.Fatalf("a deleted order is exported: %+v", ev.plan)
		}
		checkAccepted(t, ev.order)
	})
}

// A hostile Wix body is refused on its lengths before anything is decoded or
// verified: a JWT's header and signature segments are capped, and a body that is
// not three segments is no JWT.
func TestWixJWTBounds(t *testing.T) {
	_, keys := wixFuzzSite(t)
	for _, tc := range []struct {
		name, token, reason string
	}{
		{"huge header", strings.Repeat("e", 1<<20) + ".e30.sig", "header segment too long"},
		{"huge signature", "eyJhbGciOiJSUzI1NiJ9.e30." + strings.Repeat("A", 1<<20), "signature too long"},
		{"many segments", strings.Repeat("a.", 1<<16), "three segments"},
	} {
		_, err := verifyRS256(keys, []byte(tc.token))
		if err == nil || statusOf(t, err) != http.StatusUnauthorized || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("%s: %v, want 401 %q", tc.name, err, tc.reason)
		}
	}
}
