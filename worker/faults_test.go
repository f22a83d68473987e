package worker_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/internal/tests3"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/worker"
)

// runOrders pushes and exports n orders and checks each ends complete and valid.
func (e *env) runOrders(prefix string, n int) {
	e.t.Helper()
	ctx := context.Background()
	designs := [][]int64{{1001}, {1002, 1003}, {1003}, {1002}}
	for i := range n {
		o := e.order(fmt.Sprintf("%s-%d", prefix, i), designs[i%len(designs)]...)
		if _, err := e.enq.PushOrder(ctx, store, jobs.OpCreate, o); err != nil {
			e.t.Fatal(err)
		}
		if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
			e.t.Fatal(err)
		}
	}
	for i := range n {
		id := fmt.Sprintf("%s-%d", prefix, i)
		m := e.manifest(id, 1)
		if len(m.Files) == 0 {
			e.t.Errorf("order %s: manifest lists no files", id)
		}
		for _, f := range m.Files {
			e.checkFile(f)
		}
	}
	e.waitQueuesIdle()
	for i := range n {
		id := fmt.Sprintf("%s-%d", prefix, i)
		if _, ok := e.sim.Order(store, id, domain); !ok {
			e.t.Errorf("order %s not on the hub", id)
		}
	}
}

// counter reads printworker_tasks_total for a type and outcome.
func (e *env) counter(name string, labels map[string]string) float64 {
	e.t.Helper()
	mfs, err := e.reg.Gather()
	if err != nil {
		e.t.Fatal(err)
	}
	sum := 0.0
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			if matches(m, labels) {
				sum += m.GetCounter().GetValue()
			}
		}
	}
	return sum
}

func matches(m *dto.Metric, labels map[string]string) bool {
	for k, v := range labels {
		found := false
		for _, lp := range m.GetLabel() {
			if lp.GetName() == k && lp.GetValue() == v {
				found = true
			}
		}
		if !found {
			return false
		}
	}
	return true
}

func TestHubFaultsRecover(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		faults hubsim.Faults
		// maxRetry of exports and pushes: 1 in the 429 case proves a 429 does not use
		// up a retry.
		maxRetry int
		outcome  string
		// retryClass is the status class an in-attempt retry of the fault records.
		retryClass string
		// orders run through the faulty hub. The 429 case is bounded by the
		// simulator's 4 calls a second, so it runs fewer to stay quick on a busy machine.
		orders int
	}{
		{"5xx", hubsim.Faults{ErrorRate: 0.4, ErrorCount: 12, Seed: 1}, 25, worker.OutcomeRetry, "5xx", 6},
		{"429", hubsim.Faults{RateLimit: 4, RatePeriod: time.Second}, 1, worker.OutcomeRateLimited, "429", 3},
		{"dropped connections", hubsim.Faults{DropRate: 0.3, DropCount: 8, DropAfterHandling: true, Seed: 2}, 25, worker.OutcomeRetry, "network", 6},
		{"truncated bodies", hubsim.Faults{TruncateRate: 0.3, TruncateCount: 6, Seed: 3}, 25, worker.OutcomeRetry, "2xx", 6},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, func(cfg *worker.Config, _ *worker.Deps) {
				cfg.Jobs.Export.MaxRetry, cfg.Jobs.Push.MaxRetry, cfg.Jobs.Complete.MaxRetry = c.maxRetry, c.maxRetry, c.maxRetry
			})
			if err := e.sim.SetFaults(c.faults); err != nil {
				t.Fatal(err)
			}
			e.start()
			e.runOrders("F", c.orders)
			// A fault is recovered from either by the task (a retry outcome) or, for
			// idempotent hub reads, inside the attempt (hub_retries_total with the
			// fault's status class); either way it must have been met.
			tasks := e.counter("printworker_tasks_total", map[string]string{"outcome": c.outcome})
			inAttempt := e.counter("printworker_hub_retries_total", map[string]string{"class": c.retryClass})
			if tasks == 0 && inAttempt == 0 {
				t.Errorf("no task saw outcome %s and no hub read was retried after %s: the fault was not exercised", c.outcome, c.retryClass)
			}
			faulted := 0
			for _, r := range e.sim.Requests() {
				if r.Fault != "" {
					faulted++
				}
			}
			if faulted == 0 {
				t.Error("the simulator injected no fault")
			}
		})
	}
}

