package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// Gang sheets and review holds (docs/shop-floor.md "Review holds"): while a review
// policy may hold the store's orders, a file routed to a gang group joins it at the
// order's completion or its release, never while it is held, never when rejected.

// withReviewHold holds orders on the default findings.
func withReviewHold(c *worker.Config, _ *worker.Deps) {
	c.Review = worker.ReviewPolicy{Hold: profiles.DefaultReview}
}

// gangPending are the pending entries of the "mugs" group (gangTestRules) of
// orderID, as "member -> key line quantity", sorted by member.
func (e *env) gangPending(orderID string) []string {
	e.t.Helper()
	st, err := jobs.NewGangs(e.rdb, "").Status(context.Background(), jobs.GangKey{Store: store, Group: "mugs"})
	if err != nil {
		e.t.Fatal(err)
	}
	if len(st.Open) != 0 || st.Batches != 0 {
		e.t.Fatalf("mugs: batches %d, open %v: a build took designs the test counts", st.Batches, st.Open)
	}
	var out []string
	for m, en := range st.Pending {
		if en.OrderID == orderID {
			out = append(out, m+" -> "+en.Key+" L"+strconv.Itoa(en.Line)+" x"+strconv.Itoa(en.Quantity))
		}
	}
	sort.Strings(out)
	return out
}

// gangedFiles are the files of m its rules send to the "mugs" group.
func gangedFiles(m worker.Manifest) []worker.FileRecord {
	var out []worker.FileRecord
	for _, f := range m.Files {
		if f.Gang == "mugs" {
			out = append(out, f)
		}
	}
	return out
}

// heldGangOrder runs order id (design 1903 naming a missing font, and the mug 1002)
// on a worker that renders, holds on the default findings and gangs the mugs' PNGs,
// and returns the env and the order's review manifest once it is held.
func heldGangOrder(t *testing.T, id string) (*env, worker.Manifest) {
	t.Helper()
	e := newEnv(t, withMode(worker.ModeRender), withReviewHold, withGangs(t, gangTestRules))
	e.missingFontDesign(1903)
	e.start()
	if _, err := e.enq.ExportOrder(context.Background(), store, e.order(id, 1903, 1002)); err != nil {
		t.Fatal(err)
	}
	return e, e.held(id)
}

