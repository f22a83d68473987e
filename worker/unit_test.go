package worker

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/internal/testredis"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/storage"
)

func TestClassify(t *testing.T) {
	cases := []struct {
		name        string
		err         error
		outcome     string
		skipRetry   bool
		rateLimited time.Duration
	}{
		{"success", nil, OutcomeSuccess, false, 0},
		{"hub 400", &hub.Error{Op: hub.OpCreateOrder, Status: 400, Body: "bad email"}, OutcomePermanent, true, 0},
		{"hub 404 wrapped", fmt.Errorf("design 9: %w", &hub.Error{Op: hub.OpGetDesign, Status: 404}), OutcomePermanent, true, 0},
		{"hub 503", &hub.Error{Status: 503}, OutcomeRetry, false, 0},
		{"hub network", &hub.Error{Err: errors.New("connection reset")}, OutcomeRetry, false, 0},
		{"hub 429 with Retry-After", &hub.Error{Status: http.StatusTooManyRequests, Retry: 7 * time.Second}, OutcomeRateLimited, false, 7 * time.Second},
		{"hub 429 without", &hub.Error{Status: http.StatusTooManyRequests}, OutcomeRateLimited, false, defaultRateLimitWait},
		{"render input", &render.InputError{Reason: "unknown area"}, OutcomePermanent, true, 0},
		{"typed transient", transientErr{}, OutcomeRetry, false, 0},
		{"budget", &PermanentError{Reason: "too big"}, OutcomePermanent, true, 0},
		{"unclassified", errors.New("something"), OutcomeRetry, false, 0},
		{"shutdown", fmt.Errorf("x: %w", context.Canceled), OutcomeCanceled, false, 0},
		{"already skip", fmt.Errorf("bad: %w", asynq.SkipRetry), OutcomePermanent, true, 0},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			outcome, err := classify(c.err)
			if outcome != c.outcome {
				t.Errorf("outcome %s, want %s", outcome, c.outcome)
			}
			if errors.Is(err, asynq.SkipRetry) != c.skipRetry {
				t.Errorf("SkipRetry %v, want %v (%v)", !c.skipRetry, c.skipRetry, err)
			}
			if c.err != nil && !errors.Is(err, c.err) && !strings.Contains(err.Error(), c.err.Error()) {
				t.Errorf("the reason was lost: %v", err)
			}
			var rl *RateLimitedError
			if got := errors.As(err, &rl); got != (c.rateLimited > 0) || got && rl.After != c.rateLimited {
				t.Errorf("rate limited %v (%v), want %v", got, err, c.rateLimited)
			}
			if c.err != nil && isFailure(err) == (c.rateLimited > 0) {
				t.Errorf("isFailure %v for %v", isFailure(err), err)
			}
		})
	}
}

func TestRetryDelay(t *testing.T) {
	b := Backoff{Base: time.Second, Max: time.Minute}
	for n := range 40 {
		d := b.retryDelay(n, errors.New("x"), nil)
		want := min(time.Second<<min(n, 30), time.Minute)
		if d < want/2 || d > want {
			t.Errorf("retry %d: %s outside [%s, %s]", n, d, want/2, want)
		}
	}
	rl := &RateLimitedError{After: 10 * time.Second}
	if d := b.retryDelay(3, rl, nil); d < 10*time.Second || d > 11*time.Second {
		t.Errorf("rate limited delay %s, want 10s plus at most 10%%", d)
	}
	if d := b.retryDelay(5, asynq.ErrLeaseExpired, nil); d != time.Second {
		t.Errorf("lease expired delay %s, want 1s", d)
	}
}

func TestBudget(t *testing.T) {
	b := NewBudget(100)
	ctx := context.Background()
	if _, err := b.Acquire(ctx, 101); err == nil || !strings.Contains(err.Error(), "memory budget") {
		t.Fatalf("over-budget render: %v", err)
	} else if r, ok := err.(interface{ Retryable() bool }); !ok || r.Retryable() {
		t.Errorf("over-budget render is retryable: %v", err)
	}
	r1, err := b.Acquire(ctx, 60)
	if err != nil {
		t.Fatal(err)
	}
	if b.InUse() != 60 {
		t.Errorf("in use %d", b.InUse())
	}
	// 50 more do not fit while 60 are held: the wait ends with its context.
	cctx, cancel := context.WithCancel(ctx)
	got := make(chan error, 1)
	go func() {
		_, err := b.Acquire(cctx, 50)
		got <- err
	}()
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("blocked acquire: %v", err)
	}
	r1()
	r1() // releasing twice is harmless
	r2, err := b.Acquire(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	r2()
	if b.InUse() != 0 {
		t.Errorf("in use %d after release", b.InUse())
	}
}

func TestLimiterSharesTheBucket(t *testing.T) {
	rs := testredis.Start(t)
	if rs.Kind == "miniredis" {
		t.Skip("the bucket script reads the Redis clock (TIME), which miniredis freezes")
	}
	rdb := rs.Client(t)
	// Two limiters (two workers) over one bucket: 1 token a minute, burst 3.
	rate := func(string) RateLimit { return RateLimit{PerMinute: 1, Burst: 3} }
	a, b := NewLimiter(rdb, "t", rate), NewLimiter(rdb, "t", rate)
	ctx := context.Background()
	for i, l := range []*Limiter{a, b, a} {
		if err := l.Wait(ctx, "s1"); err != nil {
			t.Fatalf("call %d within the burst: %v", i, err)
		}
	}
	// The fourth call must wait about a minute; its context ends first.
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if err := b.Wait(cctx, "s1"); !errors.Is(err, context.Canceled) {
		t.Fatalf("fourth call: %v, want to wait", err)
	}
	// Another store has its own bucket.
	if err := b.Wait(ctx, "s2"); err != nil {
		t.Fatalf("other store: %v", err)
	}
	// No limit configured: never waits.
	free := NewLimiter(rdb, "t", func(string) RateLimit { return RateLimit{} })
	for range 10 {
		if err := free.Wait(cctx, "s1"); err != nil {
			t.Fatal(err)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	if err := (Config{}).Validate(); err != nil {
		t.Fatalf("zero config with defaults: %v", err)
	}
	bad := Config{
		Mode: "print", Modes: map[string]string{"s": "fax"}, Queues: map[string]int{"orders": 0},
		Timeouts: map[string]time.Duration{"design:export": 100 * time.Millisecond}, FileDate: "tomorrow",
		Layout: storage.Layout{Pattern: "{nope}/{filename}"}, Backoff: Backoff{Base: time.Minute, Max: time.Second},
	}
	err := bad.Validate()
	for _, want := range []string{"print", "fax", "orders", "design:export", "tomorrow", "layout", "backoff"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v does not report %q", err, want)
		}
	}
}

type transientErr struct{}

func (transientErr) Error() string   { return "store unavailable" }
func (transientErr) Retryable() bool { return true }
