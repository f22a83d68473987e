package hub_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/printworker/printworker/hub"
)

// fakeHub is an httptest server that understands the interface independently of the
// client's path builders: it routes by its own patterns, checks the store and API key
// headers of the request's version and verifies the signature over the verification
// string of the operation it recognised. Tests program its answers with respond.
type fakeHub struct {
	srv    *httptest.Server
	store  string
	key    string
	secret string
	enc    hub.SignatureEncoding
	word   string // expected vendor word in header names

	mu      sync.Mutex
	reqs    []seen
	respond func(w http.ResponseWriter, r *http.Request, s seen)
}

// seen is one request as the fake hub understood it.
type seen struct {
	Op      string
	Version string
	Method  string
	Path    string // escaped, as on the wire
	Query   url.Values
	Header  http.Header
	Body    []byte
	IDs     []string // path parameters, unescaped
}

type route struct {
	method string
	re     *regexp.Regexp
	op     string
	// parts builds the verification string parts from store, path ids and body.
	parts func(store string, ids []string, body []byte) []string
}

func storeOnly(store string, _ []string, _ []byte) []string { return []string{store} }
func storeIDs(store string, ids []string, _ []byte) []string {
	return append([]string{store}, ids...)
}
func storeBodyOrder(store string, _ []string, body []byte) []string {
	var o struct {
		OrderID string `json:"orderId"`
	}
	_ = json.Unmarshal(body, &o)
	return []string{store, o.OrderID}
}

var (
	seg    = `([^/]+)`
	routes = []route{
		{"POST", regexp.MustCompile(`^/(v1)/order$`), hub.OpCreateOrder, storeBodyOrder},
		{"POST", regexp.MustCompile(`^/(2022-08|2023-10)/orders$`), hub.OpCreateOrder, storeBodyOrder},
		{"POST", regexp.MustCompile(`^/(v1)/order/` + seg + `$`), hub.OpUpdateOrder, storeIDs},
		{"POST", regexp.MustCompile(`^/(2022-08|2023-10)/orders/` + seg + `$`), hub.OpUpdateOrder, storeIDs},
		{"DELETE", regexp.MustCompile(`^/(v1)/order/` + seg + `$`), hub.OpDeleteOrder, storeIDs},
		{"DELETE", regexp.MustCompile(`^/(2022-08|2023-10)/orders/` + seg + `$`), hub.OpDeleteOrder, storeIDs},
		{"GET", regexp.MustCompile(`^/(v1|2022-08|2023-10)/templates$`), hub.OpListTemplates, storeOnly},
		{"POST", regexp.MustCompile(`^/(v1|2022-08|2023-10)/templates$`), hub.OpCreateTemplate, storeOnly},
		{"GET", regexp.MustCompile(`^/(v1|2022-08|2023-10)/templates/` + seg + `$`), hub.OpGetTemplate, storeIDs},
		{"POST", regexp.MustCompile(`^/(v1|2022-08|2023-10)/templates/` + seg + `$`), hub.OpUpdateTemplate, storeIDs},
		{"DELETE", regexp.MustCompile(`^/(v1|2022-08|2023-10)/templates/` + seg + `$`), hub.OpDeleteTemplate, storeIDs},
		{"GET", regexp.MustCompile(`^/(v1)/configuration/(\d+)/` + seg + `$`), hub.OpGetDesign, storeIDs},
		{"GET", regexp.MustCompile(`^/(v1)/configuration/(\d+)/` + seg + `/export$`), hub.OpExportDesign, storeIDs},
		{"GET", regexp.MustCompile(`^/(v1)/configuration/(\d+)/` + seg + `/view/` + seg + `/export$`), hub.OpExportView, storeIDs},
		{"GET", regexp.MustCompile(`^/(2022-08)/customizations/(\d+)/` + seg + `$`), hub.OpGetDesign, storeIDs},
		{"GET", regexp.MustCompile(`^/(2023-10)/designs/(\d+)/` + seg + `$`), hub.OpGetDesign, storeIDs},
		{"GET", regexp.MustCompile(`^/(2022-08|2023-10)/export/(\d+)/` + seg + `$`), hub.OpExportDesign, storeIDs},
		{"GET", regexp.MustCompile(`^/(2022-08|2023-10)/export/(\d+)/` + seg + `/view/` + seg + `$`), hub.OpExportView, storeIDs},
		{"GET", regexp.MustCompile(`^/media/` + seg + `/` + seg + `$`), hub.OpGetMedia, nil},
	}
)

