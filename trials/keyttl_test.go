//go:build trial

package trials

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/demo"
	"github.com/printworker/printworker/jobs"
)

// boundedKeys are the printworker keys allowed to live without an expiry, each
// bounded in number: the demo's marker (one key, only in the demo's database).
var boundedKeys = map[string]bool{demo.RedisMarker: true}

// TestEveryKeyExpires runs orders through a real worker process (exports, manifests,
// a gang build, events to an endpoint that answers 410 Gone, a cancellation and a
// re-export) and then requires every printworker:* key in Redis to have an expiry:
// nothing the fleet writes stays forever (docs/operations.md, "Redis keys and
// expiry").
func TestEveryKeyExpires(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	t.Parallel()
	bin := buildPrintworker(t)
	f := newProcessFixture(t, "ttl", 0)
	hs := httptest.NewServer(f.sim)
	defer hs.Close()
	recvURL, rules, secret := goneEndpointAndGangRules(t)
	const orders = 5
	f.enqueueOrders(t, "T", orders)
	args := f.workArgs(hs.URL, "--concurrency", "2", "--hub-rate-per-minute", "600", "--mode", "download", "--routing-rules", rules,
		"--events-url", recvURL, "--events-secret-file", secret,
		"--retry-base", "200ms", "--retry-max", "2s", "--metrics-addr", "", "--log-format", "json")
	w := startFleetWorker(t, bin, "worker", args)
	waitUntil(t, 3*time.Minute, "every manifest", func() { w.dumpLog(t) }, func() bool { return f.manifests(t) >= orders })

	ctx := context.Background()
	if _, err := f.enq.CancelOrder(ctx, jobs.OrderKey{Store: f.store, Domain: f.domain, OrderID: "T-000"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.enq.ReExport(ctx, jobs.OrderKey{Store: f.store, Domain: f.domain, OrderID: "T-001"}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, 2*time.Minute, "the re-export done", func() { w.dumpLog(t) }, func() bool { return queuesIdle(t, f.rdb) })
	// The gang build comes last, so that no design of the re-export is pending
	// after it: a group with pending work keeps its meta (docs/pipeline.md).
	g := jobs.GangKey{Store: f.store, Group: "mugs"}
	if _, err := f.enq.GangBuild(ctx, g, jobs.GangManual, 1); err != nil {
		t.Fatal(err)
	}
	gs := jobs.NewGangs(f.rdb, "")
	waitUntil(t, 3*time.Minute, "the gang built, an endpoint marked gone", func() { w.dumpLog(t) }, func() bool {
		st, err := gs.Status(ctx, g)
		gone, _ := f.rdb.Keys(ctx, "printworker:events:gone:*").Result()
		return err == nil && st.Batches >= 1 && len(st.Open) == 0 && len(st.Pending) == 0 && len(gone) > 0 && queuesIdle(t, f.rdb)
	})
	if err := w.stop(t, 30*time.Second, func() { w.dumpLog(t) }); err != nil {
		t.Errorf("worker exit: %v", err)
	}

	kinds := map[string]int{}
	var keys []string
	iter := f.rdb.Scan(ctx, 0, "printworker:*", 1000).Iterator()
	for iter.Next(ctx) {
		keys = append(keys, iter.Val())
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(keys)
	for _, k := range keys {
		kinds[keyKind(k)]++
		if boundedKeys[k] {
			continue
		}
		ttl, err := f.rdb.PTTL(ctx, k).Result()
		if err != nil {
			t.Fatal(err)
		}
		if ttl <= 0 {
			t.Errorf("%s: no expiry (PTTL %v)", k, ttl)
		}
	}
	t.Logf("%d printworker keys, by kind: %v", len(keys), kinds)
	for _, want := range []string{"order", "gang", "gangorder", "events:gone", "folder", "daypage"} {
		if kinds[want] == 0 {
			t.Errorf("no %s key after the flow: the test does not cover it (kinds %v)", want, kinds)
		}
	}
}

// keyKind is a key's family: "printworker:order:{...}:meta" -> "order",
// "printworker:events:gone:..." -> "events:gone".
func keyKind(k string) string {
	var parts []string
	for _, p := range splitKey(k)[1:] {
		if p == "" || p[0] == '{' {
			break
		}
		parts = append(parts, p)
		if p != "events" {
			break
		}
	}
	out := ""
	for i, p := range parts {
		if i > 0 {
			out += ":"
		}
		out += p
	}
	return out
}

// splitKey splits at ':' outside a hash tag.
func splitKey(k string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(k); i++ {
		switch k[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ':':
			if depth == 0 {
				out = append(out, k[start:i])
				start = i + 1
			}
		}
	}
	return append(out, k[start:])
}

// queuesIdle reports whether no asynq queue holds pending, scheduled, retrying or
// active tasks. An unreadable queue is not idle.
func queuesIdle(t *testing.T, rdb redis.UniversalClient) bool {
	t.Helper()
	qs, err := jobs.Queues(context.Background(), rdb)
	return err == nil && busyQueues(rdb, qs...) == 0
}

// pagesIdle reports whether the day page builds have run: no completion is left to
// enqueue its day's build, and no build is left (a completion does not wait for it:
// docs/shop-floor.md, "Day page"). An unreadable queue is not idle.
func pagesIdle(t *testing.T, rdb redis.UniversalClient) bool {
	t.Helper()
	return busyQueues(rdb, jobs.QueueComplete, jobs.QueuePages) == 0
}

// busyQueues counts the tasks of the queues still to be done; an unreadable queue
// counts as one.
func busyQueues(rdb redis.UniversalClient, queues ...string) int {
	sum, err := jobs.SumQueueStats(context.Background(), rdb, time.Now(), queues...)
	if err != nil {
		return 1
	}
	return sum.Busy()
}

// goneEndpointAndGangRules starts an event endpoint that answers 410 Gone (closed at
// test end) and writes the gang rules of gangKillRules and an events secret; it
// returns the endpoint's URL and the two files.
func goneEndpointAndGangRules(t *testing.T) (url, rules, secret string) {
	t.Helper()
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "endpoint retired", http.StatusGone)
	}))
	t.Cleanup(recv.Close)
	dir := t.TempDir()
	rules, secret = filepath.Join(dir, "rules.json"), filepath.Join(dir, "secret")
	if err := os.WriteFile(rules, []byte(gangKillRules), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(secret, []byte("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return recv.URL + "/hooks", rules, secret
}
