package worker_test

import (
	"context"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/worker"
)

// orderMemory is the memory Redis holds for one order (MEMORY USAGE of every
// printworker key naming it: its state, pushes, sheets, folder claim), by key.
func orderMemory(t *testing.T, e *env, k jobs.OrderKey) (int64, map[string]int64) {
	t.Helper()
	ctx := context.Background()
	var keys []string
	iter := e.rdb.Scan(ctx, 0, "printworker:*", 1000).Iterator()
	for iter.Next(ctx) {
		if strings.Contains(iter.Val(), "{"+k.String()+"}") || strings.Contains(iter.Val(), "/"+strings.ReplaceAll(k.OrderID, "/", "%2F")+"@") {
			keys = append(keys, iter.Val())
		}
	}
	if err := iter.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(keys)
	total, by := int64(0), map[string]int64{}
	for _, key := range keys {
		n, err := e.rdb.MemoryUsage(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		by[key] = n
		total += n
	}
	return total, by
}

// TestFinishedOrderStateSize: once its manifest is written an order's state is
// settled (docs/operations.md, "Redis sizing"): the view records are gone and each
// design's result is a marker, its files being in the manifest. A re-export of one
// design then writes a manifest with every file, the others' taken from the last
// manifest.
func TestFinishedOrderStateSize(t *testing.T) {
	e := newEnv(t)
	if e.redis.Kind == "miniredis" {
		t.Skip("MEMORY USAGE needs a real redis-server")
	}
	e.start()
	ctx := context.Background()
	o := e.order("LEAN-1", 1001, 1002, 1003)
	if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("LEAN-1", 1)
	e.waitQueuesIdle()
	k := jobs.OrderKey{Store: store, Domain: domain, OrderID: "LEAN-1"}
	total, by := orderMemory(t, e, k)
	for key, n := range by {
		t.Logf("%6d B  %s", n, key)
	}
	t.Logf("order with %d files: %d B in Redis", len(m.Files), total)
	base := "printworker:order:{" + k.String() + "}:"
	if _, ok := by[base+"views"]; ok {
		t.Error("the view records outlive the manifest")
	}
	// Three designs, each a reference of ~50 bytes and a one-byte marker: what
	// duplicate detection and a re-export need of them.
	if by[base+"done"] > 512 {
		t.Errorf("done keeps %d B, want at most 512: the file records are in the manifest", by[base+"done"])
	}
	snap, err := e.enq.State().Snapshot(ctx, k)
	if err != nil {
		t.Fatal(err)
	}
	if snap.Manifest != orderDir("LEAN-1")+"/manifest.json" {
		t.Errorf("settled state names manifest %q", snap.Manifest)
	}
	for ref, r := range snap.Done {
		if string(r) != jobs.SettledResult {
			t.Errorf("design %s: result %s kept", ref, r)
		}
	}

	// Re-export one design: the manifest of revision 2 lists every file again.
	if _, err := e.enq.ReExport(ctx, k, o.LineItems[1].Ref().String()); err != nil {
		t.Fatal(err)
	}
	m2 := e.manifest("LEAN-1", 2)
	keys := func(m worker.Manifest) []string {
		var out []string
		for _, f := range m.Files {
			out = append(out, f.Key+" "+f.SHA256)
		}
		sort.Strings(out)
		return out
	}
	if !slices.Equal(keys(m), keys(m2)) {
		t.Errorf("after a re-export of one design the manifest lists\n%v\nwant\n%v", keys(m2), keys(m))
	}
	for i, li := range m2.LineItems {
		if !slices.Equal(li.Files, m.LineItems[i].Files) || li.DesignName != m.LineItems[i].DesignName {
			t.Errorf("line %d: %+v, want %+v", i, li, m.LineItems[i])
		}
	}
}
