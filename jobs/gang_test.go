package jobs_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

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
	gangClaimExactlyOnce(t, testredis.Start(t).Client(t))
}

// TestGangClaimExactlyOnceOnCluster: the same on a Redis Cluster, where the claim
// script must declare every key it touches.
func TestGangClaimExactlyOnceOnCluster(t *testing.T) {
	t.Parallel()
	gangClaimExactlyOnce(t, testredis.StartCluster(t).Client(t))
}

func gangClaimExactlyOnce(t *testing.T, rdb redis.UniversalClient) {
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

// TestGangLease: one holder at a time; a holder whose lease expired can neither renew
// nor release the next holder's; Hold cancels its work once the lease is lost.
func TestGangLease(t *testing.T) {
	rdb := testredis.Start(t).Client(t)
	ctx := context.Background()
	gs := jobs.NewGangs(rdb, "")
	g := jobs.GangKey{Store: "s", Group: "dtf"}
	a, err := gs.Lease(ctx, g, 200*time.Millisecond)
	if a == nil || err != nil {
		t.Fatalf("lease a: %v %v", a, err)
	}
	if b, _ := gs.Lease(ctx, g, time.Minute); b != nil {
		t.Fatal("b took a held lease")
	}
	if ok, _ := a.Renew(ctx); !ok {
		t.Error("a could not renew")
	}
	time.Sleep(300 * time.Millisecond) // a's lease expires
	b, err := gs.Lease(ctx, g, time.Minute)
	if b == nil || err != nil {
		t.Fatalf("b could not lease after a's expired: %v", err)
	}
	if ok, _ := a.Renew(ctx); ok {
		t.Error("a renewed b's lease")
	}
	if err := a.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if c, _ := gs.Lease(ctx, g, time.Minute); c != nil {
		t.Error("a's release freed b's lease")
	}
	if err := b.Release(ctx); err != nil {
		t.Fatal(err)
	}

	// Hold: the lease is taken away mid-work (as another holder would after an
	// expiry); the next renewal cancels the work with ErrLeaseLost.
	const key = "test:hold"
	h, err := jobs.TakeLease(ctx, rdb, key, 300*time.Millisecond)
	if h == nil || err != nil {
		t.Fatalf("lease for Hold: %v %v", h, err)
	}
	err = h.Hold(ctx, func(ctx context.Context) error {
		if err := rdb.Set(ctx, key, "someone else", time.Minute).Err(); err != nil {
			return err
		}
		<-ctx.Done()
		return ctx.Err()
	})
	if !errors.Is(err, jobs.ErrLeaseLost) {
		t.Errorf("Hold after the lease was taken: %v, want ErrLeaseLost", err)
	}
	if v, _ := rdb.Get(ctx, key).Result(); v != "someone else" {
		t.Errorf("the lost holder released the new holder's lease (value %q)", v)
	}
	rdb.Del(ctx, key)
	// Hold renews: work longer than three ttls keeps the lease, and frees it after.
	h, _ = jobs.TakeLease(ctx, rdb, key, 300*time.Millisecond)
	err = h.Hold(ctx, func(ctx context.Context) error {
		time.Sleep(time.Second)
		if other, _ := jobs.TakeLease(ctx, rdb, key, time.Minute); other != nil {
			return errors.New("the lease lapsed while held")
		}
		return ctx.Err()
	})
	if err != nil {
		t.Error(err)
	}
	if after, _ := jobs.TakeLease(ctx, rdb, key, time.Minute); after == nil {
		t.Error("Hold did not release the lease")
	}
}
