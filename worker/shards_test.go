package worker_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/testlog"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/worker"
)

// TestExportShards: with three export queue shards every order's exports run in one
// of its store's two lanes, both are used, and every order completes.
func TestExportShards(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withExportShards(3))
	ctx := context.Background()
	lanes := jobs.ExportLanes(store, 3)
	const orders = 9
	want := map[string]int{}
	for i := range orders {
		id := fmt.Sprint("S-", i)
		res, err := e.enq.ExportOrder(ctx, store, e.order(id, 1002, 1003))
		if err != nil {
			t.Fatal(err)
		}
		q := res.Tasks[0].Queue
		if !slices.Contains(lanes, q) {
			t.Errorf("order %s in %s, not a lane of %s (%q)", id, q, store, lanes)
		}
		for _, task := range res.Tasks {
			if task.Queue != q {
				t.Errorf("order %s: task %s in %s, want %s", id, task.TaskID, task.Queue, q)
			}
		}
		want[q] += len(res.Tasks)
	}
	// Started after the enqueues, so the lanes fill in turn.
	e.start()
	for i := range orders {
		e.manifest(fmt.Sprint("S-", i), 1)
	}
	e.waitQueuesIdle()
	if len(want) != 2 {
		t.Errorf("%d orders in %v, want both lanes %q", orders, want, lanes)
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
	// An order of a store neither of whose lanes among three is shard 0.
	s := store
	for i := 0; slices.Contains(jobs.ExportLanes(s, 3), jobs.QueueExports); i++ {
		s = fmt.Sprint("U-", i)
	}
	res, err := wide.ExportOrder(context.Background(), s, e.order("U-1", 1002))
	if err != nil || len(res.Tasks) != 1 || res.Tasks[0].Queue == jobs.QueueExports {
		t.Fatalf("export: %+v %v", res, err)
	}
	e.start()
	deadline := time.Now().Add(waitBound)
	for !strings.Contains(logs.String(), "queue="+res.Tasks[0].Queue) {
		if time.Now().After(deadline) {
			t.Fatalf("no warning of the unserved shard; logs:\n%s", logs.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(logs.String(), "export queue shard not served") {
		t.Errorf("warning: %s", logs.String())
	}
}
