package worker_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/events"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/worker"
)

// missingFontDesign adds to the simulator a copy of design 1003 (a card) whose text
// names a font family no machine has, as design id, and returns its reference.
func (e *env) missingFontDesign(id int64) model.DesignRef {
	e.t.Helper()
	b, err := os.ReadFile("../hubsim/testdata/designs/1003.json")
	if err != nil {
		e.t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(`"DejaVu Serif"`), []byte(`"Imaginary Serif"`))
	var d model.DesignDetail
	if err := json.Unmarshal(b, &d); err != nil {
		e.t.Fatal(err)
	}
	d.ConfigurationID = id
	if err := e.sim.AddDesign(d); err != nil {
		e.t.Fatal(err)
	}
	ref := model.DesignRef{ID: id, Token: d.Token}
	e.refs[id] = ref
	return ref
}

// reviewEnv is a worker that renders, holds on the default findings, routes the
// card (card-a6) into a machine folder and sends events to one receiver.
func reviewEnv(t *testing.T) (*env, *receiver) {
	t.Helper()
	secret := "whsec_" + base64.StdEncoding.EncodeToString([]byte("review-receiver-key-012345678"))
	rcv := newReceiver(t, secret, func(int) int { return http.StatusNoContent })
	e := newEnv(t, withMode(worker.ModeRender), func(c *worker.Config, _ *worker.Deps) {
		c.Review = worker.ReviewPolicy{Hold: profiles.DefaultReview}
		c.Routing = mustRules(t, `{"rules": [{"match": {"product": "card-a6"}, "prefix": "press", "ready": true}]}`)
		c.Events = events.Config{Stores: map[string][]events.Endpoint{store: {{URL: rcv.srv.URL + "/hooks", Secret: secret}}}}
	})
	e.missingFontDesign(1903)
	e.start()
	return e, rcv
}

// keysUnder lists the stored keys starting with prefix.
func (e *env) keysUnder(prefix string) []string {
	e.t.Helper()
	infos, err := e.store.List(context.Background(), prefix)
	if err != nil {
		e.t.Fatal(err)
	}
	var out []string
	for _, in := range infos {
		out = append(out, in.Key)
	}
	return out
}

// waitEventsSettled is waitEventsIdle where no event may have been enqueued yet
// (the queue does not exist then).
func (e *env) waitEventsSettled() {
	e.t.Helper()
	waitFor(e.t, "events queue idle", func() bool {
		qs, err := e.insp.Queues()
		if err == nil && !slices.Contains(qs, jobs.QueueEvents) {
			return true
		}
		info, err := e.insp.GetQueueInfo(jobs.QueueEvents)
		return err == nil && info.Pending+info.Active+info.Scheduled+info.Retry == 0
	}, e.queueReport)
}

// held waits until the order's review manifest is written and the queues are idle.
func (e *env) held(orderID string) worker.Manifest {
	e.t.Helper()
	key := worker.ReviewPrefix + orderDir(orderID) + "/manifest.json"
	waitFor(e.t, "review manifest "+key, func() bool { _, err := e.readManifest(key); return err == nil }, e.queueReport)
	e.waitQueuesIdle()
	e.waitEventsSettled()
	m, err := e.readManifest(key)
	if err != nil {
		e.t.Fatal(err)
	}
	return m
}

