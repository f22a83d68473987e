package worker_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/worker"
)

func designFetches(e *env, id string) int {
	return e.hubRequests("GET", "/2023-10/designs/"+id+"/")
}

func TestDedupeAndReExport(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	o := e.order("D-1", 1002, 1003)
	first, err := e.enq.ExportOrder(ctx, store, o)
	if err != nil {
		t.Fatal(err)
	}
	// The same order again (a webhook delivered twice) enqueues nothing new.
	again, err := e.enq.ExportOrder(ctx, store, o)
	if err != nil {
		t.Fatal(err)
	}
	if again.Changed || again.Rev != first.Rev || len(again.Tasks) != 2 {
		t.Fatalf("second export: %+v", again)
	}
	for _, task := range again.Tasks {
		if !task.Duplicate {
			t.Errorf("task %s enqueued twice", task.TaskID)
		}
	}
	e.start()
	m1 := e.manifest("D-1", 1)
	e.waitQueuesIdle()
	// After completion the same request is still recognized: only the (retained)
	// completion is named, and it is a duplicate.
	late, err := e.enq.ExportOrder(ctx, store, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(late.Tasks) != 1 || late.Tasks[0].Type != jobs.TypeOrderComplete || !late.Tasks[0].Duplicate {
		t.Errorf("export after completion: %+v", late)
	}
	e.waitQueuesIdle()
	if n := designFetches(e, "1002") + designFetches(e, "1003"); n != 2 {
		t.Errorf("%d design fetches for one export of two designs, want 2", n)
	}

	// The operator's re-export runs past the dedupe: new generation, new revision,
	// same keys and the same bytes.
	re, err := e.enq.ReExport(ctx, jobs.OrderKey{Store: store, Domain: domain, OrderID: "D-1"})
	if err != nil {
		t.Fatal(err)
	}
	if re.Gen != 1 || re.Rev != 2 || len(re.Tasks) != 2 || re.Tasks[0].Duplicate {
		t.Fatalf("re-export: %+v", re)
	}
	m2 := e.manifest("D-1", 2)
	e.waitQueuesIdle()
	if n := designFetches(e, "1002") + designFetches(e, "1003"); n != 4 {
		t.Errorf("%d design fetches after a re-export, want 4", n)
	}
	if len(m1.Files) != len(m2.Files) {
		t.Fatalf("re-export listed %d files, first export %d", len(m2.Files), len(m1.Files))
	}
	for i := range m1.Files {
		if m1.Files[i].Key != m2.Files[i].Key || m1.Files[i].SHA256 != m2.Files[i].SHA256 {
			t.Errorf("re-export changed file %d: %s %s -> %s %s", i, m1.Files[i].Key, m1.Files[i].SHA256, m2.Files[i].Key, m2.Files[i].SHA256)
		}
		e.checkFile(m2.Files[i])
	}
}

func TestCancelStopsPendingExports(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	ctx := context.Background()
	k1 := jobs.OrderKey{Store: store, Domain: domain, OrderID: "C-1"}
	if _, err := e.enq.ExportOrder(ctx, store, e.order("C-1", 1001, 1002)); err != nil {
		t.Fatal(err)
	}
	res, err := e.enq.CancelOrder(ctx, k1)
	if err != nil {
		t.Fatal(err)
	}
	if res.Removed != 2 {
		t.Errorf("cancel removed %d pending exports, want 2", res.Removed)
	}
	// A later export request for the cancelled order is refused.
	after, err := e.enq.ExportOrder(ctx, store, e.order("C-1", 1001, 1002))
	if err != nil {
		t.Fatal(err)
	}
	if !after.Cancelled || len(after.Tasks) != 0 {
		t.Errorf("export after cancel: %+v", after)
	}
	// A task that escaped deletion (it was running) checks the flag itself: cancel
	// through the state only, leaving the tasks queued.
	k2 := jobs.OrderKey{Store: store, Domain: domain, OrderID: "C-2"}
	if _, err := e.enq.ExportOrder(ctx, store, e.order("C-2", 1003)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.enq.State().Cancel(ctx, k2); err != nil {
		t.Fatal(err)
	}
	e.start()
	e.runOrders("C-ok", 1)
	e.waitQueuesIdle()
	for _, id := range []string{"C-1", "C-2"} {
		objs, err := e.store.List(ctx, orderDir(id)+"/")
		if err != nil {
			t.Fatal(err)
		}
		if len(objs) != 0 {
			t.Errorf("cancelled order %s has %d objects", id, len(objs))
		}
	}
	if n := e.counter("printworker_tasks_total", map[string]string{"type": jobs.TypeDesignExport, "outcome": worker.OutcomeSkipped}); n != 1 {
		t.Errorf("%v skipped exports, want 1 (C-2's)", n)
	}
	// C-ok-0 exports 1001; 1002 and 1003 belong to the cancelled orders only.
	if n := designFetches(e, "1002") + designFetches(e, "1003"); n != 0 {
		t.Errorf("cancelled orders' designs were fetched %d times", n)
	}
}

func TestUpdateReExportsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start()
	ctx := context.Background()
	o := e.order("U-1", 1001, 1002)
	if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
		t.Fatal(err)
	}
	m1 := e.manifest("U-1", 1)
	e.waitQueuesIdle()

	// The customer swaps the mug for a card and moves house.
	o2 := e.order("U-1", 1001, 1003)
	o2.ShippingDetails.City = "Shelbyville"
	res, err := e.enq.ExportOrder(ctx, store, o2)
	if err != nil {
		t.Fatal(err)
	}
	if !res.Changed || res.Rev != 2 || len(res.Tasks) != 1 {
		t.Fatalf("update: %+v", res)
	}
	m2 := e.manifest("U-1", 2)
	e.waitQueuesIdle()
	if n := designFetches(e, "1001"); n != 1 {
		t.Errorf("unchanged design 1001 fetched %d times, want 1", n)
	}
	if m2.Shipping.City != "Shelbyville" {
		t.Errorf("manifest shipping city %q", m2.Shipping.City)
	}
	var ids []int64
	for _, li := range m2.LineItems {
		ids = append(ids, li.DesignID)
	}
	if len(ids) != 2 || ids[0] != 1001 || ids[1] != 1003 {
		t.Errorf("manifest lines %v", ids)
	}
	for _, f := range m2.Files {
		if f.DesignID == 1002 {
			t.Errorf("removed design still listed: %s", f.Key)
		}
		e.checkFile(f)
	}
	if m1.Files[0].SHA256 != m2.Files[0].SHA256 {
		t.Error("the unchanged design's file changed")
	}

	// An update of order data only rewrites the manifest, exporting nothing.
	o3 := e.order("U-1", 1001, 1003)
	o3.ShippingDetails.City = "Shelbyville"
	o3.Status = "fulfilled"
	res, err = e.enq.ExportOrder(ctx, store, o3)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tasks) != 1 || res.Tasks[0].Type != jobs.TypeOrderComplete {
		t.Fatalf("data-only update: %+v", res)
	}
	m3 := e.manifest("U-1", 3)
	if m3.OrderStatus != "fulfilled" || len(m3.Files) != len(m2.Files) {
		t.Errorf("manifest after data-only update: status %q, %d files", m3.OrderStatus, len(m3.Files))
	}
	if n := designFetches(e, "1001") + designFetches(e, "1003"); n != 2 {
		t.Errorf("%d design fetches, want 2", n)
	}
}

