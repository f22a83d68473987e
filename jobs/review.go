package jobs

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
)

// Review holds (docs/shop-floor.md "Review holds"): an order whose preflight findings
// the review policy names is held under the review/ prefix of its storage; an
// operator releases it (its stored files are moved to their final keys, nothing is
// rendered again) or rejects it. Both are one task type, so that one order revision
// has at most one review action queued or running: its task id is the revision's.
const TypeReview = "order:review"

// Review actions.
const (
	ReviewRelease = "release"
	ReviewReject  = "reject"
)

// maxReviewReason bounds a rejection's reason (it is stored in the review manifest).
const maxReviewReason = 500

// Review releases or rejects a held order revision.
type Review struct {
	V int `json:"v"`
	OrderKey
	// Date is the order's date folder (yyyy-mm-dd): with the layout it names the
	// review manifest.
	Date string `json:"date"`
	// Rev is the held revision the operator saw (review list); the worker refuses
	// the action when another revision is held by then.
	Rev    int64  `json:"rev"`
	Action string `json:"action"`
	// Reason says why an order was rejected (optional).
	Reason string `json:"reason,omitempty"`
}

func (p Review) validate() error {
	var errs []error
	if err := p.OrderKey.validate(); err != nil {
		errs = append(errs, err)
	}
	if _, err := time.Parse(time.DateOnly, p.Date); err != nil {
		errs = append(errs, fmt.Errorf("date %q: want yyyy-mm-dd", p.Date))
	}
	if p.Rev < 1 {
		errs = append(errs, fmt.Errorf("revision %d: want 1 or more", p.Rev))
	}
	if p.Action != ReviewRelease && p.Action != ReviewReject {
		errs = append(errs, fmt.Errorf("action %q: want %s or %s", p.Action, ReviewRelease, ReviewReject))
	}
	if len(p.Reason) > maxReviewReason {
		errs = append(errs, fmt.Errorf("reason: longer than %d bytes", maxReviewReason))
	}
	return errors.Join(errs...)
}

// ReviewOptions are the options of review tasks: moving stored files is quick; one
// that keeps failing stays visible (archived) for the operator who asked.
func ReviewOptions() TaskOptions {
	return TaskOptions{MaxRetry: 10, Timeout: 10 * time.Minute, Retention: 72 * time.Hour}
}

// ReviewTaskID is the review action of revision rev of order k: release and reject
// share it, so two operators acting at once queue one action, and the second is
// told it is already queued or done.
func ReviewTaskID(k OrderKey, rev int64) string {
	return "review:" + k.String() + ":r" + strconv.FormatInt(rev, 10)
}

// NewReviewTask builds a review task.
func NewReviewTask(p Review) (*asynq.Task, error) {
	p.V = PayloadVersion
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("jobs: review: %w", err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("jobs: review payload: %w", err)
	}
	return asynq.NewTask(TypeReview, b, ReviewOptions().asynq(QueueOrders, ReviewTaskID(p.OrderKey, p.Rev))...), nil
}

// Review enqueues a release or a rejection of a held order revision; Duplicate in
// the answer: an action on that revision is already queued or done.
func (e *Enqueuer) Review(ctx context.Context, p Review) (Enqueued, error) {
	t, err := NewReviewTask(p)
	if err != nil {
		return Enqueued{}, err
	}
	return e.enqueue(ctx, t, ReviewTaskID(p.OrderKey, p.Rev), QueueOrders)
}
