package worker

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultRateLimitMaxWait is how long a task may wait inside its slot for its
// store's next hub token; a longer wait sends it back to the queue (DeferredError).
const DefaultRateLimitMaxWait = 3 * time.Second

// Limiter is a per-store rate limit shared by every worker of the fleet through
// Redis, as GCRA: one key per store holds the theoretical arrival time (TAT) of the
// next call, and one Lua script on the Redis clock (so workers with skewed clocks
// agree) reserves the next token and answers how long until it is due. The caller
// sleeps that long once: one script call per hub call, no polling.
//
// A reservation is not given back: a wait cancelled by its context (shutdown, the
// attempt's timeout) leaves its token unused, and the bucket one call short for that
// instant. The waits that can be cancelled are at most MaxWait long, so this costs at
// most one call's worth of a store's rate per cancelled wait; giving tokens back would
// need a reservation id per waiter and a second script call, against the one call per
// hub call the limiter is built for.
type Limiter struct {
	rdb    redis.UniversalClient
	prefix string
	rate   func(store string) RateLimit
	// maxWait bounds the wait of a call that may defer its task (attempt.deferrable).
	maxWait time.Duration
	// sleep waits d or until ctx ends (reporting whether all of d passed); now is
	// the local clock. Tests make both instant.
	sleep func(ctx context.Context, d time.Duration) bool
	now   func() time.Time
	// observe reports each wait (0 when a token was free).
	observe func(store string, waited time.Duration)
	// calls counts script calls (for the metrics and tests).
	calls atomic.Int64

	mu   sync.Mutex
	seen map[string]*storeView
}

// storeView is what this worker knows of a store's bucket from its own script calls:
// tat is a lower bound of the store's TAT on the local clock (the TAT only moves
// forward, by reservations), so a call the bound already puts more than MaxWait away
// is deferred without asking Redis. deferTo spreads this worker's deferred tasks over
// the tokens to come, one token apart, instead of sending them all back at once.
type storeView struct {
	tat     time.Time
	deferTo time.Time
}

// reserveScript reserves the store's next token if it is due within ARGV[3]
// microseconds (-1: whatever the wait). KEYS[1]: the store's TAT (microseconds on
// the Redis clock). ARGV: microseconds per token, burst, max wait.
// Returns {reserved 0/1, microseconds until the token is due, TAT - now after}.
var reserveScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
local interval, burst, maxwait = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local tat = tonumber(redis.call('GET', KEYS[1])) or now
if tat < now then tat = now end
local delay = math.max(0, tat + interval - burst * interval - now)
if maxwait >= 0 and delay > maxwait then
  return {0, math.floor(delay), math.floor(tat - now)}
