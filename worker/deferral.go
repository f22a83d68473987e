package worker

import (
	"context"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hibiken/asynq"
)

// DeferredError sends a task back to its queue for After without doing its work and
// without counting a retry: its store's next hub token is too far away
// (Config.RateLimitMaxWait), or its store already holds its share of this worker's
// slots (Config.StoreShare). The task keeps its id, payload and retry count: asynq
// moves it to the retry set due in After, and Config.IsFailure (isFailure) tells it
// not to count the attempt, as for a hub 429. It is only returned while the task has
// retries left (attempt.requeue): asynq archives a task that errs on its last try,
// counted or not.
type DeferredError struct {
	Reason string
	After  time.Duration
}

func (e *DeferredError) Error() string {
	return fmt.Sprintf("deferred for %s: %s", e.After.Round(time.Millisecond), e.Reason)
}
func (e *DeferredError) Retryable() bool           { return true }
func (e *DeferredError) RetryAfter() time.Duration { return e.After }

// attempt is what the limiter and the store shares know of the task attempt a
// context belongs to.
type attempt struct {
	// requeue: the task can go back to its queue uncounted (run by the server, with
	// retries left).
	requeue bool
	// calls counts the attempt's reserved hub tokens.
	calls atomic.Int32
}

type attemptKey struct{}

// withAttempt marks ctx as a task attempt run by the server; retried and maxRetry
// are asynq's (ok: they were in ctx).
func withAttempt(ctx context.Context) (context.Context, *attempt) {
	retried, ok1 := asynq.GetRetryCount(ctx)
	maxRetry, ok2 := asynq.GetMaxRetry(ctx)
	a := &attempt{requeue: ok1 && ok2 && retried < maxRetry}
	return context.WithValue(ctx, attemptKey{}, a), a
}

func attemptFrom(ctx context.Context) *attempt {
	a, _ := ctx.Value(attemptKey{}).(*attempt)
	return a
}

// requeueable: a nil attempt (a call outside a task) cannot be requeued.
func (a *attempt) requeueable() bool { return a != nil && a.requeue }

// deferrable: the attempt may still go back to the queue without losing work (it
// has reserved no hub token yet).
func (a *attempt) deferrable() bool { return a.requeueable() && a.calls.Load() == 0 }

func (a *attempt) reserved() {
	if a != nil {
		a.calls.Add(1)
	}
}

// DefaultStoreShareRetry is how long a task over its store's share waits in the queue.
const DefaultStoreShareRetry = 5 * time.Second

// storeShareWindow is how long a store counts as having work on a worker after one
// of its tasks started there.
const storeShareWindow = 30 * time.Second

// storeShareWait is how long a task over its store's share waits in its slot for one
// of the store's tasks here to end before it goes back to the queue. Without it the
// freed slot fetches again at once, most often another task of the same flood, which
// goes back too: the round trips cost Redis a dozen commands each, hundreds a second
// per worker. Waiting a second bounds that to one a second per slot, and the slot
// was not free for another store's work anyway.
const storeShareWait = time.Second

// storeShares counts this worker's running tasks per store and holds a store at its
// share of the worker's slots while another store has work here: one of its tasks
// runs, or started within storeShareWindow. A store alone is not capped, so the cap
// binds only when it keeps slots from another store's tasks; a flood that fills a
// worker before anyone else comes is capped from the first task of another store
// (its tasks then end and free slots for that store). The count is local: every
// worker keeps its own, so a flooding store holds at most its share of the fleet's
// slots wherever other stores have work, with no Redis call and nothing left behind
// by a worker that dies.
type storeShares struct {
	max  int // per store; 0: no cap
	now  func() time.Time
	mu   sync.Mutex
	n    map[string]int
	seen map[string]time.Time // when a store's task last started here
	// freed is closed (and replaced) when a task releases its slot.
	freed chan struct{}
}

// newStoreShares caps each store at share of concurrency slots (at least one);
// share <= 0 or >= 1: no cap.
func newStoreShares(share float64, concurrency int) *storeShares {
	s := &storeShares{n: map[string]int{}, seen: map[string]time.Time{}, now: time.Now, freed: make(chan struct{})}
	if share > 0 && share < 1 {
		s.max = max(1, int(math.Floor(share*float64(concurrency))))
	}
	return s
}

// othersActive reports whether a store other than store has work here; it forgets
// stores not seen within the window.
func (s *storeShares) othersActive(store string, now time.Time) bool {
	active := false
	for other, at := range s.seen {
		switch {
		case other == store:
		case s.n[other] > 0 || now.Sub(at) < storeShareWindow:
			active = true
		default:
			delete(s.seen, other)
		}
	}
	return active
}

// acquire takes a slot for store; force takes it even over the cap (a task that
// cannot be deferred). It returns the release, or nil when store is at its share
// while another store has work here.
func (s *storeShares) acquire(store string, force bool) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	if s.max > 0 && s.n[store] >= s.max && !force && s.othersActive(store, now) {
		return nil
	}
	s.seen[store] = now
	s.n[store]++
	var once sync.Once
	return func() {
		once.Do(func() {
			s.mu.Lock()
			defer s.mu.Unlock()
			if s.n[store]--; s.n[store] <= 0 {
				delete(s.n, store)
			}
			close(s.freed)
			s.freed = make(chan struct{})
		})
	}
}

// acquireWithin is acquire, waiting up to wait for a slot of the store to be
// released while it is at its share. It returns nil when the wait ends (or ctx does)
// first.
func (s *storeShares) acquireWithin(ctx context.Context, store string, force bool, wait time.Duration) func() {
	timer := time.NewTimer(wait)
	defer timer.Stop()
	for {
		s.mu.Lock()
		freed := s.freed
		s.mu.Unlock()
		if release := s.acquire(store, force); release != nil {
			return release
		}
		select {
		case <-freed:
		case <-timer.C:
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}
