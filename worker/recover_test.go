package worker_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestStartTakesBackADeadWorkersTask: a worker killed while running an export leaves
// the task active under a lease that ended 15 s ago, too recent for asynq's
// recoverer (it waits 30 s past a lease's end, then passes once a minute). A worker
// that starts takes it back at once, as a requeue that counts no retry, and the order
// completes; asynq's recovery would have counted one (Retried 1).
func TestStartTakesBackADeadWorkersTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	if e.redis.Kind != "redis-server" {
		t.Skip("needs a real redis-server (Lua TIME), not " + e.redis.Kind)
	}
	ctx := context.Background()
	res, err := e.enq.ExportOrder(ctx, store, e.order("DEAD-1", 1002))
	if err != nil || len(res.Tasks) != 1 {
		t.Fatalf("export: %+v %v", res, err)
	}
	q, id := res.Tasks[0].Queue, res.Tasks[0].TaskID
	// What the killed worker left (asynq's key layout, as jobs.RecoverLeaseExpired
	// reads it).
	now, err := e.rdb.Time(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	key := func(name string) string { return "asynq:{" + q + "}:" + name }
	p := e.rdb.TxPipeline()
	p.LRem(ctx, key("pending"), 0, id)
	p.LPush(ctx, key("active"), id)
	p.ZAdd(ctx, key("lease"), redis.Z{Score: float64(now.Add(-15 * time.Second).Unix()), Member: id})
	p.HSet(ctx, key("t:"+id), "state", "active")
	if _, err := p.Exec(ctx); err != nil {
		t.Fatal(err)
	}
	e.start()
	e.manifest("DEAD-1", 1)
	e.waitQueuesIdle()
	info, err := e.insp.GetTaskInfo(q, id)
	if err != nil {
		t.Fatal(err)
	}
	if info.Retried != 0 {
		t.Errorf("the export was retried %d times: asynq's recoverer took it back, not the start's early recovery", info.Retried)
	}
}
