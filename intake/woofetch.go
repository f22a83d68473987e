package intake

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/printworker/printworker/jobs"
)

// WooCommerceAPI reads orders from one WooCommerce site's REST API (wc/v3) with a
// REST key pair, sent as basic auth: over HTTPS only, or plain HTTP to a loopback
// address (tests, a sidecar).
type WooCommerceAPI struct {
	// URL is the site's address, e.g. https://shop.example.com (a WordPress in a
	// folder keeps its folder).
	URL string
	// ConsumerKey and ConsumerSecret are a REST key pair with read access.
	ConsumerKey, ConsumerSecret string
	// HTTP sends the requests; it should dial through the outbound guard and must
	// not follow redirects (the credentials would go along). NewWooCommerceAPI's
	// caller gives a client; nil uses a plain one with a 30 s timeout.
	HTTP *http.Client
	// MaxBody caps an order response (default 4 MiB).
	MaxBody int64
}

// Validate reports every bad value at once.
func (a *WooCommerceAPI) Validate() error {
	var errs []error
	u, err := url.Parse(a.URL)
	switch {
	case a.URL == "":
		errs = append(errs, errors.New("woocommerce api: the site url is empty"))
	case err != nil || u.Host == "":
		errs = append(errs, fmt.Errorf("woocommerce api: site url %q is not an absolute url", a.URL))
	case u.Scheme == "https":
	case u.Scheme == "http" && isLoopback(u.Hostname()):
	default:
		errs = append(errs, fmt.Errorf("woocommerce api: site url %q: want https (http only to a loopback address): the REST key travels in every request", a.URL))
	}
	if a.ConsumerKey == "" || a.ConsumerSecret == "" {
		errs = append(errs, errors.New("woocommerce api: consumer key and consumer secret are needed"))
	}
	return errors.Join(errs...)
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// APIError is a failed store API request, classified: 429, 408 and 5xx (and the
// network) are transient, the rest permanent.
type APIError struct {
	Op     string
	Status int // 0 for a network error
	Reason string
	// After is the wait the store asked for (Retry-After on 429 or 503).
	After time.Duration
}

func (e *APIError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s: %s", e.Op, e.Reason)
	}
	return fmt.Sprintf("%s: HTTP %d: %s", e.Op, e.Status, e.Reason)
}

// Retryable reports whether the same request can succeed later.
func (e *APIError) Retryable() bool {
	return e.Status == 0 || e.Status == http.StatusTooManyRequests || e.Status == http.StatusRequestTimeout || e.Status >= 500
}

// RetryAfter is the wait the store asked for (0: none); the worker's backoff
// honours it.
func (e *APIError) RetryAfter() time.Duration { return e.After }

// maxRetryAfter caps a store's Retry-After: a task waiting a day on one header is
// an order lost for a day.
const maxRetryAfter = time.Hour

// retryAfterValue reads Retry-After: seconds or an HTTP date.
func retryAfterValue(v string, now time.Time) time.Duration {
	v = strings.TrimSpace(v)
	if v == "" || len(v) > 64 {
		return 0
	}
	var d time.Duration
	if n, err := strconv.Atoi(v); err == nil {
		d = time.Duration(n) * time.Second
	} else if t, err := http.ParseTime(v); err == nil {
		d = t.Sub(now)
	}
	return min(max(d, 0), maxRetryAfter)
}

