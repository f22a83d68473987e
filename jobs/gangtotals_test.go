package jobs_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
)

// TestGangTotalsStayTrue: the running totals the add and claim scripts keep equal
// the totals of the pending hash's true content after every step of a long random
// run of adds (new, repeated, designs no sheet holds), claims, builders that die
// with a batch claimed (the batch handed out again, unfinished), finishes, and a
// group whose meta an older version wrote without totals.
func TestGangTotalsStayTrue(t *testing.T) {
	t.Parallel()
	rdb := testredis.Start(t).Client(t)
	ctx := context.Background()
	gs := jobs.NewGangs(rdb, "")
	g := jobs.GangKey{Store: "s", Group: "dtf"}
	meta := "printworker:gang:{s/dtf}:meta"
	rng := rand.New(rand.NewPCG(30, 1))

	check := func(step string) {
		t.Helper()
		st, err := gs.Status(ctx, g)
		if err != nil {
			t.Fatal(err)
		}
		var want jobs.GangTotals
		for _, e := range st.Pending {
			if e.NoFill {
				continue
			}
			q, w, h := int64(e.Quantity), int64(e.WidthPx), int64(e.HeightPx)
			want.Copies += q
			want.Width += q * w
			want.Height += q * h
			want.Pixels += q * w * h
		}
		if st.Totals != want {
			t.Fatalf("%s: totals %+v, the %d pending designs hold %+v", step, st.Totals, len(st.Pending), want)
		}
	}
	members := 0
	var open []int64 // batches claimed and not finished: their builder died
	adds, claims, crashes := 0, 0, 0
	for i := range 600 {
		switch r := rng.IntN(20); {
		case r < 14:
			// A new design, or one added before (a retried export).
			m := members
			if members > 0 && rng.IntN(4) == 0 {
				m = rng.IntN(members)
			} else {
				members++
			}
			e := jobs.GangEntry{OrderKey: jobs.OrderKey{Store: "s", Domain: "d", OrderID: fmt.Sprint(m % 37)},
				Key: fmt.Sprintf("s/%d/a.png", m), Quantity: 1 + m%5, WidthPx: 100 + m*7%900, HeightPx: 50 + m*13%700, NoFill: m%11 == 0}
			a, err := gs.AddCounted(ctx, g, fmt.Sprintf("m%05d", m), e)
			if err != nil {
				t.Fatal(err)
			}
			st, _ := gs.Status(ctx, g)
			if a.Totals != st.Totals || a.Batches != st.Batches {
				t.Fatalf("add %d returned totals %+v batches %d, the group holds %+v and %d", i, a.Totals, a.Batches, st.Totals, st.Batches)
			}
			adds++
		case r < 18:
			b, ok, err := gs.Claim(ctx, g, "2026-11-27", 1+rng.IntN(60))
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			claims++
			if len(open) > 0 && open[0] == b.N {
				// The dead builder's batch came back whole; this builder finishes it.
				open = open[1:]
			}
			if rng.IntN(3) == 0 {
				open = append(open, b.N) // the builder dies before Finish
				crashes++
				break
			}
			if err := gs.Finish(ctx, g, b.N); err != nil {
				t.Fatal(err)
			}
		default:
			if i%7 == 0 {
				// An older version's meta: no totals; the next script counts the hash.
				if err := rdb.HDel(ctx, meta, "pt", "pc", "pw", "ph", "pa").Err(); err != nil {
					t.Fatal(err)
				}
				if _, err := gs.AddCounted(ctx, g, fmt.Sprintf("m%05d", 0), jobs.GangEntry{Quantity: 1}); err != nil {
					t.Fatal(err)
				}
			}
		}
		check(fmt.Sprintf("step %d", i))
	}
	t.Logf("%d adds, %d claims, %d builders dead with a batch claimed", adds, claims, crashes)
	if adds == 0 || claims == 0 || crashes == 0 {
		t.Fatal("the run did not exercise adds, claims and crashes")
	}
	// Drain: every batch built, nothing pending, totals zero.
	for {
		b, ok, err := gs.Claim(ctx, g, "2026-11-27", 10000)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if err := gs.Finish(ctx, g, b.N); err != nil {
			t.Fatal(err)
		}
	}
	check("drained")
	if st, _ := gs.Status(ctx, g); st.Totals != (jobs.GangTotals{}) || len(st.Pending) != 0 {
		t.Errorf("drained group: totals %+v, %d pending", st.Totals, len(st.Pending))
	}
}

// TestGangPaddedArea: the padded area from the totals equals the sum over the
// designs of quantity x (width + gap) x (height + label + gap).
func TestGangPaddedArea(t *testing.T) {
	t.Parallel()
	type d struct{ q, w, h int64 }
	for _, tc := range []struct {
		designs    []d
		gap, label int
	}{
		{nil, 10, 20},
		{[]d{{1, 100, 50}}, 0, 0},
		{[]d{{3, 100, 50}, {2, 7, 900}}, 12, 35},
		{[]d{{10000, 6600, 6600}}, 59, 35},
	} {
		var tot jobs.GangTotals
		var want int64
		for _, x := range tc.designs {
			tot.Copies += x.q
			tot.Width += x.q * x.w
			tot.Height += x.q * x.h
			tot.Pixels += x.q * x.w * x.h
			want += x.q * (x.w + int64(tc.gap)) * (x.h + int64(tc.label+tc.gap))
		}
		if got := tot.PaddedArea(tc.gap, tc.label); got != want {
			t.Errorf("%+v gap %d label %d: %d, want %d", tc.designs, tc.gap, tc.label, got, want)
		}
	}
}
