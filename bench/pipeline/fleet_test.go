package pipeline

import (
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

// BenchmarkFleetScale runs a fleet on a three-master Redis Cluster: FLEET_WORKERS
// (default 6) `printworker work --mode download` processes, the intake in this process
// taking signed webhooks, the hub simulator with two stores, and a hot folder on tmpfs;
// exports spread over FLEET_SHARDS export queue shards (default 8), each store's over
// its two lanes.
// Two phases, FLEET_ORDERS orders in all (default 2,000, one 20 KiB view each):
//
//  1. the quiet store alone: FLEET_QUIET orders (default 100) paced at 5 a second;
//  2. the same quiet traffic again while the flooding store sends the rest at once.
//
// Every store is limited to FLEET_RATE hub calls a minute (default 3,000), so the
// flood queues behind its own limit. Reported: the p50/p95 latency from webhook to
// manifest (all orders, and the quiet store's in each phase with their ratio, which
// the fleet keeps under 2), Redis commands, network bytes and used memory per export
// and per order summed over the masters' INFO, and the most clients connected per
// worker. Use -benchtime 1x.
//
//	go test -run XXX -bench FleetScale -benchtime 1x -timeout 30m ./bench/pipeline
func BenchmarkFleetScale(b *testing.B) {
	n, workers, quiet := envInt(b, "FLEET_ORDERS", 2000), envInt(b, "FLEET_WORKERS", 6), envInt(b, "FLEET_QUIET", 100)
	rate := envInt(b, "FLEET_RATE", 3000)
	if n < 2*quiet+1 {
		b.Fatalf("FLEET_ORDERS=%d: want more than twice FLEET_QUIET=%d", n, quiet)
	}
	cluster := testredis.StartCluster(b)
	rdb := cluster.Client(b)

	// Orders 0..quiet-1 are the quiet baseline, quiet..2quiet-1 the quiet store under
	// the flood, the rest the flood.
	storeOf := func(i int) string {
		if i < 2*quiet {
			return "quiet"
		}
		return "flood"
	}
	hubURL, refs := fleetHub(b, n, storeOf)
	storesFile := filepath.Join(b.TempDir(), "stores.json")
	stores := `[{"store":"quiet","apiKey":"quiet-key","secret":"quiet-secret","domains":["quiet.example"]},
	{"store":"flood","apiKey":"flood-key","secret":"flood-secret","domains":["flood.example"]}]`
	if err := os.WriteFile(storesFile, []byte(stores), 0o600); err != nil {
		b.Fatal(err)
	}
	dir, _ := tmpfsDir(b)
	// The export queue shards: each store's orders go to its two lanes of them.
	shards := envInt(b, "FLEET_SHARDS", 8)
	intakeURL := startIntakeWith(b, rdb, jobs.EnqueuerConfig{ExportShards: shards})
	workerBinary(b)

	procs := make([]*process, workers)
	for i := range procs {
		procs[i] = startProcess(b, append([]string{"work",
			"--redis-url", cluster.URL(), "--hub-url", hubURL, "--hub-stores-file", storesFile,
			"--mode", "download", "--hub-rate-per-minute", strconv.Itoa(rate),
			"--storage", "dir", "--storage-dir", dir, "--concurrency", "4", "--export-queue-shards", strconv.Itoa(shards),
			"--metrics-addr", "", "--log-format", "json", "--log-level", "info",
		}, strings.Fields(os.Getenv("FLEET_WORKER_ARGS"))...))
	}
	for _, p := range procs {
		waitLog(b, p, `"msg":"printworker work"`, time.Minute)
	}
	nodes := clusterNodes(b, cluster)
	before := redisTotals(b, nodes)

	b.ResetTimer()
	start := time.Now()
	baseline := sendFleet(b, intakeURL, refs, storeOf, 0, quiet, 5)
	written := waitFleet(b, procs, slices.Collect(maps.Keys(baseline)), 10*time.Minute)

	var flood map[string]time.Time
	var wg sync.WaitGroup
	wg.Go(func() { flood = sendFleet(b, intakeURL, refs, storeOf, 2*quiet, n, 0) })
	stopClients := make(chan struct{})
	var maxClients int64
	wg.Go(func() { maxClients = sampleClients(b, nodes, stopClients) })
	underFlood := sendFleet(b, intakeURL, refs, storeOf, quiet, 2*quiet, 5)
	for id, t := range waitFleet(b, procs, slices.Collect(maps.Keys(underFlood)), 20*time.Minute) {
		written[id] = t
	}
	close(stopClients)
	wg.Wait()
	for id, t := range waitFleet(b, procs, slices.Collect(maps.Keys(flood)), 20*time.Minute) {
		written[id] = t
	}
	end := time.Now()
	b.StopTimer()
	// Let the debounced work end before Redis's counters are read.
	time.Sleep(3 * time.Second)
	after := redisTotals(b, nodes)
	// An order settles within a minute of its manifest: what Redis keeps of the
	// orders is read after that.
	time.Sleep(time.Minute)
	settled := redisTotals(b, nodes)

	latencies := func(sent map[string]time.Time) []float64 {
		var l []float64
		for id, t0 := range sent {
			l = append(l, written[id].Sub(t0).Seconds())
		}
		return l
	}
	all := append(append(latencies(baseline), latencies(underFlood)...), latencies(flood)...)
	qb, qf := latencies(baseline), latencies(underFlood)
	secs := end.Sub(start).Seconds()
	b.ReportMetric(float64(n), "orders")
	b.ReportMetric(float64(n)/secs*3600, "exports/h")
	b.ReportMetric(quantile(all, 0.50), "p50-latency-s")
	b.ReportMetric(quantile(all, 0.95), "p95-latency-s")
	b.ReportMetric(quantile(qb, 0.50), "quiet-alone-p50-s")
	b.ReportMetric(quantile(qb, 0.95), "quiet-alone-p95-s")
	b.ReportMetric(quantile(qf, 0.50), "quiet-flood-p50-s")
	b.ReportMetric(quantile(qf, 0.95), "quiet-flood-p95-s")
	b.ReportMetric(quantile(qf, 0.95)/quantile(qb, 0.95), "quiet-p95-ratio")
	b.ReportMetric(float64(after.commands-before.commands)/float64(n), "redis-cmds/export")
	b.ReportMetric(float64(after.netBytes-before.netBytes)/float64(n), "redis-net-B/export")
	b.ReportMetric(float64(after.usedMemory-before.usedMemory)/float64(n), "redis-mem-B/order")
	b.ReportMetric(float64(settled.usedMemory-before.usedMemory)/float64(n), "redis-kept-B/order")
	b.ReportMetric((after.cpu-before.cpu)*1000/float64(n), "redis-cpu-ms/order")
	b.ReportMetric(float64(after.conns-before.conns)/float64(n), "redis-new-conns/order")
	largest := 0.0
	for i := range after.nodeCommands {
		largest = max(largest, float64(after.nodeCommands[i]-before.nodeCommands[i])/float64(after.commands-before.commands))
	}
	b.ReportMetric(largest, "largest-master-share")
	// Less this benchmark's own sampling connection; the intake's few are counted.
	b.ReportMetric(float64(maxClients-1)/float64(workers), "clients/worker")
}

// envInt is the integer in the environment variable name, else def.
func envInt(tb testing.TB, name string, def int) int {
	tb.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		tb.Fatalf("%s=%q: want a positive integer", name, s)
	}
	return v
}