// panicHub panics when a design is fetched.
type panicHub struct{ worker.Hub }

func (panicHub) GetDesign(context.Context, model.DesignRef) (*model.DesignDetail, error) {
	panic("boom")
}

func TestPanicBecomesRetryableError(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(_ *worker.Config, d *worker.Deps) {
		d.Hubs = func(string) (worker.Hub, error) { return panicHub{}, nil }
	})
	ctx := context.Background()
	err := e.exportFirstLine(ctx, "X-1", 1003)
	if err == nil || !strings.Contains(err.Error(), "panic") || errors.Is(err, asynq.SkipRetry) {
		t.Fatalf("panicking handler returned %v, want a retryable error", err)
	}
	if n := e.counter("printworker_tasks_total", map[string]string{"type": jobs.TypeDesignExport, "outcome": worker.OutcomeRetry}); n != 1 {
		t.Errorf("%v retry outcomes counted, want 1", n)
	}
}

func TestPushesOutOfOrderKeepTheNewest(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start()
	ctx := context.Background()
	push := func(op string, o *model.Order) {
		t.Helper()
		if _, err := e.enq.PushOrder(ctx, store, op, o); err != nil {
			t.Fatal(err)
		}
		e.waitQueuesIdle()
	}
	newer := e.order("O-1", 1003)
	newer.Updated, newer.Status = "2024-06-02T00:00:00.000Z", "fulfilled"
	older := e.order("O-1", 1003)
	// The update overtook the create (a retried create, another worker).
	push(jobs.OpUpdate, newer)
	push(jobs.OpCreate, older)
	got, ok := e.sim.Order(store, "O-1", domain)
	if !ok || got.Order.Status != "fulfilled" {
		t.Fatalf("hub holds %+v, want the newer version", got.Order)
	}
	// After a deletion, no version brings the order back.
	push(jobs.OpDelete, newer)
	later := e.order("O-1", 1003)
	later.Updated = "2024-06-03T00:00:00.000Z"
	push(jobs.OpUpdate, later)
	if _, ok := e.sim.Order(store, "O-1", domain); ok {
		t.Error("a deleted order came back on the hub")
	}
	if n := e.counter("printworker_tasks_total", map[string]string{"type": jobs.TypeOrderPush, "outcome": worker.OutcomeSkipped}); n != 2 {
		t.Errorf("%v pushes skipped, want 2", n)
	}
}

func TestRenderOverBudgetIsPermanent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withMode(worker.ModeRender), func(c *worker.Config, _ *worker.Deps) { c.MemoryBudget = 1 << 20 })
	e.start()
	ctx := context.Background()
	if _, err := e.enq.ExportOrder(ctx, store, e.order("M-1", 1002)); err != nil {
		t.Fatal(err)
	}
	e.waitQueuesIdle()
	archived, err := e.insp.ListArchivedTasks(jobs.QueueExports)
	if err != nil {
		t.Fatal(err)
	}
	if len(archived) != 1 || !strings.Contains(archived[0].LastErr, "memory budget") || archived[0].Retried != 0 {
		t.Fatalf("archived %+v, want the export archived at once for the memory budget", archived)
	}
	if n := e.hubRequests("GET", "/2023-10/export/"); n != 0 {
		t.Errorf("render mode downloaded %d exports", n)
	}
}
