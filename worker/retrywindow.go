package worker

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/jobs"
)

// DefaultExportRetryWindow is how long a design export keeps being retried after its
// first failure before it is archived: a hub outage of a few hours delays orders
// rather than losing them.
const DefaultExportRetryWindow = 6 * time.Hour

// DefaultRetryWindows bounds the retries of design exports by time. Task types
// without a window keep asynq's count (their MaxRetry).
func DefaultRetryWindows() map[string]time.Duration {
	return map[string]time.Duration{jobs.TypeDesignExport: DefaultExportRetryWindow}
}

// retryWindows is the retry budget of task types that have one as a time window: a
// task is retried until its window, counted from its first failure, has passed, then
// archived. A count of attempts would shrink with the calls an attempt makes (one
// design call and one per view and picture, each able to fail), and asynq keeps the
// count of an archived task, so an operator's retry would get one attempt; a window
// is the same for a design of one view and one of six, and starts again when the
// task is archived (reset), so an operator's retry gets a whole window.
//
// The start lives in Redis, one key per task id (SET NX on the Redis clock), so
// every worker of the fleet measures the same window. Task ids carry the export
// generation: a re-export is a new task with a window of its own.
type retryWindows struct {
	rdb     redis.UniversalClient
	prefix  string
	windows map[string]time.Duration
}

// failedScript notes a failure of a task: the first failure sets the start (kept
// ARGV[1] ms), every failure returns the milliseconds since it.
var failedScript = redis.NewScript(`
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
redis.call('SET', KEYS[1], now, 'NX', 'PX', ARGV[1])
local first = tonumber(redis.call('GET', KEYS[1])) or now
return now - first
`)

func (r *retryWindows) key(taskID string) string { return r.prefix + ":retrywindow:" + taskID }

// failed records a counted failure of a task of type typ and returns how long ago
// its first failure was and its window; window 0: the type has none.
func (r *retryWindows) failed(ctx context.Context, typ, taskID string) (since, window time.Duration, err error) {
	window = r.windows[typ]
	if window <= 0 || taskID == "" {
		return 0, 0, nil
	}
	// Kept past the window, so a task waiting out 429s after it still finds it.
	keep := strconv.FormatInt((2*window + time.Hour).Milliseconds(), 10)
	// The attempt's own context may be what ended it (its timeout): the record must
	// still be made.
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	ms, err := failedScript.Run(ctx, r.rdb, []string{r.key(taskID)}, keep).Int64()
	if err != nil {
		return 0, window, fmt.Errorf("retry window of task %s: %w", taskID, err)
	}
	return time.Duration(ms) * time.Millisecond, window, nil
}

// reset forgets a task's window: it was archived, and an operator's retry of it gets
// a whole window again.
func (r *retryWindows) reset(ctx context.Context, typ, taskID string) error {
	if r.windows[typ] <= 0 || taskID == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	return r.rdb.Del(ctx, r.key(taskID)).Err()
}

// ExhaustedError is a transient failure that came after the task's retry window had
// passed: the task is archived with it (it wraps asynq.SkipRetry).
type ExhaustedError struct {
	Since, Window time.Duration
	Err           error
}

func (e *ExhaustedError) Error() string {
	return fmt.Sprintf("%v (still failing %s after the first failure; retry window %s: archived, retry it by hand once the cause is fixed)",
		e.Err, e.Since.Round(time.Second), e.Window)
}
func (e *ExhaustedError) Unwrap() []error { return []error{e.Err, asynq.SkipRetry} }

// Retryable is false: the window has passed.
func (e *ExhaustedError) Retryable() bool { return false }

// applyWindow turns a counted transient failure into an archived one when the task's
// retry window has passed. A 429 is never counted (it waits Retry-After, however late
// in the window it comes), nor is anything permanent already.
func (w *Worker) applyWindow(ctx context.Context, typ, outcome string, err error) (string, error) {
	if outcome != OutcomeRetry && !(outcome == OutcomeCanceled && errors.Is(err, context.DeadlineExceeded)) {
		return outcome, err
	}
	id, _ := asynq.GetTaskID(ctx)
	since, window, werr := w.windows.failed(ctx, typ, id)
	if werr != nil {
		// Without the record, keep retrying: losing work is worse than a late archive.
		w.logger(ctx).WarnContext(ctx, "retry window not recorded", "err", werr)
		return outcome, err
	}
	if window > 0 && since >= window {
		return OutcomePermanent, &ExhaustedError{Since: since, Window: window, Err: err}
	}
	return outcome, err
}