// fleetHub runs the simulator with stores quiet and flood, and n one-view designs of
// 20 KiB, design i owned by storeOf(i).
func fleetHub(tb testing.TB, n int, storeOf func(int) string) (string, []model.DesignRef) {
	tb.Helper()
	_, url, refs := startHubWith(tb, hubsim.Config{
		Stores: []hubsim.Store{
			{ID: "quiet", Domains: []string{"quiet.example"}, Keys: []hubsim.Key{{Key: "quiet-key", Secret: "quiet-secret"}}},
			{ID: "flood", Domains: []string{"flood.example"}, Keys: []hubsim.Key{{Key: "flood-key", Secret: "flood-secret"}}},
		},
		Exporter: fixedExporter(payload(tb, 20<<10)),
	}, n, storeOf)
	return url, refs
}

// sendFleet posts orders from..to-1 as signed orders/paid webhooks of their stores,
// rate a second (0: at once, from 8 senders).
func sendFleet(tb testing.TB, url string, refs []model.DesignRef, storeOf func(int) string, from, to int, rate float64) map[string]time.Time {
	tb.Helper()
	senders := 8
	if rate > 0 {
		senders = 1
	}
	return postOrders(tb, url, from, to, senders, rate, func(i int) (string, *model.Order) {
		store := storeOf(i)
		o := order(i, refs[i])
		o.Domain = store + ".example"
		return store, o
	})
}

