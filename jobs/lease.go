package jobs

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// ErrLeaseLost is the cause of a Hold's context when the lease expired or another
// holder took it while the work ran (renewals failed for a whole ttl, for example
// while Redis was unreachable).
var ErrLeaseLost = errors.New("lease lost")

// A Lease is a lock in Redis held under a random token with an expiry: one holder at
// a time across the fleet, and a holder that dies stops renewing, so the lock frees
// itself. The gang builders (one per group) hold one.
type Lease struct {
	rdb   redis.UniversalClient
	key   string
	token string
	ttl   time.Duration
}

var (
	renewScript   = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) end return 0`)
	releaseScript = redis.NewScript(`if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`)
)

// TakeLease takes the lease at key for ttl. It returns nil (and no error) when
// another holder has it.
func TakeLease(ctx context.Context, rdb redis.UniversalClient, key string, ttl time.Duration) (*Lease, error) {
	var tok [16]byte
	_, _ = rand.Read(tok[:])
	l := &Lease{rdb: rdb, key: key, token: hex.EncodeToString(tok[:]), ttl: ttl}
	ok, err := rdb.SetNX(ctx, key, l.token, ttl).Result()
	if err != nil {
		return nil, fmt.Errorf("lease %s: %w", key, err)
	}
	if !ok {
		return nil, nil
	}
	return l, nil
}

// Renew extends the lease by its ttl while it is still this holder's; false when it
// was lost.
func (l *Lease) Renew(ctx context.Context) (bool, error) {
	n, err := renewScript.Run(ctx, l.rdb, []string{l.key}, l.token, l.ttl.Milliseconds()).Int()
	if err != nil {
		return false, fmt.Errorf("lease %s: renew: %w", l.key, err)
	}
	return n == 1, nil
}

// Release gives the lease back if this holder still has it. It runs with a context
// of its own (5 s): a cancelled task must not hold the lock for its whole expiry.
func (l *Lease) Release(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := releaseScript.Run(ctx, l.rdb, []string{l.key}, l.token).Err(); err != nil {
		return fmt.Errorf("lease %s: release: %w", l.key, err)
	}
	return nil
}

// Hold runs work while renewing the lease every third of its ttl, then releases it.
// When a renewal finds the lease lost, work's context is cancelled with cause
// ErrLeaseLost and Hold's error wraps it, so a holder whose lock moved on stops
// instead of writing over the new holder's work.
func (l *Lease) Hold(ctx context.Context, work func(context.Context) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	renewing := make(chan struct{})
	go func() {
		defer close(renewing)
		tk := time.NewTicker(l.ttl / 3)
		defer tk.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tk.C:
				if ok, err := l.Renew(ctx); err == nil && !ok {
					cancel(fmt.Errorf("%s: %w", l.key, ErrLeaseLost))
					return
				}
			}
		}
	}()
	err := work(ctx)
	if c := context.Cause(ctx); err != nil && errors.Is(c, ErrLeaseLost) {
		err = fmt.Errorf("%w (%w)", c, err)
	}
	cancel(nil)
	<-renewing
	if rerr := l.Release(ctx); err == nil {
		err = rerr
	}
	return err
}
