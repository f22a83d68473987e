package main

import (
	"flag"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"
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