// TestReviewHoldRelease: an order whose design names a missing font ends under
// review/ with no files-ready event and no machine folder copy; a release puts the
// very files at their keys without reading the design again, copies the routed one
// into its machine folder, writes the manifest and sends files-ready once.
func TestReviewHoldRelease(t *testing.T) {
	t.Parallel()
	e, rcv := reviewEnv(t)
	ctx := context.Background()
	if _, err := e.enq.ExportOrder(ctx, store, e.order("RV-1", 1903, 1002)); err != nil {
		t.Fatal(err)
	}
	hm := e.held("RV-1")
	if hm.Review == nil || hm.Review.Status != worker.ReviewHeld || hm.Review.Date != "2024-06-01" || len(hm.Review.Findings) == 0 {
		t.Fatalf("review record %+v", hm.Review)
	}
	for _, f := range hm.Review.Findings {
		if f.Code != "missing-font" || !strings.HasPrefix(f.Key, orderDir("RV-1")+"/") {
			t.Errorf("finding %+v: want missing-font of a file's final key", f)
		}
	}
	if got := e.keysUnder(orderDir("RV-1") + "/"); len(got) != 0 {
		t.Errorf("a held order's folder holds %q, want nothing", got)
	}
	if got := e.keysUnder("press/"); len(got) != 0 {
		t.Errorf("machine folder holds %q before the release", got)
	}
	if n := len(rcv.ofType(jobs.EventFilesReady)); n != 0 {
		t.Errorf("%d files-ready events for a held order", n)
	}
	routed := 0
	for _, f := range hm.Files {
		if !strings.HasPrefix(f.Key, worker.ReviewPrefix) || sha(e.object(f.Key)) != f.SHA256 {
			t.Errorf("held file %s: not under review/ or not its bytes", f.Key)
		}
		if f.Machine != nil {
			t.Errorf("held file %s has a machine copy %+v", f.Key, f.Machine)
		}
		if f.MachinePlan != nil {
			routed++
		}
	}
	if routed == 0 {
		t.Fatalf("no held file plans a machine copy: %+v", hm.Files)
	}
	page := string(e.object(hm.StaffPage))
	for _, want := range []string{"held for review", "missing-font", "printworker review release --store " + store + " --domain " + domain + " --order RV-1 --date 2024-06-01"} {
		if !strings.Contains(page, want) {
			t.Errorf("staff page of the held order lacks %q", want)
		}
	}

	designReads := e.hubRequests("GET", "/2023-10/designs/")
	k := jobs.OrderKey{Store: store, Domain: domain, OrderID: "RV-1"}
	p := jobs.Review{OrderKey: k, Date: "2024-06-01", Rev: hm.Revision, Action: jobs.ReviewRelease}
	if q, err := e.enq.Review(ctx, p); err != nil || q.Duplicate {
		t.Fatalf("release: %+v, %v", q, err)
	}
	// A second operator's release of the same revision is the same task.
	if q, err := e.enq.Review(ctx, p); err != nil || !q.Duplicate {
		t.Fatalf("second release: %+v, %v (want a duplicate)", q, err)
	}
	m := e.manifest("RV-1", hm.Revision)
	e.waitQueuesIdle()
	e.waitEventsSettled()
	if m.Review == nil || m.Review.Status != worker.ReviewReleased || m.Review.ReleasedAt == "" {
		t.Errorf("final manifest's review %+v", m.Review)
	}
	if len(m.Files) != len(hm.Files) {
		t.Fatalf("final manifest has %d files, held %d", len(m.Files), len(hm.Files))
	}
	for i, f := range m.Files {
		h := hm.Files[i]
		if f.Key != strings.TrimPrefix(h.Key, worker.ReviewPrefix) || f.SHA256 != h.SHA256 || sha(e.object(f.Key)) != h.SHA256 {
			t.Errorf("released %s: not the held file %s byte for byte", f.Key, h.Key)
		}
		if h.MachinePlan == nil {
			continue
		}
		if f.Machine == nil || f.Machine.Key != h.MachinePlan.Key || sha(e.object(f.Machine.Key)) != h.SHA256 || f.Machine.Ready == "" {
			t.Errorf("released %s: machine copy %+v, planned %+v", f.Key, f.Machine, h.MachinePlan)
		}
	}
	if got := e.keysUnder(worker.ReviewPrefix); len(got) != 0 {
		t.Errorf("after the release review/ holds %q", got)
	}
	if got := e.hubRequests("GET", "/2023-10/designs/"); got != designReads {
		t.Errorf("the release read designs from the hub (%d reads, %d before): it should move the stored files", got, designReads)
	}
	ready := rcv.ofType(jobs.EventFilesReady)
	if len(ready) != 1 {
		t.Fatalf("%d files-ready events after the release, want 1", len(ready))
	}
	if day := string(e.object(store + "/2024-06-01/index.html")); !strings.Contains(day, "RV-1") {
		t.Error("the day page does not list the released order")
	}

	// An update of the released order (same files) is not held again, and its
	// machine copies are not made again.
	before := map[string]time.Time{}
	infos, _ := e.store.List(ctx, "press/")
	for _, in := range infos {
		before[in.Key] = in.ModTime
	}
	o := e.order("RV-1", 1903, 1002)
	o.Status, o.Updated = "paid shipped", "2024-06-02T09:30:00.000Z"
	res, err := e.enq.ExportOrder(ctx, store, o)
	if err != nil || !res.Changed {
		t.Fatalf("update: %+v, %v", res, err)
	}
	m2 := e.manifest("RV-1", res.Rev)
	e.waitQueuesIdle()
	if m2.OrderStatus != "paid shipped" || m2.Review == nil || m2.Review.Status != worker.ReviewReleased {
		t.Errorf("updated order: status %q, review %+v", m2.OrderStatus, m2.Review)
	}
	infos, _ = e.store.List(ctx, "press/")
	for _, in := range infos {
		if !before[in.Key].Equal(in.ModTime) {
			t.Errorf("machine copy %s written again by an update", in.Key)
		}
	}
}

