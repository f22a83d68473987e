package hub_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/internal/netguard"
	"github.com/printworker/printworker/model"
)

const internalSecret = "INTERNAL-SECRET-7f3a"

var testMedia = model.Media{ID: "65a1f0c2e4b0a1d2c3f4a600", Token: "0b5c6d7e-8f90"}

// internalService is a real server on loopback standing for an internal service: it
// counts the requests that reach it and answers 500 with a secret.
func internalService(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	return internalServiceTB(t)
}

func internalServiceTB(t testing.TB) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		http.Error(w, `{"error":"`+internalSecret+`"}`, http.StatusInternalServerError)
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestMediaRedirectToInternalAddressIsRefused: a hub (or whatever answers for it)
// redirecting a media download to an internal address gets a permanent refusal, and
// no request reaches the internal server, whether the address is literal or a name
// that resolves to loopback.
func TestMediaRedirectToInternalAddressIsRefused(t *testing.T) {
	t.Parallel()
	internal, hits := internalService(t)
	_, port, _ := net.SplitHostPort(internal.Listener.Addr().String())
	targets := []string{
		internal.URL + "/admin",
		"http://localhost:" + port + "/admin", // a name: refused after resolution
		"http://[::1]:" + port + "/",
		"http://[::ffff:127.0.0.1]:" + port + "/",
		"http://10.0.0.1/",
		"http://169.254.169.254/latest/meta-data/iam/",
		"http://100.64.0.1/",
		"http://0.0.0.0:" + port + "/",
	}
	for _, target := range targets {
		f := newFakeHub(t)
		f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
			http.Redirect(w, r, target, http.StatusFound)
		})
		_, err := f.client(t, hub.V2023).OpenMedia(context.Background(), testMedia)
		var he *hub.Error
		if !errors.As(err, &he) || he.Retryable() || !errors.Is(err, hub.ErrRefused) {
			t.Errorf("redirect to %s: %v, want a permanent refusal", target, err)
		}
		if err != nil && strings.Contains(err.Error(), internalSecret) {
			t.Errorf("redirect to %s: the internal answer reached the error: %v", target, err)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the internal service", n)
	}
}

// TestMediaRedirectAllowListed: an allow-listed internal address is followed.
func TestMediaRedirectAllowListed(t *testing.T) {
	t.Parallel()
	var n atomic.Int64
	cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		_, _ = io.WriteString(w, "GIF89a")
	}))
	t.Cleanup(cdn.Close)
	f := newFakeHub(t)
	f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
		http.Redirect(w, r, cdn.URL+"/file", http.StatusFound)
	})
	c := f.client(t, hub.V2023, func(cfg *hub.Config) { cfg.Guard = netguard.Must("127.0.0.0/8") })
	d, err := c.OpenMedia(context.Background(), testMedia)
	if err != nil {
		t.Fatal(err)
	}
	d.Body.Close()
	if d.Kind != hub.KindGIF || n.Load() != 1 {
		t.Errorf("kind %q, %d requests to the allowed host", d.Kind, n.Load())
	}
}

// TestMediaRedirectToAnotherSchemeIsPermanent: file:, ftp:, data: and an https to
// http downgrade are never followed and never retried.
func TestMediaRedirectToAnotherSchemeIsPermanent(t *testing.T) {
	t.Parallel()
	for _, target := range []string{"file:///etc/passwd", "ftp://files.example/x.png", "data:image/png;base64,iVBORw0KGgo=", "gopher://x.example/", "javascript:alert(1)"} {
		f := newFakeHub(t)
		f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
			w.Header().Set("Location", target)
			w.WriteHeader(http.StatusFound)
		})
		_, err := f.client(t, hub.V2023).OpenMedia(context.Background(), testMedia)
		var he *hub.Error
		if !errors.As(err, &he) || he.Retryable() || !errors.Is(err, hub.ErrBadResponse) || !strings.Contains(err.Error(), "redirect from http to") {
			t.Errorf("redirect to %s: %v, want a permanent refused redirect", target, err)
		}
	}

	// https -> http: the TLS hub redirects to a plain HTTP server, which must not be asked.
	var plainHits atomic.Int64
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { plainHits.Add(1) }))
	t.Cleanup(plain.Close)
	tlsHub := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, plain.URL+"/media", http.StatusMovedPermanently)
	}))
	t.Cleanup(tlsHub.Close)
	c, err := hub.NewClient(hub.Config{Store: "s", APIKey: "k", Secret: "x", BaseURL: tlsHub.URL,
		HTTPClient: tlsHub.Client(), Guard: netguard.Must("127.0.0.0/8")})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.OpenMedia(context.Background(), testMedia)
	var he *hub.Error
	if !errors.As(err, &he) || he.Retryable() || !strings.Contains(err.Error(), "redirect from https to http:") {
		t.Errorf("https -> http: %v, want a permanent refused redirect", err)
	}
	if plainHits.Load() != 0 {
		t.Error("the downgraded redirect was followed")
	}
}

