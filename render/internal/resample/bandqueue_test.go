package resample

import (
	"context"
	"fmt"
	"image"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestBandQueue: every band is handed out once, whatever the workers' race; each
// worker starts at the front of its own run; and two workers' bands are two runs of
// neighbours at most (the point of the queue).
func TestBandQueue(t *testing.T) {
	for _, tc := range []struct{ n, workers int }{
		{0, 1}, {0, 4}, {1, 1}, {1, 8}, {5, 8}, {27, 2}, {27, 3}, {100, 4}, {1000, 8},
	} {
		for rep := range 20 {
			q := newBandQueue(tc.n, tc.workers)
			got := make([][]int, len(q.runs))
			var wg sync.WaitGroup
			for w := range q.runs {
				wg.Go(func() {
					t := q.taker(w)
					for {
						b, ok := t.next()
						if !ok {
							return
						}
						got[w] = append(got[w], b)
					}
				})
			}
			wg.Wait()
			var all []int
			for w, bands := range got {
				all = append(all, bands...)
				// What a worker takes of its own run is that run's front, in order,
				// before anything else (the rest went to others from the back).
				lo, hi := tc.n*w/len(q.runs), tc.n*(w+1)/len(q.runs)
				for i, b := range bands {
					if b >= lo && b < hi && b != lo+i {
						t.Errorf("n=%d workers=%d rep %d: worker %d took band %d of its own run %d..%d as its band %d (%v)", tc.n, tc.workers, rep, w, b, lo, hi-1, i, bands)
						break
					}
				}
				// Runs of neighbours, in the order taken: from the front the bands
				// go up, from a back they go down. Two workers each take at most two
				// (its own and the other's tail); more can share a victim's tail.
				runs := 0
				for i, b := range bands {
					if i == 0 || (b != bands[i-1]+1 && b != bands[i-1]-1) {
						runs++
					}
				}
				if len(q.runs) == 2 && runs > 2 {
					t.Errorf("n=%d workers=2 rep %d: worker %d took %d runs of neighbours (%v), want at most 2", tc.n, rep, w, runs, bands)
				}
			}
			slices.Sort(all)
			if len(all) != tc.n {
				t.Fatalf("n=%d workers=%d: %d bands handed out, want %d", tc.n, tc.workers, len(all), tc.n)
			}
			for i, b := range all {
				if b != i {
					t.Fatalf("n=%d workers=%d: bands handed out %v, want each of 0..%d once", tc.n, tc.workers, all, tc.n-1)
				}
			}
		}
	}
}

// TestBandQueueInTurn: with one run, any number of workers take its bands from the
// front, each once (forEachBand's row bands).
func TestBandQueueInTurn(t *testing.T) {
	for _, n := range []int{0, 1, 7, 64, 1000} {
		q := newBandQueue(n, 1)
		got := make([][]int, 4)
		var wg sync.WaitGroup
		for w := range got {
			wg.Go(func() {
				tk := q.taker(0)
				last := -1
				for {
					b, ok := tk.next()
					if !ok {
						return
					}
					if b <= last {
						t.Errorf("n=%d: a worker took band %d after %d, want them in order", n, b, last)
					}
					last = b
					got[w] = append(got[w], b)
				}
			})
		}
		wg.Wait()
		all := slices.Concat(got...)
		slices.Sort(all)
		if len(all) != n {
			t.Fatalf("n=%d: %d bands handed out", n, len(all))
		}
		for i, b := range all {
			if b != i {
				t.Fatalf("n=%d: bands handed out %v, want each of 0..%d once", n, all, n-1)
			}
		}
	}
}

// forEachBand runs a draw's bands on as many goroutines at once as it is given
// workers, for row bands and for runs of column bands. Each band waits until every
// worker is inside a band: were the bands run one after another, the first would
// wait for good (the test then fails after a minute instead of hanging).
func TestForEachBandRunsWorkersAtOnce(t *testing.T) {
	for _, tc := range []struct {
		workers int
		inRuns  bool
	}{{2, false}, {2, true}, {3, false}, {4, true}} {
		t.Run(fmt.Sprintf("workers=%d/runs=%v", tc.workers, tc.inRuns), func(t *testing.T) {
			var mu sync.Mutex
			inside, done := 0, make(chan struct{})
			var bands, newBands atomic.Int64
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var stuck atomic.Bool
			area := image.Rect(0, 0, 40, 64*32) // 32 bands of 64 rows
			forEachBand(area, 1, 1, tc.workers, tc.inRuns, func(int) (int, int) { return 0, 1 }, bandEnv{}, func(*bandBuffers) func(by0, by1, r0, r1 int) {
				newBands.Add(1)
				first := true
				return func(by0, by1, r0, r1 int) {
					bands.Add(1)
					if !first {
						return
					}
					first = false
					mu.Lock()
					inside++
					if inside == tc.workers {
						close(done)
					}
					mu.Unlock()
					select {
					case <-done:
					case <-ctx.Done():
						stuck.Store(true)
					}
				}
			})
			if stuck.Load() {
				t.Fatalf("%d workers: a band waited a minute for the others; they did not run at once", tc.workers)
			}
			if n := newBands.Load(); n != int64(tc.workers) {
				t.Errorf("%d band workers started, want %d", n, tc.workers)
			}
			if n := bands.Load(); n != 32 {
				t.Errorf("%d bands run, want 32", n)
			}
		})
	}
}
