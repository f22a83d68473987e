// Package netguard keeps outbound fetches away from internal networks. A Guard refuses
// connections to loopback, private, link-local (the cloud metadata address included),
// shared (CGNAT), multicast, unspecified and reserved addresses, IPv4-mapped and
// NAT64/6to4-embedded forms of them included. It decides at dial time on the address
// actually connected to, after name resolution, so a name that resolves (or rebinds)
// to an internal address is refused like the literal address.
//
// Two kinds of destination pass: operator-configured endpoints registered with Trust
// (the hub's own host:port as configured, a proxy from the environment), and whatever
// the allow-list names (CIDR prefixes, single addresses, host:port pairs).
package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"time"
)

// ErrRefused is wrapped by every refusal of the guard.
var ErrRefused = errors.New("outbound address refused")

// RefusedError names the refused destination and why. It is permanent: the same
// address is refused again.
type RefusedError struct {
	Addr  string // host:port or address as dialled or requested
	Class string // e.g. "loopback", "private", "link-local (cloud metadata)"
}

func (e *RefusedError) Error() string {
	if e.Class == ClassNonCanonical {
		// No allow-list entry passes it: saying so would send the operator looking.
		return fmt.Sprintf("%v: %s is %s", ErrRefused, e.Addr, e.Class)
	}
	return fmt.Sprintf("%v: %s is %s (not on the fetch allow-list)", ErrRefused, e.Addr, e.Class)
}

// ClassNonCanonical is the class of a host that is an IPv4 address written in
// another form than four decimal numbers (127.1, 2130706433, 0x7f000001,
// 017700000001, 0177.0.0.1, 127.0.0.1.). Browsers and C resolvers read such a host as an
// address, Go's resolver as a name it never finds: either way no fetch can succeed
// the way it would for the canonical form, and these forms are how a guard is
// slipped past. Refused permanently, whatever the allow-list says.
const ClassNonCanonical = "an IPv4 address in a non-canonical numeric form"

// NonCanonicalIPv4 reports whether host (a URL's host, without port or brackets) is
// an IPv4 address in a non-canonical form. As the WHATWG URL standard does, a host
// whose last label is a number (decimal, or hex after 0x) is taken as an IPv4
// address; only the dotted form of four decimal numbers 0-255 without leading zeros
// is canonical (with a trailing dot it is not: Go resolves it as a name).
func NonCanonicalIPv4(host string) bool {
	h := strings.TrimSuffix(host, ".")
	if h == "" || strings.ContainsAny(h, ":[]") {
		return false
	}
	last := h
	if i := strings.LastIndexByte(h, '.'); i >= 0 {
		last = h[i+1:]
	}
	if !numericLabel(last) {
		return false
	}
	ip, err := netip.ParseAddr(h)
	return err != nil || !ip.Is4() || h != host
}

