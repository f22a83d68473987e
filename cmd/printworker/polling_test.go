package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/worker"
)

// TestQuietDefaults: an idle `work` polls with worker.QuietPolling and keeps a pooled
// connection per task slot and asynq loop unless told otherwise (a command without a
// worker keeps one); a pool setting in the URL wins.
func TestQuietDefaults(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args       []string
		size, idle int
		polling    worker.Polling
	}{
		{args: nil, size: 0, idle: worker.RedisIdleConns(worker.DefaultConcurrency), polling: worker.QuietPolling()},
		{args: []string{"--concurrency", "3"}, size: 0, idle: worker.RedisIdleConns(3), polling: worker.QuietPolling()},
		{args: []string{"--redis-pool-size", "12", "--redis-idle-conns", "4", "--poll-idle", "1s", "--poll-delayed", "2s", "--poll-janitor", "8s"},
			size: 12, idle: 4, polling: worker.Polling{Idle: 1e9, Delayed: 2e9, Janitor: 8e9}},
		{args: []string{"--redis-url", "redis://127.0.0.1:1/0?pool_size=3&max_idle_conns=2", "--redis-idle-conns", "4"}, size: 3, idle: 2, polling: worker.QuietPolling()},
	} {
		rf, wf := parseWorkFlags(t, tc.args)
		rf.slots = wf.concurrency // as work does
		rdb, err := rf.options()
		if err != nil {
			t.Fatal(err)
		}
		o := rdb.(*redis.Client).Options()
		rdb.Close()
		if tc.size != 0 && o.PoolSize != tc.size || o.MaxIdleConns != tc.idle {
			t.Errorf("%v: pool size %d, idle %d; want %d, %d", tc.args, o.PoolSize, o.MaxIdleConns, tc.size, tc.idle)
		}
		cfg, err := wf.config("", nil)
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Polling != tc.polling {
			t.Errorf("%v: polling %+v, want %+v", tc.args, cfg.Polling, tc.polling)
		}
	}
}

// TestIdleConnsWithoutWorker: a command that runs no worker (no slots) keeps one
// idle Redis connection by default.
func TestIdleConnsWithoutWorker(t *testing.T) {
	t.Parallel()
	rf, _ := parseWorkFlags(t, nil)
	rdb, err := rf.options()
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	if o := rdb.(*redis.Client).Options(); o.MaxIdleConns != 1 {
		t.Errorf("idle connections %d, want 1", o.MaxIdleConns)
	}
}

// parseWorkFlags parses args with the Redis and worker flags of `work`.
func parseWorkFlags(t *testing.T, args []string) (*redisFlags, *workerFlags) {
	t.Helper()
	fs := flag.NewFlagSet("work", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	rf, wf := addRedisFlags(fs), addWorkerFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return rf, wf
}

// TestFairByDefault: with default flags the intake's enqueuer and the worker use the
// same export queue shards, more than one, so two stores whose lanes differ put their
// orders in queues of their own: a flooding store's exports are not ahead of a quiet
// store's in one queue. Every shard the enqueuer may use is served.
func TestFairByDefault(t *testing.T) {
	t.Parallel()
	rf, wf := parseWorkFlags(t, nil)
	n := rf.enqueuerConfig(nil).ExportShards
	if n <= 1 {
		t.Fatalf("default export queue shards %d: one queue for every store", n)
	}
	cfg, err := wf.config("", nil)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ExportShards = rf.exportShards // as work does
	served := map[string]bool{}
	for _, q := range jobs.ExportQueues(cfg.ExportShards) {
		served[q] = true
	}
	separate := 0
	for i := range 20 {
		flood, quiet := jobs.ExportLanes("flood-store", n), jobs.ExportLanes(fmt.Sprintf("store-%d", i), n)
		for _, q := range append(flood, quiet...) {
			if !served[q] {
				t.Errorf("lane %s is not served by a default worker", q)
			}
		}
		if !slices.Contains(flood, quiet[0]) || !slices.Contains(flood, quiet[1]) {
			separate++
		}
	}
	if separate < 15 {
		t.Errorf("only %d of 20 stores have a lane outside a flooding store's", separate)
	}
}
