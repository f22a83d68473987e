package worker

import (
	"maps"
	"testing"
	"time"

	"github.com/printworker/printworker/jobs"
)

func TestServeQueues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		cfg  Config
		want map[string]int
	}{
		{"one shard", Config{}, DefaultQueues()},
		{"three shards: each the exports weight, the others times three", Config{ExportShards: 3},
			map[string]int{"orders": 18, "complete": 18, "exports": 3, "exports-1a": 3, "exports-2a": 3, "events": 6, "sync": 3, "gang": 3, "pages": 3}},
		{"a shard's own weight kept", Config{ExportShards: 2, Queues: map[string]int{jobs.QueueOrders: 1, jobs.QueueExports: 2, "exports-1a": 5}},
			map[string]int{"orders": 2, "exports": 2, "exports-1a": 5}},
		{"no exports queue served: no shards", Config{ExportShards: 3, Queues: map[string]int{jobs.QueueOrders: 1}},
			map[string]int{"orders": 1}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if got := c.cfg.withDefaults().serveQueues(); !maps.Equal(got, c.want) {
				t.Errorf("serveQueues = %v, want %v", got, c.want)
			}
		})
	}
	if err := (Config{ExportShards: jobs.MaxExportShards + 1}).Validate(); err == nil {
		t.Error("too many shards accepted")
	}
}

// TestJanitorBatch: the janitor deletes at asynq's rate (100 per 8 s) whatever its
// interval, within asynq's batch of 100 and 10,000.
func TestJanitorBatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		every time.Duration
		want  int
	}{
		{0, 100}, {time.Second, 100}, {8 * time.Second, 100}, {time.Minute, 700},
		{3 * time.Minute, 2200}, {time.Hour, 10_000},
	} {
		if got := (Polling{Janitor: c.every}).janitorBatch(); got != c.want {
			t.Errorf("janitor every %s: batch %d, want %d", c.every, got, c.want)
		}
	}
}
