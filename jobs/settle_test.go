package jobs

import (
	"context"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/internal/testredis"
)

// TestSettle: only the complete revision of an order not cancelled is settled; a
// settled design still counts as done, and a re-exported one gets its full result
// back beside the settled ones.
func TestSettle(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t)
	rdb := rs.Client(t)
	s := NewState(rdb, "t", 0)
	ctx := context.Background()
	k := OrderKey{Store: "s", Domain: "d.example", OrderID: "o-1"}
	if _, err := s.Begin(ctx, k, testOrder("1.a", "2.b"), []string{"1.a", "2.b"}); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"1.a", "2.b"} {
		if err := s.ViewDone(ctx, k, ref, 0, "front", []byte(`{"key":"x"}`)); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.MarkDone(ctx, k, ref, 0, []byte(`{"files":[{"key":"`+ref+`"}]}`)); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := s.Settle(ctx, k, 2, "m.json"); err != nil || ok {
		t.Fatalf("settle of a revision the order is not at: %v, %v", ok, err)
	}
	if ok, err := s.Settle(ctx, k, 1, "m.json"); err != nil || !ok {
		t.Fatalf("settle: %v, %v", ok, err)
	}
	snap, err := s.Snapshot(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Manifest != "m.json" || string(snap.Done["1.a"]) != SettledResult || string(snap.Done["2.b"]) != SettledResult || snap.Order == nil {
		t.Errorf("settled snapshot %+v", snap)
	}
	if n, _ := rdb.Exists(ctx, s.keys(k).views).Result(); n != 0 {
		t.Error("views kept")
	}
	if c, rev, err := s.MarkDone(ctx, k, "1.a", 0, nil); err != nil || c != Complete || rev != 1 {
		t.Errorf("a settled order is not complete: %v %d %v", c, rev, err)
	}
	_, gen, pending, err := s.ReExport(ctx, k, []string{"2.b"})
	if err != nil || len(pending) != 1 {
		t.Fatalf("re-export: %v %v", pending, err)
	}
	if _, _, err := s.MarkDone(ctx, k, "2.b", gen, []byte(`{"files":[]}`)); err != nil {
		t.Fatal(err)
	}
	snap, _ = s.Snapshot(ctx, k)
	if string(snap.Done["1.a"]) != SettledResult || string(snap.Done["2.b"]) != `{"files":[]}` {
		t.Errorf("after a re-export: %s", snap.Done)
	}
	if _, _, err := s.Cancel(ctx, k); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.Settle(ctx, k, snap.Rev, "m.json"); err != nil || ok {
		t.Errorf("a cancelled order was settled: %v %v", ok, err)
	}
}

// TestEnqueuerRetention: EnqueuerConfig.Retention replaces every task type's own.
func TestEnqueuerRetention(t *testing.T) {
	t.Parallel()
	rdb := testredis.Start(t).Client(t)
	ctx := context.Background()
	for _, keep := range []time.Duration{0, 90 * time.Minute} {
		e, err := NewEnqueuer(rdb, EnqueuerConfig{Retention: keep})
		if err != nil {
			t.Fatal(err)
		}
		k := OrderKey{Store: "s", Domain: "d.example", OrderID: "r-" + keep.String()}
		q, err := e.Complete(ctx, k, 1)
		if err != nil {
			t.Fatal(err)
		}
		info, err := asynq.NewInspectorFromRedisClient(rdb).GetTaskInfo(q.Queue, q.TaskID)
		if err != nil {
			t.Fatal(err)
		}
		want := keep
		if keep == 0 {
			want = DefaultOptions().Complete.Retention
		}
		if info.Retention != want {
			t.Errorf("Retention %v: the task keeps %v, want %v", keep, info.Retention, want)
		}
	}
}
