package jobs

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/model"
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

// TestSettledState: a settled order keeps one hash (meta): what Snapshot and
// DesignStatus read of it is what they read before the settle, but for the order,
// of which only the lines and status stay (OrderSlim); the same order again is no
// new revision; a changed order is recorded whole.
func TestSettledState(t *testing.T) {
	t.Parallel()
	rs := testredis.Start(t)
	rdb := rs.Client(t)
	s := NewState(rdb, "t", 0)
	ctx := context.Background()
	k := OrderKey{Store: "s", Domain: "d.example", OrderID: "o-1"}
	o := testOrder("1.a", "2.b", "1.a")
	o.Status, o.FirstName = "paid rush", "Ann"
	o.LineItems = append([]model.LineItem{{ID: 7}}, o.LineItems...) // a line with no design
	o.LineItems[2].Quantity, o.LineItems[2].Price = 5, 12.25
	refs := []string{"1.a", "2.b"}
	if _, err := s.Begin(ctx, k, o, refs); err != nil {
		t.Fatal(err)
	}
	for _, ref := range refs {
		if _, _, err := s.MarkDone(ctx, k, ref, 0, []byte(`{"files":[]}`)); err != nil {
			t.Fatal(err)
		}
	}
	if ok, err := s.Settle(ctx, k, 1, "m.json"); err != nil || !ok {
		t.Fatalf("settle: %v, %v", ok, err)
	}
	ks := s.keys(k)
	if n, _ := rdb.Exists(ctx, ks.expected, ks.done, ks.views, ks.names).Result(); n != 0 {
		t.Errorf("%d keys besides meta kept", n)
	}
	snap, err := s.Snapshot(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	if !snap.OrderSlim || snap.Rev != 1 || snap.Manifest != "m.json" || !slices.Equal(snap.Expected, refs) ||
		string(snap.Done["1.a"]) != SettledResult || string(snap.Done["2.b"]) != SettledResult {
		t.Errorf("settled snapshot %+v", snap)
	}
	want := &model.Order{Domain: k.Domain, OrderID: k.OrderID, Status: "paid rush", LineItems: []model.LineItem{
		{}, {ID: 1, Token: "a", Quantity: 1}, {ID: 2, Token: "b", Quantity: 5, Price: 12.25}, {ID: 1, Token: "a", Quantity: 1}}}
	if b, w := mustJSON(t, snap.Order), mustJSON(t, want); b != w {
		t.Errorf("settled order\n%s\nwant\n%s", b, w)
	}
	for _, ref := range []string{"1.a", "3.c"} {
		st, err := s.DesignStatus(ctx, k, ref)
		if err != nil {
			t.Fatal(err)
		}
		if in := ref == "1.a"; !st.Exists || st.Expected != in || st.Done != in || st.Rev != 1 {
			t.Errorf("design %s of the settled order: %+v", ref, st)
		}
	}
	if c, rev, err := s.MarkDone(ctx, k, "1.a", 0, nil); err != nil || c != Complete || rev != 1 {
		t.Errorf("the settled order is not complete: %v %d %v", c, rev, err)
	}
	if b, err := s.Begin(ctx, k, o, refs); err != nil || b.Changed || b.Rev != 1 || len(b.Pending) != 0 {
		t.Errorf("the same order again: %+v, %v", b, err)
	}
	if n, _ := rdb.Exists(ctx, ks.expected, ks.done).Result(); n != 0 {
		t.Error("the same order again unpacked the settled state")
	}
	o.LineItems = append(o.LineItems, model.LineItem{ID: 3, Token: "c", Quantity: 1})
	b, err := s.Begin(ctx, k, o, []string{"1.a", "2.b", "3.c"})
	if err != nil || !b.Changed || b.Rev != 2 || !slices.Equal(b.Pending, []string{"3.c"}) {
		t.Errorf("a changed order: %+v, %v", b, err)
	}
	snap, _ = s.Snapshot(ctx, k)
	if snap.OrderSlim || snap.Order.FirstName != "Ann" || string(snap.Done["1.a"]) != SettledResult {
		t.Errorf("after a change: %+v", snap)
	}
	for f := range rdb.HGetAll(ctx, ks.meta).Val() {
		if strings.HasPrefix(f, "l|") || f == "lines" || f == "settled" {
			t.Errorf("a changed order keeps the settled field %q", f)
		}
	}
	if _, refs, err := s.Cancel(ctx, k); err != nil || len(refs) != 3 {
		t.Errorf("cancel: %v %v", refs, err)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
