package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/model"
)

// RetryingTemplates retries each call of a template sync or pull on transient hub
// errors (5xx, 429, network), waiting as the worker's task retries do: the hub's
// Retry-After when it names one, else Backoff (capped doubling with jitter). A
// permanent error, or the last attempt's error, is returned as is. The templates
// commands use it, so a single 503 no longer ends them, and a queued sync uses it
// inside its task.
type RetryingTemplates struct {
	Hub      TemplateHub
	Backoff  Backoff
	Attempts int          // calls per operation, the first included; default 6
	Log      *slog.Logger // retries are logged at warn level; nil logs nothing
}

func (r RetryingTemplates) attempts() int {
	if r.Attempts <= 0 {
		return 6
	}
	return r.Attempts
}

// retry runs call until it succeeds, fails permanently, or the attempts are spent.
func (r RetryingTemplates) retry(ctx context.Context, what string, call func() error) error {
	for n := 0; ; n++ {
		err := call()
		if err == nil || !transient(err) || n+1 >= r.attempts() {
			return err
		}
		d := r.Backoff.retryDelay(n, err, nil)
		if r.Log != nil {
			r.Log.WarnContext(ctx, "hub call failed, retrying", "call", what, "attempt", n+1, "wait", d, "err", err)
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return errors.Join(err, ctx.Err())
		case <-t.C:
		}
	}
}

// transient reports an error a repeated call may cure: one that says it is retryable.
func transient(err error) bool {
	var r interface{ Retryable() bool }
	return errors.As(err, &r) && r.Retryable()
}

// AllTemplates lists with retries: a listing that fails part-way starts again and
// yields only the templates not yielded before.
func (r RetryingTemplates) AllTemplates(ctx context.Context) iter.Seq2[model.TemplateSummary, error] {
	return func(yield func(model.TemplateSummary, error) bool) {
		seen := map[string]bool{}
		stopped := false
		err := r.retry(ctx, "list templates", func() error {
			for s, err := range r.Hub.AllTemplates(ctx) {
				if err != nil {
					return err
				}
				k := TemplateKey(s)
				if seen[k] {
					continue
				}
				seen[k] = true
				if !yield(s, nil) {
					stopped = true
					return nil
				}
			}
			return nil
		})
		if err != nil && !stopped {
			yield(model.TemplateSummary{}, err)
		}
	}
}

// GetTemplate reads a template with retries.
func (r RetryingTemplates) GetTemplate(ctx context.Context, id string) (t *model.Template, err error) {
	err = r.retry(ctx, "get template "+id, func() error {
		t, err = r.Hub.GetTemplate(ctx, id)
		return err
	})
	return t, err
}

// CreateTemplate creates with retries. A retried create whose first attempt reached
// the hub gets 409 or a duplicate; SyncTemplates turns a 409 into an update.
func (r RetryingTemplates) CreateTemplate(ctx context.Context, t *model.Template) error {
	return r.retry(ctx, "create template "+t.ProductID, func() error { return r.Hub.CreateTemplate(ctx, t) })
}

// UpdateTemplate updates with retries (an update is idempotent).
func (r RetryingTemplates) UpdateTemplate(ctx context.Context, productID string, t *model.Template) error {
	return r.retry(ctx, "update template "+productID, func() error { return r.Hub.UpdateTemplate(ctx, productID, t) })
}

// DeleteTemplate deletes with retries; a 404 on a retry means an earlier attempt
// deleted it, which SyncTemplates treats as done.
func (r RetryingTemplates) DeleteTemplate(ctx context.Context, id string) error {
	return r.retry(ctx, "delete template "+id, func() error { return r.Hub.DeleteTemplate(ctx, id) })
}

// TemplateKey is the id to address a listed template by: its _id, or its productId
// when the hub's list left _id out (get and delete accept either on the hub; update
// always uses the productId).
func TemplateKey(s model.TemplateSummary) string {
	if s.ID != "" {
		return s.ID
	}
	return s.ProductID
}

// syncProgress keeps a queued sync's finished actions in Redis under the task's id,
// so a retried task resumes where the failed attempt stopped instead of starting
// over; it expires a week after the last step.
type syncProgress struct {
	rdb redis.UniversalClient
	key string
}

const syncProgressTTL = 7 * 24 * time.Hour

// load returns the actions done so far, by productId.
func (p syncProgress) load(ctx context.Context) (map[string]SyncAction, error) {
	m, err := p.rdb.HGetAll(ctx, p.key).Result()
	if err != nil {
		return nil, fmt.Errorf("template sync progress: %w", err)
	}
	done := make(map[string]SyncAction, len(m))
	for pid, v := range m {
		var a SyncAction
		if json.Unmarshal([]byte(v), &a) == nil {
			done[pid] = a
		}
	}
	return done, nil
}

// record stores one finished action.
func (p syncProgress) record(ctx context.Context, a SyncAction) error {
	b, _ := json.Marshal(a)
	pipe := p.rdb.TxPipeline()
	pipe.HSet(ctx, p.key, a.ProductID, b)
	pipe.Expire(ctx, p.key, syncProgressTTL)
	if _, err := pipe.Exec(ctx); err != nil {
		return fmt.Errorf("template sync progress: %w", err)
	}
	return nil
}
