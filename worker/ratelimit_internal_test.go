package worker

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/internal/testredis"
)

// commandCounter is a go-redis hook counting the commands a client sends, by name.
type commandCounter struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *commandCounter) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *commandCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.add(cmd)
		return next(ctx, cmd)
	}
}
func (c *commandCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			c.add(cmd)
		}
		return next(ctx, cmds)
	}
}
func (c *commandCounter) add(cmd redis.Cmder) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[strings.ToLower(cmd.Name())]++
}
func (c *commandCounter) total() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := 0
	for name, v := range c.n {
		if !connSetup[name] {
			n += v
		}
	}
	return n
}

// connSetup are the commands go-redis sends when it dials a connection (through the
// same hooks): the pool's cost, which depends on its idle settings and on how many
// callers run at once, not on the limiter. The tests count them apart.
var connSetup = map[string]bool{"hello": true, "client": true, "ping": true}

// limiterClients are the Redis setups the limiter runs on: one server and a Redis
// Cluster (its script declares its one key, so it runs on whichever node owns it).
func limiterClients(t *testing.T) map[string]func(t *testing.T) redis.UniversalClient {
	return map[string]func(t *testing.T) redis.UniversalClient{
		"server": func(t *testing.T) redis.UniversalClient {
			rs := testredis.Start(t)
			if rs.Kind == "miniredis" {
				t.Skip("the limiter's script reads the Redis clock (TIME), which miniredis freezes")
			}
			return rs.Client(t)
		},
		"cluster": func(t *testing.T) redis.UniversalClient { return testredis.StartCluster(t).Client(t) },
	}
}

// instantSleeps makes a limiter's sleeps instant and records each reserved call's
// wait (0: a free token).
func instantSleeps(l *Limiter) *[]time.Duration {
	var mu sync.Mutex
	slept := &[]time.Duration{}
	l.sleep = func(ctx context.Context, d time.Duration) bool { return ctx.Err() == nil }
	l.observe = func(_ string, d time.Duration) {
		mu.Lock()
		*slept = append(*slept, d)
		mu.Unlock()
	}
	return slept
}

func taskCtx(requeue bool) context.Context {
	return context.WithValue(context.Background(), attemptKey{}, &attempt{requeue: requeue})
}

// TestLimiterReservesOneCallPerHubCall: a burst of 100 hub calls of one store costs
// one script call each (plus the script's one load), however long each waits: the
// waiters reserve their tokens and sleep once, one token apart.
func TestLimiterReservesOneCallPerHubCall(t *testing.T) {
	t.Parallel()
	for name, client := range limiterClients(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rdb := client(t)
			count := &commandCounter{}
			rdb.AddHook(count)
			l := NewLimiter(rdb, "t", func(string) RateLimit { return RateLimit{PerMinute: 60, Burst: 10} })
			slept := instantSleeps(l)
			ctx := context.Background()
			// The script is loaded once per Redis node (the first EVALSHA is answered
			// NOSCRIPT, then EVAL); the pool's connections are dialled (HELLO, CLIENT
			// SETINFO) as the burst needs them, which total() leaves out.
			if err := reserveScript.Load(ctx, rdb).Err(); err != nil {
				t.Fatal(err)
			}
			before := count.total()
			const calls = 100
			var wg sync.WaitGroup
			var failed atomic.Int32
			for range calls {
				wg.Go(func() {
					if err := l.Wait(ctx, "flood"); err != nil {
						failed.Add(1)
						t.Error(err)
					}
				})
			}
			wg.Wait()
			redisCalls := count.total() - before
			t.Logf("%d hub calls of one store: %d Redis commands (%.2f per hub call), all: %v", calls, redisCalls, float64(redisCalls)/calls, count.n)
			if redisCalls > calls*12/10 {
				t.Errorf("%d Redis commands for %d hub calls: want at most 1.2 per call", redisCalls, calls)
			}
			// Reservations, not a free-for-all: the burst's 10 are free, the others wait one token more each, the last about
			// 90 s (less what the test's own run took on the Redis clock).
			s := slices.Clone(*slept)
			slices.Sort(s)
			if len(s) != calls {
				t.Fatalf("%d waits, want %d", len(s), calls)
			}
			free := 0
			for _, d := range s {
				if d == 0 {
					free++
				}
			}
			if free != 10 {
				t.Errorf("%d calls waited nothing, want the burst of 10", free)
			}
			for i := 1; i < len(s); i++ {
				if s[i] > 0 && s[i] == s[i-1] {
					t.Errorf("two calls reserved the same token (wait %s)", s[i])
				}
			}
			if last := s[len(s)-1]; last > 90*time.Second || last < 80*time.Second {
				t.Errorf("the last of 100 calls at 1/s with a burst of 10 waits %s, want about 90s", last)
			}
		})
	}
}

