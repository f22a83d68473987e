package hub

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/printworker/printworker/internal/netguard"
	"github.com/printworker/printworker/model"
)

// Endpoint is where one resource (orders, templates, designs) is served: base URL,
// API version and the vendor word of its header names. The hub moved hosts with
// 2023-10 and renamed headers, so each resource is configured on its own.
type Endpoint struct {
	BaseURL string  // e.g. https://api.hub.example; empty: Config.BaseURL
	Version Version // v1, 2022-08 or 2023-10
	Word    string  // vendor word in header names, X-<Word>-Store; default "Service"
}

// Delete-order domain placement (Config.DeleteDomain).
const (
	DomainInQuery  = "query"  // DELETE .../orders/:id?domain=<domain>
	DomainInHeader = "header" // DELETE .../orders/:id with X-<Word>-Domain: <domain>
)

// Defaults of Config.
const (
	DefaultTimeout        = 30 * time.Second
	DefaultMaxJSONBytes   = 16 << 20  // design details with many views stay well below
	DefaultMaxExportBytes = 1 << 30   // a multi-view 300 dpi PDF or zip
	DefaultMaxMediaBytes  = 256 << 20 // customer uploads
	DefaultMaxListPages   = 10000     // AllTemplates iteration cap
	DefaultMediaURL       = "{base}/media/{_id}/{token}"
	DefaultMinRate        = 32 << 10 // bytes per MinRateWindow of waiting for a body
	DefaultMinRateWindow  = 10 * time.Second
	// MaxRedirects bounds the redirects one media download follows.
	MaxRedirects = 5
)

// Config configures a Client. Zero values take the defaults noted per field.
type Config struct {
	Store  string // store id, sent in the store header and signed
	APIKey string // sent in the API key header
	Secret string // HMAC key; never logged

	Encoding SignatureEncoding // signature encoding; default hex

	// BaseURL is the base address of every Endpoint that leaves its own empty.
	BaseURL string
	// Per resource; defaults: Orders and Templates 2022-08, Designs 2023-10.
	Orders, Templates, Designs Endpoint

	// DeleteDomain says how delete order sends the domain that completes the order's
	// identity: "query" (default) or "header".
	DeleteDomain string
	// Domains lists the shop domains orders may carry; empty accepts any.
	Domains []string

	// Timeout bounds each call from sending to the end of a JSON answer. For exports
	// and media it bounds only the wait for the response headers: a streaming body is
	// bounded by the caller's context. Default 30s.
	Timeout time.Duration

	MaxJSONBytes   int64 // cap of a JSON answer; default 16 MiB
	MaxExportBytes int64 // cap of one export download; default 1 GiB
	MaxMediaBytes  int64 // cap of one media download; default 256 MiB
	// MaxListPages caps the pages AllTemplates requests; default 10000.
	MaxListPages int

	// MediaURL is the media download address with placeholders {base} (the Designs
	// base URL), {_id}, {token} and {originalname}. Default "{base}/media/{_id}/{token}".
	MediaURL string

	// MinRate and MinRateWindow are the slowest an export or media body may arrive:
	// a body that delivers fewer than MinRate bytes while the reader waited
	// MinRateWindow on it fails with ErrTooSlow (transient). Time the caller spends
	// between reads is not counted. Defaults 32 KiB per 10s; MinRate < 0 turns the
	// check off.
	MinRate       int64
	MinRateWindow time.Duration

	// Guard refuses outbound connections to internal addresses (netguard). The
	// client trusts the host:port of its configured endpoints and of a MediaURL
	// whose host is fixed; media redirects and every other destination must pass
	// the guard. Nil: a guard with an empty allow-list. With HTTPClient set, the
	// caller must dial through the same guard (Guard.Transport) for names to be
	// checked after resolution; literal addresses in media URLs and redirects are
	// refused by the client either way.
	Guard *netguard.Guard

	HTTPClient *http.Client // default: a client dialling through Guard, without timeout (contexts bound calls)
	Logger     *slog.Logger // default: discard
	// Clock times the minimum-rate check; default the system clock. Tests inject one.
	Clock Clock
}

