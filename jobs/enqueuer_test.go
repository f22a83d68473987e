package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/model"
)

func TestEnqueuerSkipsOrdersWithoutDesigns(t *testing.T) {
	rs := testredis.Start(t)
	rdb := rs.Client(t)
	e, err := NewEnqueuer(rdb, EnqueuerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	plain := &model.Order{OrderID: "n-1", Domain: "d", LineItems: []model.LineItem{{ID: 0, Quantity: 1}}}
	if q, err := e.PushOrder(ctx, "s", OpCreate, plain); err != nil || q.TaskID != "" {
		t.Errorf("create of an order without customizations: %+v %v", q, err)
	}
	if res, err := e.ExportOrder(ctx, "s", plain); err != nil || !res.Skipped || len(res.Tasks) != 0 {
		t.Errorf("export of an order without designs: %+v %v", res, err)
	}
	// An update is still pushed: the hub client deletes an order that lost its
	// customizations.
	if q, err := e.PushOrder(ctx, "s", OpUpdate, plain); err != nil || q.TaskID == "" || q.Queue != QueueOrders {
		t.Errorf("update: %+v %v", q, err)
	}
	// A push of the same version twice is one task.
	if q, err := e.PushOrder(ctx, "s", OpUpdate, plain); err != nil || !q.Duplicate {
		t.Errorf("second update: %+v %v", q, err)
	}
	info, err := ReadQueueStats(ctx, rdb, QueueOrders, time.Now())
	if err != nil || info.Pending != 1 {
		t.Errorf("orders queue: %+v %v", info, err)
	}
	if _, err := e.ReExport(ctx, OrderKey{Store: "s", Domain: "d", OrderID: "never"}); err == nil {
		t.Error("re-export of an unknown order accepted")
	}
}