// TestReviewReject: a rejected order keeps its files under review/, marked
// rejected, gets no manifest, event or machine copy; the revision's second action
// is refused at enqueue, and a direct release fails for good.
func TestReviewReject(t *testing.T) {
	t.Parallel()
	e, rcv := reviewEnv(t)
	ctx := context.Background()
	if _, err := e.enq.ExportOrder(ctx, store, e.order("RV-2", 1903)); err != nil {
		t.Fatal(err)
	}
	hm := e.held("RV-2")
	k := jobs.OrderKey{Store: store, Domain: domain, OrderID: "RV-2"}
	p := jobs.Review{OrderKey: k, Date: "2024-06-01", Rev: hm.Revision, Action: jobs.ReviewReject, Reason: "font to be installed"}
	if q, err := e.enq.Review(ctx, p); err != nil || q.Duplicate {
		t.Fatalf("reject: %+v, %v", q, err)
	}
	e.waitQueuesIdle()
	rkey := worker.ReviewPrefix + orderDir("RV-2") + "/manifest.json"
	rm, err := e.readManifest(rkey)
	if err != nil {
		t.Fatal(err)
	}
	if rm.Review == nil || rm.Review.Status != worker.ReviewRejected || rm.Review.Reason != "font to be installed" || rm.Review.RejectedAt == "" {
		t.Errorf("rejected review %+v", rm.Review)
	}
	for _, f := range rm.Files {
		if sha(e.object(f.Key)) != f.SHA256 {
			t.Errorf("rejected order's file %s is gone or changed", f.Key)
		}
	}
	if page := string(e.object(rm.StaffPage)); !strings.Contains(page, "rejected") || !strings.Contains(page, "font to be installed") {
		t.Error("staff page of the rejected order does not say so")
	}
	p.Action = jobs.ReviewRelease
	if q, err := e.enq.Review(ctx, p); err != nil || !q.Duplicate {
		t.Errorf("release after reject: %+v, %v (want refused as a duplicate)", q, err)
	}
	task, err := jobs.NewReviewTask(p)
	if err != nil {
		t.Fatal(err)
	}
	err = e.w.Handler().ProcessTask(ctx, task)
	var cls interface{ Retryable() bool }
	if !errors.As(err, &cls) || cls.Retryable() || !strings.Contains(err.Error(), "rejected") {
		t.Errorf("release of a rejected order: %v, want a permanent error naming the rejection", err)
	}
	if _, err := e.readManifest(orderDir("RV-2") + "/manifest.json"); err == nil {
		t.Error("a rejected order has a manifest")
	}
	e.waitEventsSettled()
	if got := e.keysUnder(orderDir("RV-2") + "/"); len(got) != 0 || len(rcv.ofType(jobs.EventFilesReady)) != 0 {
		t.Errorf("rejected order: folder %q, %d files-ready events", got, len(rcv.ofType(jobs.EventFilesReady)))
	}
}

