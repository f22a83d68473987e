package worker

import (
	"context"
	"fmt"
	"sync/atomic"

	"golang.org/x/sync/semaphore"
)

// Budget admits renders by the memory they will need, so a worker stays within its
// budget however many tasks run at once. A render's media files are admitted one by
// one as they are read (mediaAdmission), before their bytes are held; the rest of the
// render is admitted once they are measured. Downloads to storage stream and are not
// held back.
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
		return nil, b.tooLarge("render needs", n)
	}
	if err := b.sem.Acquire(ctx, n); err != nil {
		return nil, fmt.Errorf("waiting for %d MiB of render memory: %w", n>>20, err)
	}
	return b.admitted(n), nil
}

// tooLarge is the permanent error of a request larger than the whole budget.
func (b *Budget) tooLarge(what string, n int64) error {
	return &PermanentError{Reason: fmt.Sprintf(
		"%s about %d MiB, more than the worker's whole memory budget of %d MiB (raise --memory-budget or export this design in download mode)",
		what, n>>20, b.total>>20)}
}

// tryAcquire admits n bytes if they fit now, without waiting.
func (b *Budget) tryAcquire(n int64) (release func(), ok bool) {
	if n <= 0 {
		return func() {}, true
	}
	if n > b.total || !b.sem.TryAcquire(n) {
		return nil, false
	}
	return b.admitted(n), true
}

// admitted records n acquired bytes and returns their release.
func (b *Budget) admitted(n int64) (release func()) {
	b.changed(b.inUse.Add(n))
	var once atomic.Bool
	return func() {
		if once.CompareAndSwap(false, true) {
			b.changed(b.inUse.Add(-n))
			b.sem.Release(n)
		}
	}
}

// mediaAdmission is one render's hold on the budget, grown as its media are read
// (admitMedia) and then to the whole render's peak (growTo), released at once when
// the render ends. A hold that cannot grow at once is let go and taken again whole:
// waiting while holding part of the budget could deadlock with another render doing
// the same.
type mediaAdmission struct {
	b    *Budget
	held int64
	rel  []func()
}

// grow adds n bytes to the hold; what the hold would be is named in the permanent
// error of a hold larger than the whole budget.
func (a *mediaAdmission) grow(ctx context.Context, n int64, what string) error {
	if n <= 0 {
		return nil
	}
	if a.held+n > a.b.total {
		return a.b.tooLarge(what, a.held+n)
	}
	if rel, ok := a.b.tryAcquire(n); ok {
		a.rel, a.held = append(a.rel, rel), a.held+n
		return nil
	}
	want := a.held + n
	a.release()
	rel, err := a.b.Acquire(ctx, want)
	if err != nil {
		return err
	}
	a.rel, a.held = append(a.rel, rel), want
	return nil
}

// growTo grows the hold to total bytes (the render's peak, which counts the media
// already held); a hold already larger stays as it is.
func (a *mediaAdmission) growTo(ctx context.Context, total int64) error {
	return a.grow(ctx, total-a.held, "render needs")
}

// release lets go of the whole hold.
func (a *mediaAdmission) release() {
	for _, r := range a.rel {
		r()
	}
	a.rel, a.held = nil, 0
}

// InUse is the number of bytes currently admitted.
func (b *Budget) InUse() int64 { return b.inUse.Load() }
