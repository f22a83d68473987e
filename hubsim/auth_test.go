package hubsim

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/internal/testlog"
)

func TestAuth(t *testing.T) {
	s, ts := start(t, nil)
	list := func(v hub.Version) req { return req{v: v, method: "GET", path: hub.TemplatePath(v, "")} }
	for _, v := range versions {
		cases := []struct {
			name   string
			mutate func(*req)
			want   int
		}{
			{"good", func(*req) {}, http.StatusOK},
			{"bad signature", func(q *req) { q.secret = "wrong" }, http.StatusUnauthorized},
			{"signature over other parts", func(q *req) { q.parts = []string{"x"} }, http.StatusUnauthorized},
			{"missing headers", func(q *req) { q.noSign = true }, http.StatusUnauthorized},
			{"unknown store", func(q *req) { q.store, q.key, q.secret = "nobody", key, secret }, http.StatusUnauthorized},
			{"key of another store", func(q *req) { q.key, q.secret = "other-key", "other-secret" }, http.StatusUnauthorized},
			{"disabled key", func(q *req) { q.key, q.secret = "old-key", "old-secret" }, http.StatusForbidden},
			{"disabled key, bad signature", func(q *req) { q.key, q.secret = "old-key", "wrong" }, http.StatusUnauthorized},
			{"base64 signature", func(q *req) { q.enc = hub.EncodingBase64 }, http.StatusUnauthorized},
			{"other vendor word", func(q *req) { q.word = "Acme" }, http.StatusUnauthorized},
			{"upper-case hex", func(q *req) {
				q.sig = upper(hub.Sign(secret, hub.EncodingHex, store))
			}, http.StatusOK},
		}
		for _, c := range cases {
			t.Run(string(v)+"/"+c.name, func(t *testing.T) {
				q := list(v)
				q.store, q.key, q.secret = store, key, secret
				c.mutate(&q)
				r := do(t, ts, q)
				wantStatus(t, r, c.want)
				if c.want != http.StatusOK {
					r.apiErr(t)
				}
			})
		}
	}
	t.Run("header names of another version", func(t *testing.T) {
		// 2022-08 names (X-Service-Shop) on a 2023-10 path, and the reverse.
		for _, pair := range [][2]hub.Version{{hub.V2022, hub.V2023}, {hub.V2023, hub.V2022}, {hub.V2023, hub.V1}} {
			q := list(pair[1])
			q.noSign = true
			h := hub.HeadersFor(pair[0], "")
			q.headers = map[string]string{h.Store: store, h.APIKey: key, h.Signature: hub.Sign(secret, hub.EncodingHex, store)}
			wantStatus(t, do(t, ts, q), http.StatusUnauthorized)
		}
	})
	t.Run("key disabled at run time", func(t *testing.T) {
		if err := s.SetKeyDisabled(store, key, true); err != nil {
			t.Fatal(err)
		}
		wantStatus(t, do(t, ts, list(hub.V2023)), http.StatusForbidden)
		if err := s.SetKeyDisabled(store, key, false); err != nil {
			t.Fatal(err)
		}
		wantStatus(t, do(t, ts, list(hub.V2023)), http.StatusOK)
		if s.SetKeyDisabled(store, "nope", true) == nil {
			t.Fatal("disabling an unknown key succeeded")
		}
	})
}

func TestAuthSettings(t *testing.T) {
	_, ts := start(t, func(c *Config) {
		c.Encoding = hub.EncodingBase64
		c.Words = map[hub.Version]string{hub.V2023: "Acme"}
	})
	cases := []struct {
		name string
		q    req
		want int
	}{
		{"base64 accepted", req{v: hub.V2022, word: "Service", enc: hub.EncodingBase64}, http.StatusOK},
		{"hex refused", req{v: hub.V2022, enc: hub.EncodingHex}, http.StatusUnauthorized},
		{"2023-10 with its word", req{v: hub.V2023, word: "Acme", enc: hub.EncodingBase64}, http.StatusOK},
		{"2023-10 with the default word", req{v: hub.V2023, enc: hub.EncodingBase64}, http.StatusUnauthorized},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.q.method, c.q.path = "GET", hub.TemplatePath(c.q.v, "")
			wantStatus(t, do(t, ts, c.q), c.want)
		})
	}
}

func TestSignatureVector(t *testing.T) {
	// hub-gaps.md: the simulator must accept the documented test vector.
	if !hub.VerifySignature("my-api-secret", hub.EncodingHex,
		"ea35a76be62a6d6070dd3105ccda8dd9905b8c79542e591f4fa091120d80ddf3", "123", "abc", "789") {
		t.Fatal("test vector refused")
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'f' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}

func TestRequestLog(t *testing.T) {
	var logBuf testlog.Buffer
	s, ts := start(t, func(c *Config) { c.Logger = slog.New(slog.NewTextHandler(&logBuf, nil)) })
	wantStatus(t, do(t, ts, req{v: hub.V2023, method: "GET", path: hub.TemplatePath(hub.V2023, "")}), 200)
	wantStatus(t, do(t, ts, req{v: hub.V1, method: "GET", path: hub.TemplatePath(hub.V1, ""), sig: "00"}), 401)
	wantStatus(t, do(t, ts, req{noSign: true, method: "GET", path: "/nowhere"}), 404)
	got := s.Requests()
	if len(got) != 3 {
		t.Fatalf("%d entries, want 3: %+v", len(got), got)
	}
	want := []LoggedRequest{
		{Method: "GET", Path: "/2023-10/templates", Version: hub.V2023, Store: store, Key: key, SignatureOK: true, Status: 200},
		{Method: "GET", Path: "/v1/templates", Version: hub.V1, Store: store, Key: key, Status: 401},
		{Method: "GET", Path: "/nowhere", Status: 404},
	}
	for i, w := range want {
		g := got[i]
		if g.Time.IsZero() {
			t.Errorf("entry %d has no time", i)
		}
		g.Time, g.Duration = w.Time, w.Duration
		if g != w {
			t.Errorf("entry %d = %+v, want %+v", i, g, w)
		}
	}
	logged := logBuf.String()
	if strings.Count(logged, "hubsim request") != 3 || !strings.Contains(logged, "path=/2023-10/templates") ||
		!strings.Contains(logged, "signature_ok=true") || strings.Contains(logged, secret) {
		t.Fatalf("slog records:\n%s", logged)
	}
	s.ResetRequests()
	if n := len(s.Requests()); n != 0 {
		t.Fatalf("%d entries after reset", n)
	}
}

func TestRequestLogBounded(t *testing.T) {
	s, ts := start(t, func(c *Config) { c.MaxLogged = 3 })
	for i := 0; i < 5; i++ {
		do(t, ts, req{noSign: true, method: "GET", path: "/p" + string(rune('a'+i))})
	}
	got := s.Requests()
	if len(got) != 3 || got[0].Path != "/pc" || got[2].Path != "/pe" {
		t.Fatalf("log %+v, want the last three", got)
	}
}