// numericLabel: decimal digits, or 0x / 0X followed by hex digits (none too, as the
// URL standard counts "0x" as zero).
func numericLabel(s string) bool {
	if s == "" {
		return false
	}
	if len(s) >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') {
		for _, c := range s[2:] {
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
		return true
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

func (e *RefusedError) Unwrap() error { return ErrRefused }

// Retryable is false: a refused address stays refused.
func (e *RefusedError) Retryable() bool { return false }

// Guard decides which outbound destinations may be dialled. The zero value is not
// usable; a nil *Guard allows everything. A Guard is safe for concurrent use.
type Guard struct {
	allow     []netip.Prefix
	hostPorts map[string]bool // allow-listed host:port, lower case

	mu      sync.RWMutex
	trusted map[string]bool // operator-configured host:port, lower case
}

// New builds a Guard from allow-list entries: a CIDR prefix ("10.0.0.0/8",
// "fd00::/8"), a single address ("127.0.0.1", "::1") or a host:port pair
// ("hub.internal:8443", "127.0.0.1:9000", "[::1]:8080"). Every bad entry is reported.
func New(allow []string) (*Guard, error) {
	g := &Guard{hostPorts: map[string]bool{}, trusted: map[string]bool{}}
	var errs []error
	for _, a := range allow {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if p, err := netip.ParsePrefix(a); err == nil {
			g.allow = append(g.allow, p.Masked())
			continue
		}
		if ip, err := netip.ParseAddr(a); err == nil {
			g.allow = append(g.allow, netip.PrefixFrom(ip, ip.BitLen()))
			continue
		}
		host, port, err := net.SplitHostPort(a)
		if err != nil || host == "" || port == "" || strings.ContainsAny(host, "/ ") {
			errs = append(errs, fmt.Errorf("fetch allow-list entry %q: want a CIDR, an address or host:port", a))
			continue
		}
		g.hostPorts[normHostPort(host, port)] = true
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return g, nil
}

// Must is New for fixed entries (tests, defaults); it panics on a bad entry.
func Must(allow ...string) *Guard {
	g, err := New(allow)
	if err != nil {
		panic(err)
	}
	return g
}

// Trust registers the host:port of an operator-configured endpoint URL (scheme
// default ports filled in): connections to it are not checked. Only the host as
// written passes: a redirect to another name or address is checked.
func (g *Guard) Trust(rawURL string) {
	if g == nil {
		return
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Host == "" {
		return
	}
	hp := urlHostPort(u)
	g.mu.Lock()
	g.trusted[hp] = true
	g.mu.Unlock()
}

// passes reports whether host:port is trusted or allow-listed by name.
func (g *Guard) passes(hostport string) bool {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return false
	}
	hp := normHostPort(host, port)
	if g.hostPorts[hp] {
		return true
	}
	g.mu.RLock()
	defer g.mu.RUnlock()
	return g.trusted[hp]
}

// CheckURL refuses a URL whose host is a literal refused address, or an IPv4 address
// in a non-canonical numeric form (NonCanonicalIPv4). Names are left
// to the dial-time check (they resolve there); trusted and allow-listed host:ports
// pass. It lets a client refuse a redirect before sending anything, and still
// guards literal addresses when the request goes through a proxy.
func (g *Guard) CheckURL(u *url.URL) error {
	if g == nil {
		return nil
	}
	hp := urlHostPort(u)
	if g.passes(hp) {
		return nil
	}
	host := strings.TrimSuffix(strings.TrimPrefix(u.Hostname(), "["), "]")
	if i := strings.IndexByte(host, '%'); i >= 0 {
		host = host[:i] // zone
	}
	if NonCanonicalIPv4(host) {
		return &RefusedError{Addr: hp, Class: ClassNonCanonical}
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") || strings.HasSuffix(strings.ToLower(strings.TrimSuffix(host, ".")), ".localhost") {
			return &RefusedError{Addr: hp, Class: "loopback"}
		}
		return nil
	}
	return g.checkIP(ip, hp)
}

// CheckAddr checks an address as the dialer sees it ("ip:port").
func (g *Guard) CheckAddr(address string) error {
	if g == nil {
		return nil
	}
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &RefusedError{Addr: address, Class: "not an IP address"}
	}
	return g.checkIP(ap.Addr(), address)
}

func (g *Guard) checkIP(ip netip.Addr, addr string) error {
	ip = ip.WithZone("")
	for _, p := range g.allow {
		if p.Contains(ip) || p.Contains(ip.Unmap()) {
			return nil
		}
	}
	if c := Class(ip); c != "" {
		return &RefusedError{Addr: addr, Class: c}
	}
	return nil
}

var (
	cgnat        = netip.MustParsePrefix("100.64.0.0/10")
	thisNet      = netip.MustParsePrefix("0.0.0.0/8")
	ietf         = netip.MustParsePrefix("192.0.0.0/24")
	benchmarking = netip.MustParsePrefix("198.18.0.0/15")
	reserved4    = netip.MustParsePrefix("240.0.0.0/4") // broadcast included
	doc4         = []netip.Prefix{netip.MustParsePrefix("192.0.2.0/24"), netip.MustParsePrefix("198.51.100.0/24"), netip.MustParsePrefix("203.0.113.0/24")}
	nat64        = netip.MustParsePrefix("64:ff9b::/96")
	nat64Local   = netip.MustParsePrefix("64:ff9b:1::/48")
	sixToFour    = netip.MustParsePrefix("2002::/16")
	v4Compat     = netip.MustParsePrefix("::/96")
	doc6         = netip.MustParsePrefix("2001:db8::/32")
	discard6     = netip.MustParsePrefix("100::/64")
	siteLocal6   = netip.MustParsePrefix("fec0::/10")
	metadata4    = netip.MustParseAddr("169.254.169.254")
	metadata6    = netip.MustParseAddr("fd00:ec2::254")
)

// Class names why an address is refused by default, "" for a public address.
func Class(ip netip.Addr) string {
	ip = ip.WithZone("").Unmap()
	switch {
	case !ip.IsValid():
		return "invalid"
	case ip == metadata4 || ip == metadata6:
		return "link-local (cloud metadata)"
	case ip.IsUnspecified():
		return "unspecified"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsMulticast(), ip.IsLinkLocalMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	}
	if ip.Is4() {
		switch {
		case cgnat.Contains(ip):
			return "shared (CGNAT)"
		case thisNet.Contains(ip):
			return "unspecified"
		case ietf.Contains(ip), benchmarking.Contains(ip), reserved4.Contains(ip):
			return "reserved"
		}
		for _, p := range doc4 {
			if p.Contains(ip) {
				return "reserved"
			}
		}
		return ""
	}
	b := ip.As16()
	switch {
	case nat64Local.Contains(ip):
		return "reserved"
	case nat64.Contains(ip):
		if c := Class(netip.AddrFrom4([4]byte(b[12:16]))); c != "" {
			return c + " (NAT64)"
		}
	case sixToFour.Contains(ip):
		if c := Class(netip.AddrFrom4([4]byte(b[2:6]))); c != "" {
			return c + " (6to4)"
		}
	case v4Compat.Contains(ip), doc6.Contains(ip), discard6.Contains(ip), siteLocal6.Contains(ip):
		return "reserved"
	}
	return ""
}

// DialContext returns a dial function for an http.Transport: trusted and
// allow-listed host:ports are dialled as they are; every other destination is
// checked on each address the name resolved to, just before connecting.
func (g *Guard) DialContext(d *net.Dialer) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if d == nil {
		d = &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	}
	if g == nil {
		return d.DialContext
	}
	guarded := *d
	prev := d.ControlContext
	guarded.ControlContext = func(ctx context.Context, network, address string, c syscall.RawConn) error {
		if err := g.CheckAddr(address); err != nil {
			return err
		}
		if prev != nil {
			return prev(ctx, network, address, c)
		}
		return nil
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		if g.passes(addr) {
			return d.DialContext(ctx, network, addr)
		}
		return guarded.DialContext(ctx, network, addr)
	}
}

// Transport returns a clone of base (nil: http.DefaultTransport) that dials through
// the guard. A proxy chosen by the environment (HTTPS_PROXY, ...) is trusted as
// operator configuration: behind it only literal addresses can be refused (CheckURL),
// name resolution is the proxy's.
func (g *Guard) Transport(base *http.Transport) *http.Transport {
	if base == nil {
		dt, _ := http.DefaultTransport.(*http.Transport)
		if dt == nil {
			dt = &http.Transport{}
		}
		base = dt
	}
	t := base.Clone()
	t.DialContext = g.DialContext(&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second})
	t.DialTLSContext = nil
	if p := t.Proxy; p != nil && g != nil {
		t.Proxy = func(r *http.Request) (*url.URL, error) {
			u, err := p(r)
			if err == nil && u != nil {
				g.Trust(u.String())
			}
			return u, err
		}
	}
	return t
}

func urlHostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		switch strings.ToLower(u.Scheme) {
		case "https":
			port = "443"
		default:
			port = "80"
		}
	}
	return normHostPort(u.Hostname(), port)
}

func normHostPort(host, port string) string {
	return net.JoinHostPort(strings.ToLower(strings.TrimSuffix(host, ".")), port)
}
