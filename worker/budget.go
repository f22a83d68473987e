package worker

import (
	"context"
	"fmt"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// Budget admits renders by the memory they will need, so a worker stays within its
// budget however many tasks run at once. Downloads stream and are not held back.
type Budget struct {
	total int64
	sem   *semaphore.Weighted
	inUse atomic.Int64
	// changed reports the bytes in use after every change.
	changed func(inUse int64)
}

// NewBudget returns a budget of total bytes.
func NewBudget(total int64) *Budget {
	return &Budget{total: total, sem: semaphore.NewWeighted(total), changed: func(int64) {}}
}

// Acquire waits until n bytes fit, or ctx ends. A request larger than the whole
// budget can never fit and fails with a PermanentError.
func (b *Budget) Acquire(ctx context.Context, n int64) (release func(), err error) {
	if n <= 0 {
		return func() {}, nil
	}
	if n > b.total {
		return nil, &PermanentError{Reason: fmt.Sprintf(
			"render needs about %d MiB, more than the worker's whole memory budget of %d MiB (raise --memory-budget or export this design in download mode)",
			n>>20, b.total>>20)}
	}
	if err := b.sem.Acquire(ctx, n); err != nil {
		return nil, fmt.Errorf("waiting for %d MiB of render memory: %w", n>>20, err)
	}
	b.changed(b.inUse.Add(n))
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			b.changed(b.inUse.Add(-n))
			b.sem.Release(n)
		}
	}, nil
}

// InUse is the number of bytes currently admitted.
func (b *Budget) InUse() int64 { return b.inUse.Load() }
