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

// Reprints (docs/operations.md "Reprint files"): an operator asks for an order's
// files (all, one line's or one view's) to be written again, under reprint names,
// into the folders their originals went to, with a job ticket marked REPRINT. The
// worker copies the stored files; nothing is rendered again.
const TypeReprint = "order:reprint"

// MaxCopies bounds the copies of one reprint.
const MaxCopies = 100

// Reprint writes chosen files of an order again.
type Reprint struct {
	V int `json:"v"`
	OrderKey
	// Date is the order's date folder (yyyy-mm-dd); empty: read from the order's
	// state.
	Date string `json:"date,omitempty"`
	// Line is the 1-based order line whose files are reprinted; 0: every line.
	Line int `json:"line,omitempty"`
	// View is the view id or name whose files are reprinted; empty: every view.
	View string `json:"view,omitempty"`
	// Copies is how many copies of each file are written (1 to MaxCopies).
	Copies int `json:"copies"`
	// Seq numbers the order's reprints from 1: it makes the reprint names and the
	// task id, so a reprint never overwrites another's files.
	Seq int64 `json:"seq"`
}

func (p Reprint) validate() error {
	var errs []error
	if err := p.OrderKey.validate(); err != nil {
		errs = append(errs, err)
	}
	if p.Date != "" {
		if _, err := time.Parse(time.DateOnly, p.Date); err != nil {
			errs = append(errs, fmt.Errorf("date %q: want yyyy-mm-dd", p.Date))
		}
	}
	if p.Line < 0 {
		errs = append(errs, fmt.Errorf("line %d: want 1 or more", p.Line))
	}
	if p.Copies < 1 || p.Copies > MaxCopies {
		errs = append(errs, fmt.Errorf("copies %d: want 1 to %d", p.Copies, MaxCopies))
	}
	if p.Seq < 1 {
		errs = append(errs, fmt.Errorf("reprint number %d: want 1 or more", p.Seq))
	}
	return errors.Join(errs...)
}

// ReprintOptions are the options of reprint tasks: a copy is quick; one that keeps
// failing stays visible (archived) for the operator who asked.
func ReprintOptions() TaskOptions {
	return TaskOptions{MaxRetry: 10, Timeout: 10 * time.Minute, Retention: 72 * time.Hour}
}

// ReprintTaskID is the n-th reprint of order k.
func ReprintTaskID(k OrderKey, n int64) string {
	return "reprint:" + k.String() + ":" + strconv.FormatInt(n, 10)
}

// NewReprintTask builds a reprint task.
func NewReprintTask(p Reprint) (*asynq.Task, error) {
	p.V = PayloadVersion
	if err := p.validate(); err != nil {
		return nil, fmt.Errorf("jobs: reprint: %w", err)
	}
	b, err := json.Marshal(p)
	if err != nil {
		return nil, fmt.Errorf("jobs: reprint payload: %w", err)
	}
	return asynq.NewTask(TypeReprint, b, ReprintOptions().asynq(QueueExports, ReprintTaskID(p.OrderKey, p.Seq))...), nil
}

// Reprint numbers the order's next reprint and enqueues it; p.Seq is set here. The
// number comes from a counter in Redis that does not expire with the order's state,
// so a reprint name is never given twice.
func (e *Enqueuer) Reprint(ctx context.Context, p Reprint) (Enqueued, int64, error) {
	p.Seq = 1 // validated before the counter moves
	if _, err := NewReprintTask(p); err != nil {
		return Enqueued{}, 0, err
	}
	n, err := e.state.rdb.Incr(ctx, e.state.prefix+":reprint:{"+p.OrderKey.String()+"}").Result()
	if err != nil {
		return Enqueued{}, 0, fmt.Errorf("reprint number of %s: %w", p.OrderKey, err)
	}
	p.Seq = n
	t, err := NewReprintTask(p)
	if err != nil {
		return Enqueued{}, 0, err
	}
	queue, err := e.ExportQueue(ctx, p.OrderKey)
	if err != nil {
		return Enqueued{}, n, err
	}
	q, err := e.enqueue(ctx, t, ReprintTaskID(p.OrderKey, n), queue)
	return q, n, err
}
