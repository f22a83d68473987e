package hub_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// TestNoGoroutineLeaks runs successful and failing calls (caps, truncation, timeouts,
// cancelled streams) and checks that, once bodies are closed and idle connections
// dropped, no goroutine of the client is left behind.
func TestNoGoroutineLeaks(t *testing.T) {
	ignore := goleak.IgnoreCurrent()
	tr := &http.Transport{}
	// Cleanups run last-in first-out: this one runs after the fake hub has closed.
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		goleak.VerifyNone(t, ignore)
	})
	f := newFakeHub(t)
	big := "%PDF-" + strings.Repeat("x", 1<<20)
	f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
		switch {
		case s.Op == hub.OpGetDesign && r.URL.Query().Get("x") == "" && strings.Contains(s.Path, "/designs/1/"):
			<-r.Context().Done() // never answers: the timeout ends it
		case s.Op == hub.OpExportView:
			hijackWrite(w, "HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n"+big[:1000])
		case s.Op == hub.OpExportDesign:
			w.Header().Set("Content-Type", "application/pdf")
			_, _ = io.WriteString(w, big)
		default:
			f.defaultAnswer(w, s)
		}
	})
	c := f.client(t, hub.V2023, func(cfg *hub.Config) {
		cfg.HTTPClient = &http.Client{Transport: tr}
		cfg.Timeout = 100 * time.Millisecond
		cfg.MaxExportBytes = 1 << 19
	})
	ctx := context.Background()
	if _, err := c.GetDesign(ctx, testRef); err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetDesign(ctx, model.DesignRef{ID: 1, Token: "slow"}); err == nil {
		t.Error("slow call did not time out")
	}
	// Over the cap while streaming, then closed.
	d, err := c.ExportDesign(ctx, testRef)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, d.Body); err == nil {
		t.Error("cap not enforced")
	}
	d.Body.Close()
	// Closed before reading anything.
	d, err = c.ExportDesign(ctx, testRef)
	if err != nil {
		t.Fatal(err)
	}
	d.Body.Close()
	// Truncated stream.
	d, err = c.ExportView(ctx, testRef, "front")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, d.Body); err == nil {
		t.Error("truncation not reported")
	}
	d.Body.Close()
	// A stream whose context is cancelled mid-way.
	cctx, cancel := context.WithCancel(ctx)
	d, err = c.ExportDesign(cctx, testRef)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	_, _ = io.Copy(io.Discard, d.Body)
	d.Body.Close()
}
