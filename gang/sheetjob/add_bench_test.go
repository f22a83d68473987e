package sheetjob

import (
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/printworker/printworker/gang"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
)

// countingEnqueuer counts the builds asked for.
type countingEnqueuer struct{ builds int }

func (c *countingEnqueuer) GangBuild(context.Context, jobs.GangKey, string, int64) (jobs.Enqueued, error) {
	c.builds++
	return jobs.Enqueued{}, nil
}

// BenchmarkAdd is one ganged design's add and fill check on a group already holding
// 10 to 10,000 pending designs that do not fill a sheet (a long roll): the check
// reads the group's totals, never its designs, so the cost per add is flat. Run
// with a fixed count (-benchtime=1000x) so every size adds as many designs; pending
// reports how many waited at the end.
func BenchmarkAdd(b *testing.B) {
	rdb := testredis.Start(b).Client(b)
	ctx := context.Background()
	gs := jobs.NewGangs(rdb, "")
	grp := &gang.Group{Name: "roll", Sheet: gang.Config{DPI: 300, Width: 6600, MaxLength: 1 << 30, Gap: 59, Margin: 59, Rotate: true, Label: 35}}
	entry := func(order int) jobs.GangEntry {
		return jobs.GangEntry{OrderKey: jobs.OrderKey{Store: "s", Domain: "d", OrderID: fmt.Sprint(order)},
			Key: fmt.Sprintf("s/2026-11-27/%d/a.png", order), DPI: 300, WidthPx: 1200, HeightPx: 1500, OrderDir: "s/2026-11-27/" + fmt.Sprint(order)}
	}
	for _, n := range []int{10, 100, 1000, 10000} {
		b.Run(fmt.Sprintf("pending=%d", n), func(b *testing.B) {
			grp := *grp
			grp.Name = fmt.Sprintf("roll-%d", n)
			g := jobs.GangKey{Store: "s", Group: grp.Name}
			enq := &countingEnqueuer{}
			j := New(Config{Gangs: gs, Enqueuer: enq, Logger: func(context.Context) *slog.Logger { return slog.New(slog.DiscardHandler) }})
			for i := range n {
				if _, err := gs.Add(ctx, g, fmt.Sprintf("pre-%06d", i), entry(i)); err != nil {
					b.Fatal(err)
				}
			}
			for i := 0; b.Loop(); i++ {
				if err := j.Add(ctx, &grp, fmt.Sprintf("%d.tok", i), 0, entry(n+i), []Line{{N: 1, Quantity: 1}}); err != nil {
					b.Fatal(err)
				}
			}
			b.StopTimer()
			st, err := gs.Status(ctx, g)
			if err != nil {
				b.Fatal(err)
			}
			if enq.builds != 0 {
				b.Fatalf("%d builds enqueued for a group far from full", enq.builds)
			}
			b.ReportMetric(float64(len(st.Pending)), "pending")
		})
	}
}
