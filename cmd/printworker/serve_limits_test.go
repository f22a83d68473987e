package main

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// The intake's HTTP server answers 431 to oversized request headers instead of
// parsing up to net/http's default megabyte (issue 10: hostile signature headers).
func TestServeHTTPHeaderCap(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) })
	// The grace is not what this test is about: a loaded machine must not turn it
	// into a shutdown failure, and the test's own client closes its connections first.
	go func() { done <- serveHTTP(ctx, ln, h, 30*time.Second, slog.New(slog.DiscardHandler)) }()
	client := &http.Client{Transport: &http.Transport{}}
	defer func() {
		client.CloseIdleConnections()
		cancel()
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	for _, c := range []struct {
		size int
		want int
	}{{1 << 10, http.StatusNoContent}, {200 << 10, http.StatusRequestHeaderFieldsTooLarge}} {
		req, _ := http.NewRequest(http.MethodPost, "http://"+ln.Addr().String()+"/webhooks/orders", nil)
		req.Header.Set("X-Printworker-Signature", strings.Repeat("a", c.size))
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != c.want {
			t.Errorf("%d-byte header: %d, want %d", c.size, resp.StatusCode, c.want)
		}
	}
}
