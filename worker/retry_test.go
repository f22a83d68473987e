package worker_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/worker"
)

// productionRetries keeps the export task's production retry budget (the harness
// raises MaxRetry for its own fault tests) and makes the in-attempt retries quick.
func productionRetries(c *worker.Config, _ *worker.Deps) {
	c.Jobs.Export.MaxRetry = jobs.DefaultOptions().Export.MaxRetry
	c.HubRetry = worker.HubRetry{Base: 10 * time.Millisecond, Max: 50 * time.Millisecond}
}

// picturesPerDesign is the number of distinct pictures on every view of the designs
// addManyViewDesigns makes.
const picturesPerDesign = 6

// addManyViewDesigns adds designs 2001..2000+n to the simulator, design 2000+v with v
// views, each view carrying the same picturesPerDesign distinct pictures (vector PDF
// views: rendering them is quick), with stored exports for download mode. They are
// written as a fixture folder and loaded, as any fixture is.
func (e *env) addManyViewDesigns(n int) []int64 {
	e.t.Helper()
	base, ok := e.sim.Design(1001)
	if !ok {
		e.t.Fatal("fixture design 1001 missing")
	}
	front := base.Views[0]
	var photo model.Element
	for _, el := range front.Elements {
		if el.Type == model.ElementPicture {
			photo = el
		}
	}
	if photo.Value == nil {
		e.t.Fatal("fixture design 1001 has no picture")
	}
	src := "../hubsim/testdata/designs/"
	jpeg, err := os.ReadFile(src + "media/6561f0a0c0ffee000000b001.jpg")
	if err != nil {
		e.t.Fatal(err)
	}
	tmpl, err := os.ReadFile(src + "media/6561f0a0c0ffee000000a001.png")
	if err != nil {
		e.t.Fatal(err)
	}
	pdf, err := os.ReadFile(src + "exports/1001/front.pdf")
	if err != nil {
		e.t.Fatal(err)
	}
	dir := e.t.TempDir()
	write := func(name string, b []byte) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			e.t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			e.t.Fatal(err)
		}
	}
	write("media/6561f0a0c0ffee000000a001.png", tmpl)
	var ids []int64
	for v := 1; v <= n; v++ {
		id := int64(2000 + v)
		d := base
		d.ID = fmt.Sprintf("6561f1b2c3d4e5f60100%04d", id)
		d.ConfigurationID = id
		d.Token = fmt.Sprintf("00000000-0000-4000-8000-00000000%04d", id)
		d.Name = fmt.Sprintf("Many Views %d", v)
		// The pictures are the design's own: every media path is new to the hub's
		// fault counter.
		var pics []model.Element
		for p := range picturesPerDesign {
			pic := photo
			pic.ID = "photo-" + strconv.Itoa(p)
			mid := fmt.Sprintf("6561f0a0c0ffee00%04d%04d", id, p)
			val := model.MediaValue(model.Media{ID: mid, OriginalName: "photo.jpg", MimeType: "image/jpeg",
				Token: fmt.Sprintf("1a2b3c4d-5e6f-4a7b-8c9d-%04d%08d", id, p), Size: int64(len(jpeg)),
				Meta: model.MediaMeta{Width: 320, Height: 240}})
			pic.Value = &val
			pic.Weight = p + 1
			pics = append(pics, pic)
			write("media/"+mid+".jpg", jpeg)
		}
		d.Views = nil
		for i := range v {
			view := front
			view.ID = "v" + strconv.Itoa(i+1)
			view.Weight = i
			view.Active = i == 0 // one active view per design
			view.Name = model.NewTranslations("en", "View "+strconv.Itoa(i+1))
			view.Elements = pics
			d.Views = append(d.Views, view)
			write(fmt.Sprintf("exports/%d/%s.pdf", id, view.ID), pdf)
		}
		b, err := json.Marshal(d)
		if err != nil {
			e.t.Fatal(err)
		}
		write(strconv.FormatInt(id, 10)+".json", b)
		ids = append(ids, id)
	}
	if _, err := e.sim.LoadDesigns(dir); err != nil {
		e.t.Fatal(err)
	}
	for _, r := range e.sim.Designs() {
		e.refs[r.ID] = r
	}
	return ids
}