// Clock is the time source of the minimum-rate check.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f in its own goroutine after d unless the timer is stopped
	// first, as time.AfterFunc does.
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a timer of a Clock; *time.Timer is one.
type Timer interface {
	Stop() bool
	Reset(d time.Duration) bool
}

type systemClock struct{}

func (systemClock) Now() time.Time                            { return time.Now() }
func (systemClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }

// withDefaults returns c with every zero value replaced by its default.
func (c Config) withDefaults() Config {
	ep := func(e Endpoint, v Version) Endpoint {
		if e.BaseURL == "" {
			e.BaseURL = c.BaseURL
		}
		e.BaseURL = strings.TrimRight(e.BaseURL, "/")
		if e.Version == "" {
			e.Version = v
		}
		if e.Word == "" {
			e.Word = DefaultWord
		}
		return e
	}
	c.Orders = ep(c.Orders, V2022)
	c.Templates = ep(c.Templates, V2022)
	c.Designs = ep(c.Designs, V2023)
	if c.Encoding == "" {
		c.Encoding = EncodingHex
	}
	if c.DeleteDomain == "" {
		c.DeleteDomain = DomainInQuery
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxJSONBytes == 0 {
		c.MaxJSONBytes = DefaultMaxJSONBytes
	}
	if c.MaxExportBytes == 0 {
		c.MaxExportBytes = DefaultMaxExportBytes
	}
	if c.MaxMediaBytes == 0 {
		c.MaxMediaBytes = DefaultMaxMediaBytes
	}
	if c.MaxListPages == 0 {
		c.MaxListPages = DefaultMaxListPages
	}
	if c.MediaURL == "" {
		c.MediaURL = DefaultMediaURL
	}
	if c.MinRate == 0 {
		c.MinRate = DefaultMinRate
	}
	if c.MinRateWindow == 0 {
		c.MinRateWindow = DefaultMinRateWindow
	}
	if c.Clock == nil {
		c.Clock = systemClock{}
	}
	return c
}

// Validate reports every bad value at once (defaults applied first). Secrets are
// never echoed.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("hub config: "+format, a...)) }
	if strings.TrimSpace(c.Store) == "" {
		bad("store id is empty")
	} else if !headerSafe(c.Store) {
		bad("store id holds control characters")
	}
	if c.APIKey == "" {
		bad("API key is empty")
	} else if !headerSafe(c.APIKey) {
		bad("API key holds control characters")
	}
	if c.Secret == "" {
		bad("API secret is empty")
	}
	if _, err := ParseSignatureEncoding(string(c.Encoding)); err != nil {
		bad("%v", err)
	}
	for _, r := range []struct {
		name string
		e    Endpoint
	}{{"orders", c.Orders}, {"templates", c.Templates}, {"designs", c.Designs}} {
		if err := checkBaseURL(r.e.BaseURL); err != nil {
			bad("%s base URL: %v", r.name, err)
		}
		if _, err := ParseVersion(string(r.e.Version)); err != nil {
			bad("%s: %v", r.name, err)
		}
		if !isToken(r.e.Word) {
			bad("%s header word %q: want letters, digits and '-'", r.name, r.e.Word)
		}
	}
	if c.DeleteDomain != DomainInQuery && c.DeleteDomain != DomainInHeader {
		bad("delete domain %q: want %q or %q", c.DeleteDomain, DomainInQuery, DomainInHeader)
	}
	for _, d := range c.Domains {
		if strings.TrimSpace(d) == "" || strings.ContainsAny(d, " /") {
			bad("domain %q is not a host name", d)
		}
	}
	if c.Timeout < 0 {
		bad("timeout %s is negative", c.Timeout)
	}
	for _, l := range []struct {
		name string
		v    int64
	}{{"max JSON bytes", c.MaxJSONBytes}, {"max export bytes", c.MaxExportBytes}, {"max media bytes", c.MaxMediaBytes}} {
		if l.v < 0 {
			bad("%s %d is negative", l.name, l.v)
		}
	}
	if c.MaxListPages < 0 {
		bad("max list pages %d is negative", c.MaxListPages)
	}
	if c.MinRateWindow < 0 {
		bad("minimum rate window %s is negative", c.MinRateWindow)
	}
	if !strings.Contains(c.MediaURL, "{_id}") {
		bad("media URL template %q lacks {_id}", c.MediaURL)
	} else if _, err := expandMediaURL(c.MediaURL, "https://hub.invalid", model.Media{ID: "id", Token: "t"}); err != nil {
		bad("media URL template: %v", err)
	}
	return errors.Join(errs...)
}

