package worker_test

import (
	"context"
	"strings"
	"testing"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/worker"
)

// TestReviewHeldAtExport: the export of a design whose text names a missing font
// (a finding the default policy holds) stores its files under review/ before the
// order's completion has run, and so does the export of the order's next design,
// which has no such finding: at no point after an export does the order folder hold
// its files. The completion then holds the order with those very files.
func TestReviewHeldAtExport(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withMode(worker.ModeRender), func(c *worker.Config, _ *worker.Deps) {
		c.Review = worker.ReviewPolicy{Hold: profiles.DefaultReview}
	})
	e.missingFontDesign(1904)
	ctx := context.Background()
	// The exports alone, through the handler: no worker runs the completion yet.
	// The card names a missing font; the mug exported after it has no finding the
	// policy holds, and goes with its order.
	o := e.order("RV-E", 1904, 1002)
	res, err := e.enq.ExportOrder(ctx, store, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, li := range o.LineItems {
		task, err := jobs.NewDesignExportTask(jobs.DesignExport{OrderKey: res.Order, Ref: li.Ref().String(), Quantity: li.Quantity, Gen: res.Gen}, jobs.DefaultOptions().Export)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.w.Handler().ProcessTask(ctx, task); err != nil {
			t.Fatal(err)
		}
		if got := e.keysUnder(orderDir("RV-E") + "/"); len(got) != 0 {
			t.Errorf("after the export of design %d the order folder holds %q, want nothing", li.ID, got)
		}
	}
	early := e.keysUnder(worker.ReviewPrefix + orderDir("RV-E") + "/")
	if !slicesHas(early, "Card-2024-06-01.pdf") || !slicesHas(early, "Mug-Left.png") || !slicesHas(early, ".thumb.jpg") {
		t.Fatalf("after the exports review/ holds %q, want the card, the mug's views and their thumbnails", early)
	}
	e.start()
	hm := e.held("RV-E")
	if len(hm.Files) != 3 || len(hm.Review.Findings) == 0 {
		t.Fatalf("review manifest: files %+v, findings %+v", hm.Files, hm.Review.Findings)
	}
	for _, f := range hm.Files {
		if !strings.HasPrefix(f.Key, worker.ReviewPrefix) || sha(e.object(f.Key)) != f.SHA256 {
			t.Errorf("held file %s: not under review/ or not its bytes", f.Key)
		}
	}
	if got := e.keysUnder(orderDir("RV-E") + "/"); len(got) != 0 {
		t.Errorf("a held order's folder holds %q", got)
	}
}

func slicesHas(keys []string, suffix string) bool {
	for _, k := range keys {
		if strings.HasSuffix(k, suffix) {
			return true
		}
	}
	return false
}