// TestFlakyHubEveryPathCompletes: a hub that fails the first 3 requests of every
// path (design details, each view's export, each picture) still gets designs of 1 to
// 6 views with 6 pictures each through, in both modes, on the production retry
// budget, each design in its first attempt; and no finished view is fetched twice.
// Before in-attempt retries every failed call cost an attempt: a 3-view design in
// download mode needed 12 and was archived after 9.
func TestFlakyHubEveryPathCompletes(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{worker.ModeDownload, worker.ModeRender} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, withMode(mode), productionRetries)
			ids := e.addManyViewDesigns(6)
			if err := e.sim.SetFaults(hubsim.Faults{FailFirst: 3}); err != nil {
				t.Fatal(err)
			}
			e.start()
			o := e.order("FF-1", ids...)
			if _, err := e.enq.ExportOrder(context.Background(), store, o); err != nil {
				t.Fatal(err)
			}
			m := e.manifest("FF-1", 1)
			e.waitQueuesIdle()
			if want := 1 + 2 + 3 + 4 + 5 + 6; len(m.Files) != want {
				t.Fatalf("%d files, want %d: %s", len(m.Files), want, e.queueReport())
			}
			for _, f := range m.Files {
				e.checkFile(f)
				if f.Mode != mode {
					t.Errorf("%s: mode %s, want %s", f.Key, f.Mode, mode)
				}
			}
			if a, _ := e.insp.ListArchivedTasks(jobs.QueueExports); len(a) > 0 {
				t.Fatalf("archived: %s", e.queueReport())
			}
			// Every path failed 3 times and then answered once: the retries happened
			// inside the attempt, and nothing finished was fetched again.
			ok := map[string]int{}
			failed := 0
			for _, r := range e.sim.Requests() {
				switch {
				case r.Fault == "fail-first":
					failed++
				case r.Status == 200:
					ok[r.Path]++
				}
			}
			if failed == 0 {
				t.Fatal("the simulator failed no request")
			}
			for p, n := range ok {
				if n > 1 && (strings.Contains(p, "/designs/") || mode == worker.ModeDownload) {
					t.Errorf("%s answered %d times: fetched again after it succeeded", p, n)
				}
			}
			for _, id := range ids {
				sid := strconv.FormatInt(id, 10)
				if n := designFetches(e, sid); n != 3+1 {
					t.Errorf("design %d: %d requests for its details, want 3 failed and 1 answered", id, n)
				}
				want := 0
				if mode == worker.ModeDownload {
					want = (3 + 1) * len(viewsOf(e, id))
				}
				if n := e.hubRequests("GET", "/2023-10/export/"+sid+"/"); n != want {
					t.Errorf("design %d: %d view export requests, want %d", id, n, want)
				}
			}
			if n := e.counter("printworker_tasks_total", map[string]string{"type": jobs.TypeDesignExport, "outcome": worker.OutcomeRetry}); n != 0 {
				t.Errorf("%v export attempts failed: the in-attempt retries should absorb the fault", n)
			}
			if n := e.counter("printworker_hub_retries_total", nil); n == 0 {
				t.Error("no in-attempt retry counted")
			}
		})
	}
}

func viewsOf(e *env, id int64) []model.View {
	d, _ := e.sim.Design(id)
	return d.Views
}