func checkBaseURL(s string) error {
	if s == "" {
		return errors.New("empty")
	}
	u, err := url.Parse(s)
	if err != nil {
		return err
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return fmt.Errorf("%q: want an absolute http(s) URL", s)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return fmt.Errorf("%q: must not carry a query or fragment", s)
	}
	return nil
}

// headerSafe reports whether s can be sent as a header value (no control characters).
func headerSafe(s string) bool {
	return !strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
}

func isToken(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// Client calls the hub's whole interface (spec section 4): orders, templates, designs,
// exports and media. Every call is signed per spec section 5 with the verification
// string of its operation and carries the header names of its resource's version.
//
// The client never retries, and neither does its transport (noReplay: net/http would
// re-send a GET on a reused connection that closed). Each call makes exactly one request (the order push
// helpers at most two, to converge duplicates: 409 on create -> update, 404 on
// update -> create, 404 on delete -> done; their ...Through forms make each through
// the caller's OrderCalls). Failures come back as *Error, which tells
// through Retryable and RetryAfter whether and when the job queue should try again.
//
// A Client is safe for concurrent use.
type Client struct {
	cfg   Config
	api   *http.Client // signed calls: redirects only to the same host
	media *http.Client // unsigned media downloads: guarded redirects allowed (CDNs)
	guard *netguard.Guard
	log   *slog.Logger
	now   func() time.Time
}

// NewClient validates cfg and builds a client.
func NewClient(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	guard := cfg.Guard
	if guard == nil {
		guard = netguard.Must()
	}
	// The operator configured these endpoints: they stay reachable whatever they
	// resolve to (a hub on a private network, the simulator on loopback).
	for _, ep := range []Endpoint{cfg.Orders, cfg.Templates, cfg.Designs} {
		guard.Trust(ep.BaseURL)
	}
	if h := fixedMediaHost(cfg.MediaURL, cfg.Designs.BaseURL); h != "" {
		guard.Trust(h)
	}
	base := cfg.HTTPClient
	if base == nil {
		base = &http.Client{Transport: guard.Transport(nil)}
	}
	// Every send is the caller's: the transport must not re-send a GET behind the
	// rate limiter's back (noreplay.go).
	base = withoutReplay(base)
	// A Location that does not parse fails at once, permanently (location.go).
	base.Transport = locationCheck{next: base.Transport}
	api := *base
	// The signature and API key ride in custom headers, which net/http forwards on
	// redirects even to other hosts. The interface has no redirects; refuse any that
	// leaves the host so credentials never reach a third party.
	api.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= MaxRedirects {
			return errRedirectLoop
		}
		if req.URL.Host != via[0].URL.Host || req.URL.Scheme != via[0].URL.Scheme {
			return http.ErrUseLastResponse
		}
		return nil
	}
	media := *base
	media.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		return checkMediaRedirect(guard, req, via)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Client{cfg: cfg, api: &api, media: &media, guard: guard, log: log, now: time.Now}, nil
}