end
tat = tat + interval
redis.call('SET', KEYS[1], string.format('%d', math.floor(tat + 0.5)), 'PX', math.ceil((tat - now) / 1000) + 1000)
return {1, math.floor(delay), math.floor(tat - now)}
`)

// NewLimiter returns a limiter whose per-store settings come from rate; a call that
// may defer its task waits at most maxWait (<= 0: DefaultRateLimitMaxWait).
func NewLimiter(rdb redis.UniversalClient, prefix string, rate func(store string) RateLimit) *Limiter {
	return &Limiter{rdb: rdb, prefix: prefix, rate: rate, maxWait: DefaultRateLimitMaxWait,
		sleep: sleep, now: time.Now, observe: func(string, time.Duration) {}, seen: map[string]*storeView{}}
}

// Wait reserves the store's next hub token and sleeps until it is due, or ctx ends.
//
// When ctx carries a task attempt that may still be deferred (its first limited
// call, not its last try: attempt.deferrable) and the token is more than MaxWait
// away, nothing is reserved and Wait returns a DeferredError: the task goes back to
// the queue for about that long, counting no retry, and its slot serves other work.
// Later calls of an attempt reserve whatever the wait: deferring a task halfway would
// throw away the tokens it has used and, under a flood, could do so forever. A
// reservation that cannot be due before ctx's deadline is not made either.
func (l *Limiter) Wait(ctx context.Context, store string) error {
	r := l.rate(store)
	if r.PerMinute <= 0 {
		return nil
	}
	a := attemptFrom(ctx)
	deferrable := a.deferrable() && l.maxWait >= 0
	maxWait := time.Duration(-1)
	if deferrable {
		maxWait = l.maxWait
	}
	start := l.now()
	if dl, ok := ctx.Deadline(); ok {
		if left := dl.Sub(start); maxWait < 0 || left < maxWait {
			maxWait = max(left, 0)
		}
	}
	interval := time.Duration(float64(time.Minute) / r.PerMinute)
	if deferrable {
		// The local lower bound of the store's TAT may already say no: no call.
		if wait := l.knownWait(store, start, interval, r.Burst); wait > maxWait {
			return l.deferred(store, start, wait, interval, maxWait)
		}
	}
	// Not the key of the token bucket this limiter replaced (a hash under
	// ":ratelimit:{store}"): workers of both versions running during a rolling
	// update each keep their own limit instead of failing on the other's type.
	key := l.prefix + ":ratelimit:{" + store + "}:gcra"
	limit := int64(-1) // reserve whatever the wait
	if maxWait >= 0 {
		limit = int64(maxWait / time.Microsecond)
	}
	l.calls.Add(1)
	res, err := reserveScript.Run(ctx, l.rdb, []string{key},
		strconv.FormatFloat(float64(interval)/float64(time.Microsecond), 'f', 3, 64), r.Burst, limit).Int64Slice()
	if err != nil {
		return fmt.Errorf("rate limit of store %s: %w", store, err)
	}
	if len(res) != 3 {
		return fmt.Errorf("rate limit of store %s: script answered %v", store, res)
	}
	wait := time.Duration(res[1]) * time.Microsecond
	l.learn(store, start, time.Duration(res[2])*time.Microsecond)
	if res[0] == 0 {
		if !a.requeueable() {
			// Only the deadline refused, and the task cannot go back uncounted (a
			// call outside a task, or its last try): it fails as a wait past the
			// deadline would have.
			return fmt.Errorf("rate limit of store %s: next token in %s, past the deadline: %w", store, wait.Round(time.Millisecond), context.DeadlineExceeded)
		}
		return l.deferred(store, start, wait, interval, maxWait)
	}
	a.reserved()
	if wait > 0 && !l.sleep(ctx, wait) {
		l.observe(store, l.now().Sub(start))
		return fmt.Errorf("waiting for the rate limit of store %s: %w", store, ctx.Err())
	}
	l.observe(store, wait)
	return nil
}

// knownWait is the wait for the store's next token that this worker's own calls
// already prove (0 when it knows nothing).
func (l *Limiter) knownWait(store string, now time.Time, interval time.Duration, burst int) time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	v := l.seen[store]
	if v == nil {
		return 0
	}
	return max(0, v.tat.Add(interval-time.Duration(burst)*interval).Sub(now))
}

// learn records the TAT a script call saw, on the local clock as of the call's
// start: earlier than the true instant by the call's latency, so a lower bound.
func (l *Limiter) learn(store string, sent time.Time, tatFromNow time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	v := l.seen[store]
	if v == nil {
		v = &storeView{}
		l.seen[store] = v
	}
	if t := sent.Add(tatFromNow); t.After(v.tat) {
		v.tat = t
	}
}

// deferred builds the DeferredError of a call whose token is wait away: the task is
// to come back when its token is about maxWait/2 from due, each deferral of this
// worker one token later than the one before, so deferred tasks return one by one.
func (l *Limiter) deferred(store string, now time.Time, wait, interval, maxWait time.Duration) error {
	l.mu.Lock()
	v := l.seen[store]
	if v == nil {
		v = &storeView{}
		l.seen[store] = v
	}
	due := now.Add(wait)
	if v.deferTo.After(due) {
		due = v.deferTo
	}
	v.deferTo = due.Add(interval)
	l.mu.Unlock()
	after := max(due.Sub(now)-max(maxWait, 0)/2, interval, time.Millisecond)
	return &DeferredError{Reason: "rate limit of store " + store, After: after}
}
