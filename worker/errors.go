package worker

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/gang/sheetjob"
	"github.com/printworker/printworker/hub"
)

// Outcomes of a task, a small fixed set used as metric label and log attribute.
const (
	OutcomeSuccess     = "success"
	OutcomeSkipped     = "skipped"      // nothing to do: cancelled, superseded, duplicate
	OutcomeRetry       = "retry"        // transient failure, retried with backoff
	OutcomeRateLimited = "rate_limited" // 429: retried after Retry-After, not a failure
	OutcomeDeferred    = "deferred"     // back to the queue before any work: its store's rate limit or share, not a failure
	OutcomePermanent   = "permanent"    // archived with its reason
	OutcomeCanceled    = "canceled"     // shutdown or timeout
)

// RateLimitedError is a hub 429: the task is retried after After without counting
// toward its retry budget (Config.IsFailure).
type RateLimitedError struct {
	After time.Duration
	Err   error
}

func (e *RateLimitedError) Error() string {
	return fmt.Sprintf("rate limited, retry after %s: %v", e.After, e.Err)
}
func (e *RateLimitedError) Unwrap() error             { return e.Err }
func (e *RateLimitedError) Retryable() bool           { return true }
func (e *RateLimitedError) RetryAfter() time.Duration { return e.After }

// PermanentError is a failure of the worker's own making that a retry cannot fix
// (a render larger than the memory budget, a design without views).
type PermanentError struct{ Reason string }

func (e *PermanentError) Error() string   { return e.Reason }
func (e *PermanentError) Retryable() bool { return false }

// defaultRateLimitWait is used for a 429 that names no Retry-After.
const defaultRateLimitWait = 30 * time.Second

// classify maps a handler's error to its outcome and to the error asynq sees:
// permanent errors gain asynq.SkipRetry (archived with the readable reason), a 429
// becomes a RateLimitedError, everything else stays as it is (retried). An error with
// no class is transient, as docs/architecture.md says, except a cancelled context.
func classify(err error) (string, error) {
	var r interface{ Retryable() bool }
	var rl *RateLimitedError
	var de *DeferredError
	switch {
	case err == nil:
		return OutcomeSuccess, nil
	case errors.Is(err, asynq.SkipRetry):
		return OutcomePermanent, err
	case errors.As(err, &de):
		return OutcomeDeferred, err
	case errors.As(err, &rl):
		return OutcomeRateLimited, err
	case hub.IsStatus(err, http.StatusTooManyRequests):
		var he *hub.Error
		errors.As(err, &he)
		after := he.RetryAfter()
		if after <= 0 {
			after = defaultRateLimitWait
		}
		return OutcomeRateLimited, &RateLimitedError{After: after, Err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		// Shutdown or the attempt's timeout: asynq re-queues or retries.
		return OutcomeCanceled, err
	case errors.As(err, &r) && !r.Retryable():
		return OutcomePermanent, fmt.Errorf("%w (%w)", err, asynq.SkipRetry)
	}
	return OutcomeRetry, err
}

// isFailure tells asynq whether an error uses up a retry: a 429 and a deferral do
// not.
func isFailure(err error) bool {
	var rl *RateLimitedError
	var de *DeferredError
	var busy *sheetjob.BusyError
	return err != nil && !errors.As(err, &rl) && !errors.As(err, &de) && !errors.As(err, &busy)
}

// retryDelay is asynq's RetryDelayFunc: the hub's Retry-After for a 429 (and for any
// error that carries one), a prompt retry for a task whose worker died, else capped
// exponential backoff with jitter.
func (b Backoff) retryDelay(n int, err error, _ *asynq.Task) time.Duration {
	var ra interface{ RetryAfter() time.Duration }
	if errors.As(err, &ra) && ra.RetryAfter() > 0 {
		d := ra.RetryAfter()
		return d + time.Duration(rand.Int64N(int64(d/10)+1))
	}
	if errors.Is(err, asynq.ErrLeaseExpired) {
		// The worker died: the work was not at fault, resume it now.
		return time.Second
	}
	return b.delay(n)
}

// delay is Base x 2^n capped at Max, drawn between half and all of it.
func (b Backoff) delay(n int) time.Duration {
	d := b.Max
	if n < 30 {
		d = min(b.Base<<n, b.Max)
	}
	return d/2 + time.Duration(rand.Int64N(int64(d/2)+1))
}
