package netguard_test

import (
	"errors"
	"net/netip"
	"net/url"
	"testing"

	"github.com/printworker/printworker/internal/netguard"
)

// FuzzCheckURL: any URL a redirect may carry is decided without panicking, and a
// literal internal address is always refused, whatever its spelling.
func FuzzCheckURL(f *testing.F) {
	for _, s := range []string{
		"http://127.0.0.1/", "http://[::ffff:127.0.0.1]:80/", "http://[::1]/", "http://[fe80::1%25eth0]/",
		"http://169.254.169.254/latest", "http://[64:ff9b::a9fe:a9fe]/", "http://[2002:a9fe:a9fe::]/",
		"http://0x7f000001/", "http://2130706433/", "http://127.1/", "http://localhost./", "http://x.localhost/",
		"http://user:pw@10.0.0.1:8080/", "https://example.com/", "http://[::]/", "http://0/", "file:///etc/passwd",
		"http://%31%32%37.0.0.1/", "http://127.0.0.1%00.example.com/", "http://[::ffff:a00:1]/",
		"http://017700000001/", "http://0177.0.0.1/", "http://0x7f.1/", "http://127.0.0.1./", "http://8.8.8.8.8/",
	} {
		f.Add(s)
	}
	g := netguard.Must()
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := url.Parse(raw)
		if err != nil {
			return
		}
		err = g.CheckURL(u)
		host := u.Hostname()
		if ip, perr := netip.ParseAddr(host); perr == nil && netguard.Class(ip) != "" && err == nil {
			t.Fatalf("CheckURL(%q) passed the internal address %s (%s)", raw, ip, netguard.Class(ip))
		}
		var re *netguard.RefusedError
		if netguard.NonCanonicalIPv4(host) && !errors.As(err, &re) {
			t.Fatalf("CheckURL(%q) passed the non-canonical IPv4 host %q: %v", raw, host, err)
		}
	})
}

// FuzzNew: allow-list entries never panic, and an accepted address entry allows
// exactly that address.
func FuzzNew(f *testing.F) {
	for _, s := range []string{"10.0.0.0/8", "127.0.0.1", "[::1]:8080", "host:1", "::ffff:127.0.0.1", "0.0.0.0/0", "x", ":80", "[fe80::1%eth0]:1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, entry string) {
		g, err := netguard.New([]string{entry})
		if err != nil {
			return
		}
		if ip, perr := netip.ParseAddr(entry); perr == nil && ip.Zone() == "" {
			if err := g.CheckAddr(netip.AddrPortFrom(ip, 443).String()); err != nil {
				t.Fatalf("entry %q does not allow its own address: %v", entry, err)
			}
		}
	})
}
