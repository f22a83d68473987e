package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/internal/testnet"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
)

// TestQueuesCommands drives the runbook's commands against a real Redis holding real
// asynq tasks: an archived task is listed with its reason, retried, deleted; a queue
// is paused and resumed; stats reflect each step.
func TestQueuesCommands(t *testing.T) {
	rs := testredis.Start(t)
	env := map[string]string{"PRINTWORKER_REDIS_URL": rs.URL()}
	opt := asynq.RedisClientOpt{Addr: rs.Addr, DB: rs.DB}
	client := asynq.NewClient(opt)
	defer client.Close()
	// One task that fails permanently, archived by a real server with its reason.
	if _, err := client.Enqueue(asynq.NewTask("design:export", []byte(`{}`)), asynq.Queue("exports"), asynq.TaskID("broken-1"), asynq.MaxRetry(0)); err != nil {
		t.Fatal(err)
	}
	srv := asynq.NewServer(opt, asynq.Config{Concurrency: 1, Queues: map[string]int{"exports": 1}, LogLevel: asynq.FatalLevel})
	mux := asynq.NewServeMux()
	mux.HandleFunc("design:export", func(ctx context.Context, t *asynq.Task) error {
		return fmt.Errorf("design 42: view back: unknown export area \"print\": %w", asynq.SkipRetry)
	})
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	rdb := rs.Client(t)
	ctx := context.Background()
	stats := func() jobs.QueueStats {
		t.Helper()
		info, err := jobs.ReadQueueStats(ctx, rdb, "exports", time.Now())
		if err != nil {
			t.Fatal(err)
		}
		return info
	}
	waitFor(t, func() bool { return stats().Archived == 1 })
	srv.Shutdown()

	out, _, err := runCLI(t, env, "queues", "stats")
	if err != nil || !strings.Contains(out, "exports") {
		t.Fatalf("queues stats: %v\n%s", err, out)
	}
	out, _, err = runCLI(t, env, "queues", "list", "--queue", "exports", "--state", "archived")
	if err != nil || !strings.Contains(out, "broken-1") || !strings.Contains(out, `unknown export area`) {
		t.Fatalf("queues list archived: %v\n%s", err, out)
	}
	if out, _, err = runCLI(t, env, "queues", "retry", "--queue", "exports"); err != nil || !strings.Contains(out, "1 archived task") {
		t.Fatalf("queues retry: %v\n%s", err, out)
	}
	if info := stats(); info.Pending != 1 || info.Archived != 0 {
		t.Fatalf("after retry: pending %d archived %d", info.Pending, info.Archived)
	}
	if _, _, err = runCLI(t, env, "queues", "pause", "--queue", "exports"); err != nil {
		t.Fatal(err)
	}
	if info := stats(); !info.Paused {
		t.Fatal("queue not paused")
	}
	if _, _, err = runCLI(t, env, "queues", "unpause", "--queue", "exports"); err != nil {
		t.Fatal(err)
	}
	if out, _, err = runCLI(t, env, "queues", "delete", "--queue", "exports", "--id", "broken-1"); err != nil || !strings.Contains(out, "deleted") {
		t.Fatalf("queues delete: %v\n%s", err, out)
	}
	in := asynq.NewInspector(opt)
	defer in.Close()
	if _, err := in.GetTaskInfo("exports", "broken-1"); err == nil {
		t.Fatal("task still there after delete")
	}
	// The dedupe id is free again: the same task can be enqueued.
	if _, err := client.Enqueue(asynq.NewTask("design:export", nil), asynq.Queue("exports"), asynq.TaskID("broken-1")); err != nil {
		t.Fatalf("re-enqueue after delete: %v", err)
	}
	if _, _, err = runCLI(t, env, "queues", "retry"); exitOf(err) != 2 {
		t.Fatalf("retry without --queue: %v, want a usage error", err)
	}
}

