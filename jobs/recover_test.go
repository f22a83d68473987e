package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/internal/testredis"
)

// deadWorkerTask leaves task id of queue q as a worker killed while running it does:
// in the active list, with a lease ending at leaseEnd (its last heartbeat + 30 s).
func deadWorkerTask(t *testing.T, rdb redis.UniversalClient, q, id string, leaseEnd time.Time) {
	t.Helper()
	ctx := context.Background()
	c := asynq.NewClientFromRedisClient(rdb)
	if _, err := c.Enqueue(asynq.NewTask("test:task", nil), asynq.Queue(q), asynq.TaskID(id)); err != nil {
		t.Fatal(err)
	}
	if err := rdb.LRem(ctx, asynqKey(q, "pending"), 0, id).Err(); err != nil {
		t.Fatal(err)
	}
	p := rdb.TxPipeline()
	p.LPush(ctx, asynqKey(q, "active"), id)
	p.ZAdd(ctx, asynqKey(q, "lease"), redis.Z{Score: float64(leaseEnd.Unix()), Member: id})
	p.HSet(ctx, asynqKey(q, "t:"+id), "state", "active")
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestRecoverLeaseExpired: a dead worker's task whose lease ended more than the
// margin ago goes back to pending at once, not after asynq's 30 s skew margin and
// once-a-minute pass; one whose lease is still running stays active; and a task
// requeued RecoverMaxTimes is left to asynq's counted recovery.
func TestRecoverLeaseExpired(t *testing.T) {
	t.Parallel()
	srv := testredis.Start(t)
	if srv.Kind != "redis-server" {
		t.Skip("needs a real redis-server (Lua TIME), not " + srv.Kind)
	}
	rdb := srv.Client(t)
	ctx := context.Background()
	now, err := rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	deadWorkerTask(t, rdb, "q1", "dead", now.Add(-RecoverMargin-5*time.Second))
	deadWorkerTask(t, rdb, "q1", "alive", now.Add(20*time.Second))
	insp := asynq.NewInspectorFromRedisClient(rdb)
	state := func(id string) asynq.TaskState {
		t.Helper()
		info, err := insp.GetTaskInfo("q1", id)
		if err != nil {
			t.Fatal(err)
		}
		return info.State
	}
	if st := state("dead"); st != asynq.TaskStateActive {
		t.Fatalf("the dead worker's task is %v before recovery, want active", st)
	}
	n, err := RecoverLeaseExpired(ctx, rdb, "", "q1", "q2")
	if err != nil || n != 1 {
		t.Fatalf("recovered %d (%v), want 1", n, err)
	}
	if st := state("dead"); st != asynq.TaskStatePending {
		t.Errorf("the dead worker's task is %v, want pending", st)
	}
	if st := state("alive"); st != asynq.TaskStateActive {
		t.Errorf("the task under a running lease is %v, want active", st)
	}
	// A task that keeps killing its workers: requeued RecoverMaxTimes, then left.
	for i := range RecoverMaxTimes {
		if err := rdb.LRem(ctx, asynqKey("q1", "pending"), 0, "dead").Err(); err != nil {
			t.Fatal(err)
		}
		if err := rdb.LPush(ctx, asynqKey("q1", "active"), "dead").Err(); err != nil {
			t.Fatal(err)
		}
		if err := rdb.ZAdd(ctx, asynqKey("q1", "lease"), redis.Z{Score: float64(now.Add(-time.Minute).Unix()), Member: "dead"}).Err(); err != nil {
			t.Fatal(err)
		}
		n, err := RecoverLeaseExpired(ctx, rdb, "", "q1")
		if err != nil {
			t.Fatal(err)
		}
		if want := 1; i == RecoverMaxTimes-1 {
			want = 0
			if n != want {
				t.Errorf("requeue %d: %d, want none past %d", i+2, n, RecoverMaxTimes)
			}
		} else if n != want {
			t.Errorf("requeue %d: %d, want 1", i+2, n)
		}
	}
	ttl, err := rdb.TTL(ctx, "printworker:recovered:{q1}:dead").Result()
	if err != nil || ttl <= 0 {
		t.Errorf("the requeue counter has TTL %v (%v), want one", ttl, err)
	}
}
