package jobs

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/internal/testredis"
)

// TestQueueStatsMatchAsynq puts tasks in every state with a real asynq server and
// checks the plain reads against asynq's own inspector, so an asynq upgrade that moves
// its keys fails here. Then it expires a completed task's hash, as Redis does at the
// end of its retention before asynq's janitor removes the entry: the counts still read.
func TestQueueStatsMatchAsynq(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t)
	rdb := rs.Client(t)
	ctx := context.Background()
	cl := asynq.NewClientFromRedisClient(rdb)
	const served, idle = "served", "idle"
	enqueue := func(typ, queue string, opts ...asynq.Option) string {
		t.Helper()
		info, err := cl.Enqueue(asynq.NewTask(typ, nil), append(opts, asynq.Queue(queue))...)
		if err != nil {
			t.Fatal(err)
		}
		return info.ID
	}
	done := enqueue("ok", served, asynq.Retention(time.Hour))
	enqueue("fail", served, asynq.MaxRetry(0))
	enqueue("fail", served, asynq.MaxRetry(5))
	enqueue("ok", served, asynq.ProcessIn(time.Hour))
	enqueue("ok", idle)
	enqueue("ok", idle)

	srv := asynq.NewServerFromRedisClient(rdb, asynq.Config{
		Concurrency: 2, Queues: map[string]int{served: 1}, LogLevel: asynq.FatalLevel,
		RetryDelayFunc: func(int, error, *asynq.Task) time.Duration { return time.Hour },
	})
	mux := asynq.NewServeMux()
	mux.HandleFunc("ok", func(context.Context, *asynq.Task) error { return nil })
	mux.HandleFunc("fail", func(context.Context, *asynq.Task) error { return errors.New("no") })
	if err := srv.Start(mux); err != nil {
		t.Fatal(err)
	}
	want := map[string]QueueStats{
		served: {Queue: served, Scheduled: 1, Retry: 1, Archived: 1, Completed: 1, ProcessedTotal: 3, FailedTotal: 2},
		idle:   {Queue: idle, Pending: 2},
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		got, err := ReadQueueStats(ctx, rdb, served, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if got == want[served] {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("served queue: %+v, want %+v", got, want[served])
		}
		time.Sleep(20 * time.Millisecond)
	}
	srv.Shutdown()

	in := asynq.NewInspectorFromRedisClient(rdb)
	now := time.Now()
	for _, q := range []string{served, idle} {
		got, err := ReadQueueStats(ctx, rdb, q, now)
		if err != nil {
			t.Fatal(err)
		}
		info, err := in.GetQueueInfo(q)
		if err != nil {
			t.Fatal(err)
		}
		asynqStats := QueueStats{Queue: q, Pending: info.Pending, Active: info.Active, Scheduled: info.Scheduled,
			Retry: info.Retry, Archived: info.Archived, Completed: info.Completed,
			ProcessedTotal: int64(info.ProcessedTotal), FailedTotal: int64(info.FailedTotal), Paused: info.Paused}
		latency := got.Latency
		got.Latency = 0
		if got != asynqStats || got != want[q] {
			t.Errorf("queue %s: read %+v, asynq %+v, want %+v", q, got, asynqStats, want[q])
		}
		if q == idle && (latency <= 0 || latency > time.Minute) {
			t.Errorf("idle queue latency %v, want the age of its oldest task", latency)
		}
		if got.Size() != info.Size {
			t.Errorf("queue %s: size %d, asynq %d", q, got.Size(), info.Size)
		}
	}
	if err := in.PauseQueue(idle); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadQueueStats(ctx, rdb, idle, now); err != nil || !got.Paused {
		t.Errorf("paused queue: %+v %v", got, err)
	}

	// The completed task's hash expires; its entry stays until asynq's janitor runs.
	if err := rdb.Del(ctx, asynqKey(served, "t:"+done)).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := in.GetQueueInfo(served); err != nil {
		t.Logf("asynq's inspector, as expected of hibiken/asynq#1146: %v", err)
	}
	got, err := ReadQueueStats(ctx, rdb, served, now)
	if err != nil || got.Completed != 1 || got.Busy() != 2 {
		t.Errorf("after the hash expired: %+v %v", got, err)
	}
	sum, err := SumQueueStats(ctx, rdb, now, idle, served, idle, "never-seen")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Queue != "idle never-seen served" || sum.Pending != 2 || sum.Busy() != 4 || sum.Completed != 1 || sum.ProcessedTotal != 3 || sum.Latency <= 0 {
		t.Errorf("sum of the queues, each once: %+v", sum)
	}
	if got, err := ReadQueueStats(ctx, rdb, "never-seen", now); err != nil || got != (QueueStats{Queue: "never-seen"}) {
		t.Errorf("unknown queue: %+v %v", got, err)
	}
}
