package hubsim

import (
	"context"
	"net/http"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/printworker/printworker/hub"
)

func TestStart(t *testing.T) {
	defer goleak.VerifyNone(t, goleak.IgnoreCurrent())
	s, err := New(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	addr, done, err := s.Start(ctx, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	req, _ := http.NewRequestWithContext(ctx, "GET", "http://"+addr.String()+"/media/x/y", nil)
	res, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusNotFound {
		t.Fatalf("status %d", res.StatusCode)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Start ended with %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("server did not stop")
	}
	if _, _, err := s.Start(t.Context(), "256.0.0.1:1"); err == nil {
		t.Fatal("Start on a bad address succeeded")
	}
}

// TestConcurrentCalls: many callers at once (run with -race).
func TestConcurrentCalls(t *testing.T) {
	s, ts := start(t, func(c *Config) { c.Faults = Faults{ErrorRate: 0.2, Seed: 3} })
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			id := "c-" + string(rune('a'+i))
			create := orderReq(hub.V2022, "POST", "", validOrder(id))
			create.parts = []string{id}
			for {
				r, err := send(t, ts.Client(), ts, create)
				if err != nil {
					t.Error(err)
					return
				}
				if r.status == http.StatusCreated {
					break
				}
			}
			_, _ = send(t, ts.Client(), ts, exportReq(hub.V2023, card, "card"))
			_, _ = send(t, ts.Client(), ts, tplReq(hub.V2023, "GET", "", nil))
		}()
	}
	wg.Wait()
	if n := len(s.Orders(store)); n != 16 {
		t.Fatalf("%d orders, want 16", n)
	}
	if n := len(s.Requests()); n < 48 {
		t.Fatalf("%d logged requests, want at least 48", n)
	}
}
