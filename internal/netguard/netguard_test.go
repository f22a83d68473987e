package netguard_test

import (
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/printworker/printworker/internal/netguard"
)

func TestClass(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"127.0.0.1":                          "loopback",
		"127.255.0.9":                        "loopback",
		"::1":                                "loopback",
		"::ffff:127.0.0.1":                   "loopback",
		"10.0.0.1":                           "private",
		"172.16.5.4":                         "private",
		"192.168.1.1":                        "private",
		"fd12:3456::1":                       "private",
		"::ffff:10.1.2.3":                    "private",
		"169.254.169.254":                    "link-local (cloud metadata)",
		"::ffff:169.254.169.254":             "link-local (cloud metadata)",
		"fd00:ec2::254":                      "link-local (cloud metadata)",
		"169.254.1.1":                        "link-local",
		"fe80::1":                            "link-local",
		"fe80::1%eth0":                       "link-local",
		"0.0.0.0":                            "unspecified",
		"0.1.2.3":                            "unspecified",
		"::":                                 "unspecified",
		"224.0.0.1":                          "multicast",
		"ff02::1":                            "multicast",
		"100.64.0.1":                         "shared (CGNAT)",
		"100.127.255.254":                    "shared (CGNAT)",
		"255.255.255.255":                    "reserved",
		"198.18.0.1":                         "reserved",
		"192.0.2.1":                          "reserved",
		"64:ff9b::7f00:1":                    "loopback (NAT64)",
		"64:ff9b::a9fe:a9fe":                 "link-local (cloud metadata) (NAT64)",
		"2002:7f00:1::1":                     "loopback (6to4)",
		"2002:a00:1::1":                      "private (6to4)",
		"::7f00:1":                           "reserved",
		"2001:db8::1":                        "reserved",
		"8.8.8.8":                            "",
		"100.63.255.255":                     "",
		"100.128.0.0":                        "",
		"2606:4700:4700::1111":               "",
		"64:ff9b::808:808":                   "",
		"2002:808:808::1":                    "",
		"::ffff:8.8.8.8":                     "",
		"93.184.216.34":                      "",
		"2a00:1450:4001:82b::200e":           "",
		"172.32.0.1":                         "",
		"192.169.0.1":                        "",
		"11.0.0.1":                           "",
		"fc00::1":                            "private",
		"fbff:ffff:ffff:ffff::1":             "",
		"fec0::1":                            "reserved",
		"100::1":                             "reserved",
		"::ffff:100.64.0.1":                  "shared (CGNAT)",
		"::ffff:0.0.0.0":                     "unspecified",
		"::ffff:224.0.0.251":                 "multicast",
		"::ffff:255.255.255.255":             "reserved",
		"64:ff9b:1::1":                       "reserved",
		"2002:c0a8:101::1":                   "private (6to4)",
		"2002:a9fe:a9fe::1":                  "link-local (cloud metadata) (6to4)",
		"64:ff9b::c0a8:101":                  "private (NAT64)",
		"64:ff9b::6440:1":                    "shared (CGNAT) (NAT64)",
		"2001:4860:4860::8888":               "",
		"2620:fe::fe":                        "",
		"2001:67c:2e8:22::c100:68b":          "",
		"2a01:4f8:c17:b8f::2":                "",
		"2600:1f18:24e6:b900::1":             "",
		"2606:2800:220:1:248:1893:25c8:1946": "",
	}
	for in, want := range cases {
		if got := netguard.Class(netip.MustParseAddr(in)); got != want {
			t.Errorf("Class(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestNewReportsEveryBadEntry(t *testing.T) {
	t.Parallel()
	_, err := netguard.New([]string{"10.0.0.0/8", "not a thing", "127.0.0.1", "hub.internal:8443", "[::1]:80", "host:", "a/b:1"})
	if err == nil {
		t.Fatal("bad entries accepted")
	}
	for _, want := range []string{`"not a thing"`, `"host:"`, `"a/b:1"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	g := netguard.Must("10.9.0.0/16", "internal.example:8443")
	g.Trust("http://127.0.0.1:7000/base")
	cases := map[string]bool{ // URL -> refused
		"http://127.0.0.1:8080/x":         true,
		"http://127.0.0.1:7000/other":     false, // trusted host:port
		"http://127.0.0.1:7001/":          true,  // another port of a trusted host is not trusted
		"http://[::1]/":                   true,
		"http://[::ffff:127.0.0.1]/":      true,
		"http://169.254.169.254/latest/":  true,
		"http://10.0.0.1/":                true,
		"http://10.9.3.4/":                false, // allow-listed prefix
		"http://localhost:9/":             true,
		"http://LOCALHOST./":              true,
		"http://a.localhost/":             true,
		"https://internal.example:8443/x": false,
		"https://internal.example/x":      false, // a name: decided at dial time
		"http://93.184.216.34/":           false,
		"http://[fe80::1%25eth0]/":        true,
	}
	for raw, refused := range cases {
		u, err := url.Parse(raw)
		if err != nil {
			t.Fatal(err)
		}
		err = g.CheckURL(u)
		if got := err != nil; got != refused {
			t.Errorf("CheckURL(%s) = %v, want refused %v", raw, err, refused)
		}
		if err != nil && !errors.Is(err, netguard.ErrRefused) {
			t.Errorf("CheckURL(%s) = %v, want ErrRefused", raw, err)
		}
	}
	var nilGuard *netguard.Guard
	if err := nilGuard.CheckURL(&url.URL{Scheme: "http", Host: "127.0.0.1"}); err != nil {
		t.Errorf("nil guard refused: %v", err)
	}
}

// counting starts a real server on loopback and counts the requests that reach it.
func counting(t *testing.T) (*httptest.Server, *atomic.Int64) {
	t.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		_, _ = w.Write([]byte("internal secret"))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

// TestDialRefusesAfterResolution: the guard decides on the address dialled, so a
// name that resolves to loopback is refused like the literal, and no byte reaches
// the server.
func TestDialRefusesAfterResolution(t *testing.T) {
	t.Parallel()
	srv, n := counting(t)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	client := &http.Client{Transport: netguard.Must().Transport(nil)}
	for _, u := range []string{srv.URL, "http://localhost:" + port + "/"} {
		resp, err := client.Get(u)
		if err == nil {
			resp.Body.Close()
			t.Fatalf("GET %s passed the guard", u)
		}
		var re *netguard.RefusedError
		if !errors.As(err, &re) || re.Class != "loopback" {
			t.Errorf("GET %s: %v, want a loopback refusal", u, err)
		}
	}
	if got := n.Load(); got != 0 {
		t.Errorf("%d requests reached the internal server", got)
	}
}

func TestDialPassesTrustedAndAllowed(t *testing.T) {
	t.Parallel()
	srv, n := counting(t)
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())

	trusted := netguard.Must()
	trusted.Trust(srv.URL + "/api")
	byPrefix := netguard.Must("127.0.0.0/8")
	byHostPort := netguard.Must("localhost:" + port)
	for name, c := range map[string]struct {
		g   *netguard.Guard
		url string
	}{
		"trusted":   {trusted, srv.URL},
		"prefix":    {byPrefix, srv.URL},
		"host:port": {byHostPort, "http://localhost:" + port + "/"},
		"nil guard": {nil, srv.URL},
	} {
		client := &http.Client{Transport: c.g.Transport(nil)}
		resp, err := client.Get(c.url)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		resp.Body.Close()
	}
	if got := n.Load(); got != 4 {
		t.Errorf("%d requests arrived, want 4", got)
	}
}

func TestCheckAddr(t *testing.T) {
	t.Parallel()
	g := netguard.Must()
	for addr, refused := range map[string]bool{
		"127.0.0.1:80":      true,
		"[::1]:443":         true,
		"93.184.216.34:443": false,
		"nonsense":          true,
	} {
		if got := g.CheckAddr(addr) != nil; got != refused {
			t.Errorf("CheckAddr(%s) refused %v, want %v", addr, got, refused)
		}
	}
}

// TestNonCanonicalIPv4: every way of writing an IPv4 address but the four decimal
// numbers is refused at once, whatever it stands for (docs/hub-client.md,
// "Outbound guard"); names and the canonical form are left to the other checks.
func TestNonCanonicalIPv4(t *testing.T) {
	t.Parallel()
	g := netguard.Must("127.0.0.0/8")
	cases := []struct {
		host string
		non  bool
	}{
		{"127.1", true}, {"127.0.1", true}, {"2130706433", true}, {"0x7f000001", true}, {"0X7F000001", true},
		{"017700000001", true}, {"0177.0.0.1", true}, {"0x7f.0.0.1", true}, {"0x7f.1", true}, {"127.0.0.01", true},
		{"0", true}, {"0x", true}, {"127.0.0.1.", true}, {"8.8.8.8.8", true}, {"256.0.0.1", true}, {"cdn.example.0x1", true},
		{"999999999999999999999", true}, {"1.2.3.4", false}, {"127.0.0.1", false}, {"8.8.8.8", false},
		{"example.com", false}, {"a1.example", false}, {"1.example", false}, {"0x7f.example", false}, {"::1", false},
		{"example.1a", false}, {"", false}, {"localhost", false},
	}
	for _, c := range cases {
		if got := netguard.NonCanonicalIPv4(c.host); got != c.non {
			t.Errorf("NonCanonicalIPv4(%q) = %v, want %v", c.host, got, c.non)
		}
		if !c.non || strings.ContainsAny(c.host, ":") || c.host == "" {
			continue
		}
		// Refused even where the allow-list admits loopback: the form is the fault.
		err := g.CheckURL(&url.URL{Scheme: "http", Host: c.host + ":8080"})
		var re *netguard.RefusedError
		if !errors.As(err, &re) || re.Class != netguard.ClassNonCanonical || re.Retryable() || strings.Contains(err.Error(), "allow-list") {
			t.Errorf("CheckURL(%s): %v, want a permanent refusal of the form", c.host, err)
		}
	}
}