// TestLimiterDefers: a task's first hub call whose token is further than MaxWait
// reserves nothing and defers the task; once this worker has seen the bucket that
// far ahead it defers without asking Redis; a task's later calls and its last try
// reserve whatever the wait.
func TestLimiterDefers(t *testing.T) {
	t.Parallel()
	for name, client := range limiterClients(t) {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			rdb := client(t)
			count := &commandCounter{}
			rdb.AddHook(count)
			l := NewLimiter(rdb, "t", func(string) RateLimit { return RateLimit{PerMinute: 60, Burst: 2} })
			l.maxWait = 3 * time.Second
			slept := instantSleeps(l)
			// Burst 2, then 1 s, 2 s, 3 s: five tasks reserve (within 3 s).
			for i := range 5 {
				if err := l.Wait(taskCtx(true), "s"); err != nil {
					t.Fatalf("task %d: %v", i, err)
				}
			}
			if got := (*slept)[4]; got < 2*time.Second || got > 3*time.Second {
				t.Fatalf("fifth task waits %s, want about 3s", got)
			}
			// The sixth's token is about 4 s away: deferred, nothing reserved. This
			// worker saw the bucket that far ahead: it asks Redis nothing.
			before := count.total()
			err := l.Wait(taskCtx(true), "s")
			var de *DeferredError
			if !errors.As(err, &de) {
				t.Fatalf("sixth task: %v, want deferred", err)
			}
			if isFailure(err) || de.After <= 0 {
				t.Errorf("deferral %v: want no failure and a delay", err)
			}
			if n := count.total() - before; n != 0 {
				t.Errorf("a deferral the worker already knew sent %d Redis commands", n)
			}
			// Another worker, which knows nothing yet, asks once and is refused; its
			// next task is deferred without a call, a token after the first.
			other := NewLimiter(rdb, "t", l.rate)
			other.maxWait = l.maxWait
			instantSleeps(other)
			var de1, de2 *DeferredError
			if err := other.Wait(taskCtx(true), "s"); !errors.As(err, &de1) {
				t.Fatalf("other worker's task: %v, want deferred", err)
			}
			if err := other.Wait(taskCtx(true), "s"); !errors.As(err, &de2) {
				t.Fatalf("other worker's second task: %v, want deferred", err)
			}
			if n := other.calls.Load(); n != 1 {
				t.Errorf("the other worker made %d script calls for two deferrals, want 1", n)
			}
			if de2.After-de1.After < 900*time.Millisecond {
				t.Errorf("deferrals come back after %s and %s: want a token apart", de1.After, de2.After)
			}
			// Nothing was reserved by the deferrals: a task on its last try (not
			// deferrable) gets the sixth token, about 4 s away.
			if err := l.Wait(taskCtx(false), "s"); err != nil {
				t.Fatal(err)
			}
			if got := (*slept)[len(*slept)-1]; got < 3*time.Second || got > 4*time.Second {
				t.Errorf("last try waits %s, want about 4s (the deferrals reserved nothing)", got)
			}
			// A task that already called the hub reserves too (about 5 s).
			a := &attempt{requeue: true}
			a.calls.Store(1)
			if err := l.Wait(context.WithValue(context.Background(), attemptKey{}, a), "s"); err != nil {
				t.Fatal(err)
			}
			if got := (*slept)[len(*slept)-1]; got < 4*time.Second || got > 5*time.Second {
				t.Errorf("a task's second call waits %s, want about 5s", got)
			}
			// A call outside a task whose token comes after its deadline fails as a
			// wait past the deadline would, and reserves nothing.
			dctx, cancel := context.WithTimeout(context.Background(), time.Second)
			defer cancel()
			if err := l.Wait(dctx, "s"); !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("call past its deadline: %v", err)
			}
			// Every key the limiter wrote expires.
			keys := map[string]bool{}
			forEachNode(t, rdb, func(c *redis.Client) {
				iter := c.Scan(context.Background(), 0, "t:*", 0).Iterator()
				for iter.Next(context.Background()) {
					k := iter.Val()
					keys[k] = true
					if ttl := c.PTTL(context.Background(), k).Val(); ttl <= 0 {
						t.Errorf("key %s has no TTL (%s)", k, ttl)
					}
				}
			})
			if !keys["t:ratelimit:{s}:gcra"] || len(keys) != 1 {
				t.Errorf("keys %v, want the store's one", keys)
			}
		})
	}
}

