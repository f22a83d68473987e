//go:build trial

package trials

import (
	"context"
	"encoding/json"
	"io"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// TestWorkOnRedisCluster runs a worker process against a three-node Redis Cluster
// (redis-cluster://): orders pushed and exported through the rate limit, manifests
// and day pages, a gang build, an event endpoint answering 410, and a re-export of a
// settled order. Every key carries a hash tag and every script touches one, so
// nothing meets a CROSSSLOT or undeclared-key error; the keys spread over the nodes.
// The exports run in three queue shards (--export-queue-shards 3), whose slots are
// on the three masters, and the orders went to both of the store's two lanes, on two.
func TestWorkOnRedisCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("process test")
	}
	t.Parallel()
	bin := buildPrintworker(t)
	c := testredis.StartCluster(t)
	rdb := c.Client(t)
	f := &processFixture{store: "cl-store", domain: "cl.example", key: "cl-key", secret: "cl-secret", redisURL: c.URL()}
	f.startServices(t, rdb, 0)
	const shards = 3
	masters := shardMasters(t, rdb, shards)
	var err error
	if f.enq, err = jobs.NewEnqueuer(rdb, jobs.EnqueuerConfig{ExportShards: shards}); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(f.sim)
	defer hs.Close()
	recvURL, rules, secret := goneEndpointAndGangRules(t)
	const orders = 5
	f.enqueueOrders(t, "C", orders)
	w := startFleetWorker(t, bin, "worker", f.workArgs(hs.URL, "--concurrency", "3", "--hub-rate-per-minute", "600", "--mode", "download",
		"--routing-rules", rules, "--events-url", recvURL, "--events-secret-file", secret,
		"--retry-base", "200ms", "--retry-max", "2s", "--metrics-addr", "", "--log-format", "json", "--export-queue-shards", "3"))
	waitUntil(t, 3*time.Minute, "every manifest", func() { w.dumpLog(t) }, func() bool { return f.manifests(t) >= orders })

	ctx := context.Background()
	k := jobs.OrderKey{Store: f.store, Domain: f.domain, OrderID: "C-001"}
	if _, err := f.enq.ReExport(ctx, k); err != nil {
		t.Fatal(err)
	}
	manifestKey := f.store + "/2024-07-01/" + storage.OrderFolderValue("C-001", f.domain) + "/" + storage.ManifestName
	waitUntil(t, 2*time.Minute, "the re-exported manifest", func() { w.dumpLog(t) }, func() bool {
		var m worker.Manifest
		return json.Unmarshal(readObjectQuiet(f.st, manifestKey), &m) == nil && m.Revision >= 2
	})
	waitUntil(t, 2*time.Minute, "the queues drained", func() { w.dumpLog(t) }, func() bool { return queuesIdle(t, rdb) })
	g := jobs.GangKey{Store: f.store, Group: "mugs"}
	if _, err := f.enq.GangBuild(ctx, g, jobs.GangManual, 1); err != nil {
		t.Fatal(err)
	}
	gs := jobs.NewGangs(rdb, "")
	waitUntil(t, 3*time.Minute, "the gang built, the endpoint marked gone", func() { w.dumpLog(t) }, func() bool {
		st, err := gs.Status(ctx, g)
		return err == nil && st.Batches >= 1 && len(st.Open) == 0 && len(st.Pending) == 0 &&
			len(clusterKeys(t, rdb, "printworker:events:gone:*")) > 0 && queuesIdle(t, rdb)
	})
	if err := w.stop(t, 30*time.Second, func() { w.dumpLog(t) }); err != nil {
		t.Errorf("worker exit: %v", err)
	}
	// Deliveries to the 410 endpoint are archived on purpose; nothing else is.
	for _, q := range append([]string{"orders", "gang"}, jobs.ExportQueues(shards)...) {
		if info, err := jobs.ReadQueueStats(ctx, rdb, q, time.Now()); err != nil || info.Archived != 0 {
			t.Errorf("queue %s: %+v, %v; want nothing archived", q, info, err)
		}
	}
	// Every order's exports ran in its shard, and the shards that ran them are on
	// more than one master.
	ran := map[string]bool{}
	insp := asynq.NewInspectorFromRedisClient(rdb)
	for _, q := range jobs.ExportLanes(f.store, shards) {
		done, err := insp.ListCompletedTasks(q, asynq.PageSize(100))
		if err != nil {
			t.Fatalf("completed tasks of %s: %v", q, err)
		}
		for _, task := range done {
			var p jobs.DesignExport
			if task.Type == jobs.TypeDesignExport && json.Unmarshal(task.Payload, &p) == nil && p.OrderKey.Store == f.store {
				ran[masters[q]] = true
			}
		}
	}
	if len(ran) < 2 {
		t.Errorf("the exports ran in shards on %d master(s) %v, want more than one", len(ran), ran)
	}
	objs, err := f.st.List(ctx, f.store+"/gang/mugs/")
	if err != nil || len(objs) == 0 {
		t.Errorf("no gang sheet stored (%v)", err)
	}
	var mu sync.Mutex
	perNode := map[string]int64{}
	err = rdb.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
		size, err := n.DBSize(ctx).Result()
		mu.Lock()
		perNode[n.Options().Addr] = size
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	used := 0
	for _, n := range perNode {
		if n > 0 {
			used++
		}
	}
	t.Logf("keys per node: %v", perNode)
	if used < 2 {
		t.Errorf("keys on %d of 3 nodes: %v", used, perNode)
	}
}