func TestQueueMetricsServes(t *testing.T) {
	rs := testredis.Start(t)
	client := asynq.NewClient(asynq.RedisClientOpt{Addr: rs.Addr, DB: rs.DB})
	defer client.Close()
	if _, err := client.Enqueue(asynq.NewTask("design:export", nil), asynq.Queue("exports")); err != nil {
		t.Fatal(err)
	}
	addr := testnet.FreeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"queue-metrics", "--metrics-addr", addr, "--redis-url", rs.URL()},
			func(string) string { return "" }, io.Discard, io.Discard)
	}()
	testnet.WaitHTTP(t, "http://"+addr+"/readyz", done)
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `asynq_queue_size{queue="exports"} 1`) {
		t.Errorf("metrics lack the exports queue size:\n%.2000s", body)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("queue-metrics exit: %v", err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 20s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestQueuesCommandsExportShards: --queue exports names every export shard in Redis,
// a shard's own name that shard alone.
func TestQueuesCommandsExportShards(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t)
	env := map[string]string{"PRINTWORKER_REDIS_URL": rs.URL()}
	opt := asynq.RedisClientOpt{Addr: rs.Addr, DB: rs.DB}
	client := asynq.NewClient(opt)
	defer client.Close()
	in := asynq.NewInspector(opt)
	defer in.Close()
	shards := jobs.ExportQueues(3)
	for i, q := range shards {
		for _, id := range []string{fmt.Sprint("pending-", i), fmt.Sprint("archived-", i)} {
			if _, err := client.Enqueue(asynq.NewTask(jobs.TypeDesignExport, []byte(`{}`)), asynq.Queue(q), asynq.TaskID(id)); err != nil {
				t.Fatal(err)
			}
		}
		if err := in.ArchiveTask(q, fmt.Sprint("archived-", i)); err != nil {
			t.Fatal(err)
		}
	}
	out, _, err := runCLI(t, env, "queues", "list", "--queue", "exports", "--state", "pending")
	if err != nil {
		t.Fatalf("queues list: %v\n%s", err, out)
	}
	for i, q := range shards {
		if !strings.Contains(out, fmt.Sprintf("pending-%d  %s ", i, q)) {
			t.Errorf("pending-%d of %s not listed:\n%s", i, q, out)
		}
	}
	out, _, err = runCLI(t, env, "queues", "list", "--queue", shards[2], "--state", "pending")
	if err != nil || !strings.Contains(out, "pending-2") || strings.Contains(out, "pending-1") {
		t.Errorf("queues list of shard %s: %v\n%s", shards[2], err, out)
	}
	if out, _, err = runCLI(t, env, "queues", "retry", "--queue", "exports", "--id", "archived-1"); err != nil || !strings.Contains(out, "of "+shards[1]) {
		t.Errorf("queues retry --id in a shard: %v\n%s", err, out)
	}
	if out, _, err = runCLI(t, env, "queues", "retry", "--queue", "exports"); err != nil || !strings.Contains(out, "2 archived task") {
		t.Errorf("queues retry of every shard: %v\n%s", err, out)
	}
	if out, _, err = runCLI(t, env, "queues", "delete", "--queue", "exports", "--id", "pending-2"); err != nil || !strings.Contains(out, "deleted from "+shards[2]) {
		t.Errorf("queues delete in a shard: %v\n%s", err, out)
	}
	if _, _, err = runCLI(t, env, "queues", "delete", "--queue", "exports", "--id", "never"); err == nil || !strings.Contains(err.Error(), "no task never") {
		t.Errorf("delete of a missing task: %v", err)
	}
	if _, _, err = runCLI(t, env, "queues", "pause", "--queue", "exports"); err != nil {
		t.Fatal(err)
	}
	for _, q := range shards {
		if info, err := in.GetQueueInfo(q); err != nil || !info.Paused {
			t.Errorf("shard %s not paused: %v", q, err)
		}
	}
	for i, q := range shards {
		info, err := in.GetQueueInfo(q)
		if wantPending := map[int]int{0: 2, 1: 2, 2: 1}[i]; err != nil || info.Pending != wantPending || info.Archived != 0 {
			t.Errorf("shard %s: pending %d archived %d (%v), want pending %d archived 0", q, info.Pending, info.Archived, err, wantPending)
		}
	}
}

// TestQueuesShards: queues shards prints the shard names and slots offline, and
// refuses a count out of range.
func TestQueuesShards(t *testing.T) {
	t.Parallel()
	out, _, err := runCLI(t, map[string]string{"PRINTWORKER_EXPORT_QUEUE_SHARDS": "3"}, "queues", "shards")
	if err != nil {
		t.Fatal(err)
	}
	want := "QUEUE       SLOT\nexports     11992\nexports-1a  4093\nexports-2a  6830\n"
	if out != want {
		t.Errorf("queues shards:\n%s\nwant\n%s", out, want)
	}
	if _, _, err := runCLI(t, nil, "queues", "shards", "--export-queue-shards", "17"); exitOf(err) != 2 || !strings.Contains(err.Error(), "--export-queue-shards 17: want 1 to 16") {
		t.Errorf("17 shards: %v, want a usage error", err)
	}
}