// fixedMediaHost returns the media URL template with {base} expanded when its host
// is fixed (no placeholder decides it), "" otherwise.
func fixedMediaHost(tmpl, base string) string {
	s := strings.ReplaceAll(tmpl, "{base}", base)
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || strings.ContainsAny(u.Host, "{}") || strings.Contains(u.Host, "%7B") {
		return ""
	}
	return u.Scheme + "://" + u.Host
}

// checkMediaRedirect lets a media download follow a redirect only to the same
// scheme or from http up to https, only to an address the guard accepts, and at
// most MaxRedirects times.
func checkMediaRedirect(g *netguard.Guard, req *http.Request, via []*http.Request) error {
	if len(via) >= MaxRedirects {
		return errRedirectLoop
	}
	from, to := via[len(via)-1].URL.Scheme, req.URL.Scheme
	if to != from && !(from == "http" && to == "https") {
		return &redirectError{reason: fmt.Sprintf("redirect from %s to %s refused", from, schemeName(to))}
	}
	if err := g.CheckURL(req.URL); err != nil {
		return err
	}
	return nil
}

// schemeName renders a redirect's scheme for an error: short and printable.
func schemeName(s string) string {
	if s == "" {
		return "a relative or schemeless URL"
	}
	if len(s) > 16 || strings.ContainsFunc(s, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
		return "another scheme"
	}
	return s + ":"
}

// redirectError is a redirect the client refuses to follow. Permanent: the answer
// will redirect the same way again.
type redirectError struct{ reason string }

func (e *redirectError) Error() string { return e.reason }
func (e *redirectError) Unwrap() error { return ErrBadResponse }

// errRedirectLoop stops a chain of same-host redirects; retrying would loop again.
var errRedirectLoop = &redirectError{reason: fmt.Sprintf("stopped after %d redirects", MaxRedirects)}

// Config returns the effective configuration (defaults applied).
func (c *Client) Config() Config { return c.cfg }

// call describes one signed request.
type call struct {
	op     string
	method string
	ep     Endpoint
	path   string
	query  url.Values
	parts  []string // verification string parts
	body   any      // JSON request body, nil for none
	domain string   // sent in the domain header when set
	mask   []string // capability tokens in the path, masked in errors and logs
}

// newRequest builds the signed HTTP request of a call.
func (c *Client) newRequest(ctx context.Context, k call) (*http.Request, error) {
	u := k.ep.BaseURL + k.path
	if len(k.query) > 0 {
		u += "?" + k.query.Encode()
	}
	var body io.Reader
	if k.body != nil {
		b, err := json.Marshal(k.body)
		if err != nil {
			return nil, &Error{Op: k.op, Method: k.method, URL: maskTokens(k.ep.BaseURL+k.path, k.mask), Err: fmt.Errorf("%w: encoding the body: %w", ErrInvalidRequest, err)}
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, k.method, u, body)
	if err != nil {
		return nil, &Error{Op: k.op, Method: k.method, URL: maskTokens(k.ep.BaseURL+k.path, k.mask), Err: fmt.Errorf("%w: %w", ErrInvalidRequest, err)}
	}
	h := HeadersFor(k.ep.Version, k.ep.Word)
	req.Header.Set(h.Store, c.cfg.Store)
	req.Header.Set(h.APIKey, c.cfg.APIKey)
	req.Header.Set(h.Signature, Sign(c.cfg.Secret, c.cfg.Encoding, k.parts...))
	if k.domain != "" {
		req.Header.Set(h.Domain, k.domain)
	}
	if k.body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

// do sends a call and, on a 2xx answer, decodes the JSON body into out (nil: the body
// is drained and ignored, as the spec shows no response bodies for writes).
func (c *Client) do(ctx context.Context, k call, out any) error {
	if c.cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, c.cfg.Timeout)
		defer cancel()
	}
	req, err := c.newRequest(ctx, k)
	if err != nil {
		return err
	}
	// Only JSON calls say what they accept: an export answers with a raw file whose
	// type the spec does not name, and must not be refused for an Accept header.
	req.Header.Set("Accept", "application/json")
	resp, err := c.send(c.api, k.op, req, k.mask)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if out == nil {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
		return nil
	}
	return c.decode(k.op, req, resp, out, k.mask)
}