// TestMediaRedirectUpgradeFollowed: http -> https is the one change of scheme
// followed (CDNs upgrade).
func TestMediaRedirectUpgradeFollowed(t *testing.T) {
	t.Parallel()
	tlsCDN := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, "GIF89a")
	}))
	t.Cleanup(tlsCDN.Close)
	f := newFakeHub(t)
	f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
		http.Redirect(w, r, tlsCDN.URL+"/m", http.StatusFound)
	})
	g := netguard.Must("127.0.0.0/8")
	tr := g.Transport(tlsCDN.Client().Transport.(*http.Transport))
	c := f.client(t, hub.V2023, func(cfg *hub.Config) { cfg.Guard, cfg.HTTPClient = g, &http.Client{Transport: tr} })
	d, err := c.OpenMedia(context.Background(), testMedia)
	if err != nil {
		t.Fatal(err)
	}
	d.Body.Close()
	if d.Kind != hub.KindGIF {
		t.Errorf("kind %q", d.Kind)
	}
}

func TestMediaRedirectsAreBounded(t *testing.T) {
	t.Parallel()
	f := newFakeHub(t)
	f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
		http.Redirect(w, r, r.URL.String(), http.StatusFound)
	})
	_, err := f.client(t, hub.V2023).OpenMedia(context.Background(), testMedia)
	var he *hub.Error
	if !errors.As(err, &he) || he.Retryable() {
		t.Errorf("redirect loop: %v, want permanent", err)
	}
	if n := len(f.requests()); n != hub.MaxRedirects {
		t.Errorf("%d requests, want %d", n, hub.MaxRedirects)
	}
}

// TestRemoteErrorBodiesStayOut: a media answer's body never reaches the error (it
// may come from wherever a redirect led); an API answer's body is reduced to a short
// printable reason.
func TestRemoteErrorBodiesStayOut(t *testing.T) {
	t.Parallel()
	internal, hits := internalService(t)
	f := newFakeHub(t)
	f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
		if s.Op == hub.OpGetMedia {
			http.Redirect(w, r, internal.URL, http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadGateway)
		_, _ = io.WriteString(w, `{"error":"upstream \u202edown\u0007\n`+strings.Repeat("x", 300)+`"}`)
	})
	// The internal service is allow-listed here: its 500 still stays out.
	c := f.client(t, hub.V2023, func(cfg *hub.Config) { cfg.Guard = netguard.Must("127.0.0.0/8") })
	_, err := c.OpenMedia(context.Background(), testMedia)
	var he *hub.Error
	if !errors.As(err, &he) || he.Status != 500 || !he.Retryable() || he.Body != "" || strings.Contains(err.Error(), internalSecret) {
		t.Errorf("media 500: %v (body %q), want a transient 500 without its body", err, he.Body)
	}
	if hits.Load() != 1 {
		t.Fatalf("%d requests reached the allow-listed server, want 1", hits.Load())
	}
	_, err = c.GetDesign(context.Background(), testRef)
	if !errors.As(err, &he) || he.Status != 502 {
		t.Fatalf("design: %v", err)
	}
	if !strings.HasPrefix(he.Body, "upstream ?down? x") || len(he.Body) > 160 || !strings.HasSuffix(he.Body, "...") {
		t.Errorf("API reason %q", he.Body)
	}
}

func TestReason(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		`{"error":"bad signature"}`:                        "bad signature",
		`{"message":"order not found","code":7}`:           "order not found",
		`{"error":{"message":"nested","code":"E1"}}`:       "nested",
		`{"error":"a\u0000b\u001b[31mc\u202e"}`:            "a?b?[31mc?",
		`{"error":5}`:                                      "",
		`{"error":"cut short`:                              "",
		`<html><body>` + internalSecret + `</body></html>`: "",
		`["x"]`:                     "",
		"plain text\nsecond line":   "plain text",
		"   ":                       "",
		"tabs\t\tand   spaces  end": "tabs and spaces end",
		strings.Repeat("ab", 200):   strings.Repeat("ab", 78) + "a...",
	}
	for in, want := range cases {
		if got := hub.Reason([]byte(in)); got != want {
			t.Errorf("Reason(%.40q) = %q, want %q", in, got, want)
		}
	}
}

