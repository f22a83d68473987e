package worker_test

import (
	"context"
	"strings"
	"testing"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/worker"
)

// TestQuantityOverLimitRefused: an order with a line of 10^12 that did not come
// through the intake (enqueued as an operator would) is refused for good by the
// worker: its push and its completion are archived with a reason naming the line and
// the limit, the hub never gets the order and no manifest or ticket is written.
func TestQuantityOverLimitRefused(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *worker.Config, _ *worker.Deps) { c.MaxQuantity = 100 })
	e.start()
	ctx := context.Background()
	o := e.order("QTY-1", 1001)
	o.LineItems[0].Quantity = 1_000_000_000_000
	if _, err := e.enq.PushOrder(ctx, store, jobs.OpCreate, o); err != nil {
		t.Fatal(err)
	}
	if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
		t.Fatal(err)
	}
	e.waitQueuesIdle()
	const want = "order QTY-1: line 1 (design 1001) orders 1000000000000, more than the limit of 100 per line"
	for _, q := range []string{jobs.QueueOrders, jobs.QueueComplete} {
		archived, err := e.insp.ListArchivedTasks(q)
		if err != nil || len(archived) != 1 || !strings.Contains(archived[0].LastErr, want) || archived[0].Retried != 0 {
			t.Errorf("queue %s: archived %+v, %v; want one task, not retried, whose error says %q", q, archived, err, want)
		}
	}
	for _, r := range e.sim.Requests() {
		if r.Method == "POST" && strings.Contains(r.Path, "/order") {
			t.Errorf("the order reached the hub: %s %s", r.Method, r.Path)
		}
	}
	for _, name := range []string{"manifest.json", "ticket.pdf"} {
		if _, err := e.readManifest(orderDir("QTY-1") + "/" + name); err == nil {
			t.Errorf("%s written", name)
		}
	}
}
