package hub_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/internal/netguard"
	"github.com/printworker/printworker/model"
)

// fuzzSeeds adds the realistic fixtures and a few broken variants.
func fuzzSeeds(f *testing.F, file string) {
	good := fixture(file)
	f.Add(good)
	f.Add(good[:len(good)/2])
	f.Add([]byte(`{}`))
	f.Add([]byte(`null`))
	f.Add([]byte(`{"views":[{"elements":[{"type":"text","value":{"en":"a","de":"b"},"name":null}],"template":null}]}`))
	f.Add([]byte(`{"views":[{"name":{"en":"x","en":"y"},"export":{"area":null},"addText":{}}],"NAME":"a","name":"b"}`))
	f.Add([]byte(`{"views":"front"}`))
	f.Add([]byte(`[1,2,3]`))
}

// roundTrip checks decode -> encode -> decode -> encode is stable: the second encoding
// equals the first byte for byte.
func roundTrip[T any](t *testing.T, data []byte, decode func([]byte) (*T, error)) {
	v, err := decode(data)
	if err != nil {
		if err.Error() == "" {
			t.Fatal("empty error message")
		}
		return
	}
	enc1, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encode of a decoded value failed: %v", err)
	}
	v2, err := decode(enc1)
	if err != nil {
		t.Fatalf("re-decode of %s failed: %v", enc1, err)
	}
	enc2, err := json.Marshal(v2)
	if err != nil {
		t.Fatalf("second encode: %v", err)
	}
	if !bytes.Equal(enc1, enc2) {
		t.Fatalf("unstable round trip\nfirst:  %s\nsecond: %s", enc1, enc2)
	}
}

func FuzzDecodeDesign(f *testing.F) {
	fuzzSeeds(f, "design.json")
	f.Fuzz(func(t *testing.T, data []byte) { roundTrip(t, data, model.DecodeDesign) })
}

func FuzzDecodeTemplate(f *testing.F) {
	fuzzSeeds(f, "template.json")
	f.Fuzz(func(t *testing.T, data []byte) { roundTrip(t, data, model.DecodeTemplate) })
}

