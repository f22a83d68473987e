package hubsim

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/printworker/printworker/hub"
)

// freshClient opens a new connection per request: Go's transport silently retries an
// idempotent request whose reused connection was dropped, which would hide the fault.
func freshClient() *http.Client {
	return &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
}

func listReq() req { return req{v: hub.V2023, method: "GET", path: hub.TemplatePath(hub.V2023, "")} }

func statuses(t *testing.T, ts *httptest.Server, n int) []int {
	t.Helper()
	var out []int
	for i := 0; i < n; i++ {
		out = append(out, do(t, ts, listReq()).status)
	}
	return out
}

func TestFaultLatency(t *testing.T) {
	const lat = 30 * time.Millisecond
	s, ts := start(t, func(c *Config) { c.Faults.Latency = lat })
	t0 := time.Now()
	wantStatus(t, do(t, ts, listReq()), http.StatusOK)
	if el := time.Since(t0); el < lat {
		t.Fatalf("answer after %v, before the added latency %v", el, lat)
	}
	if d := s.Requests()[0].Duration; d < lat {
		t.Fatalf("logged duration %v < latency", d)
	}
	if err := s.SetFaults(Faults{}); err != nil {
		t.Fatal(err)
	}
	if s.Faults().Latency != 0 {
		t.Fatal("SetFaults did not clear the latency")
	}
}

func TestFaultErrors(t *testing.T) {
	s, ts := start(t, func(c *Config) { c.Faults = Faults{ErrorRate: 1, ErrorCount: 2} })
	o := validOrder("e1")
	create := orderReq(hub.V2022, "POST", "", o)
	create.parts = []string{"e1"}
	r := do(t, ts, create)
	wantStatus(t, r, http.StatusServiceUnavailable)
	r.apiErr(t)
	if _, ok := s.Order(store, "e1", domain); ok {
		t.Fatal("an order answered with an injected 5xx was stored")
	}
	wantStatus(t, do(t, ts, create), http.StatusServiceUnavailable)
	wantStatus(t, do(t, ts, create), http.StatusCreated)
	log := s.Requests()
	if log[0].Fault != "error" || log[1].Fault != "error" || log[2].Fault != "" {
		t.Fatalf("log faults %q %q %q", log[0].Fault, log[1].Fault, log[2].Fault)
	}

	if err := s.SetFaults(Faults{ErrorRate: 1, ErrorStatus: 502}); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, do(t, ts, listReq()), http.StatusBadGateway)
}

func TestFaultErrorShareIsSeeded(t *testing.T) {
	f := Faults{ErrorRate: 0.5, Seed: 7}
	_, ts1 := start(t, func(c *Config) { c.Faults = f })
	s2, ts2 := start(t, func(c *Config) { c.Faults = f })
	a, b := statuses(t, ts1, 40), statuses(t, ts2, 40)
	fails := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different answers at %d: %v vs %v", i, a, b)
		}
		if a[i] == http.StatusServiceUnavailable {
			fails++
		} else if a[i] != http.StatusOK {
			t.Fatalf("status %d", a[i])
		}
	}
	if fails == 0 || fails == len(a) {
		t.Fatalf("%d of %d failed with a 0.5 share", fails, len(a))
	}
	// SetFaults restarts the sequence.
	if err := s2.SetFaults(f); err != nil {
		t.Fatal(err)
	}
	if c := statuses(t, ts2, 40); !equal(c, a) {
		t.Fatalf("after SetFaults %v, want %v", c, a)
	}
}

