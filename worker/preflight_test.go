package worker_test

import (
	"context"
	"encoding/json"
	"os"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/preflight"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/worker"
)

// TestPreflightInManifest: with the default review policy, every file made with a
// profile is preflighted with it: the card (press-pdfx4) passes with its total ink,
// the mug (a png profile whose minDpi no picture reaches) is a warning that does not
// hold the order; each report is stored beside its file, and the warning is on the
// file's record; the staff page shows each verdict and links its report.
func TestPreflightInManifest(t *testing.T) {
	t.Parallel()
	e := preflightEnv(t, `{
 "profiles": [{"name": "mug-check", "output": "png", "dpi": 120, "minDpi": 2000}],
 "rules": [{"match": {"product": "mug-11oz"}, "profile": "mug-check"}, {"match": {"product": "card-a6"}, "profile": "press-pdfx4"}]}`, preflight.Limits{})
	ctx := context.Background()
	o := e.order("PF-1", 1002, 1003)
	if _, err := e.enq.PushOrder(ctx, store, jobs.OpCreate, o); err != nil {
		t.Fatal(err)
	}
	if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("PF-1", 1)
	if len(m.Files) != 3 {
		t.Fatalf("%d files", len(m.Files))
	}
	page := string(e.object(m.StaffPage))
	for _, want := range []string{"preflight pass, total ink", "(press-pdfx4)", "preflight warn (mug-check)"} {
		if !strings.Contains(page, want) {
			t.Errorf("staff page lacks %q:\n%s", want, page)
		}
	}
	if n := strings.Count(page, ".preflight.json"); n != 3 || strings.Count(page, ">report</a>") != 3 {
		t.Errorf("staff page links %d reports, want 3", n)
	}
	for _, f := range m.Files {
		p := f.Preflight
		if p == nil || p.Report != f.Key+".preflight.json" || p.Profile != f.Profile {
			t.Fatalf("%s: preflight %+v", f.Key, p)
		}
		var rep preflight.FileReport
		if err := json.Unmarshal(e.object(p.Report), &rep); err != nil || rep.Verdict != p.Verdict || path.Base(rep.File) != f.Filename {
			t.Errorf("%s: report %+v (%v), record verdict %s", p.Report, rep, err, p.Verdict)
		}
		warned := slices.ContainsFunc(f.Warnings, func(w render.Warning) bool { return w.Code == profiles.WarnPreflightWarning })
		switch f.DesignID {
		case 1003:
			if p.Verdict != preflight.Pass || p.TACMax == nil || warned {
				t.Errorf("%s: %+v, warnings %+v: want a pass with its total ink", f.Key, p, f.Warnings)
			}
		case 1002:
			if p.Verdict != preflight.Warn || !warned || !slices.ContainsFunc(p.Findings, func(fd preflight.Finding) bool { return fd.Code == "image.resolution" }) {
				t.Errorf("%s: %+v, warnings %+v: want image.resolution as a warning", f.Key, p, f.Warnings)
			}
		}
	}
}

// TestPreflightErrorHolds: a preflight error (here the checker's own limit, set so
// low that no file can be checked completely: pdf.limit) holds the order for
// review under the default policy, its report moved to review/ with the file.
func TestPreflightErrorHolds(t *testing.T) {
	t.Parallel()
	e := preflightEnv(t, `{"rules": [{"match": {"product": "card-a6"}, "profile": "press-pdfx4"}]}`,
		preflight.Limits{MaxObjects: 3, MaxInflate: 1 << 20, MaxStream: 1 << 20, MaxOps: 100})
	ctx := context.Background()
	o := e.order("PF-2", 1003)
	if _, err := e.enq.PushOrder(ctx, store, jobs.OpCreate, o); err != nil {
		t.Fatal(err)
	}
	if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
		t.Fatal(err)
	}
	hm := e.held("PF-2")
	if hm.Review == nil || len(hm.Review.Findings) == 0 {
		t.Fatalf("review %+v", hm.Review)
	}
	for _, fd := range hm.Review.Findings {
		if fd.Code != profiles.WarnPreflightError || !strings.Contains(fd.Message, "pdf.limit") {
			t.Errorf("finding %+v: want preflight-error naming pdf.limit", fd)
		}
	}
	for _, f := range hm.Files {
		if f.Preflight == nil || f.Preflight.Verdict != preflight.Fail || !strings.HasPrefix(f.Preflight.Report, worker.ReviewPrefix) {
			t.Fatalf("%s: preflight %+v", f.Key, f.Preflight)
		}
		if len(e.object(f.Preflight.Report)) == 0 {
			t.Errorf("%s: report not moved to review/", f.Preflight.Report)
		}
	}
}

// preflightEnv is a started worker that renders with the profiles file and holds on
// the default review policy, its preflight within lim (zero: the default limits).
func preflightEnv(t *testing.T, profilesJSON string, lim preflight.Limits) *env {
	t.Helper()
	if _, err := os.Stat(cmykProfile); err != nil {
		t.Skipf("%s: %v", cmykProfile, err)
	}
	f, err := profiles.Parse([]byte(profilesJSON))
	if err != nil {
		t.Fatal(err)
	}
	set, err := profiles.Load(f, "", profiles.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, withMode(worker.ModeRender), func(c *worker.Config, _ *worker.Deps) {
		c.Profiles = set
		c.Review = worker.ReviewPolicy{Hold: profiles.DefaultReview}
		c.Preflight.Limits = lim
	})
	e.start()
	return e
}