// Order reads order id with all its item meta (hidden keys included).
func (a *WooCommerceAPI) Order(ctx context.Context, id string) ([]byte, error) {
	op := "woocommerce: get order " + id
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, wooOrderURL(a.URL, id), nil)
	if err != nil {
		return nil, &APIError{Op: op, Status: http.StatusBadRequest, Reason: err.Error()}
	}
	req.SetBasicAuth(a.ConsumerKey, a.ConsumerSecret)
	req.Header.Set("Accept", "application/json")
	c := a.HTTP
	if c == nil {
		c = &http.Client{Timeout: 30 * time.Second, CheckRedirect: NoRedirect}
	}
	resp, err := c.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var re interface{ Retryable() bool }
		if errors.As(err, &re) && !re.Retryable() {
			// The outbound guard refused the address.
			return nil, err
		}
		return nil, &APIError{Op: op, Reason: err.Error()}
	}
	defer resp.Body.Close()
	limit := a.MaxBody
	if limit <= 0 {
		limit = 4 << 20
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, &APIError{Op: op, Reason: "reading the answer: " + err.Error()}
	}
	if resp.StatusCode != http.StatusOK {
		e := &APIError{Op: op, Status: resp.StatusCode, Reason: apiReason(body)}
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
			e.After = retryAfterValue(resp.Header.Get("Retry-After"), time.Now())
		}
		return nil, e
	}
	if int64(len(body)) > limit {
		return nil, &APIError{Op: op, Status: http.StatusRequestEntityTooLarge, Reason: fmt.Sprintf("order larger than %d bytes", limit)}
	}
	return body, nil
}

// apiReason is a short, printable excerpt of an error answer (WooCommerce sends
// {"code", "message"}), for logs and the archived task.
func apiReason(body []byte) string {
	s := strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, string(body))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return strings.TrimSpace(s)
}

// NoRedirect is the CheckRedirect of store API clients: a redirect is answered
// as it is (an error), never followed with the credentials.
func NoRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// permanentError is a fetched order that no retry can map.
type permanentError struct{ err error }

func (e *permanentError) Error() string   { return e.err.Error() }
func (e *permanentError) Unwrap() error   { return e.err }
func (e *permanentError) Retryable() bool { return false }

// wooReader reads WooCommerce orders through the site's REST API and maps them as
// their webhook would have been. api is the flags' site (nil: none), sites every
// configured site by site key.
type wooReader struct {
	api   *WooCommerceAPI
	sites map[string]*WooCommerceAPI
}

func (r wooReader) readOrder(ctx context.Context, p jobs.OrderFetch) (fetched, error) {
	w := p.WooCommerce
	if w == nil {
		return fetched{}, &permanentError{fmt.Errorf("woocommerce fetch: order %s: no woocommerce fields in the payload", p.OrderID)}
	}
	api := r.api
	if p.Shop != "" {
		api = r.sites[p.Shop]
	}
	if api == nil && len(r.sites) == 0 {
		return fetched{}, &permanentError{errors.New("woocommerce fetch: no woocommerce api configured (--woocommerce-url and its key pair on the worker)")}
	}
	if api == nil {
		// The same order id on another site is another order.
		site := ""
		if r.api != nil {
			site = wooSiteKey(r.api.URL)
		}
		return fetched{}, &permanentError{fmt.Errorf("woocommerce fetch: order %s comes from site %q, the worker's --woocommerce-url is %q and its stores file names no such site", p.OrderID, p.Shop, site)}
	}
	body, err := api.Order(ctx, p.OrderID)
	if err != nil {
		return fetched{}, err
	}
	var wo wooOrder
	if err := decodeJSON(body, &wo); err != nil {
		return fetched{}, &permanentError{fmt.Errorf("woocommerce fetch: order %s: %w", p.OrderID, err)}
	}
	if id, _ := wooID(wo.ID); id != p.OrderID {
		return fetched{}, &permanentError{fmt.Errorf("woocommerce fetch: asked for order %s, the api answered order %q", p.OrderID, wo.ID)}
	}
	o, pl, skip, err := mapWooEvent(w.Topic, &wo, wooMapping{domain: w.Domain, designMeta: w.DesignKey})
	if err != nil {
		return fetched{}, &permanentError{fmt.Errorf("woocommerce fetch: order %s: %w", p.OrderID, err)}
	}
	return fetched{order: o, plan: pl, skip: skip}, nil
}