// send performs req and turns transport failures and non-2xx answers into *Error.
// On success the caller owns resp.Body.
func (c *Client) send(hc *http.Client, op string, req *http.Request, mask []string) (*http.Response, error) {
	start := c.now()
	resp, err := hc.Do(req)
	e := &Error{Op: op, Method: req.Method, URL: redactURL(req.URL, mask)}
	if err != nil {
		// The url.Error repeats method and URL (Error has both, redacted) and, after
		// a redirect, names a target the answer chose: keep only its cause.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		e.Err = transportCause(req.Context(), err)
		var re *redirectError
		var ge *netguard.RefusedError
		switch {
		case errors.As(err, &re):
			e.Err = re
		case errors.As(err, &ge):
			e.Err = ge
		}
		c.log.LogAttrs(req.Context(), slog.LevelDebug, "hub call failed", slog.String("op", op),
			slog.String("method", req.Method), slog.String("url", e.URL), slog.Any("err", e.Err))
		return nil, e
	}
	c.log.LogAttrs(req.Context(), slog.LevelDebug, "hub call", slog.String("op", op),
		slog.String("method", req.Method), slog.String("url", e.URL),
		slog.Int("status", resp.StatusCode), slog.Duration("took", c.now().Sub(start)))
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return resp, nil
	}
	e.Status = resp.StatusCode
	e.Retry = parseRetryAfter(resp.Header.Get("Retry-After"), c.now())
	if hc == c.media {
		// A media answer may come from wherever a redirect led: keep nothing of it
		// but the status.
		drain(resp.Body)
	} else {
		e.Body = readReason(resp.Body)
	}
	resp.Body.Close()
	return nil, e
}

// transportCause prefers the context's error (cancelled, deadline) over the
// transport's wrapping of it, so classification sees context.Canceled directly.
func transportCause(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}

// decode reads a capped JSON body into out.
func (c *Client) decode(op string, req *http.Request, resp *http.Response, out any, mask []string) error {
	fail := func(err error) error {
		return &Error{Op: op, Method: req.Method, URL: redactURL(req.URL, mask), Status: resp.StatusCode, Err: err}
	}
	limit := c.cfg.MaxJSONBytes
	if resp.ContentLength > limit {
		return fail(fmt.Errorf("%w: %d bytes announced, cap %d", ErrTooLarge, resp.ContentLength, limit))
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return fail(fmt.Errorf("reading body: %w", transportCause(req.Context(), err)))
	}
	if int64(len(data)) > limit {
		return fail(fmt.Errorf("%w: more than %d bytes", ErrTooLarge, limit))
	}
	if err := model.DecodeDocument(data, out); err != nil {
		var syn *json.SyntaxError
		if errors.As(err, &syn) && int(syn.Offset) >= len(data) && len(data) > 0 {
			// Valid so far and then the bytes stopped: cut short in transit.
			return fail(fmt.Errorf("body ends after %d bytes: %w", len(data), io.ErrUnexpectedEOF))
		}
		return fail(fmt.Errorf("%w: %w", ErrBadResponse, err))
	}
	return nil
}

// redactURL renders u for errors and logs: without its query, where values could be
// personal data, and with the capability tokens in mask shortened.
func redactURL(u *url.URL, mask []string) string {
	v := *u
	v.RawQuery, v.ForceQuery, v.Fragment = "", false, ""
	return maskTokens(v.String(), mask)
}

// maskTokens replaces each token of mask in s by its first four characters and an
// ellipsis: a design or media token grants access, so it stays out of logs and job
// errors, while the prefix still tells designs apart.
func maskTokens(s string, mask []string) string {
	for _, t := range mask {
		if len(t) < 8 {
			continue // too short to mask meaningfully, and it could match anywhere
		}
		s = strings.ReplaceAll(s, url.PathEscape(t), t[:4]+"…")
	}
	return s
}
