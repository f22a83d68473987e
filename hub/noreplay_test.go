package hub_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// TestTransportNeverResends: net/http re-sends a bodiless GET by itself when a reused
// keep-alive connection closes without an answer. Such a re-send passes neither the
// fleet-wide rate limit nor the call metrics, so the client must not let it happen:
// every request the hub sees is one call the caller made.
func TestTransportNeverResends(t *testing.T) {
	cases := []struct {
		name string
		op   string
		call func(*hub.Client) error
	}{
		{"design", hub.OpGetDesign, func(c *hub.Client) error {
			_, err := c.GetDesign(context.Background(), testRef)
			return err
		}},
		{"media", hub.OpGetMedia, func(c *hub.Client) error {
			d, err := c.OpenMedia(context.Background(), model.Media{ID: "6561f0a0c0ffee000000a001", Token: "media-token-1234"})
			if err == nil {
				// Read to the end, so the connection goes back to the pool for reuse.
				_, _ = io.Copy(io.Discard, d.Body)
				d.Body.Close()
			}
			return err
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeHub(t)
			var n atomic.Int32
			f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
				if s.Op == tc.op && n.Add(1) == 2 {
					hijackWrite(w, "") // the reused connection closes: no answer
					return
				}
				f.defaultAnswer(w, s)
			})
			tr := &http.Transport{}
			t.Cleanup(tr.CloseIdleConnections)
			c := f.client(t, hub.V2023, func(cfg *hub.Config) { cfg.HTTPClient = &http.Client{Transport: tr} })
			if err := tc.call(c); err != nil {
				t.Fatalf("first call: %v", err)
			}
			err := tc.call(c)
			if err == nil {
				t.Fatal("the call on the dropped connection succeeded: the transport re-sent it")
			}
			var he *hub.Error
			if !errors.As(err, &he) || !he.Retryable() {
				t.Errorf("dropped connection: %v, want a retryable hub error", err)
			}
			if got := n.Load(); got != 2 {
				t.Errorf("the hub saw %d requests for 2 calls: the transport re-sent one", got)
			}
		})
	}
}
