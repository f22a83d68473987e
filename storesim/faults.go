package storesim

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/printworker/printworker/events"
)

// Fault is one scripted answer to an API request.
type Fault int

// Faults the simulators inject.
const (
	// RateLimited answers 429 with Retry-After (and, for BigCommerce,
	// X-Rate-Limit-Time-Reset-Ms).
	RateLimited Fault = iota + 1
	// ServerError answers 503.
	ServerError
	// Hang holds the request until the client gives up (or the simulator's
	// HangFor ends), as an API that stopped answering.
	Hang
)

func (f Fault) String() string {
	switch f {
	case RateLimited:
		return "429"
	case ServerError:
		return "503"
	case Hang:
		return "hang"
	}
	return "fault(" + strconv.Itoa(int(f)) + ")"
}

// Faults is the fault script shared by a simulator's API routes.
type Faults struct {
	mu    sync.Mutex
	queue []Fault
	seen  []string
	// RetryAfter is the wait a RateLimited answer asks for (default 1s).
	RetryAfter time.Duration
	// HangFor bounds a Hang (default 30s), so a client without a timeout ends.
	HangFor time.Duration
}

// Inject queues faults: the next len(fs) API requests get them, in order.
func (f *Faults) Inject(fs ...Fault) {
	f.mu.Lock()
	f.queue = append(f.queue, fs...)
	f.mu.Unlock()
}

// Pending is how many injected faults are still to be served.
func (f *Faults) Pending() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queue)
}

// Requests lists the API requests served so far ("GET /path?query", faults
// included), in order.
func (f *Faults) Requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.seen...)
}

// serve records the request and answers the next fault, if any; it reports whether
// it answered.
func (f *Faults) serve(w http.ResponseWriter, r *http.Request, rateHeaders func(http.Header, time.Duration)) bool {
	f.mu.Lock()
	f.seen = append(f.seen, r.Method+" "+r.URL.RequestURI())
	var next Fault
	if len(f.queue) > 0 {
		next, f.queue = f.queue[0], f.queue[1:]
	}
	after, hang := f.RetryAfter, f.HangFor
	f.mu.Unlock()
	if after <= 0 {
		after = time.Second
	}
	if hang <= 0 {
		hang = 30 * time.Second
	}
	switch next {
	case RateLimited:
		w.Header().Set("Retry-After", strconv.Itoa(int((after+time.Second-1)/time.Second)))
		if rateHeaders != nil {
			rateHeaders(w.Header(), after)
		}
		http.Error(w, `{"status":429,"title":"Too many requests"}`, http.StatusTooManyRequests)
	case ServerError:
		http.Error(w, `{"status":503,"title":"Service unavailable"}`, http.StatusServiceUnavailable)
	case Hang:
		t := time.NewTimer(hang)
		defer t.Stop()
		select {
		case <-r.Context().Done():
		case <-t.C:
		}
		http.Error(w, "gave up", http.StatusGatewayTimeout)
	default:
		return false
	}
	return true
}

// Webhook is one signed notification, ready to send.
type Webhook struct {
	Header http.Header
	Body   []byte
}

// signed signs body in the Standard Webhooks form (both platforms use it) with key.
func signed(key []byte, id string, ts time.Time, body []byte) (Webhook, error) {
	sig, err := events.Sign(key, id, ts, body)
	if err != nil {
		return Webhook{}, err
	}
	h := http.Header{}
	h.Set("Content-Type", "application/json")
	h.Set("webhook-id", id)
	h.Set("webhook-timestamp", strconv.FormatInt(ts.Unix(), 10))
	h.Set("webhook-signature", sig)
	return Webhook{Header: h, Body: body}, nil
}

// Send posts one webhook to url and returns the status the intake answered.
func Send(ctx context.Context, client *http.Client, url string, wh Webhook) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(wh.Body))
	if err != nil {
		return 0, err
	}
	req.Header = wh.Header.Clone()
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, nil
}

// Schedule says how Deliver mistreats a batch of webhooks, as the platforms do.
type Schedule struct {
	// Duplicate sends every webhook twice (the second after the whole batch).
	Duplicate bool
	// Shuffle, when set, reorders the batch with this seed.
	Shuffle *rand.Rand
	// Drop are webhooks never sent (by index in whs): the store took the order,
	// its webhook was lost.
	Drop Dropped
}

// Deliver sends webhooks to url in the schedule's order and returns the statuses,
// in sending order. It stops at the first transport error.
func Deliver(ctx context.Context, client *http.Client, url string, whs []Webhook, s Schedule) ([]int, error) {
	var batch []Webhook
	for i, wh := range whs {
		if !s.Drop.has(i) {
			batch = append(batch, wh)
		}
	}
	if s.Shuffle != nil {
		s.Shuffle.Shuffle(len(batch), func(i, j int) { batch[i], batch[j] = batch[j], batch[i] })
	}
	if s.Duplicate {
		batch = append(batch, batch...)
	}
	var out []int
	for i, wh := range batch {
		st, err := Send(ctx, client, url, wh)
		if err != nil {
			return out, fmt.Errorf("webhook %d: %w", i, err)
		}
		out = append(out, st)
	}
	return out, nil
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
