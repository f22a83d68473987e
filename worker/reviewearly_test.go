package worker_test

import (
	"context"
	"strings"
	"testing"

	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/worker"
)

// TestReviewHeldAtExport: the export of a design whose text names a missing font
// (a finding the default policy holds) stores its files under review/ before the
// order's completion has run: at no point after its export does the order folder
// hold them. The completion then holds the order with those very files.
func TestReviewHeldAtExport(t *testing.T) {
	t.Parallel()
	e := newEnv(t, withMode(worker.ModeRender), func(c *worker.Config, _ *worker.Deps) {
		c.Review = worker.ReviewPolicy{Hold: profiles.DefaultReview}
	})
	e.missingFontDesign(1904)
	ctx := context.Background()
	// The export alone, through the handler: no worker runs the completion yet.
	if err := e.exportFirstLine(ctx, "RV-E", 1904); err != nil {
		t.Fatal(err)
	}
	if got := e.keysUnder(orderDir("RV-E") + "/"); len(got) != 0 {
		t.Errorf("after the export the order folder holds %q, want nothing", got)
	}
	early := e.keysUnder(worker.ReviewPrefix + orderDir("RV-E") + "/")
	if !slicesHas(early, ".pdf") || !slicesHas(early, ".thumb.jpg") {
		t.Fatalf("after the export review/ holds %q, want the card and its thumbnail", early)
	}
	e.start()
	hm := e.held("RV-E")
	if len(hm.Files) != 1 || len(hm.Review.Findings) == 0 {
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
