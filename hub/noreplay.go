package hub

import (
	"io"
	"net/http"
)

// noReplay makes net/http's Transport send each request it is handed at most once.
//
// The Transport re-sends a request on its own when a reused keep-alive connection
// turns out closed and the request is "replayable" (net/http request.go
// isReplayable: a GET, HEAD, OPTIONS or TRACE without a body, or with a GetBody; or
// any request with an Idempotency-Key / X-Idempotency-Key header, which makes a
// request more replayable, not less). Such a re-send happens inside
// Transport.RoundTrip, where neither the fleet-wide rate limit nor the call metrics
// see it: a hub that drops connections then gets more calls than the limit allows.
//
// A request with a non-nil Body and no GetBody is not replayable, so the Transport
// gives up and returns the error (transport.go shouldRetryRequest). noReplay hands
// the Transport a shallow copy of each bodiless GET or HEAD carrying an empty body of
// that kind; the Transport probes the body, finds it empty and sends the request
// without one. The only retries left inside the Transport are those of requests of
// which not one byte was written (nothingWrittenError, HTTP/2 refused connections):
// nothing reached the hub. Every retry is the caller's, through the limiter.
//
// It wraps the transport below the http.Client, so each hop of a redirect is its
// own request and redirects are followed as before (the Client sees the original,
// bodiless request).
type noReplay struct{ next http.RoundTripper }

func (t noReplay) RoundTrip(req *http.Request) (*http.Response, error) {
	if (req.Body == nil || req.Body == http.NoBody) && (req.Method == "" || req.Method == http.MethodGet || req.Method == http.MethodHead) {
		r := *req // a RoundTripper must not modify the caller's request
		r.Body = emptyBody{}
		r.GetBody = nil
		r.ContentLength = 0
		req = &r
	}
	return t.next.RoundTrip(req)
}

// emptyBody is an empty request body that is neither nil nor http.NoBody, which is
// what makes the request non-replayable.
type emptyBody struct{}

func (emptyBody) Read([]byte) (int, error) { return 0, io.EOF }
func (emptyBody) Close() error             { return nil }

// withoutReplay returns a copy of hc whose transport never re-sends on its own.
func withoutReplay(hc *http.Client) *http.Client {
	c := *hc
	next := c.Transport
	if next == nil {
		next = http.DefaultTransport
	}
	c.Transport = noReplay{next: next}
	return &c
}