// fakeClock is a manual clock: timers fire when Advance passes them. armed receives
// a value each time a timer is set, so a test can advance while a read waits.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
	armed  chan struct{}
	moved  time.Duration
}

type fakeTimer struct {
	c    *fakeClock
	at   time.Time
	f    func()
	done bool
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), armed: make(chan struct{}, 1024)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) hub.Timer {
	t := &fakeTimer{c: c, f: f, done: true}
	c.mu.Lock()
	c.timers = append(c.timers, t)
	c.mu.Unlock()
	t.Reset(d)
	return t
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	was := !t.done
	t.at, t.done = t.c.now.Add(d), false
	t.c.mu.Unlock()
	t.c.armed <- struct{}{}
	return was
}

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := !t.done
	t.done = true
	return was
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.moved += d
	var due []func()
	for _, t := range c.timers {
		if !t.done && !t.at.After(c.now) {
			t.done = true
			due = append(due, t.f)
		}
	}
	c.mu.Unlock()
	for _, f := range due {
		go f()
	}
}

func (c *fakeClock) Moved() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.moved
}

// TestDripFeedBodyFailsWithinTheWindow: a body that delivers a byte and then
// nothing fails with a transient ErrTooSlow once the reader has waited one window,
// for media (whose kind is sniffed inside OpenMedia) and for exports.
func TestDripFeedBodyFailsWithinTheWindow(t *testing.T) {
	t.Parallel()
	const window = 10 * time.Second
	for _, op := range []string{hub.OpGetMedia, hub.OpExportView} {
		t.Run(op, func(t *testing.T) {
			t.Parallel()
			release := make(chan struct{})
			f := newFakeHub(t)
			f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
				if op == hub.OpExportView {
					w.Header().Set("Content-Type", "application/pdf")
				}
				_, _ = io.WriteString(w, "%")
				w.(http.Flusher).Flush()
				select { // and then nothing more
				case <-r.Context().Done():
				case <-release:
				}
			})
			defer close(release)
			clk := newFakeClock()
			c := f.client(t, hub.V2023, func(cfg *hub.Config) { cfg.Clock, cfg.MinRateWindow = clk, window })
			done := make(chan struct{})
			defer close(done)
			go func() {
				for {
					select {
					case <-clk.armed:
						clk.Advance(window)
					case <-done:
						return
					}
				}
			}()
			var err error
			if op == hub.OpGetMedia {
				var d *hub.Download
				if d, err = c.OpenMedia(context.Background(), testMedia); err == nil {
					_, err = io.ReadAll(d.Body)
					d.Body.Close()
				}
			} else {
				var d *hub.Download
				if d, err = c.ExportView(context.Background(), testRef, "front"); err == nil {
					_, err = io.ReadAll(d.Body)
					d.Body.Close()
				}
			}
			var he *hub.Error
			if !errors.Is(err, hub.ErrTooSlow) || !errors.As(err, &he) || !he.Retryable() {
				t.Fatalf("drip-fed body: %v, want a transient ErrTooSlow", err)
			}
			if !strings.Contains(err.Error(), "fewer than 32768 bytes in 10s") {
				t.Errorf("error %q does not state the rate", err)
			}
			if m := clk.Moved(); m > 3*window {
				t.Errorf("failed after %s of waiting, want within a few windows", m)
			}
		})
	}
}

// TestSlowConsumerIsNotASlowBody: time the reader spends between reads (an upload
// catching up) does not count against the body.
func TestSlowConsumerIsNotASlowBody(t *testing.T) {
	t.Parallel()
	payload := strings.Repeat("x", 100<<10)
	f := newFakeHub(t)
	f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = io.WriteString(w, payload)
	})
	clk := newFakeClock()
	go func() {
		for range clk.armed { // timers are set, never reached: nothing waits that long
		}
	}()
	c := f.client(t, hub.V2023, func(cfg *hub.Config) { cfg.Clock = clk })
	d, err := c.ExportView(context.Background(), testRef, "front")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Body.Close()
	buf := make([]byte, 1<<10)
	total := 0
	for {
		n, err := d.Body.Read(buf)
		total += n
		clk.Advance(time.Hour) // the consumer is slow, outside Read
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d bytes: %v", total, err)
		}
	}
	close(clk.armed)
	if total != len(payload) {
		t.Errorf("read %d bytes, want %d", total, len(payload))
	}
}
