package worker

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"
)

// Limiter is a per-store token bucket shared by every worker of the fleet through
// Redis. The bucket lives in one hash per store and is refilled and drawn from in one
// Lua script using Redis's clock, so workers with skewed clocks agree.
type Limiter struct {
	rdb    redis.UniversalClient
	prefix string
	rate   func(store string) RateLimit
	// observe reports each wait (0 when a token was free).
	observe func(store string, waited time.Duration)
}

// takeScript draws one token. KEYS[1]: bucket. ARGV: tokens per ms, burst.
// Returns 0 when a token was taken, else the milliseconds until one is available.
var takeScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local rate, burst = tonumber(ARGV[1]), tonumber(ARGV[2])
local v = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens, ts = tonumber(v[1]), tonumber(v[2])
if tokens == nil or ts == nil then tokens, ts = burst, now end
if now > ts then tokens = math.min(burst, tokens + (now - ts) * rate) end
local wait = 0
if tokens >= 1 then tokens = tokens - 1 else wait = math.ceil((1 - tokens) / rate) end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'ts', tostring(math.max(now, ts)))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate) + 1000)
return wait
`)

// NewLimiter returns a limiter whose per-store settings come from rate.
func NewLimiter(rdb redis.UniversalClient, prefix string, rate func(store string) RateLimit) *Limiter {
	return &Limiter{rdb: rdb, prefix: prefix, rate: rate, observe: func(string, time.Duration) {}}
}

// Wait blocks until the store may make one hub call, or ctx ends. It waits without
// reserving: a woken waiter asks again, so a cancelled waiter costs the others
// nothing.
func (l *Limiter) Wait(ctx context.Context, store string) error {
	r := l.rate(store)
	if r.PerMinute <= 0 {
		return nil
	}
	perMs := strconv.FormatFloat(r.PerMinute/60000, 'g', -1, 64)
	key := l.prefix + ":ratelimit:{" + store + "}"
	start := time.Now()
	for {
		ms, err := takeScript.Run(ctx, l.rdb, []string{key}, perMs, r.Burst).Int64()
		if err != nil {
			return fmt.Errorf("rate limit of store %s: %w", store, err)
		}
		if ms <= 0 {
			l.observe(store, time.Since(start))
			return nil
		}
		t := time.NewTimer(time.Duration(ms) * time.Millisecond)
		select {
		case <-ctx.Done():
			t.Stop()
			l.observe(store, time.Since(start))
			return fmt.Errorf("waiting for the rate limit of store %s: %w", store, ctx.Err())
		case <-t.C:
		}
	}
}