func TestDecodeErrorsAreClear(t *testing.T) {
	cases := []struct {
		in   string
		want string
	}{
		{``, "design detail: empty document"},
		{`[]`, "expected a JSON object"},
		{"{\n  \"views\": [\n    {,}\n  ]\n}", "invalid JSON at line 3, column 6"},
		{`{"views":[{"elements":[{"weight":"x"}]}]}`, "field views.elements.weight: JSON string where int is expected"},
		{`{"configurationId":"1042"}`, "field configurationId: JSON string where int64 is expected"},
		{`{"views":[{"name":{"en":5}}]}`, `translations: language "en"`},
		{string(fixture("design.json")[:200]), "unexpected end of JSON input"},
	}
	for _, tc := range cases {
		_, err := model.DecodeDesign([]byte(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("DecodeDesign(%.30q) = %v, want it to say %q", tc.in, err, tc.want)
		}
	}
	_, err := model.DecodeTemplate([]byte(`{"views":[{"weight":1.5}]}`))
	var typ *json.UnmarshalTypeError
	if err == nil || !strings.HasPrefix(err.Error(), "template: field views.weight") || !errors.As(err, &typ) {
		t.Errorf("template error %v must name the field and unwrap to *json.UnmarshalTypeError", err)
	}
	if d, err := model.DecodeDesign(fixture("design.json")); err != nil || d.ConfigurationID != 1042 {
		t.Errorf("fixture: %v", err)
	}
}

// FuzzMediaRedirect: whatever Location a media answer carries, no request reaches an
// internal service, a change of scheme other than http -> https is a permanent
// error, and nothing of the target's answer reaches the error. The client dials only
// loopback (and resolves no names beyond /etc/hosts): a fuzzed public address fails
// without leaving the machine.
func FuzzMediaRedirect(f *testing.F) {
	internal, hits := internalServiceTB(f)
	_, port, _ := net.SplitHostPort(internal.Listener.Addr().String())
	for _, s := range []string{
		internal.URL, "http://localhost:" + port + "/", "http://127.1:" + port, "http://0x7f000001:" + port,
		"http://2130706433:" + port, "http://[::1]:" + port, "http://[::ffff:7f00:1]:" + port,
		"http://[0:0:0:0:0:ffff:127.0.0.1]:" + port, "http://169.254.169.254/latest/meta-data/",
		"http://[fd00:ec2::254]/", "http://10.0.0.1/", "http://192.168.0.1/", "http://100.64.0.1/",
		"http://0.0.0.0:" + port, "http://[::]:" + port, "file:///etc/passwd", "ftp://x/", "data:,x",
		"//127.0.0.1:" + port + "/", "/relative", "https://127.0.0.1:" + port, "http://user@127.0.0.1:" + port,
		"http://127.0.0.1:" + port + "#@example.com", "http://example.com@127.0.0.1:" + port,
		"http://LOCALHOST:" + port, "http://localhost.:" + port, "http://a.localhost:" + port,
		"http://[fe80::1%25lo]:" + port, "\x00http://x", "http://%31%32%37.0.0.1:" + port,
		"http://017700000001:" + port, "http://0177.0.0.1:" + port, "http://127.0.0.1.:" + port, "http://[::1",
		"http://%zz/", "http://x:port/", "http://cdn.example.0x10/",
	} {
		f.Add(s)
	}
	var mu sync.Mutex
	var location string
	fh := newFakeHub(f)
	fh.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
		mu.Lock()
		loc := location
		mu.Unlock()
		if s.Op == hub.OpGetMedia && r.URL.Path != "/relative" {
			w.Header()["Location"] = []string{loc}
			w.WriteHeader(http.StatusFound)
			return
		}
		w.WriteHeader(http.StatusNotFound)
	})
	c := noDNSClient(f, fh)
	f.Fuzz(func(t *testing.T, loc string) {
		if strings.ContainsAny(loc, "\r\n") {
			return // not a header value
		}
		mu.Lock()
		location = loc
		mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		d, err := c.OpenMedia(ctx, testMedia)
		if err == nil {
			d.Body.Close()
		}
		if n := hits.Load(); n != 0 {
			t.Fatalf("Location %q reached the internal service", loc)
		}
		if err != nil && strings.Contains(err.Error(), internalSecret) {
			t.Fatalf("Location %q: the internal answer reached the error: %v", loc, err)
		}
		var he *hub.Error
		if err != nil && !errors.As(err, &he) {
			t.Fatalf("Location %q: unclassified error %v", loc, err)
		}
		// Only a header-safe Location reaches the client as one: a control byte breaks
		// the answer in transit (a transport error, transient).
		if loc == "" || loc != strings.TrimSpace(loc) || strings.ContainsFunc(loc, func(r rune) bool { return r < 0x20 || r > 0x7e }) {
			return
		}
		if u, perr := url.Parse(loc); perr == nil && u.Scheme != "" && u.Scheme != "http" && u.Scheme != "https" {
			if err == nil || he.Retryable() {
				t.Fatalf("Location %q (scheme %s): %v, want a permanent error", loc, u.Scheme, err)
			}
		}
		// A redirect that can never succeed is permanent at once: a Location that is
		// not a URL, a host that is an IPv4 address in a non-canonical form.
		base, _ := url.Parse("http://127.0.0.1/media/x")
		u, perr := base.Parse(loc)
		if perr != nil || (u.Scheme == "http" || u.Scheme == "https") && netguard.NonCanonicalIPv4(u.Hostname()) {
			if err == nil || he.Retryable() {
				t.Fatalf("Location %q: %v, want a permanent error", loc, err)
			}
		}
	})
}

// FuzzReason: whatever an error body holds, its reason is short printable ASCII.
func FuzzReason(f *testing.F) {
	for _, s := range []string{`{"error":"x"}`, `{"message":"\u202e\u0000"}`, "<html>" + internalSecret, "a\nb", strings.Repeat("é", 300), `{"error":{"message":"y"}}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		r := hub.Reason(body)
		if len(r) > 160 || strings.ContainsFunc(r, func(c rune) bool { return c < 0x20 || c > 0x7e }) {
			t.Fatalf("Reason(%q) = %q", body, r)
		}
	})
}