func newFakeHub(t testing.TB) *fakeHub {
	t.Helper()
	f := &fakeHub{store: "store-42", key: "key-1", secret: "s3cret", enc: hub.EncodingHex, word: "Service"}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeHub) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s := seen{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.Query(), Header: r.Header.Clone(), Body: body}
	var rt *route
	for i := range routes {
		if m := routes[i].re.FindStringSubmatch(s.Path); m != nil && routes[i].method == r.Method {
			rt = &routes[i]
			s.Op = rt.op
			for _, p := range m[1:] {
				u, _ := url.PathUnescape(p)
				s.IDs = append(s.IDs, u)
			}
			if rt.parts != nil {
				s.Version, s.IDs = s.IDs[0], s.IDs[1:]
			}
			break
		}
	}
	f.mu.Lock()
	f.reqs = append(f.reqs, s)
	respond := f.respond
	f.mu.Unlock()
	if rt == nil {
		http.Error(w, `{"error":"no such route"}`, http.StatusNotFound)
		return
	}
	if rt.parts != nil {
		h := hub.HeadersFor(hub.Version(s.Version), f.word)
		switch {
		case r.Header.Get(h.Store) != f.store:
			http.Error(w, `{"error":"unknown store"}`, http.StatusUnauthorized)
			return
		case r.Header.Get(h.APIKey) != f.key:
			http.Error(w, `{"error":"unknown key"}`, http.StatusUnauthorized)
			return
		case !hub.VerifySignature(f.secret, f.enc, r.Header.Get(h.Signature), rt.parts(f.store, s.IDs, body)...):
			http.Error(w, `{"error":"bad signature"}`, http.StatusUnauthorized)
			return
		}
	}
	if respond != nil {
		respond(w, r, s)
		return
	}
	f.defaultAnswer(w, s)
}

// defaultAnswer gives a plausible 2xx for every operation.
func (f *fakeHub) defaultAnswer(w http.ResponseWriter, s seen) {
	switch s.Op {
	case hub.OpGetDesign:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(fixture("design.json"))
	case hub.OpGetTemplate:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(fixture("template.json"))
	case hub.OpListTemplates:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(fixture("templates-page.json"))
	case hub.OpExportDesign, hub.OpExportView:
		w.Header().Set("Content-Type", "application/pdf")
		w.Header().Set("Content-Disposition", "attachment")
		_, _ = io.WriteString(w, "%PDF-1.7\n% export of "+strings.Join(s.IDs, "/")+"\n%%EOF\n")
	case hub.OpGetMedia:
		w.Header().Set("Content-Type", "image/png")
		_, _ = io.WriteString(w, "\x89PNG\r\n\x1a\nmedia "+strings.Join(s.IDs, "/"))
	case hub.OpCreateOrder, hub.OpCreateTemplate:
		w.WriteHeader(http.StatusCreated)
	default:
		w.WriteHeader(http.StatusOK)
	}
}

func (f *fakeHub) setRespond(fn func(w http.ResponseWriter, r *http.Request, s seen)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.respond = fn
}

func (f *fakeHub) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.reqs...)
}

func (f *fakeHub) reset() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = nil
}

func (f *fakeHub) ops() []string {
	var out []string
	for _, r := range f.requests() {
		out = append(out, r.Op)
	}
	return out
}

// client builds a client for the fake hub, all resources at version v.
func (f *fakeHub) client(t testing.TB, v hub.Version, mod ...func(*hub.Config)) *hub.Client {
	t.Helper()
	ep := hub.Endpoint{BaseURL: f.srv.URL, Version: v}
	cfg := hub.Config{Store: f.store, APIKey: f.key, Secret: f.secret, Orders: ep, Templates: ep, Designs: ep,
		Domains: []string{"shop.example.com"}}
	for _, m := range mod {
		m(&cfg)
	}
	c, err := hub.NewClient(cfg)
	if err != nil {
		t.Fatalf("NewClient: %v", err)
	}
	return c
}

// fixture reads a file under testdata; the files are part of the package.
func fixture(name string) []byte {
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		panic(err)
	}
	return b
}
