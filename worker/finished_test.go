package worker_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/worker"
)

// TestNoFinishedRecordWithoutExpiry: twenty orders exported and completed, then every
// worker stopped: no printworker key and no asynq task record is left without an
// expiry (TTL -1), so Redis lets go of past work even when no janitor runs. What the
// orders still hold per order is logged (MEMORY USAGE over SCAN), not asserted: the
// settled order state and the day page's summaries are still kept in Redis
// (docs/operations.md, "Redis sizing").
func TestNoFinishedRecordWithoutExpiry(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *worker.Config, _ *worker.Deps) {
		// A retention of its own, as --task-retention sets it.
		c.TaskRetention = time.Minute
	})
	e.start()
	ctx := context.Background()
	const orders = 20
	for i := range orders {
		if _, err := e.enq.ExportOrder(ctx, store, e.order(fmt.Sprintf("TTL-%d", i), 1002)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range orders {
		e.manifest(fmt.Sprintf("TTL-%d", i), 1)
	}
	e.waitQueuesIdle()
	e.stop()

	var bytes int64
	tasks := 0
	iter := e.rdb.Scan(ctx, 0, "*", 1000).Iterator()
	for iter.Next(ctx) {
		key := iter.Val()
		n, err := e.rdb.MemoryUsage(ctx, key).Result()
		if err == nil {
			bytes += n
		}
		task := strings.HasPrefix(key, "asynq:{") && strings.Contains(key, "}:t:")
		if task {
			tasks++
		}
		if !task && !strings.HasPrefix(key, "printworker:") {
			continue
		}
		ttl, err := e.rdb.TTL(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		if ttl == -1 {
			t.Errorf("%s has no expiry", key)
		}
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	if tasks == 0 {
		t.Fatal("no finished task record found: the retention was not applied")
	}
	t.Logf("%d orders: %d finished task records, Redis holds %d bytes (%d an order)", orders, tasks, bytes, bytes/orders)
}
