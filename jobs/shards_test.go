package jobs

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/internal/testredis"
)

// master is the master of slot s in a cluster of m masters whose slots are split
// evenly in ranges.
func master(s, m int) int { return s * m / 16384 }

// spread reports whether names lie on min(len(names), m) masters of every even
// cluster of 2 to 6 masters.
func spread(names []string) bool {
	for m := 2; m <= 6; m++ {
		on := map[int]bool{}
		for _, n := range names {
			on[master(KeySlot(n), m)] = true
		}
		if len(on) != min(len(names), m) {
			return false
		}
	}
	return true
}

// TestExportShardNames derives the shard names again from their rule (shards.go):
// a change of the rule or the table fails here, and every prefix of the table
// spreads over the masters of even clusters.
func TestExportShardNames(t *testing.T) {
	t.Parallel()
	if got := KeySlot("exports"); got != 11992 {
		t.Fatalf("slot of exports %d, want 11992 (CLUSTER KEYSLOT exports)", got)
	}
	want := []string{QueueExports}
	for k := 1; k < MaxExportShards; k++ {
		name := ""
		for c := 'a'; c <= 'z'; c++ {
			n := "exports-" + strconv.Itoa(k) + string(c)
			if spread(append(slices.Clone(want), n)) {
				name = n
				break
			}
		}
		if name == "" {
			t.Fatalf("no name of shard %d spreads", k)
		}
		want = append(want, name)
	}
	if got := ExportQueues(MaxExportShards); !slices.Equal(got, want) {
		t.Errorf("export shard names\n got %q\nwant %q", got, want)
	}
	for n := 1; n <= MaxExportShards; n++ {
		if !spread(ExportQueues(n)) {
			t.Errorf("the first %d shards do not spread", n)
		}
	}
}

func TestExportLanes(t *testing.T) {
	t.Parallel()
	cases := []struct {
		shards int
		want   []string
	}{
		{0, []string{"exports"}},
		{1, []string{"exports"}},
		{2, ExportQueues(2)},
		{3, ExportQueues(3)},
		{MaxExportShards, ExportQueues(MaxExportShards)},
		{MaxExportShards + 5, ExportQueues(MaxExportShards)},
	}
	for _, c := range cases {
		t.Run(strconv.Itoa(c.shards), func(t *testing.T) {
			if got := ExportQueues(c.shards); !slices.Equal(got, c.want) {
				t.Errorf("ExportQueues(%d) = %q, want %q", c.shards, got, c.want)
			}
			// Stable, two different lanes among the shards (one without shards); and
			// over 3000 stores every shard is a lane about equally often, and every
			// pair of shards is some store's.
			a, b := ExportLanes("shop", c.shards), ExportLanes("shop", c.shards)
			if !slices.Equal(a, b) {
				t.Errorf("ExportLanes(shop, %d) = %q then %q", c.shards, a, b)
			}
			if len(c.want) == 1 {
				if !slices.Equal(a, c.want) {
					t.Errorf("ExportLanes(shop, %d) = %q, want %q", c.shards, a, c.want)
				}
				return
			}
			const stores = 3000
			count, pairs := map[string]int{}, map[[2]string]bool{}
			for i := range stores {
				l := ExportLanes("store-"+strconv.Itoa(i), c.shards)
				if len(l) != 2 || l[0] == l[1] || !slices.Contains(c.want, l[0]) || !slices.Contains(c.want, l[1]) {
					t.Fatalf("ExportLanes(store-%d, %d) = %q", i, c.shards, l)
				}
				count[l[0]]++
				count[l[1]]++
				pairs[[2]string{min(l[0], l[1]), max(l[0], l[1])}] = true
			}
			share := 2 * stores / len(c.want)
			for _, q := range c.want {
				if count[q] < share*8/10 || count[q] > share*12/10 {
					t.Errorf("%s is a lane of %d of %d stores, want about %d", q, count[q], stores, share)
				}
			}
			if n := len(c.want); len(pairs) != n*(n-1)/2 {
				t.Errorf("%d pairs of lanes used, want all %d", len(pairs), n*(n-1)/2)
			}
		})
	}
	// Pinned: an enqueuer of another version must choose the same lanes.
	for store, want := range map[string][]string{"shop": {"exports-2a", "exports-1a"}, "s": {"exports-1a", "exports"}, "flood": {"exports-3d", "exports"}} {
		n := 3
		if store == "flood" {
			n = 8
		}
		if got := ExportLanes(store, n); !slices.Equal(got, want) {
			t.Errorf("lanes of store %s among %d: %q, want %q", store, n, got, want)
		}
	}
	for _, q := range ExportQueues(MaxExportShards) {
		if !IsExportQueue(q) {
			t.Errorf("IsExportQueue(%q) false", q)
		}
	}
	for _, q := range []string{QueueOrders, QueueSync, "exports-1", "exports-x"} {
		if IsExportQueue(q) {
			t.Errorf("IsExportQueue(%q) true", q)
		}
	}
	if ValidateExportShards(0) == nil || ValidateExportShards(MaxExportShards+1) == nil || ValidateExportShards(3) != nil {
		t.Error("ValidateExportShards accepts or refuses the wrong counts")
	}
}

