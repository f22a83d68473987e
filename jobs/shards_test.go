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

func TestExportQueue(t *testing.T) {
	t.Parallel()
	k := OrderKey{Store: "shop", Domain: "shop.example", OrderID: "1001"}
	cases := []struct {
		shards int
		want   []string
	}{
		{0, []string{"exports"}},
		{1, []string{"exports"}},
		{3, ExportQueues(3)},
		{MaxExportShards, ExportQueues(MaxExportShards)},
		{MaxExportShards + 5, ExportQueues(MaxExportShards)},
	}
	for _, c := range cases {
		t.Run(strconv.Itoa(c.shards), func(t *testing.T) {
			if got := ExportQueues(c.shards); !slices.Equal(got, c.want) {
				t.Errorf("ExportQueues(%d) = %q, want %q", c.shards, got, c.want)
			}
			// Stable: the same key, the same shard; and every shard is chosen, each
			// for about its share of 3000 orders.
			if a, b := ExportQueue(k, c.shards), ExportQueue(k, c.shards); a != b || !slices.Contains(c.want, a) {
				t.Errorf("ExportQueue(%v, %d) = %q then %q", k, c.shards, a, b)
			}
			const orders = 3000
			count := map[string]int{}
			for i := range orders {
				count[ExportQueue(OrderKey{Store: "shop", Domain: "shop.example", OrderID: strconv.Itoa(1000 + i)}, c.shards)]++
			}
			share := orders / len(c.want)
			for _, q := range c.want {
				if count[q] < share*8/10 || count[q] > share*12/10 {
					t.Errorf("%s took %d of %d orders, want about %d", q, count[q], orders, share)
				}
			}
			if len(count) != len(c.want) {
				t.Errorf("orders went to %v, want only %q", count, c.want)
			}
		})
	}
	// Pinned: an enqueuer of another version must choose the same shard.
	for id, want := range map[string]string{"1001": "exports-1a", "1003": "exports-2a", "1005": "exports"} {
		if got := ExportQueue(OrderKey{Store: "shop", Domain: "shop.example", OrderID: id}, 3); got != want {
			t.Errorf("order %s in %s, want %s", id, got, want)
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

// TestEnqueuerShards: with three shards an order's exports and reprints go to its
// shard, and a cancel deletes them there.
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
	used := map[string]bool{}
	for i := range 12 {
		o := testOrder("1.a", "2.b")
		o.OrderID = fmt.Sprint("o-", i)
		k := OrderKey{Store: "s", Domain: o.Domain, OrderID: o.OrderID}
		want := ExportQueue(k, 3)
		used[want] = true
		res, err := e.ExportOrder(ctx, "s", o)
		if err != nil || len(res.Tasks) != 2 {
			t.Fatalf("export %s: %+v %v", k, res, err)
		}
		for _, task := range res.Tasks {
			info, err := insp.GetTaskInfo(want, task.TaskID)
			if err != nil || task.Queue != want || info.Type != TypeDesignExport {
				t.Errorf("task %s: reported in %q, want %q: %v %v", task.TaskID, task.Queue, want, info, err)
			}
		}
		rp, _, err := e.Reprint(ctx, Reprint{OrderKey: k, Copies: 1})
		if err != nil || rp.Queue != want {
			t.Errorf("reprint of %s in %q, want %q: %v", k, rp.Queue, want, err)
		}
		if i == 0 {
			c, err := e.CancelOrder(ctx, k)
			if err != nil || c.Removed != 2 {
				t.Errorf("cancel of %s removed %d, want 2: %v", k, c.Removed, err)
			}
		}
	}
	if len(used) < 2 {
		t.Errorf("12 orders all in %v", used)
	}
}
