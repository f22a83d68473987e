package demo

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The demo's event receiver: what a store's ERP or a shop floor screen would run to
// learn that an order's files are ready (docs/events.md). It checks each delivery's
// Standard Webhooks signature with its own few lines of HMAC, independent of the
// worker's signing code, and keeps what it got for the demo's report.

// demoEvent is one delivery the receiver accepted.
type demoEvent struct {
	ID, Type, Order, Manifest string
	Files, Links              int
}

type demoReceiver struct {
	key []byte // the secret's bytes (after whsec_, base64-decoded)
	url string

	mu       sync.Mutex
	events   []demoEvent
	rejected int
	got      chan struct{} // signalled on each accepted event
}

// startReceiver listens on loopback with a fresh secret; its URL and secret are given
// to the worker as --events-url and --events-secret would be.
func (d *demoRun) startReceiver(ctx context.Context) (*demoReceiver, string, error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return nil, "", err
	}
	secret := "whsec_" + base64.StdEncoding.EncodeToString(raw)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", fmt.Errorf("demo: event receiver: %w", err)
	}
	r := &demoReceiver{key: raw, url: "http://" + ln.Addr().String() + "/hooks/printworker", got: make(chan struct{}, 64)}
	rctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- d.w.Serve(rctx, ln, r) }()
	d.cleanup = append(d.cleanup, func() { stop(); <-done })
	fmt.Fprintf(d.out, "events   receiver at %s (checks the Standard Webhooks signature itself)\n", r.url)
	return r, secret, nil
}

func (r *demoReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 8<<20))
	if err != nil || req.Method != http.MethodPost {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	if err := r.verify(req.Header, body, time.Now()); err != nil {
		r.mu.Lock()
		r.rejected++
		r.mu.Unlock()
		http.Error(w, err.Error(), http.StatusUnauthorized)
		return
	}
	var ev struct {
		Type string `json:"type"`
		Data struct {
			OrderID  string `json:"orderId"`
			Manifest struct {
				URL string `json:"url"`
			} `json:"manifest"`
			Files []struct {
				URL string `json:"url"`
			} `json:"files"`
		} `json:"data"`
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		http.Error(w, "not JSON", http.StatusBadRequest)
		return
	}
	e := demoEvent{ID: req.Header.Get("webhook-id"), Type: ev.Type, Order: ev.Data.OrderID, Manifest: ev.Data.Manifest.URL, Files: len(ev.Data.Files)}
	for _, f := range ev.Data.Files {
		if f.URL != "" {
			e.Links++
		}
	}
	r.mu.Lock()
	// At least once: a retried delivery carries the same webhook-id; keep one.
	if !slices.ContainsFunc(r.events, func(x demoEvent) bool { return x.ID == e.ID }) {
		r.events = append(r.events, e)
	}
	r.mu.Unlock()
	select {
	case r.got <- struct{}{}:
	default:
	}
	w.WriteHeader(http.StatusNoContent)
}

// verify checks a Standard Webhooks signature: HMAC-SHA256 with the secret's bytes over
// "id.timestamp.body", base64, against each "v1,<sig>" of webhook-signature, and a
// timestamp within 5 minutes.
func (r *demoReceiver) verify(h http.Header, body []byte, now time.Time) error {
	id, ts, sigs := h.Get("webhook-id"), h.Get("webhook-timestamp"), h.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return errors.New("missing webhook headers")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("bad webhook-timestamp")
	}
	if d := now.Sub(time.Unix(sec, 0)); d > 5*time.Minute || d < -5*time.Minute {
		return errors.New("webhook-timestamp outside the 5 minute tolerance")
	}
	m := hmac.New(sha256.New, r.key)
	m.Write([]byte(id + "." + ts + "."))
	m.Write(body)
	want := []byte(base64.StdEncoding.EncodeToString(m.Sum(nil)))
	for _, s := range strings.Fields(sigs) {
		if v, sig, ok := strings.Cut(s, ","); ok && v == "v1" && hmac.Equal([]byte(sig), want) {
			return nil
		}
	}
	return errors.New("no valid signature")
}

// waitFilesReady waits until the receiver holds an order.files_ready event of each
// order, or until the deadline (events are delivered by their own queue, after the
// manifest).
func (r *demoReceiver) waitFilesReady(ctx context.Context, orders []string, deadline time.Time) {
	for {
		r.mu.Lock()
		n := 0
		for _, o := range orders {
			if slices.ContainsFunc(r.events, func(e demoEvent) bool { return e.Type == "order.files_ready" && e.Order == o }) {
				n++
			}
		}
		r.mu.Unlock()
		if n == len(orders) {
			return
		}
		t := time.NewTimer(time.Until(deadline))
		select {
		case <-ctx.Done():
		case <-t.C:
		case <-r.got:
			t.Stop()
			continue
		}
		t.Stop()
		return
	}
}

// report prints the events the receiver got, by order.
func (r *demoReceiver) report(d *demoRun) {
	r.mu.Lock()
	defer r.mu.Unlock()
	evs := slices.Clone(r.events)
	slices.SortFunc(evs, func(a, b demoEvent) int {
		return strings.Compare(a.Order+a.Type, b.Order+b.Type)
	})
	fmt.Fprintf(d.out, "\nevents received by %s (signatures verified: %d, rejected: %d)\n", r.url, len(evs), r.rejected)
	for _, e := range evs {
		fmt.Fprintf(d.out, "  %s  webhook-id %s  order %s  %s, %s\n", e.Type, e.ID, e.Order, count(e.Files, "file"), count(e.Links, "link"))
		if e.Manifest != "" {
			fmt.Fprintf(d.out, "    manifest %s\n", e.Manifest)
		}
	}
}

// count is n and noun, plural unless n is 1: "1 file", "3 files".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