// TestStorageOutageRecovers: exports fail while the store is unavailable and
// complete once it is back. In render mode the failure also exercises the pipe
// between the encoder and the upload: the renderer must be released when the upload
// stops reading.
func TestStorageOutageRecovers(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{worker.ModeDownload, worker.ModeRender} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, withMode(mode))
			e.s3.SetFault(tests3.FaultUnavailable)
			e.start()
			ctx := context.Background()
			o := e.order("S-1", 1002)
			if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
				t.Fatal(err)
			}
			// Wait until the export has failed against the unavailable store.
			deadline := time.Now().Add(60 * time.Second)
			for e.counter("printworker_tasks_total", map[string]string{"type": jobs.TypeDesignExport, "outcome": worker.OutcomeRetry}) == 0 {
				if time.Now().After(deadline) {
					t.Fatalf("export never failed against the unavailable store: %s", e.queueReport())
				}
				time.Sleep(20 * time.Millisecond)
			}
			e.s3.SetFault(tests3.FaultNone)
			m := e.manifest("S-1", 1)
			for _, f := range m.Files {
				e.checkFile(f)
				if f.Mode != mode {
					t.Errorf("%s: mode %s", f.Key, f.Mode)
				}
			}
			if mode == worker.ModeDownload {
				e.runOrders("S-after", 3)
			}
		})
	}
}

func TestPermanentErrorArchivesOnlyItsTask(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start()
	ctx := context.Background()
	// Design 9999 is unknown to the hub: 404, permanent.
	bad := e.order("P-bad", 9999, 1003)
	if _, err := e.enq.ExportOrder(ctx, store, bad); err != nil {
		t.Fatal(err)
	}
	// A domain the hub does not know for the store: the push is refused with a 4xx.
	refused := e.order("P-refused", 1003)
	refused.Domain = "unknown.example"
	if _, err := e.enq.PushOrder(ctx, store, jobs.OpCreate, refused); err != nil {
		t.Fatal(err)
	}
	e.runOrders("P-ok", 3)
	e.waitQueuesIdle()

	archived, err := e.insp.ListArchivedTasks(jobs.QueueExports)
	if err != nil {
		t.Fatal(err)
	}
	if len(archived) != 1 {
		t.Fatalf("%d archived exports, want 1: %s", len(archived), e.queueReport())
	}
	a := archived[0]
	if want := jobs.ExportTaskID(jobs.OrderKey{Store: store, Domain: domain, OrderID: "P-bad"}, e.order("x", 9999).LineItems[0].Ref().String(), 0); a.ID != want {
		t.Errorf("archived %s, want %s", a.ID, want)
	}
	if !strings.Contains(a.LastErr, "404") || !strings.Contains(a.LastErr, "design 9999") {
		t.Errorf("archived reason %q does not say what failed", a.LastErr)
	}
	pushes, err := e.insp.ListArchivedTasks(jobs.QueueOrders)
	if err != nil {
		t.Fatal(err)
	}
	if len(pushes) != 1 || !strings.Contains(pushes[0].LastErr, "P-refused") || !strings.Contains(pushes[0].LastErr, "status 4") {
		t.Errorf("archived pushes: %d, reason %v", len(pushes), pushes)
	}
	// The good design of the bad order was exported; the order has no manifest.
	if _, err := e.readManifest(orderDir("P-bad") + "/manifest.json"); err == nil {
		t.Error("an order with a failed design got a manifest")
	}
	if got := e.object(orderDir("P-bad") + "/1003-Greeting-Card-2024-06-01.pdf"); len(got) == 0 {
		t.Error("the good design of the bad order is empty")
	}
}