// TestReviewReexportHeldAgain: a re-export of a held order that still fails is held
// again as the new revision; a release of the old revision is refused for good, the
// new one's goes through.
func TestReviewReexportHeldAgain(t *testing.T) {
	t.Parallel()
	e, rcv := reviewEnv(t)
	ctx := context.Background()
	if _, err := e.enq.ExportOrder(ctx, store, e.order("RV-3", 1903)); err != nil {
		t.Fatal(err)
	}
	first := e.held("RV-3")
	k := jobs.OrderKey{Store: store, Domain: domain, OrderID: "RV-3"}
	res, err := e.enq.ReExport(ctx, k)
	if err != nil || res.Rev <= first.Revision {
		t.Fatalf("re-export: %+v, %v", res, err)
	}
	rkey := worker.ReviewPrefix + orderDir("RV-3") + "/manifest.json"
	waitFor(t, "the re-export held", func() bool { m, err := e.readManifest(rkey); return err == nil && m.Revision == res.Rev }, e.queueReport)
	e.waitQueuesIdle()
	again, err := e.readManifest(rkey)
	if err != nil {
		t.Fatal(err)
	}
	if again.Review == nil || again.Review.Status != worker.ReviewHeld || len(again.Review.Findings) == 0 {
		t.Fatalf("re-exported order's review %+v", again.Review)
	}
	old, err := jobs.NewReviewTask(jobs.Review{OrderKey: k, Date: "2024-06-01", Rev: first.Revision, Action: jobs.ReviewRelease})
	if err != nil {
		t.Fatal(err)
	}
	err = e.w.Handler().ProcessTask(ctx, old)
	var cls interface{ Retryable() bool }
	if !errors.As(err, &cls) || cls.Retryable() {
		t.Errorf("release of the superseded held revision: %v, want a permanent error", err)
	}
	if _, err := e.readManifest(orderDir("RV-3") + "/manifest.json"); err == nil {
		t.Fatal("the old revision's release wrote a manifest")
	}
	if _, err := e.enq.Review(ctx, jobs.Review{OrderKey: k, Date: "2024-06-01", Rev: again.Revision, Action: jobs.ReviewRelease}); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("RV-3", again.Revision)
	e.waitQueuesIdle()
	e.waitEventsSettled()
	for i, f := range m.Files {
		if sha(e.object(f.Key)) != again.Files[i].SHA256 {
			t.Errorf("%s is not the re-export's held file", f.Key)
		}
	}
	if n := len(rcv.ofType(jobs.EventFilesReady)); n != 1 {
		t.Errorf("%d files-ready events, want 1 (the released revision's)", n)
	}
}

// TestReviewReexportFixed: once the design is fixed, a re-export of a held order
// completes as usual and marks the earlier hold superseded.
func TestReviewReexportFixed(t *testing.T) {
	t.Parallel()
	e, rcv := reviewEnv(t)
	ctx := context.Background()
	if _, err := e.enq.ExportOrder(ctx, store, e.order("RV-4", 1903)); err != nil {
		t.Fatal(err)
	}
	held := e.held("RV-4")
	fixed, ok := e.sim.Design(1003)
	if !ok {
		t.Fatal("no design 1003")
	}
	fixed.ConfigurationID, fixed.Token = 1903, e.refs[1903].Token
	if err := e.sim.AddDesign(fixed); err != nil {
		t.Fatal(err)
	}
	res, err := e.enq.ReExport(ctx, jobs.OrderKey{Store: store, Domain: domain, OrderID: "RV-4"})
	if err != nil {
		t.Fatal(err)
	}
	m := e.manifest("RV-4", res.Rev)
	e.waitQueuesIdle()
	e.waitEventsSettled()
	if m.Review != nil || len(m.Files) == 0 {
		t.Errorf("fixed order: review %+v, %d files", m.Review, len(m.Files))
	}
	rm, err := e.readManifest(worker.ReviewPrefix + orderDir("RV-4") + "/manifest.json")
	if err != nil || rm.Review == nil || rm.Review.Status != worker.ReviewSuperseded || rm.Revision != held.Revision {
		t.Errorf("earlier hold: %+v, %v (want superseded)", rm.Review, err)
	}
	if n := len(rcv.ofType(jobs.EventFilesReady)); n != 1 {
		t.Errorf("%d files-ready events, want 1", n)
	}
}