// forEachNode runs f on every node of a cluster client, or on the one server.
func forEachNode(t *testing.T, rdb redis.UniversalClient, f func(*redis.Client)) {
	t.Helper()
	switch c := rdb.(type) {
	case *redis.ClusterClient:
		var mu sync.Mutex
		if err := c.ForEachMaster(context.Background(), func(_ context.Context, n *redis.Client) error {
			mu.Lock()
			defer mu.Unlock()
			f(n)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	case *redis.Client:
		f(c)
	default:
		t.Fatalf("client %T", rdb)
	}
}

// TestStoreShares: a store alone takes every slot; while another store has work on
// the worker (a task running, or started within the window) it holds at most its
// share; a task that cannot be deferred takes one over it; releases free them once.
func TestStoreShares(t *testing.T) {
	t.Parallel()
	cases := []struct {
		share       float64
		concurrency int
		want        int // slots one store gets; 0: no cap
	}{
		{0, 10, 0}, {1, 10, 0}, {0.5, 10, 5}, {0.5, 3, 1}, {0.1, 4, 1}, {0.75, 4, 3},
	}
	for _, c := range cases {
		s := newStoreShares(c.share, c.concurrency)
		if s.max != c.want {
			t.Errorf("share %g of %d: %d slots, want %d", c.share, c.concurrency, s.max, c.want)
		}
	}
	// Alone, a store takes every slot, its share or not.
	now := time.Unix(1000, 0)
	s := newStoreShares(0.5, 4)
	s.now = func() time.Time { return now }
	var alone []func()
	for range 4 {
		r := s.acquire("a", false)
		if r == nil {
			t.Fatal("a store alone refused a slot")
		}
		alone = append(alone, r)
	}
	// Another store's task starts: store a gets no slot past its share until b has
	// had no work here for the window.
	alone[3]()
	rb := s.acquire("b", false)
	if rb == nil {
		t.Fatal("another store refused a free slot")
	}
	alone[2]()
	if s.acquire("a", false) != nil {
		t.Error("store a given a third slot of 4 at share 0.5 while store b runs")
	}
	rb()
	now = now.Add(storeShareWindow - time.Second)
	if s.acquire("a", false) != nil {
		t.Error("store a given a slot past its share while store b had work a moment ago")
	}
	forced := s.acquire("a", true)
	if forced == nil {
		t.Fatal("a forced slot refused")
	}
	forced()
	forced() // once only
	if s.n["a"] != 2 {
		t.Errorf("store a holds %d slots, want 2", s.n["a"])
	}
	now = now.Add(2 * time.Second)
	if s.acquire("a", false) == nil {
		t.Error("store a capped after store b's window ended")
	}
	if _, ok := s.seen["b"]; ok {
		t.Error("a store gone for the window is still remembered")
	}
}

// TestStoreShareWait: a task over its store's share takes the slot one of the
// store's tasks here releases while it waits, and goes back to the queue (nil) when
// the wait or its context ends first.
func TestStoreShareWait(t *testing.T) {
	t.Parallel()
	s := newStoreShares(0.5, 4)
	rb := s.acquire("b", false)
	a1, a2 := s.acquire("a", false), s.acquire("a", false)
	if rb == nil || a1 == nil || a2 == nil {
		t.Fatal("slots under the share refused")
	}
	if s.acquireWithin(context.Background(), "a", false, 0) != nil {
		t.Error("a third slot for store a at share 0.5 of 4 beside store b")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if s.acquireWithin(ctx, "a", false, time.Hour) != nil {
		t.Error("a slot given after the context ended")
	}
	got := make(chan func())
	go func() { got <- s.acquireWithin(context.Background(), "a", false, time.Hour) }()
	// Store b comes and goes; then store a releases a slot, which the waiting task takes.
	rb2 := s.acquire("b", false)
	rb2()
	a1()
	r := <-got
	if r == nil {
		t.Fatal("the slot store a released was not taken by its waiting task")
	}
	r()
	a2()
	rb()
	if len(s.n) != 0 {
		t.Errorf("slots still held: %v", s.n)
	}
}