// TestReviewHoldGang: the mugs of an order held for a missing font (design 1903)
// are not pending on their gang group while the order is held; the release adds
// them, once per line, at their final keys; a release that crashed before its last
// step and runs again adds nothing twice.
func TestReviewHoldGang(t *testing.T) {
	t.Parallel()
	e, hm := heldGangOrder(t, "RG-1")
	ctx := context.Background()
	ganged := gangedFiles(hm)
	if len(ganged) != 2 {
		t.Fatalf("held manifest gangs %d files, want the mug's 2 views: %+v", len(ganged), hm.Files)
	}
	for _, f := range ganged {
		if f.GangPlan == nil || len(f.GangPlan.Lines) != 1 || f.GangPlan.Lines[0] != (worker.GangLine{Line: 2, Quantity: 3}) {
			t.Errorf("held %s: gang plan %+v, want line 2 x3", f.Key, f.GangPlan)
		}
		if f.GangPlan != nil && strings.Contains(f.GangPlan.Design, e.refs[1002].Token) {
			t.Errorf("held %s: the plan names the design's token", f.Key)
		}
	}
	if got := e.gangPending("RG-1"); len(got) != 0 {
		t.Fatalf("a held order's files are pending on a gang sheet: %q", got)
	}

	k := jobs.OrderKey{Store: store, Domain: domain, OrderID: "RG-1"}
	p := jobs.Review{OrderKey: k, Date: "2024-06-01", Rev: hm.Revision, Action: jobs.ReviewRelease}
	if _, err := e.enq.Review(ctx, p); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("RG-1", hm.Revision)
	e.waitQueuesIdle()
	var want []string
	for _, f := range gangedFiles(m) {
		if f.GangPlan != nil {
			t.Errorf("released %s keeps its gang plan %+v", f.Key, f.GangPlan)
		}
		want = append(want, f.Key+" L2 x3")
	}
	sort.Strings(want)
	after := e.gangPending("RG-1")
	if len(after) != 2 {
		t.Fatalf("after the release pending %q, want the mug's 2 views once", after)
	}
	var keys []string
	for _, s := range after {
		_, rest, _ := strings.Cut(s, " -> ")
		keys = append(keys, rest)
	}
	sort.Strings(keys)
	if strings.Join(keys, ",") != strings.Join(want, ",") {
		t.Errorf("pending after the release %q, want %q (final keys, line 2 x3)", keys, want)
	}

	// A release that crashed after the manifest, before deleting the review
	// manifest, runs again: its files are at their keys, its adds are made again and
	// must not be second entries.
	b, err := json.Marshal(hm)
	if err != nil {
		t.Fatal(err)
	}
	rkey := worker.ReviewPrefix + orderDir("RG-1") + "/manifest.json"
	if _, err := e.store.Put(ctx, storage.Object{Key: rkey, ContentType: "application/json", Size: int64(len(b))}, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	task, err := jobs.NewReviewTask(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.w.Handler().ProcessTask(ctx, task); err != nil {
		t.Fatalf("release run again: %v", err)
	}
	if _, err := e.readManifest(rkey); err == nil {
		t.Error("the release run again left the review manifest")
	}
	if again := e.gangPending("RG-1"); strings.Join(again, "\n") != strings.Join(after, "\n") {
		t.Errorf("a release run again changed the pending designs:\n%q\nwant\n%q", again, after)
	}
}

// TestReviewRejectGang: the mugs of a rejected order never join their gang group.
func TestReviewRejectGang(t *testing.T) {
	t.Parallel()
	e, hm := heldGangOrder(t, "RG-2")
	ctx := context.Background()
	if n := len(gangedFiles(hm)); n != 2 {
		t.Fatalf("held manifest gangs %d files, want 2", n)
	}
	k := jobs.OrderKey{Store: store, Domain: domain, OrderID: "RG-2"}
	if _, err := e.enq.Review(ctx, jobs.Review{OrderKey: k, Date: "2024-06-01", Rev: hm.Revision, Action: jobs.ReviewReject, Reason: "font"}); err != nil {
		t.Fatal(err)
	}
	rkey := worker.ReviewPrefix + orderDir("RG-2") + "/manifest.json"
	waitFor(t, "the rejection", func() bool {
		m, err := e.readManifest(rkey)
		return err == nil && m.Review != nil && m.Review.Status == worker.ReviewRejected
	}, e.queueReport)
	e.waitQueuesIdle()
	if got := e.gangPending("RG-2"); len(got) != 0 {
		t.Errorf("a rejected order's files are pending on a gang sheet: %q", got)
	}
}

// TestGangAddAtCompletion runs an order of one mug (no finding: never held) through
// the handlers one task at a time: with a policy that may hold, its views join their
// group at the order's completion, not at export, and a completion that failed after
// its adds, or finished, and runs again adds nothing twice; with none they join at
// export, as they always did.
func TestGangAddAtCompletion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		hold     bool
		atExport int
	}{
		{"policy may hold", true, 0},
		{"policy none", false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := []envOption{withGangs(t, gangTestRules)}
			if tc.hold {
				opts = append(opts, withReviewHold)
			}
			e := newEnv(t, opts...) // not started: the test runs each task itself
			ctx := context.Background()
			o := e.order("GC-1", 1002)
			res, err := e.enq.ExportOrder(ctx, store, o)
			if err != nil {
				t.Fatal(err)
			}
			k := jobs.OrderKey{Store: store, Domain: domain, OrderID: "GC-1"}
			export, err := jobs.NewDesignExportTask(jobs.DesignExport{OrderKey: k, Ref: o.LineItems[0].Ref().String()}, jobs.DefaultOptions().Export)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.w.Handler().ProcessTask(ctx, export); err != nil {
				t.Fatalf("export: %v", err)
			}
			if got := e.gangPending("GC-1"); len(got) != tc.atExport {
				t.Errorf("after the export pending %q, want %d", got, tc.atExport)
			}
			complete, err := jobs.NewOrderCompleteTask(jobs.OrderComplete{OrderKey: k, Rev: res.Rev}, jobs.DefaultOptions().Complete)
			if err != nil {
				t.Fatal(err)
			}
			// The first completion fails after its gang adds, before its manifest: an
			// object that is no manifest sits at the manifest's key.
			mkey := orderDir("GC-1") + "/manifest.json"
			junk := []byte("not a manifest")
			if _, err := e.store.Put(ctx, storage.Object{Key: mkey, Size: int64(len(junk))}, bytes.NewReader(junk)); err != nil {
				t.Fatal(err)
			}
			if err := e.w.Handler().ProcessTask(ctx, complete); err == nil {
				t.Fatal("completion over an object that is no manifest succeeded")
			}
			failed := e.gangPending("GC-1")
			if len(failed) != 2 {
				t.Fatalf("after the failed completion pending %q, want the mug's 2 views", failed)
			}
			if err := e.store.Delete(ctx, mkey); err != nil {
				t.Fatal(err)
			}
			// Run again, it makes its adds again: no second entry.
			if err := e.w.Handler().ProcessTask(ctx, complete); err != nil {
				t.Fatalf("completion: %v", err)
			}
			m, err := e.readManifest(orderDir("GC-1") + "/manifest.json")
			if err != nil || m.Review != nil {
				t.Fatalf("manifest: review %+v, %v (want completed, not held)", m.Review, err)
			}
			ganged := gangedFiles(m)
			if len(ganged) != 2 {
				t.Fatalf("manifest gangs %d files, want 2", len(ganged))
			}
			for _, f := range ganged {
				if f.GangPlan != nil {
					t.Errorf("%s: the manifest keeps the gang plan %+v", f.Key, f.GangPlan)
				}
			}
			done := e.gangPending("GC-1")
			if strings.Join(done, "\n") != strings.Join(failed, "\n") {
				t.Fatalf("after the completion run again pending\n%q\nwant\n%q", done, failed)
			}
			// The completion runs once more (a crash after the manifest): no second entry.
			if err := e.w.Handler().ProcessTask(ctx, complete); err != nil {
				t.Fatalf("completion run again: %v", err)
			}
			if again := e.gangPending("GC-1"); strings.Join(again, "\n") != strings.Join(done, "\n") {
				t.Errorf("a completion run again changed the pending designs:\n%q\nwant\n%q", again, done)
			}
		})
	}
}