func equal(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestFaultRateLimit(t *testing.T) {
	s, ts := start(t, func(c *Config) { c.Faults = Faults{RateLimit: 2, RatePeriod: time.Minute} })
	wantStatus(t, do(t, ts, listReq()), http.StatusOK)
	wantStatus(t, do(t, ts, listReq()), http.StatusOK)
	r := do(t, ts, listReq())
	wantStatus(t, r, http.StatusTooManyRequests)
	r.apiErr(t)
	ra, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || ra < 1 || ra > 60 {
		t.Fatalf("Retry-After %q, want 1..60 seconds", r.header.Get("Retry-After"))
	}
	// Another store has its own budget; media downloads carry no store.
	other := listReq()
	other.store, other.key, other.secret = "other-store", "other-key", "other-secret"
	wantStatus(t, do(t, ts, other), http.StatusOK)
	d, _ := s.Design(1003)
	m := DesignMedia(&d)[0]
	wantStatus(t, do(t, ts, req{noSign: true, method: "GET", path: s.MediaPath(m)}), http.StatusOK)
	if f := s.Requests()[2].Fault; f != "rate-limit" {
		t.Fatalf("logged fault %q", f)
	}
}

func TestFaultDrop(t *testing.T) {
	t.Run("before handling", func(t *testing.T) {
		s, ts := start(t, func(c *Config) { c.Faults = Faults{DropRate: 1, DropCount: 1} })
		create := orderReq(hub.V2022, "POST", "", validOrder("d1"))
		create.parts = []string{"d1"}
		if _, err := send(t, freshClient(), ts, create); err == nil {
			t.Fatal("dropped request answered")
		}
		if _, ok := s.Order(store, "d1", domain); ok {
			t.Fatal("a request dropped before handling was stored")
		}
		r, err := send(t, freshClient(), ts, create)
		if err != nil || r.status != http.StatusCreated {
			t.Fatalf("after the drop: %v %d", err, r.status)
		}
		if f := s.Requests()[0].Fault; f != "drop" {
			t.Fatalf("logged fault %q", f)
		}
	})
	t.Run("after handling", func(t *testing.T) {
		s, ts := start(t, func(c *Config) { c.Faults = Faults{DropRate: 1, DropCount: 1, DropAfterHandling: true} })
		create := orderReq(hub.V2022, "POST", "", validOrder("d2"))
		create.parts = []string{"d2"}
		if _, err := send(t, freshClient(), ts, create); err == nil {
			t.Fatal("dropped request answered")
		}
		if _, ok := s.Order(store, "d2", domain); !ok {
			t.Fatal("the order of a request dropped after handling is missing")
		}
		// The caller's retry meets its own earlier success.
		r, err := send(t, freshClient(), ts, create)
		if err != nil || r.status != http.StatusConflict {
			t.Fatalf("retry: %v %d", err, r.status)
		}
	})
}

func TestFaultTruncate(t *testing.T) {
	s, ts := start(t, func(c *Config) { c.Faults = Faults{TruncateRate: 1, TruncateCount: 1} })
	q := exportReq(hub.V2023, mug, "left")
	res, err := freshClient().Do(build(t, ts, q))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Fatalf("reading a truncated body: %v, want unexpected EOF", err)
	}
	full := do(t, ts, q)
	wantStatus(t, full, http.StatusOK)
	if res.StatusCode != http.StatusOK || res.ContentLength != int64(len(full.body)) || len(body) != len(full.body)/2 {
		t.Fatalf("truncated answer: status %d, Content-Length %d, got %d bytes; full body %d bytes",
			res.StatusCode, res.ContentLength, len(body), len(full.body))
	}
	if res.Header.Get("Content-Type") != "image/png" {
		t.Fatalf("truncated answer lost its headers: %v", res.Header)
	}
	if f := s.Requests()[0].Fault; f != "truncate" {
		t.Fatalf("logged fault %q", f)
	}
}

func TestFaultsValidate(t *testing.T) {
	for _, f := range []Faults{{ErrorRate: 1.5}, {DropRate: -0.1}, {ErrorStatus: 404}, {Latency: -1}, {RateLimit: -1}} {
		if f.Validate() == nil {
			t.Errorf("%+v accepted", f)
		}
	}
	s, _ := start(t, nil)
	if s.SetFaults(Faults{TruncateRate: 2}) == nil {
		t.Fatal("SetFaults accepted a bad share")
	}
}
