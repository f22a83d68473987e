package hub_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/internal/netguard"
)

// noDNSClient makes a hub client that resolves no names (as a resolver that answers
// NXDOMAIN would, the production case of 2130706433 and friends) and dials only
// loopback.
func noDNSClient(t testing.TB, f *fakeHub) *hub.Client {
	g := netguard.Must()
	d := &net.Dialer{
		Timeout:  time.Second,
		Resolver: &net.Resolver{PreferGo: true, Dial: func(context.Context, string, string) (net.Conn, error) { return nil, errors.New("no DNS in this test") }},
		ControlContext: func(_ context.Context, _, address string, _ syscall.RawConn) error {
			if ap, err := netip.ParseAddrPort(address); err != nil || !ap.Addr().Unmap().IsLoopback() {
				return errors.New("only loopback in this test")
			}
			return nil
		},
	}
	tr := g.Transport(nil)
	tr.Proxy = nil
	tr.DialContext = g.DialContext(d)
	t.Cleanup(tr.CloseIdleConnections)
	return f.client(t, hub.V2023, func(cfg *hub.Config) { cfg.Guard, cfg.HTTPClient = g, &http.Client{Transport: tr} })
}

// TestMediaRedirectThatCannotSucceedIsPermanent: a redirect whose Location is not a
// URL, or names an IPv4 address in a non-canonical numeric form, is refused at once
// and permanently, as a redirect to file: is, and nothing is fetched. Before, both
// failed as transport errors (no such host; failed to parse Location header) and
// were retried for the whole retry window.
func TestMediaRedirectThatCannotSucceedIsPermanent(t *testing.T) {
	t.Parallel()
	internal, hits := internalService(t)
	_, port, _ := net.SplitHostPort(internal.Listener.Addr().String())
	cases := []struct{ location, want string }{
		{"http://127.1:" + port + "/", netguard.ClassNonCanonical},
		{"http://127.0.1:" + port + "/", netguard.ClassNonCanonical},
		{"http://2130706433:" + port + "/", netguard.ClassNonCanonical},
		{"http://0x7f000001:" + port + "/", netguard.ClassNonCanonical},
		{"http://0X7F000001:" + port + "/", netguard.ClassNonCanonical},
		{"http://017700000001:" + port + "/", netguard.ClassNonCanonical},
		{"http://0177.0.0.1:" + port + "/", netguard.ClassNonCanonical},
		{"http://0x7f.0.0.1:" + port + "/", netguard.ClassNonCanonical},
		{"http://0x7f.1:" + port + "/", netguard.ClassNonCanonical},
		{"http://127.0.0.01:" + port + "/", netguard.ClassNonCanonical},
		{"http://127.0.0.1.:" + port + "/", netguard.ClassNonCanonical},
		{"http://0:" + port + "/", netguard.ClassNonCanonical},
		{"http://3232235521/", netguard.ClassNonCanonical}, // 192.168.0.1
		{"http://8.8.8.8.8/", netguard.ClassNonCanonical},
		{"http://cdn.example.0x1/", netguard.ClassNonCanonical},
		{"http://[::1", "not a URL"},
		{"http://a b.example/", "not a URL"},
		{"http://%zz/", "not a URL"},
		{"http://example.com:port/", "not a URL"},
		{"http://[fe80::1%zz]/", "not a URL"},
		{"ht tp://x/", "not a URL"},
	}
	for _, c := range cases {
		f := newFakeHub(t)
		f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
			w.Header()["Location"] = []string{c.location}
			w.WriteHeader(http.StatusFound)
		})
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		d, err := noDNSClient(t, f).OpenMedia(ctx, testMedia)
		cancel()
		if d != nil {
			d.Body.Close()
		}
		var he *hub.Error
		if !errors.As(err, &he) || he.Retryable() || !strings.Contains(err.Error(), c.want) {
			t.Errorf("redirect to %q: %v, want a permanent refusal naming %q", c.location, err, c.want)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the internal service", n)
	}
}
