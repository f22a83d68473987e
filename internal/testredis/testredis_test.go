package testredis

import (
	"context"
	"fmt"
	"testing"
)

func TestStartServesCommands(t *testing.T) {
	for _, mode := range []string{"", "embedded"} {
		t.Run("mode="+mode, func(t *testing.T) {
			t.Setenv("PRINTWORKER_TEST_REDIS", mode)
			s := Start(t)
			c := s.Client(t)
			ctx := context.Background()
			if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
				t.Fatalf("%s: set: %v", s.Kind, err)
			}
			got, err := c.Get(ctx, "k").Result()
			if err != nil || got != "v" {
				t.Fatalf("%s: get = %q, %v", s.Kind, got, err)
			}
			if mode == "embedded" && s.Kind != "miniredis" {
				t.Fatalf("embedded mode gave %s", s.Kind)
			}
		})
	}
}

// TestStartCluster: the three nodes hold every slot, and keys of different hash tags
// land on different nodes.
func TestStartCluster(t *testing.T) {
	t.Parallel()
	c := StartCluster(t)
	rdb := c.Client(t)
	ctx := context.Background()
	shards, err := rdb.ClusterShards(ctx).Result()
	if err != nil {
		t.Fatal(err)
	}
	covered := 0
	owner := map[int64]string{} // first slot of each range -> node
	type span struct{ start, end int64 }
	var spans []span
	for _, sh := range shards {
		for _, r := range sh.Slots {
			covered += int(r.End - r.Start + 1)
			owner[r.Start] = sh.Nodes[0].Endpoint + ":" + fmt.Sprint(sh.Nodes[0].Port)
			spans = append(spans, span{r.Start, r.End})
		}
	}
	if len(shards) != 3 || covered != 16384 {
		t.Fatalf("shards %+v: want 3 covering 16384 slots", shards)
	}
	nodes := map[string]bool{}
	for i := range 20 {
		key := fmt.Sprintf("{k%d}", i)
		if err := rdb.Set(ctx, key, "v", 0).Err(); err != nil {
			t.Fatal(err)
		}
		slot, err := rdb.ClusterKeySlot(ctx, key).Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range spans {
			if s.start <= slot && slot <= s.end {
				nodes[owner[s.start]] = true
			}
		}
	}
	if len(nodes) < 2 {
		t.Errorf("20 hash tags on %d node(s)", len(nodes))
	}
}