// waitFleet reads every worker's JSON log until each of the orders has its manifest
// written, and returns when each was. An error logged by any worker fails the run.
func waitFleet(tb testing.TB, procs []*process, orders []string, within time.Duration) map[string]time.Time {
	tb.Helper()
	offsets := make([]int64, len(procs))
	written := map[string]time.Time{}
	deadline := time.Now().Add(within)
	for {
		for i, p := range procs {
			offsets[i] = readLogFrom(tb, p.logs, offsets[i], written)
		}
		missing := 0
		for _, id := range orders {
			if _, ok := written[id]; !ok {
				missing++
			}
		}
		if missing == 0 {
			out := make(map[string]time.Time, len(orders))
			for _, id := range orders {
				out[id] = written[id]
			}
			return out
		}
		if time.Now().After(deadline) {
			tb.Fatalf("%d of %d manifests missing after %s\n%s", missing, len(orders), within, procs[0].tail())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// readLogFrom reads the complete lines of a log from offset on into written, and
// returns the offset of the first line not yet complete.
func readLogFrom(tb testing.TB, path string, offset int64, written map[string]time.Time) int64 {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || st.Size() <= offset {
		return offset
	}
	buf := make([]byte, st.Size()-offset)
	k, _ := f.ReadAt(buf, offset)
	buf = buf[:k]
	end := bytes.LastIndexByte(buf, '\n')
	if end < 0 {
		return offset
	}
	for line := range bytes.SplitSeq(buf[:end], []byte("\n")) {
		manifestLogLine(tb, line, written)
	}
	return offset + int64(end) + 1
}

// clusterNodes returns a client per master of the cluster.
func clusterNodes(tb testing.TB, c *testredis.Cluster) []*redis.Client {
	tb.Helper()
	var out []*redis.Client
	for _, addr := range c.Addrs {
		cl := redis.NewClient(&redis.Options{Addr: addr})
		tb.Cleanup(func() { cl.Close() })
		out = append(out, cl)
	}
	return out
}

// redisTotal is what the masters report together.
type redisTotal struct {
	commands, netBytes, usedMemory int64
	// nodeCommands are the commands of each node (its share of the load), cpu the
	// seconds of CPU the servers used (user and system), conns the connections they
	// accepted.
	nodeCommands []int64
	cpu          float64
	conns        int64
}

// redisTotals sums INFO commandstats calls, network bytes in and out and used
// memory over the nodes. The INFO calls themselves are a handful of commands.
func redisTotals(tb testing.TB, nodes []*redis.Client) redisTotal {
	tb.Helper()
	var t redisTotal
	for _, n := range nodes {
		info, err := n.Info(context.Background(), "commandstats", "stats", "memory", "cpu").Result()
		if err != nil {
			tb.Fatal(err)
		}
		var node int64
		for line := range strings.SplitSeq(info, "\r\n") {
			switch {
			case strings.HasPrefix(line, "cmdstat_"):
				_, rest, _ := strings.Cut(line, "calls=")
				calls, _, _ := strings.Cut(rest, ",")
				v, _ := strconv.ParseInt(calls, 10, 64)
				t.commands += v
				node += v
			case strings.HasPrefix(line, "used_cpu_sys:"), strings.HasPrefix(line, "used_cpu_user:"):
				_, v, _ := strings.Cut(line, ":")
				x, _ := strconv.ParseFloat(v, 64)
				t.cpu += x
			case strings.HasPrefix(line, "total_connections_received:"):
				_, v, _ := strings.Cut(line, ":")
				x, _ := strconv.ParseInt(v, 10, 64)
				t.conns += x
			case strings.HasPrefix(line, "total_net_input_bytes:"), strings.HasPrefix(line, "total_net_output_bytes:"):
				_, v, _ := strings.Cut(line, ":")
				x, _ := strconv.ParseInt(v, 10, 64)
				t.netBytes += x
			case strings.HasPrefix(line, "used_memory:"):
				_, v, _ := strings.Cut(line, ":")
				x, _ := strconv.ParseInt(v, 10, 64)
				t.usedMemory += x
			}
		}
		t.nodeCommands = append(t.nodeCommands, node)
	}
	return t
}

// sampleClients samples the clients connected to each node every half second until
// stop, and returns the most seen on any one node: each worker connects to every
// master, so that is the fleet's connections per node.
func sampleClients(tb testing.TB, nodes []*redis.Client, stop <-chan struct{}) int64 {
	var most int64
	for {
		for _, n := range nodes {
			info, err := n.Info(context.Background(), "clients").Result()
			if err != nil {
				continue
			}
			for line := range strings.SplitSeq(info, "\r\n") {
				if v, ok := strings.CutPrefix(line, "connected_clients:"); ok {
					if x, err := strconv.ParseInt(v, 10, 64); err == nil {
						most = max(most, x)
					}
				}
			}
		}
		select {
		case <-stop:
			return most
		case <-time.After(500 * time.Millisecond):
		}
	}
}
