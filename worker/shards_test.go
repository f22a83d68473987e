package worker_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/testlog"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/worker"
)

// TestExportShards: with three export queue shards every order's exports run in its
// shard, more than one shard is used, and every order completes.
func TestExportShards(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withExportShards(3))
	e.start()
	ctx := context.Background()
	const orders = 9
	want := map[string]int{}
	for i := range orders {
		id := fmt.Sprint("S-", i)
		res, err := e.enq.ExportOrder(ctx, store, e.order(id, 1002, 1003))
		if err != nil {
			t.Fatal(err)
		}
		q := jobs.ExportQueue(jobs.OrderKey{Store: store, Domain: domain, OrderID: id}, 3)
		for _, task := range res.Tasks {
			if task.Queue != q {
				t.Errorf("order %s: task %s in %s, want %s", id, task.TaskID, task.Queue, q)
			}
		}
		want[q] += len(res.Tasks)
	}
	for i := range orders {
		e.manifest(fmt.Sprint("S-", i), 1)
	}
	e.waitQueuesIdle()
	if len(want) < 2 {
		t.Errorf("%d orders all in one shard: %v", orders, want)
	}
	for _, q := range jobs.ExportQueues(3) {
		info, err := e.insp.GetQueueInfo(q)
		if want[q] == 0 {
			continue
		}
		if err != nil || info.Completed != want[q] {
			t.Errorf("shard %s: %+v %v, want %d completed", q, info, err, want[q])
		}
	}
}

// TestUnservedExportShardWarned: a worker serving fewer shards than its enqueuers
// use says at start which shard holds tasks it does not serve.
func TestUnservedExportShardWarned(t *testing.T) {
	t.Parallel()
	var logs testlog.Buffer
	e := newEnv(t, func(c *worker.Config, _ *worker.Deps) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	})
	wide, err := jobs.NewEnqueuer(e.rdb, jobs.EnqueuerConfig{ExportShards: 3})
	if err != nil {
		t.Fatal(err)
	}
	// An order whose shard among three is not shard 0 (pinned in jobs' tests).
	k := jobs.OrderKey{Store: store, Domain: domain, OrderID: "U-1"}
	for i := 0; jobs.ExportQueue(k, 3) == jobs.QueueExports; i++ {
		k.OrderID = fmt.Sprint("U-", i)
	}
	if _, err := wide.ExportOrder(context.Background(), store, e.order(k.OrderID, 1002)); err != nil {
		t.Fatal(err)
	}
	e.start()
	deadline := time.Now().Add(waitBound)
	for !strings.Contains(logs.String(), "queue="+jobs.ExportQueue(k, 3)) {
		if time.Now().After(deadline) {
			t.Fatalf("no warning of the unserved shard; logs:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), "export queue shard not served") {
		t.Errorf("warning: %s", logs.String())
	}
}
