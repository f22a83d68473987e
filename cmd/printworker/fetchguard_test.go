package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// TestHubGuardFlags: --fetch-allow reaches every store's client as one guard, a bad
// entry is a usage error naming the flag, and --hub-min-rate 0 turns the rate check
// off.
func TestHubGuardFlags(t *testing.T) {
	t.Parallel()
	parse := func(args ...string) *hubFlags {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		h := addHubFlags(fs)
		base := []string{"--hub-url", "http://127.0.0.1:1", "--hub-store", "s", "--hub-api-key", "k", "--hub-secret", "x"}
		if err := fs.Parse(append(base, args...)); err != nil {
			t.Fatal(err)
		}
		return h
	}
	log := slog.New(slog.DiscardHandler)

	if _, err := parse("--fetch-allow", "10.0.0.0/8,not an address").clients(log); err == nil || !strings.Contains(err.Error(), "--fetch-allow") {
		t.Errorf("bad --fetch-allow: %v", err)
	}
	h := parse("--fetch-allow", "10.0.0.0/8,cdn.internal:8443", "--hub-min-rate", "0", "--hub-min-rate-window", "3s")
	cl, err := h.clients(log)
	if err != nil {
		t.Fatal(err)
	}
	cfg := cl["s"].Config()
	if cfg.Guard == nil || cfg.Guard != h.guard || cfg.MinRate >= 0 || cfg.MinRateWindow != 3*time.Second {
		t.Errorf("guard %p (flags %p), min rate %d per %s", cfg.Guard, h.guard, cfg.MinRate, cfg.MinRateWindow)
	}
	if cfg := must(parse().clients(log))["s"].Config(); cfg.MinRate != 32<<10 || cfg.MinRateWindow != 10*time.Second {
		t.Errorf("defaults: %d per %s", cfg.MinRate, cfg.MinRateWindow)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestWiredClientRefusesInternalRedirect: the client the flags build dials through the
// guard. The configured hub (on loopback) is reachable, but its media redirect to
// another loopback service is refused, permanently, and that service sees nothing;
// with the service's address in --fetch-allow the redirect is followed.
func TestWiredClientRefusesInternalRedirect(t *testing.T) {
	t.Parallel()
	var reached atomic.Int64
	internal := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.Write([]byte("internal"))
	}))
	defer internal.Close()
	hubSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, internal.URL+"/secret", http.StatusFound)
	}))
	defer hubSrv.Close()
	open := func(allow ...string) error {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		h := addHubFlags(fs)
		args := []string{"--hub-url", hubSrv.URL, "--hub-store", "s", "--hub-api-key", "k", "--hub-secret", "x"}
		for _, a := range allow {
			args = append(args, "--fetch-allow", a)
		}
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		cl, err := h.clients(slog.New(slog.DiscardHandler))
		if err != nil {
			t.Fatal(err)
		}
		dl, err := cl["s"].OpenMedia(context.Background(), model.Media{ID: "m1", Token: "t1"})
		if err == nil {
			dl.Body.Close()
		}
		return err
	}
	err := open()
	var r interface{ Retryable() bool }
	if !errors.Is(err, hub.ErrRefused) || !errors.As(err, &r) || r.Retryable() {
		t.Errorf("redirect to %s: %v, want a permanent refusal", internal.URL, err)
	}
	if n := reached.Load(); n != 0 {
		t.Fatalf("the internal service was reached %d times", n)
	}
	if err := open(strings.TrimPrefix(internal.URL, "http://")); err != nil || reached.Load() != 1 {
		t.Errorf("allow-listed redirect: %v, reached %d", err, reached.Load())
	}
}