// TestEnqueuerShards: with three shards a store's orders go to its two lanes, each
// to the one with less waiting; an order's exports, a second enqueue of them and its
// reprints stay in the queue it got; a cancel deletes them there; and a store beside
// a flooding one in a lane they share puts its orders in its other lane.
func TestEnqueuerShards(t *testing.T) {
	t.Parallel()
	rdb := testredis.Start(t).Client(t)
	if _, err := NewEnqueuer(rdb, EnqueuerConfig{ExportShards: MaxExportShards + 1}); err == nil {
		t.Fatal("too many shards accepted")
	}
	e, err := NewEnqueuer(rdb, EnqueuerConfig{ExportShards: 3})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	insp := asynq.NewInspectorFromRedisClient(rdb)
	export := func(store, id string) (OrderKey, string) {
		t.Helper()
		o := testOrder("1.a", "2.b")
		o.OrderID = id
		k := OrderKey{Store: store, Domain: o.Domain, OrderID: o.OrderID}
		res, err := e.ExportOrder(ctx, store, o)
		if err != nil || len(res.Tasks) != 2 {
			t.Fatalf("export %s: %+v %v", k, res, err)
		}
		q := res.Tasks[0].Queue
		for _, task := range res.Tasks {
			info, err := insp.GetTaskInfo(q, task.TaskID)
			if err != nil || task.Queue != q || info.Type != TypeDesignExport {
				t.Errorf("task %s: reported in %q, want %q: %v %v", task.TaskID, task.Queue, q, info, err)
			}
		}
		return k, q
	}
	lanes := ExportLanes("s", 3)
	prev := ""
	for i := range 6 {
		k, q := export("s", fmt.Sprint("o-", i))
		// Nothing runs: after the first, the lanes fill in turn.
		if !slices.Contains(lanes, q) || q == prev {
			t.Errorf("order %d of s in %q after %q, want the other of %q", i, q, prev, lanes)
		}
		prev = q
		// The same order again: its recorded queue, whose task ids refuse it.
		o := testOrder("1.a", "2.b")
		o.OrderID = k.OrderID
		if res, err := e.ExportOrder(ctx, "s", o); err != nil || len(res.Tasks) != 2 || res.Tasks[0].Queue != q {
			t.Errorf("second enqueue of %s: %+v %v, want its queue %q", k, res, err, q)
		}
		// Its update's push: the order's queue too, with shards (not orders).
		if pq, err := e.PushOrder(ctx, "s", OpUpdate, o); err != nil || pq.Queue != q {
			t.Errorf("push of %s in %q, want its queue %q: %v", k, pq.Queue, q, err)
		}
		rp, _, err := e.Reprint(ctx, Reprint{OrderKey: k, Copies: 1})
		if err != nil || rp.Queue != q {
			t.Errorf("reprint of %s in %q, want %q: %v", k, rp.Queue, q, err)
		}
		if i == 0 {
			c, err := e.CancelOrder(ctx, k)
			if err != nil || c.Removed != 2 {
				t.Errorf("cancel of %s removed %d, want 2: %v", k, c.Removed, err)
			}
		}
	}
	// On an idle fleet (a tie) a store's orders still use both lanes.
	idle, err := NewEnqueuer(testredis.Start(t).Client(t), EnqueuerConfig{ExportShards: 3})
	if err != nil {
		t.Fatal(err)
	}
	tie := map[string]bool{}
	for i := range 8 {
		k := OrderKey{Store: "s", Domain: "shop.example", OrderID: fmt.Sprint("t-", i)}
		q, err := idle.ExportQueue(ctx, k)
		if err != nil {
			t.Fatal(err)
		}
		tie[q] = true
	}
	if len(tie) != 2 {
		t.Errorf("8 orders on an idle fleet in %v, want both lanes %q", tie, lanes)
	}
	waiting, err := waitingTasks(ctx, rdb, lanes)
	if err != nil || waiting[0] == 0 || waiting[1] == 0 {
		t.Errorf("waiting in %q: %v %v, want both used", lanes, waiting, err)
	}

	// A flood in one lane of quiet's pair (with three shards every two pairs share
	// one): quiet's orders take its other lane.
	quiet := ""
	for i := 0; quiet == ""; i++ {
		if l := ExportLanes(fmt.Sprint("q-", i), 3); !slices.Equal(l, lanes) && (l[0] == lanes[0] || l[1] == lanes[0] || l[0] == lanes[1] || l[1] == lanes[1]) {
			quiet = fmt.Sprint("q-", i)
		}
	}
	ql := ExportLanes(quiet, 3)
	free := ql[0]
	if slices.Contains(lanes, free) {
		free = ql[1]
	}
	for i := range 4 {
		if _, q := export(quiet, fmt.Sprint("q-", i)); q != free {
			t.Errorf("order %d of %s (lanes %q) in %q, want %q, the lane s has not flooded", i, quiet, ql, q, free)
		}
		// Keep the free lane the emptier one.
		if _, err := insp.DeleteAllPendingTasks(free); err != nil {
			t.Fatal(err)
		}
	}
}

