package worker_test

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/worker"
)

// TestSteadyStateDialsNoConnectionPerOrder: a worker whose Redis pool keeps the
// default idle connections (worker.RedisIdleConns of its slots) dials what its first
// batch of orders needs and then no more: a second batch of the same size opens far
// fewer connections than it has orders (with one idle connection, the former default,
// about 13 an order). Counted by the private redis-server (INFO
// total_connections_received); the test's own client keeps every connection it opens.
func TestSteadyStateDialsNoConnectionPerOrder(t *testing.T) {
	t.Parallel()
	const slots = 6
	e := newEnv(t, func(c *worker.Config, d *worker.Deps) {
		c.Concurrency = slots
		rdb := redis.NewClient(&redis.Options{Addr: e0(d).Options().Addr, DB: e0(d).Options().DB,
			MaxIdleConns: worker.RedisIdleConns(slots)})
		t.Cleanup(func() { rdb.Close() })
		d.Redis = rdb
	})
	if e.redis.Kind != "redis-server" {
		t.Skip("needs a real redis-server (INFO stats), not " + e.redis.Kind)
	}
	e.start()
	ctx := context.Background()
	const orders = 20
	batch := func(name string) {
		for i := range orders {
			if _, err := e.enq.ExportOrder(ctx, store, e.order(fmt.Sprintf("%s-%d", name, i), 1002)); err != nil {
				t.Fatal(err)
			}
		}
		for i := range orders {
			e.manifest(fmt.Sprintf("%s-%d", name, i), 1)
		}
		e.waitQueuesIdle()
	}
	batch("WARM")
	before := connectionsReceived(t, e.rdb)
	batch("STEADY")
	opened := connectionsReceived(t, e.rdb) - before
	t.Logf("%d orders in steady state opened %d Redis connections", orders, opened)
	if opened*5 > orders {
		t.Errorf("%d orders opened %d new Redis connections in steady state: want well under one an order", orders, opened)
	}
}

// e0 is the harness's Redis client, as newEnv passed it in deps.
func e0(d *worker.Deps) *redis.Client { return d.Redis.(*redis.Client) }

// connectionsReceived reads INFO stats' total_connections_received.
func connectionsReceived(t *testing.T, rdb redis.UniversalClient) int {
	t.Helper()
	info, err := rdb.Info(context.Background(), "stats").Result()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "total_connections_received:"); ok {
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("INFO stats has no total_connections_received")
	return 0
}
