package worker_test

import (
	"context"
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
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

// finishedLeanOrder exports order LEAN-1 of three designs on a started env and waits
// for its manifest and its settled state; it skips where MEMORY USAGE is missing.
func finishedLeanOrder(t *testing.T) (*env, *model.Order, worker.Manifest, jobs.OrderKey) {
	t.Helper()
	e := newEnv(t)
	if e.redis.Kind == "miniredis" {
		t.Skip("MEMORY USAGE needs a real redis-server")
	}
	e.start()
	o := e.order("LEAN-1", 1001, 1002, 1003)
	if _, err := e.enq.ExportOrder(context.Background(), store, o); err != nil {
		t.Fatal(err)
	}
	m := e.settledManifest("LEAN-1", 1)
	return e, o, m, jobs.OrderKey{Store: store, Domain: domain, OrderID: "LEAN-1"}
}

// settledManifest waits for revision rev's manifest of the order and for its
// completion to end: the state settles after the manifest is written.
func (e *env) settledManifest(orderID string, rev int64) worker.Manifest {
	e.t.Helper()
	m := e.manifest(orderID, rev)
	e.waitQueuesIdle()
	return m
}

// maxFinishedOrderBytes is what a finished order may keep in Redis (issue 30):
// MEMORY USAGE of all its keys, the keys' own overhead included.
const maxFinishedOrderBytes = 1024

// TestFinishedOrderStateSize: once its manifest is written an order's state is
// settled (docs/operations.md, "Redis sizing"): the view records are gone, and what
// stays (one hash and the folder's claim) is at most 1 KB. A re-export of one design
// then writes a manifest with every file, the others' taken from the last manifest,
// and the order's data the state no longer keeps from it too; so does a re-export of
// the whole order.
func TestFinishedOrderStateSize(t *testing.T) {
	e, o, m, k := finishedLeanOrder(t)
	ctx := context.Background()
	total, by := orderMemory(t, e, k)
	for key, n := range by {
		t.Logf("%6d B  %s", n, key)
	}
	t.Logf("order with %d files: %d B in Redis", len(m.Files), total)
	if total > maxFinishedOrderBytes {
		t.Errorf("a finished order keeps %d B in Redis, want at most %d: %v", total, maxFinishedOrderBytes, by)
	}
	base := "printworker:order:{" + k.String() + "}:"
	for _, gone := range []string{"views", "expected", "done", "names"} {
		if _, ok := by[base+gone]; ok {
			t.Errorf("%s outlives the manifest", gone)
		}
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
	m2 := e.settledManifest("LEAN-1", 2)
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
	sameManifest(t, m2, m)
	if total, by := orderMemory(t, e, k); total > maxFinishedOrderBytes {
		t.Errorf("after a re-export the order keeps %d B, want at most %d: %v", total, maxFinishedOrderBytes, by)
	}

	// Re-export every design: no design's files come from the last manifest, the
	// order's data still does.
	if _, err := e.enq.ReExport(ctx, k); err != nil {
		t.Fatal(err)
	}
	m3 := e.settledManifest("LEAN-1", 3)
	if !slices.Equal(keys(m), keys(m3)) {
		t.Errorf("after a re-export of the order the manifest lists\n%v\nwant\n%v", keys(m3), keys(m))
	}
	sameManifest(t, m3, m)

	// The same order again (a webhook delivered twice) is no new revision.
	res, err := e.enq.ExportOrder(ctx, store, o)
	if err != nil || res.Changed || res.Rev != 3 {
		t.Errorf("the order again: %+v, %v; want revision 3 unchanged", res, err)
	}
}

// sameManifest checks that got describes the order and lines as want does.
func sameManifest(t *testing.T, got, want worker.Manifest) {
	t.Helper()
	if got.Customer != want.Customer || !reflect.DeepEqual(got.Shipping, want.Shipping) || got.OrderCreated != want.OrderCreated ||
		got.OrderUpdated != want.OrderUpdated || got.OrderStatus != want.OrderStatus {
		t.Errorf("revision %d: order %+v %+v %s %s %s, want %+v %+v %s %s %s", got.Revision,
			got.Customer, got.Shipping, got.OrderCreated, got.OrderUpdated, got.OrderStatus,
			want.Customer, want.Shipping, want.OrderCreated, want.OrderUpdated, want.OrderStatus)
	}
	if len(got.LineItems) != len(want.LineItems) {
		t.Fatalf("revision %d: %d lines, want %d", got.Revision, len(got.LineItems), len(want.LineItems))
	}
	for i, li := range got.LineItems {
		w := want.LineItems[i]
		if !slices.Equal(li.Files, w.Files) || li.DesignName != w.DesignName || li.Quantity != w.Quantity || li.Price != w.Price || li.DesignID != w.DesignID {
			t.Errorf("revision %d line %d: %+v, want %+v", got.Revision, i, li, w)
		}
	}
}

// stateFixture is order state as Redis held it, by key (testdata/settled-state-v1.json).
type stateFixture struct {
	Hashes  map[string]map[string]string `json:"hashes"`
	Sets    map[string][]string          `json:"sets"`
	Strings map[string]string            `json:"strings"`
}

// TestSettledStateOfThePreviousVersion: an order settled by the version before the
// lean state (the order JSON, expected and done keys, the names in full: the
// fixture) is read as it was: the same order again is no new revision, a re-export
// of one design gives every file its name back, and settling it again leaves the
// lean form.
func TestSettledStateOfThePreviousVersion(t *testing.T) {
	e, o, m, k := finishedLeanOrder(t)
	ctx := context.Background()

	// The files and manifest stay; the state becomes the previous version's.
	b, err := os.ReadFile("testdata/settled-state-v1.json")
	if err != nil {
		t.Fatal(err)
	}
	var fx stateFixture
	if err := json.Unmarshal(b, &fx); err != nil {
		t.Fatal(err)
	}
	_, by := orderMemory(t, e, k)
	for key := range by {
		if err := e.rdb.Del(ctx, key).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for key, h := range fx.Hashes {
		if err := e.rdb.HSet(ctx, key, h).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for key, members := range fx.Sets {
		if err := e.rdb.SAdd(ctx, key, members).Err(); err != nil {
			t.Fatal(err)
		}
	}
	for key, v := range fx.Strings {
		if err := e.rdb.Set(ctx, key, v, 0).Err(); err != nil {
			t.Fatal(err)
		}
	}

	snap, err := e.enq.State().Snapshot(ctx, k)
	if err != nil || snap.Order == nil || snap.OrderSlim || len(snap.Expected) != 3 || snap.Manifest != orderDir("LEAN-1")+"/manifest.json" {
		t.Fatalf("the previous version's state reads as %+v, %v", snap, err)
	}
	res, err := e.enq.ExportOrder(ctx, store, o)
	if err != nil || res.Changed || res.Rev != 1 {
		t.Errorf("the same order again: %+v, %v; want revision 1 unchanged", res, err)
	}
	e.waitQueuesIdle()

	if _, err := e.enq.ReExport(ctx, k, o.LineItems[1].Ref().String()); err != nil {
		t.Fatal(err)
	}
	m2 := e.settledManifest("LEAN-1", 2)
	sameManifest(t, m2, m)
	total, by := orderMemory(t, e, k)
	if total > maxFinishedOrderBytes {
		t.Errorf("settled again the order keeps %d B, want at most %d: %v", total, maxFinishedOrderBytes, by)
	}
	// Another order given the same folder is still refused: the claim in the
	// previous version's form names its owner.
	other := jobs.OrderKey{Store: store, Domain: "other.example", OrderID: "LEAN-1"}
	if owner, err := e.enq.State().ClaimFolder(ctx, orderDir("LEAN-1")+"/manifest.json", other); err != nil || owner != k {
		t.Errorf("folder claimed by %v, %v; want %v", owner, err, k)
	}
}

// TestSettledOrderWithoutItsManifest: the order data a settled state no longer keeps
// is in the manifest; with the manifest deleted, a re-export's completion fails
// permanently, saying so, rather than writing a manifest without the customer.
func TestSettledOrderWithoutItsManifest(t *testing.T) {
	e := newEnv(t)
	e.start()
	ctx := context.Background()
	o := e.order("LEAN-2", 1003)
	if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
		t.Fatal(err)
	}
	e.manifest("LEAN-2", 1)
	e.waitQueuesIdle()
	k := jobs.OrderKey{Store: store, Domain: domain, OrderID: "LEAN-2"}
	if snap, err := e.enq.State().Snapshot(ctx, k); err != nil || !snap.OrderSlim {
		t.Fatalf("not settled: %+v, %v", snap, err)
	}
	if err := e.store.Delete(ctx, orderDir("LEAN-2")+"/manifest.json"); err != nil {
		t.Fatal(err)
	}
	if _, err := e.enq.ReExport(ctx, k); err != nil {
		t.Fatal(err)
	}
	e.waitQueuesIdle()
	archived, err := e.insp.ListArchivedTasks(jobs.QueueComplete)
	if err != nil || len(archived) != 1 || !strings.Contains(archived[0].LastErr, "holding the order's data") {
		t.Fatalf("archived completions %v, %v; want one whose error names the missing manifest", archived, err)
	}
	if _, err := e.readManifest(orderDir("LEAN-2") + "/manifest.json"); err == nil {
		t.Error("a manifest was written without the order's data")
	}
}
