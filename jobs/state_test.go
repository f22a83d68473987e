package jobs

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/model"
)

func testOrder(refs ...string) *model.Order {
	o := &model.Order{OrderID: "o-1", Domain: "d.example", Created: "2024-02-03T04:05:06.000Z"}
	for _, r := range refs {
		ref, _ := model.ParseDesignRef(r)
		o.LineItems = append(o.LineItems, model.LineItem{ID: ref.ID, Token: ref.Token, Quantity: 1})
	}
	return o
}

func TestStateLifecycle(t *testing.T) {
	stateLifecycle(t, testredis.Start(t).Client(t))
}

// TestStateLifecycleOnCluster: the same on a Redis Cluster: an order's keys share a
// hash tag, so its scripts and transactions stay on one node.
func TestStateLifecycleOnCluster(t *testing.T) {
	t.Parallel()
	stateLifecycle(t, testredis.StartCluster(t).Client(t))
}

func stateLifecycle(t *testing.T, rdb redis.UniversalClient) {
	s := NewState(rdb, "t", 0)
	ctx := context.Background()
	k := OrderKey{Store: "s", Domain: "d.example", OrderID: "o-1"}

	b, err := s.Begin(ctx, k, testOrder("1.a", "2.b"), []string{"1.a", "2.b"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Rev != 1 || b.Gen != 0 || !b.Changed || !slices.Equal(b.Pending, []string{"1.a", "2.b"}) {
		t.Fatalf("begin: %+v", b)
	}
	st, err := s.DesignStatus(ctx, k, "1.a")
	if err != nil {
		t.Fatal(err)
	}
	if !st.Exists || !st.Expected || st.Done || st.Date != "2024-02-03" {
		t.Fatalf("status: %+v", st)
	}
	// The same order again: no new revision.
	b, _ = s.Begin(ctx, k, testOrder("1.a", "2.b"), []string{"1.a", "2.b"})
	if b.Changed || b.Rev != 1 {
		t.Fatalf("repeat begin: %+v", b)
	}
	if c, _, err := s.MarkDone(ctx, k, "1.a", 0, []byte(`{"designId":1}`)); err != nil || c != NotYet {
		t.Fatalf("first design: %v %v", c, err)
	}
	c, rev, err := s.MarkDone(ctx, k, "2.b", 0, []byte(`{"designId":2}`))
	if err != nil || c != Complete || rev != 1 {
		t.Fatalf("last design: %v %d %v", c, rev, err)
	}
	// An update keeps the done design and expects the new one only.
	b, _ = s.Begin(ctx, k, testOrder("1.a", "3.c"), []string{"1.a", "3.c"})
	if !b.Changed || b.Rev != 2 || !slices.Equal(b.Pending, []string{"3.c"}) {
		t.Fatalf("update: %+v", b)
	}
	if st, _ := s.DesignStatus(ctx, k, "2.b"); st.Expected {
		t.Error("a removed design is still expected")
	}
	// Re-export: new generation, the design forgotten as done, older results dropped.
	rev, gen, pending, err := s.ReExport(ctx, k, []string{"1.a"})
	if err != nil || rev != 3 || gen != 1 || !slices.Equal(pending, []string{"1.a"}) {
		t.Fatalf("re-export: %d %d %v %v", rev, gen, pending, err)
	}
	if c, _, _ := s.MarkDone(ctx, k, "1.a", 0, []byte(`{}`)); c != Superseded {
		t.Errorf("an older generation's result was taken: %v", c)
	}
	// Cancel: results are refused, Begin reports it.
	if _, refs, err := s.Cancel(ctx, k); err != nil || len(refs) != 2 {
		t.Fatalf("cancel: %v %v", refs, err)
	}
	if c, _, _ := s.MarkDone(ctx, k, "1.a", 1, []byte(`{}`)); c != Cancelled {
		t.Errorf("a cancelled order took a result: %v", c)
	}
	if b, _ := s.Begin(ctx, k, testOrder("1.a"), []string{"1.a"}); !b.Cancelled {
		t.Errorf("begin on a cancelled order: %+v", b)
	}
	snap, err := s.Snapshot(ctx, k)
	if err != nil || !snap.Cancelled || snap.Order == nil || snap.Order.OrderID != "o-1" {
		t.Fatalf("snapshot: %+v %v", snap, err)
	}
	if _, _, _, err := s.ReExport(ctx, OrderKey{Store: "s", Domain: "d", OrderID: "never"}, nil); !errors.Is(err, ErrUnknownOrder) {
		t.Errorf("re-export of an unknown order: %v", err)
	}
	ttl, err := rdb.PTTL(ctx, s.keys(k).meta).Result()
	if err != nil || ttl <= 0 {
		t.Errorf("state has no expiry: %v %v", ttl, err)
	}
}

// TestStateLastDesignsConcurrently: however the designs of an order race to finish,
// exactly one of them sees the order complete (and so enqueues its manifest): the
// record and the check are one script.
func TestStateLastDesignsConcurrently(t *testing.T) {
	rs := testredis.Start(t)
	s := NewState(rs.Client(t), "t", 0)
	ctx := context.Background()
	for round := range 20 {
		k := OrderKey{Store: "s", Domain: "d", OrderID: string(rune('a' + round))}
		refs := []string{"1.a", "2.b", "3.c", "4.d"}
		if _, err := s.Begin(ctx, k, testOrder(refs...), refs); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		complete := 0
		for _, r := range refs {
			wg.Go(func() {
				c, _, err := s.MarkDone(ctx, k, r, 0, []byte(`{}`))
				if err != nil {
					t.Error(err)
				}
				if c == Complete {
					mu.Lock()
					complete++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if complete != 1 {
			t.Fatalf("round %d: %d designs saw the order complete, want 1", round, complete)
		}
	}
}