// TestPushAgainAfterItsOrderChoseALane: an order's first push goes to a lane chosen
// before the order records one; its exports, enqueued next, find that lane fuller and
// record the other. The same push again (a webhook delivered twice) is then known as
// a duplicate in the lane that holds it, not enqueued into the order's lane as a
// second push.
func TestPushAgainAfterItsOrderChoseALane(t *testing.T) {
	t.Parallel()
	rdb := testredis.Start(t).Client(t)
	e, err := NewEnqueuer(rdb, EnqueuerConfig{ExportShards: 8})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	o := testOrder("1.a")
	first, err := e.PushOrder(ctx, "s", OpCreate, o)
	if err != nil || first.Duplicate {
		t.Fatalf("first push: %+v %v", first, err)
	}
	res, err := e.ExportOrder(ctx, "s", o)
	if err != nil || len(res.Tasks) != 1 {
		t.Fatalf("export: %+v %v", res, err)
	}
	if res.Tasks[0].Queue == first.Queue {
		t.Fatalf("the export went to the push's lane %s: the case needs the other", first.Queue)
	}
	again, err := e.PushOrder(ctx, "s", OpCreate, o)
	if err != nil || !again.Duplicate || again.Queue != first.Queue {
		t.Errorf("the same push again: %+v %v, want a duplicate in %s", again, err, first.Queue)
	}
	insp := asynq.NewInspectorFromRedisClient(rdb)
	pushes := 0
	for _, q := range ExportLanes("s", 8) {
		ts, _ := insp.ListPendingTasks(q)
		for _, ti := range ts {
			if ti.Type == TypeOrderPush {
				pushes++
			}
		}
	}
	if pushes != 1 {
		t.Errorf("%d pushes waiting, want 1", pushes)
	}
}
