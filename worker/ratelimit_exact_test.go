package worker_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
)

// TestEveryHubCallTakesAToken: pushes that converge make two requests (an update
// of an order the hub does not know meets a 404 and creates it), and each takes its
// own token: the hub receives exactly as many calls as the limiter granted, and the
// call metrics count each request under its own operation. Before, the create after
// a 404 went out without a token.
func TestEveryHubCallTakesAToken(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	e.start()
	ctx := context.Background()
	const n = 6
	for i := range n {
		// Updates of orders never created: 404, then a create.
		if _, err := e.enq.PushOrder(ctx, store, jobs.OpUpdate, e.order(fmt.Sprintf("TK-U%d", i), 1002)); err != nil {
			t.Fatal(err)
		}
		// Plain creates: one request each.
		if _, err := e.enq.PushOrder(ctx, store, jobs.OpCreate, e.order(fmt.Sprintf("TK-C%d", i), 1002)); err != nil {
			t.Fatal(err)
		}
	}
	e.waitQueuesIdle()

	received, notFound := 0, 0
	for _, r := range e.sim.Requests() {
		if r.Store != store {
			continue
		}
		received++
		if r.Status == 404 {
			notFound++
		}
	}
	granted := e.histogramCount("printworker_ratelimit_wait_seconds")
	t.Logf("hub received %d calls (%d answered 404), the limiter granted %d tokens", received, notFound, granted)
	if notFound != n {
		t.Fatalf("%d updates met a 404, want %d: the converging path was not taken", notFound, n)
	}
	if want := 3 * n; received != want {
		t.Fatalf("hub received %d calls, want %d (two per converging update, one per create)", received, want)
	}
	if int(granted) != received {
		t.Errorf("the limiter granted %d tokens for %d hub calls: want one token per call", granted, received)
	}
	creates := e.counter("printworker_hub_calls_total", map[string]string{"op": hub.OpCreateOrder})
	updates := e.counter("printworker_hub_calls_total", map[string]string{"op": hub.OpUpdateOrder, "class": "4xx"})
	if creates != 2*n || updates != n {
		t.Errorf("metrics count %v creates and %v failed updates, want %d and %d", creates, updates, 2*n, n)
	}
}

// histogramCount sums the sample counts of a histogram's series.
func (e *env) histogramCount(name string) uint64 {
	e.t.Helper()
	mfs, err := e.reg.Gather()
	if err != nil {
		e.t.Fatal(err)
	}
	var n uint64
	for _, mf := range mfs {
		if mf.GetName() != name {
			continue
		}
		for _, m := range mf.GetMetric() {
			n += m.GetHistogram().GetSampleCount()
		}
	}
	return n
}