// shardMasters maps the first n export queue shards to the master serving their
// keys' slot (CLUSTER KEYSLOT, CLUSTER SHARDS), and fails unless they are on
// min(n, masters) different masters: the shard names are chosen so (jobs/shards.go).
func shardMasters(t *testing.T, rdb *redis.ClusterClient, n int) map[string]string {
	t.Helper()
	ctx := context.Background()
	cs, err := rdb.ClusterShards(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	owner := func(slot int64) string {
		for _, sh := range cs {
			for _, r := range sh.Slots {
				if slot >= r.Start && slot <= r.End {
					for _, nd := range sh.Nodes {
						if nd.Role == "master" {
							return nd.ID
						}
					}
				}
			}
		}
		return ""
	}
	out := map[string]string{}
	on := map[string]bool{}
	for _, q := range jobs.ExportQueues(n) {
		slot, err := rdb.ClusterKeySlot(ctx, "asynq:{"+q+"}:pending").Result()
		if err != nil {
			t.Fatal(err)
		}
		if int(slot) != jobs.KeySlot(q) {
			t.Errorf("CLUSTER KEYSLOT of %s: %d, jobs.KeySlot %d", q, slot, jobs.KeySlot(q))
		}
		m := owner(slot)
		if m == "" {
			t.Fatalf("no master serves slot %d of %s", slot, q)
		}
		out[q] = m
		on[m] = true
		t.Logf("shard %s: slot %d, master %s", q, slot, m)
	}
	if len(on) != min(n, len(cs)) {
		t.Errorf("%d shards on %d of %d masters: %v", n, len(on), len(cs), out)
	}
	return out
}

// clusterKeys lists the keys matching pattern on every master of a cluster.
func clusterKeys(t *testing.T, rdb *redis.ClusterClient, pattern string) []string {
	t.Helper()
	var mu sync.Mutex
	var out []string
	_ = rdb.ForEachMaster(context.Background(), func(ctx context.Context, n *redis.Client) error {
		ks, err := n.Keys(ctx, pattern).Result()
		mu.Lock()
		out = append(out, ks...)
		mu.Unlock()
		return err
	})
	return out
}

// readObjectQuiet is an object's bytes, nil when it cannot be read (yet).
func readObjectQuiet(st *storage.S3, key string) []byte {
	rc, _, err := st.Get(context.Background(), key)
	if err != nil {
		return nil
	}
	defer rc.Close()
	b, _ := io.ReadAll(rc)
	return b
}
