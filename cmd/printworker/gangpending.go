package main

import (
	"context"
	"fmt"
	"image"
	"sort"
	"time"

	"github.com/printworker/printworker/gang"
	"github.com/printworker/printworker/jobs"
)

// runGangPending is `printworker gang --group G --store S`: with --dry-run it prints
// the layout of the group's pending designs; otherwise it enqueues a build of them
// now, which a worker runs (docs/gang.md "Sheet jobs").
func runGangPending(ctx context.Context, e env, j gangJob) error {
	switch {
	case j.group == "" || j.store == "":
		return usageError("gang: --group and --store go together")
	case j.dir != "" || j.out != "":
		return usageError("gang: --group builds pending designs from Redis; --dir and --out are for a folder")
	case j.routing.file == "":
		return usageError("gang: --group needs --routing-rules (the file defining the group)")
	}
	// "s3": the builder's storage does not matter here, only the groups.
	_, rules, err := j.routing.load("s3")
	if err != nil {
		return err
	}
	grp, ok := rules.Gang(j.group)
	if !ok {
		return usageError(fmt.Sprintf("gang: --group %q is not defined in %s", j.group, j.routing.file))
	}
	rdb, err := j.redis.connect(ctx)
	if err != nil {
		return err
	}
	defer rdb.Close()
	g := jobs.GangKey{Store: j.store, Group: j.group}
	if j.dryRun {
		st, err := jobs.NewGangs(rdb, "").Status(ctx, g)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "gang %s: %d design file(s) pending, %d batch(es) built or being built, %d unfinished\n",
			g, len(st.Pending), st.Batches, len(st.Open))
		if len(st.Pending) == 0 {
			return nil
		}
		// The pending records hold each file's full pixel size; the build packs the
		// alpha-trimmed boxes, so its sheets come out the same or shorter.
		fmt.Fprintln(e.stdout, "layout of the full file sizes (the build trims transparent borders):")
		l, err := gang.Plan(pendingDesigns(st.Pending), grp.Sheet)
		if l != nil {
			for _, r := range l.Rejected {
				fmt.Fprintf(e.stderr, "left off %s: %s\n", r.Key, r.Reason)
			}
		}
		if err != nil {
			return err
		}
		printLayout(e.stdout, l)
		return nil
	}
	enq, err := jobs.NewEnqueuer(rdb, jobs.EnqueuerConfig{})
	if err != nil {
		return err
	}
	q, err := enq.GangBuild(ctx, g, jobs.GangManual, time.Now().UnixNano())
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "enqueued %s (queue %s): a worker builds the pending designs of %s\n", q.TaskID, q.Queue, g)
	return nil
}

// pendingDesigns are the pending entries as designs of their full size, in member
// order (the order a build plans them in).
func pendingDesigns(p map[string]jobs.GangEntry) []gang.Design {
	ms := make([]string, 0, len(p))
	for m := range p {
		ms = append(ms, m)
	}
	sort.Strings(ms)
	out := make([]gang.Design, 0, len(ms))
	for _, m := range ms {
		e := p[m]
		out = append(out, gang.Design{Key: e.Key, OrderID: e.OrderID, Line: e.Line, DesignID: e.DesignID, View: e.View,
			Quantity: e.Quantity, Width: e.WidthPx, Height: e.HeightPx, Trim: image.Rect(0, 0, e.WidthPx, e.HeightPx), DPI: e.DPI})
	}
	return out
}
