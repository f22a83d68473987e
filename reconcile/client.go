package reconcile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/printworker/printworker/intake"
)

// maxPage caps one list page: 250 Shopify orders fit many times over, and a broken
// or hostile API cannot make a worker buffer more.
const maxPage = 32 << 20

// Client makes the listers' API requests: it retries what the platforms document
// as transient (429 after the answer's Retry-After or reset header, 5xx, 408,
// connection failures) with a capped exponential backoff, and paces requests when
// an answer says the rate limit window is spent. It is safe for concurrent use.
type Client struct {
	HTTP *http.Client
	// Tries bounds the attempts of one request (default 6).
	Tries int
	// Backoff is the wait before attempt n+1 after a failure without a
	// Retry-After (default 1s, 2s, 4s ... capped at 30s).
	Backoff func(n int) time.Duration
	// MaxWait is the longest wait a rate limit answer may ask for within a sweep
	// (default 2m); a longer one ends the sweep, which the next interval resumes.
	MaxWait time.Duration
	// Sleep waits (tests inject one that records and returns at once).
	Sleep func(ctx context.Context, d time.Duration) error
	// Now is the clock (HTTP-date Retry-After values).
	Now func() time.Time
}

func (c *Client) tries() int {
	if c.Tries > 0 {
		return c.Tries
	}
	return 6
}

func (c *Client) backoff(n int) time.Duration {
	if c.Backoff != nil {
		return c.Backoff(n)
	}
	return min(time.Duration(math.Pow(2, float64(n)))*time.Second, 30*time.Second)
}

func (c *Client) sleep(ctx context.Context, d time.Duration) error {
	if c.Sleep != nil {
		return c.Sleep(ctx, d)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

func (c *Client) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

func (c *Client) maxWait() time.Duration {
	if c.MaxWait > 0 {
		return c.MaxWait
	}
	return 2 * time.Minute
}

// APIError is a failed list request.
type APIError struct {
	Platform, What string
	// Status is the HTTP status (0: the request did not get an answer).
	Status int
	Reason string
	// After is the wait the API asked for.
	After time.Duration
}

func (e *APIError) Error() string {
	if e.Status == 0 {
		return fmt.Sprintf("%s: %s: %s", e.Platform, e.What, e.Reason)
	}
	return fmt.Sprintf("%s: %s: HTTP %d: %s", e.Platform, e.What, e.Status, e.Reason)
}

// Retryable: no answer, 408, 429 and 5xx can pass; 401, 403, 404 and other 4xx are
// a setting to fix (a token, a shop id).
func (e *APIError) Retryable() bool {
	return e.Status == 0 || e.Status == http.StatusRequestTimeout || e.Status == http.StatusTooManyRequests || e.Status >= 500
}

// RetryAfter is the wait the API asked for.
func (e *APIError) RetryAfter() time.Duration { return e.After }

// answer is a successful response: status, headers and body.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// do sends the request build makes (again for each attempt) and returns the first
// 2xx answer, retrying transient failures.
func (c *Client) do(ctx context.Context, platform string, build func(ctx context.Context) (*http.Request, error)) (answer, error) {
	var last *APIError
	for n := 0; n < c.tries(); n++ {
		if n > 0 {
			wait := c.backoff(n - 1)
			if last.After > 0 {
				wait = last.After
			}
			if wait > c.maxWait() {
				return answer{}, last
			}
			if err := c.sleep(ctx, wait); err != nil {
				return answer{}, err
			}
		}
		req, err := build(ctx)
		if err != nil {
			return answer{}, &APIError{Platform: platform, What: "request", Status: http.StatusBadRequest, Reason: err.Error()}
		}
		what := req.Method + " " + req.URL.Path
		resp, err := c.HTTP.Do(req)
		if err != nil {
			if ctx.Err() != nil {
				return answer{}, ctx.Err()
			}
			last = &APIError{Platform: platform, What: what, Reason: err.Error()}
			continue
		}
		body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxPage+1))
		resp.Body.Close()
		if rerr != nil {
			last = &APIError{Platform: platform, What: what, Reason: rerr.Error()}
			continue
		}
		if resp.StatusCode < 200 || resp.StatusCode > 299 {
			last = &APIError{Platform: platform, What: what, Status: resp.StatusCode,
				Reason: fmt.Sprintf("%.200s", strings.TrimSpace(string(body))), After: intake.RetryAfter(resp.Header, c.now())}
			if !last.Retryable() {
				return answer{}, last
			}
			continue
		}
		if len(body) > maxPage {
			return answer{}, &APIError{Platform: platform, What: what, Status: resp.StatusCode,
				Reason: fmt.Sprintf("page larger than %d bytes", maxPage)}
		}
		if err := c.pace(ctx, resp.Header); err != nil {
			return answer{}, err
		}
		return answer{status: resp.StatusCode, header: resp.Header, body: body}, nil
	}
	return answer{}, last
}

// pace waits when an answer says the window is spent: BigCommerce's
// X-Rate-Limit-Requests-Left: 0 (until X-Rate-Limit-Time-Reset-Ms), Shopify's
// X-Shopify-Shop-Api-Call-Limit at its bucket's size (one leak, half a second),
// Etsy's x-remaining-this-second: 0 (a second).
func (c *Client) pace(ctx context.Context, h http.Header) error {
	var d time.Duration
	if strings.TrimSpace(h.Get("X-Rate-Limit-Requests-Left")) == "0" {
		if ms, err := strconv.ParseInt(strings.TrimSpace(h.Get("X-Rate-Limit-Time-Reset-Ms")), 10, 64); err == nil && ms > 0 {
			d = time.Duration(min(ms, 3600_000)) * time.Millisecond
		}
	}
	if used, size, ok := strings.Cut(h.Get("X-Shopify-Shop-Api-Call-Limit"), "/"); ok && strings.TrimSpace(used) == strings.TrimSpace(size) {
		d = max(d, 500*time.Millisecond)
	}
	if strings.TrimSpace(h.Get("X-Remaining-This-Second")) == "0" {
		d = max(d, time.Second)
	}
	if d == 0 {
		return nil
	}
	return c.sleep(ctx, min(d, c.maxWait()))
}

// get builds a GET with header.
func get(rawURL string, header http.Header) func(context.Context) (*http.Request, error) {
	return func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, rawURL, nil)
		if err != nil {
			return nil, err
		}
		req.Header = header.Clone()
		req.Header.Set("Accept", "application/json")
		return req, nil
	}
}

// post builds a POST of a JSON body with header.
func post(rawURL string, header http.Header, body []byte) func(context.Context) (*http.Request, error) {
	return func(ctx context.Context) (*http.Request, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header = header.Clone()
		req.Header.Set("Accept", "application/json")
		req.Header.Set("Content-Type", "application/json")
		return req, nil
	}
}

// errPage is a page the parser could not read: permanent for this sweep.
var errPage = errors.New("list page")