// TestDroppedConnectionsStayWithinRate: a hub that drops half its connections sees
// no more calls than the fleet-wide rate allows, in any stretch of time, and the
// worker's call metrics count exactly what the hub saw. Before, net/http re-sent a
// dropped GET on a reused connection by itself, past the limiter and the metrics.
//
// Not parallel: the check compares the hub's arrival times with the limiter's Redis
// clock, and the other tests' load would only add jitter between the two.
func TestDroppedConnectionsStayWithinRate(t *testing.T) {
	const perMinute, burst = 600.0, 5
	e := newEnv(t, func(c *worker.Config, _ *worker.Deps) {
		c.RateLimit = worker.RateLimit{PerMinute: perMinute, Burst: burst}
		c.HubRetry = worker.HubRetry{Base: 10 * time.Millisecond, Max: 50 * time.Millisecond}
	})
	if err := e.sim.SetFaults(hubsim.Faults{DropRate: 0.5, Seed: 7}); err != nil {
		t.Fatal(err)
	}
	e.start()
	ctx := context.Background()
	const orders = 12
	for i := range orders {
		if _, err := e.enq.ExportOrder(ctx, store, e.order(fmt.Sprintf("DR-%d", i), 1002)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range orders {
		e.manifest(fmt.Sprintf("DR-%d", i), 1)
	}
	e.waitQueuesIdle()

	var at []time.Time
	drops := 0
	for _, r := range e.sim.Requests() {
		if r.Store != store {
			continue
		}
		at = append(at, r.Time)
		if r.Fault == "drop" {
			drops++
		}
	}
	if drops == 0 {
		t.Fatal("no connection was dropped")
	}
	// The worst stretch: most calls over what the bucket allows in it. Arrival times
	// jitter against the Redis clock the limiter uses (more so on a loaded machine),
	// hence a slack of 4; the transport's own re-sends put 20 over.
	slices.SortFunc(at, func(a, b time.Time) int { return a.Compare(b) })
	worst := 0.0
	for i := range at {
		for j := i; j < len(at); j++ {
			allowed := burst + perMinute/60*at[j].Sub(at[i]).Seconds()
			worst = max(worst, float64(j-i+1)-allowed)
		}
	}
	t.Logf("%d hub calls, %d dropped, worst stretch %.1f calls over the limit", len(at), drops, worst)
	if worst > 4 {
		t.Errorf("the hub saw %.1f calls more than the rate limit allows in one stretch", worst)
	}
	counted := e.counter("printworker_hub_calls_total", map[string]string{"op": hub.OpGetDesign}) +
		e.counter("printworker_hub_calls_total", map[string]string{"op": hub.OpExportView})
	if int(counted) != len(at) {
		t.Errorf("metrics count %v hub calls, the hub saw %d", counted, len(at))
	}
}

// TestRateLimitNeverArchives: a 429 that comes after the export's retry window has
// passed (what a count would call the last attempt) is waited out, not archived,
// while a 5xx at that point archives (TestOperatorRetryRestoresWindow).
//
// Not parallel: the case needs a 429 to come more than the 1 s window after the first
// failure while the simulator lets 2 calls through per 3 s; with the other tests
// loading the machine (under -race) the attempts can miss that pattern.
func TestRateLimitNeverArchives(t *testing.T) {
	const window = time.Second
	e := newEnv(t, productionRetries, func(c *worker.Config, _ *worker.Deps) {
		c.RetryWindows = map[string]time.Duration{jobs.TypeDesignExport: window}
		// Every 429 goes back to the queue, and a 5xx ends the attempt.
		c.HubRetry = worker.HubRetry{Tries: 1, MaxWait: time.Nanosecond}
	})
	// The first call fails (the window starts), then 2 calls per 3 s get through:
	// the design and one view per attempt, and the other view meets a 429 long after
	// the window has passed.
	if err := e.sim.SetFaults(hubsim.Faults{ErrorRate: 1, ErrorCount: 1, RateLimit: 2, RatePeriod: 3 * time.Second}); err != nil {
		t.Fatal(err)
	}
	e.start()
	if _, err := e.enq.ExportOrder(context.Background(), store, e.order("RL-1", 1002)); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("RL-1", 1)
	e.waitQueuesIdle()
	if len(m.Files) != 2 {
		t.Errorf("%d files, want 2", len(m.Files))
	}
	if a, _ := e.insp.ListArchivedTasks(jobs.QueueExports); len(a) > 0 {
		t.Fatalf("archived: %s", e.queueReport())
	}
	var firstFailure time.Time
	late := 0
	for _, r := range e.sim.Requests() {
		switch {
		case r.Fault == "error" && firstFailure.IsZero():
			firstFailure = r.Time
		case r.Status == 429 && !firstFailure.IsZero() && r.Time.Sub(firstFailure) > window:
			late++
		}
	}
	if late == 0 {
		t.Fatalf("no 429 came after the retry window: the case was not exercised (%s)", e.queueReport())
	}
	if n := e.counter("printworker_tasks_total", map[string]string{"type": jobs.TypeDesignExport, "outcome": worker.OutcomeRateLimited}); n < 2 {
		t.Errorf("%v rate-limited attempts, want at least 2", n)
	}
}

// TestOperatorRetryRestoresWindow: an export failing on every call is archived once
// its retry window has passed; an operator's retry (queues retry) gets a whole window
// again, not the single attempt asynq's kept count left; once the hub is back, a
// retry completes the order.
func TestOperatorRetryRestoresWindow(t *testing.T) {
	t.Parallel()
	// Retries come due within the harness's poll interval after a backoff of at most
	// 200ms: the window holds a few attempts.
	const window = 3 * time.Second
	e := newEnv(t, productionRetries, func(c *worker.Config, _ *worker.Deps) {
		c.RetryWindows = map[string]time.Duration{jobs.TypeDesignExport: window}
		c.HubRetry = worker.HubRetry{Tries: 1} // one request an attempt: requests count attempts
		c.Backoff = worker.Backoff{Base: 50 * time.Millisecond, Max: 200 * time.Millisecond}
	})
	if err := e.sim.SetFaults(hubsim.Faults{ErrorRate: 1}); err != nil {
		t.Fatal(err)
	}
	e.start()
	if _, err := e.enq.ExportOrder(context.Background(), store, e.order("OR-1", 1003)); err != nil {
		t.Fatal(err)
	}
	round := func(name string) (attempts int, took time.Duration) {
		t.Helper()
		start := time.Now()
		deadline := start.Add(waitBound)
		for {
			a, _ := e.insp.ListArchivedTasks(jobs.QueueExports)
			if len(a) == 1 {
				if !strings.Contains(a[0].LastErr, "retry window") {
					t.Errorf("%s: archived with %q, which does not name the retry window", name, a[0].LastErr)
				}
				return designFetches(e, "1003"), time.Since(start)
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: not archived: %s", name, e.queueReport())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	first, _ := round("first run")
	if first < 2 {
		t.Errorf("first run: %d attempts in a %s window", first, window)
	}
	e.sim.ResetRequests()
	if _, err := e.insp.RunAllArchivedTasks(jobs.QueueExports); err != nil {
		t.Fatal(err)
	}
	again, took := round("operator retry")
	t.Logf("attempts: %d in the first window, %d after the operator's retry (%s)", first, again, took.Round(time.Millisecond))
	if again < 2 || took < window {
		t.Errorf("operator retry: %d attempts over %s, want a whole %s window again", again, took, window)
	}
	if err := e.sim.SetFaults(hubsim.Faults{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.insp.RunAllArchivedTasks(jobs.QueueExports); err != nil {
		t.Fatal(err)
	}
	if m := e.manifest("OR-1", 1); len(m.Files) != 1 {
		t.Errorf("%d files after the hub came back, want 1", len(m.Files))
	}
}

// TestManifestNotBehindOtherOrders: an order's manifest is written when its own last
// export is done, while a backlog of other orders' exports still waits; it used to
// queue behind all of them in the exports queue.
func TestManifestNotBehindOtherOrders(t *testing.T) {
	t.Parallel()
	e := newEnv(t, func(c *worker.Config, _ *worker.Deps) { c.Concurrency = 1 })
	if err := e.sim.SetFaults(hubsim.Faults{Latency: 20 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := e.enq.ExportOrder(ctx, store, e.order("MA-1", 1003)); err != nil {
		t.Fatal(err)
	}
	const backlog = 30
	for i := range backlog {
		if _, err := e.enq.ExportOrder(ctx, store, e.order(fmt.Sprintf("MB-%d", i), 1002)); err != nil {
			t.Fatal(err)
		}
	}
	e.start()
	e.manifest("MA-1", 1)
	// Exports done by then: MA-1's own and those of the backlog.
	done := int(e.counter("printworker_tasks_total", map[string]string{"type": jobs.TypeDesignExport}))
	t.Logf("exports done when order MA-1's manifest was written: %d of %d", done, backlog+1)
	if done > backlog/2 {
		t.Errorf("%d of %d exports were done first: the manifest waited behind the other orders' backlog", done, backlog+1)
	}
	for i := range backlog {
		e.manifest(fmt.Sprintf("MB-%d", i), 1)
	}
}

// TestRandom5xxNothingArchived: with 30% of hub calls answered 503 at random, every
// export completes on the production retry budget. With one try a call and 8 retries
// (the old model) a few in a hundred were archived.
func TestRandom5xxNothingArchived(t *testing.T) {
	t.Parallel()
	e := newEnv(t, productionRetries)
	if err := e.sim.SetFaults(hubsim.Faults{ErrorRate: 0.3, Seed: 11}); err != nil {
		t.Fatal(err)
	}
	e.start()
	ctx := context.Background()
	const orders = 40
	designs := [][]int64{{1001}, {1002}, {1003}, {1001, 1002}}
	for i := range orders {
		if _, err := e.enq.ExportOrder(ctx, store, e.order(fmt.Sprintf("R5-%d", i), designs[i%len(designs)]...)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range orders {
		e.manifest(fmt.Sprintf("R5-%d", i), 1)
	}
	e.waitQueuesIdle()
	if a, _ := e.insp.ListArchivedTasks(jobs.QueueExports); len(a) > 0 {
		t.Fatalf("%d exports archived: %s", len(a), e.queueReport())
	}
	faults := 0
	for _, r := range e.sim.Requests() {
		if r.Fault == "error" {
			faults++
		}
	}
	t.Logf("%d hub requests, %d answered 503; %v retried inside the attempt, %v attempts failed",
		len(e.sim.Requests()), faults, e.counter("printworker_hub_retries_total", nil),
		e.counter("printworker_tasks_total", map[string]string{"outcome": worker.OutcomeRetry}))
	if faults == 0 {
		t.Fatal("no 503 injected")
	}
}
