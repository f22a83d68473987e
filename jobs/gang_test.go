package jobs_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
)

func gangEntry(order string, qty int) jobs.GangEntry {
	return jobs.GangEntry{OrderKey: jobs.OrderKey{Store: "s", Domain: "d", OrderID: order}, Key: "s/" + order + "/a.png", Quantity: qty, WidthPx: 10, HeightPx: 10}
}

// TestGangAddIdempotent: the same member added twice, or again after it was claimed
// or built, is one pending design.
func TestGangAddIdempotent(t *testing.T) {
	rdb := testredis.Start(t).Client(t)
	ctx := context.Background()
	gs := jobs.NewGangs(rdb, "")
	g := jobs.GangKey{Store: "store/1", Group: "dtf"}
	m := jobs.GangMember(jobs.OrderKey{Store: "s", Domain: "d", OrderID: "1"}, "7.tok", 0, "front", 1)
	for i, want := range []bool{true, false} {
		added, err := gs.Add(ctx, g, m, gangEntry("1", 2))
		if err != nil || added != want {
			t.Fatalf("add %d: %v, %v; want %v", i, added, err, want)
		}
	}
	st, err := gs.Status(ctx, g)
	if err != nil || len(st.Pending) != 1 || st.Since.IsZero() {
		t.Fatalf("status %+v, %v", st, err)
	}
	b, ok, err := gs.Claim(ctx, g, "2026-11-23", 100)
	if err != nil || !ok || b.N != 1 || !slices.Equal(b.Members, []string{m}) || b.Entries[m].Quantity != 2 {
		t.Fatalf("claim %+v %v %v", b, ok, err)
	}
	if added, _ := gs.Add(ctx, g, m, gangEntry("1", 2)); added {
		t.Error("a claimed member was added again")
	}
	if err := gs.Finish(ctx, g, b.N); err != nil {
		t.Fatal(err)
	}
	if added, _ := gs.Add(ctx, g, m, gangEntry("1", 2)); added {
		t.Error("a built member was added again")
	}
	// A re-export is a new generation: a new member.
	m2 := jobs.GangMember(jobs.OrderKey{Store: "s", Domain: "d", OrderID: "1"}, "7.tok", 1, "front", 1)
	if added, _ := gs.Add(ctx, g, m2, gangEntry("1", 2)); !added {
		t.Error("a new generation was not added")
	}
	groups, err := gs.Groups(ctx)
	if err != nil || len(groups) != 1 || groups[0] != g {
		t.Errorf("groups %v, %v", groups, err)
	}
}

// TestGangClaimExactlyOnce: claimers racing on one group each get whole batches; every
// member is in exactly one; an unfinished batch is handed out again until finished;
// a batch takes at most maxCopies copies (and always one member).
func TestGangClaimExactlyOnce(t *testing.T) {
	rdb := testredis.Start(t).Client(t)
	ctx := context.Background()
	gs := jobs.NewGangs(rdb, "")
	g := jobs.GangKey{Store: "s", Group: "dtf"}
	const n = 200
	for i := range n {
		if _, err := gs.Add(ctx, g, fmt.Sprintf("m%03d", i), gangEntry(fmt.Sprint(i), 1+i%3)); err != nil {
			t.Fatal(err)
		}
	}
	var mu sync.Mutex
	seen := map[string]int64{}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				b, ok, err := gs.Claim(ctx, g, "2026-11-23", 25)
				if err != nil {
					t.Error(err)
					return
				}
				if !ok {
					return
				}
				copies := 0
				mu.Lock()
				for _, m := range b.Members {
					if prev, dup := seen[m]; dup && prev != b.N {
						t.Errorf("%s in batches %d and %d", m, prev, b.N)
					}
					seen[m] = b.N
					copies += b.Entries[m].Quantity
				}
				mu.Unlock()
				if copies > 25 {
					t.Errorf("batch %d has %d copies", b.N, copies)
				}
				if !slices.IsSorted(b.Members) {
					t.Errorf("batch %d members not sorted", b.N)
				}
				if err := gs.Finish(ctx, g, b.N); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	if len(seen) != n {
		t.Fatalf("%d of %d members claimed", len(seen), n)
	}
	st, _ := gs.Status(ctx, g)
	if len(st.Pending) != 0 || len(st.Open) != 0 || !st.Since.IsZero() {
		t.Errorf("after all claims: %+v", st)
	}

	// A batch not finished (its builder died) comes back, whole, to the next claim.
	gs.Add(ctx, g, "late-1", gangEntry("x", 1))
	first, _, _ := gs.Claim(ctx, g, "2026-11-23", 25)
	gs.Add(ctx, g, "late-2", gangEntry("y", 1))
	again, _, _ := gs.Claim(ctx, g, "2026-11-24", 25)
	if again.N != first.N || again.Date != "2026-11-23" || !slices.Equal(again.Members, []string{"late-1"}) {
		t.Errorf("unfinished batch %+v came back as %+v", first, again)
	}
}

// TestGangLease: one holder at a time; only the holder renews or releases.
func TestGangLease(t *testing.T) {
	rdb := testredis.Start(t).Client(t)
	ctx := context.Background()
	gs := jobs.NewGangs(rdb, "")
	g := jobs.GangKey{Store: "s", Group: "dtf"}
	if ok, err := gs.Lease(ctx, g, "a", time.Minute); !ok || err != nil {
		t.Fatalf("lease a: %v %v", ok, err)
	}
	if ok, _ := gs.Lease(ctx, g, "b", time.Minute); ok {
		t.Fatal("b took a held lease")
	}
	if ok, _ := gs.Renew(ctx, g, "b", time.Minute); ok {
		t.Error("b renewed a's lease")
	}
	if err := gs.Release(ctx, g, "b"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := gs.Renew(ctx, g, "a", time.Minute); !ok {
		t.Error("a could not renew")
	}
	if err := gs.Release(ctx, g, "a"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := gs.Lease(ctx, g, "b", time.Minute); !ok {
		t.Error("b could not lease after a released")
	}
}
