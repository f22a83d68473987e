package worker

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// HubRetry bounds the retries of idempotent hub reads (design details, view exports,
// media, a template) inside one task attempt. A flaky hub then costs a moment, not an
// attempt: an export that makes one design call and a dozen media and view calls
// would otherwise need every one of them to succeed in the same attempt.
type HubRetry struct {
	// Tries per call, the first included; default 5. 1 sends each call once.
	Tries int
	// Base is the delay after the first failed try, doubled per try up to Max, each
	// drawn between half and all of it; defaults 250ms and 5s.
	Base, Max time.Duration
	// MaxWait is how long the 429s of one call are waited out inside the attempt, in
	// total; a longer Retry-After ends the attempt and the task waits it out, not
	// counted as a failure. Default 30s.
	MaxWait time.Duration
}

// DefaultHubRetry is 5 tries a call, 250ms doubling to 5s, 429s waited up to 30s.
func DefaultHubRetry() HubRetry {
	return HubRetry{Tries: 5, Base: 250 * time.Millisecond, Max: 5 * time.Second, MaxWait: 30 * time.Second}
}

func (r HubRetry) withDefaults() HubRetry {
	d := DefaultHubRetry()
	if r.Tries == 0 {
		r.Tries = d.Tries
	}
	if r.Base == 0 {
		r.Base = d.Base
	}
	if r.Max == 0 {
		r.Max = max(d.Max, r.Base)
	}
	if r.MaxWait == 0 {
		r.MaxWait = d.MaxWait
	}
	return r
}

func (r HubRetry) validate() error {
	var errs []error
	if r.Tries < 1 {
		errs = append(errs, fmt.Errorf("hub retry tries %d: want >= 1", r.Tries))
	}
	if r.Base <= 0 || r.Max < r.Base {
		errs = append(errs, fmt.Errorf("hub retry base %s max %s: want 0 < base <= max", r.Base, r.Max))
	}
	if r.MaxWait < 0 {
		errs = append(errs, fmt.Errorf("hub retry max wait %s is negative", r.MaxWait))
	}
	return errors.Join(errs...)
}

// delay is the wait before try n+1 after n failed tries (n >= 1).
func (r HubRetry) delay(n int) time.Duration {
	return Backoff{Base: r.Base, Max: r.Max}.delay(n - 1)
}

// retryingHub retries the idempotent reads of a hub inside the attempt. It wraps the
// rate-limited hub, so every try takes its own token from the store's fleet-wide
// bucket and is counted in the call metrics. Writes (order pushes, template changes)
// and the template listing pass through: the task retries those.
type retryingHub struct {
	Hub
	cfg   HubRetry
	w     *Worker
	store string
}

func (r *retryingHub) GetDesign(ctx context.Context, ref model.DesignRef) (d *model.DesignDetail, err error) {
	err = r.retry(ctx, hub.OpGetDesign, func() error { d, err = r.Hub.GetDesign(ctx, ref); return err })
	return d, err
}

func (r *retryingHub) ExportView(ctx context.Context, ref model.DesignRef, viewID string) (d *hub.Download, err error) {
	err = r.retry(ctx, hub.OpExportView, func() error { d, err = r.Hub.ExportView(ctx, ref, viewID); return err })
	return d, err
}

func (r *retryingHub) OpenMedia(ctx context.Context, m model.Media) (d *hub.Download, err error) {
	err = r.retry(ctx, hub.OpGetMedia, func() error { d, err = r.Hub.OpenMedia(ctx, m); return err })
	return d, err
}

func (r *retryingHub) GetTemplate(ctx context.Context, id string) (t *model.Template, err error) {
	err = r.retry(ctx, hub.OpGetTemplate, func() error { t, err = r.Hub.GetTemplate(ctx, id); return err })
	return t, err
}

// retry calls f until it succeeds, fails for good, or the bounds are reached: Tries
// failed tries (429s not counted), MaxWait of 429 waits, or a wait that would not end
// before the attempt's deadline. The last error is returned as it came, so the task
// classifies it as before (transient: retried by the queue; 429: waited out
// uncounted).
func (r *retryingHub) retry(ctx context.Context, op string, f func() error) error {
	failed := 0
	var waited time.Duration
	for {
		err := f()
		if err == nil || ctx.Err() != nil {
			return err
		}
		var he *hub.Error
		if !errors.As(err, &he) || !he.Retryable() {
			return err
		}
		var wait time.Duration
		if he.Status == http.StatusTooManyRequests {
			wait = he.RetryAfter()
			if wait <= 0 {
				wait = defaultRateLimitWait
			}
			if waited+wait > r.cfg.MaxWait {
				return err
			}
			waited += wait
		} else {
			failed++
			if failed >= r.cfg.Tries {
				return err
			}
			// A 503 may say when to come back; never sooner than that.
			wait = max(r.cfg.delay(failed), he.RetryAfter())
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) <= wait {
			return err
		}
		r.w.m.hubRetries.WithLabelValues(op, statusClass(err)).Inc()
		r.w.logger(ctx).DebugContext(ctx, "hub call retried in the attempt", "op", op, "err", err, "wait", wait)
		if !sleep(ctx, wait) {
			return err
		}
	}
}

// sleep waits d or until ctx ends; it reports whether the whole wait passed.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}
