package resample

import "sync/atomic"

// bandQueue hands the bands 0..n-1 of a draw to its workers so that neighbouring bands
// go to the same worker: worker i takes its own run of about n/workers bands from the
// front, and once that is empty takes bands from the back of the run with the most
// left, one at a time, staying with that run until it is empty.
//
// Why not one shared counter: bands taken in turn put each pair of neighbours on two
// cores, and where two bands meet inside a cache line (a column band's edge in a
// canvas row whose start is not 64-byte aligned; the rows of a 3400-pixel canvas
// alternate) both cores write that line, once every row. In a state the project's
// 2-vCPU VM fell into for minutes at a time, a rotated draw on two workers cost
// 1.9-2.0x the unrotated one instead of 1.3x; in runs about 1.7x (1.6x with the
// canvas prefetched for writing, prefetchForWrite), unchanged in the ordinary state
// (30° and 60° on a Zen 5 VM, 80 interleaved runs).
// In runs only the bands where runs meet or a run is taken from behind share lines,
// and the taking from behind still evens out bands of unequal cost (a rotated
// picture's columns are shorter at its corners).
type bandQueue struct {
	runs []bandRun
}

// bandRun is the bands [lo, hi) not yet taken from one run, packed as lo<<32 | hi so
// that the front and the back are taken with one compare-and-swap each. Each run has a
// cache line of its own: different workers take from it.
type bandRun struct {
	lohi atomic.Uint64
	_    [56]byte
}

// newBandQueue splits bands 0..n-1 into runs, one a worker; with one run, every
// worker takes from its front, in turn.
func newBandQueue(n, workers int) *bandQueue {
	workers = max(1, min(workers, n))
	q := &bandQueue{runs: make([]bandRun, workers)}
	for i := range q.runs {
		lo, hi := n*i/workers, n*(i+1)/workers
		q.runs[i].lohi.Store(uint64(lo)<<32 | uint64(hi))
	}
	return q
}

func unpackRun(v uint64) (lo, hi int) { return int(v >> 32), int(uint32(v)) }

// bandTaker is one worker's end of a bandQueue.
type bandTaker struct {
	q *bandQueue
	// own is the worker's run; victim the run it last took from behind, which it
	// keeps taking from until that is empty, so that what it steals is one run of
	// neighbours too.
	own, victim int
}

// taker returns worker w's end of the queue (0 <= w < len(q.runs)).
func (q *bandQueue) taker(w int) *bandTaker { return &bandTaker{q: q, own: w, victim: -1} }

// next returns the worker's next band, false once every band has been taken.
func (t *bandTaker) next() (int, bool) {
	runs := t.q.runs
	if b, ok := runs[t.own].take(true); ok {
		return b, true
	}
	for {
		if t.victim >= 0 {
			if b, ok := runs[t.victim].take(false); ok {
				return b, true
			}
		}
		// A new victim: the run with the most left.
		t.victim = -1
		most := 0
		for i := range runs {
			lo, hi := unpackRun(runs[i].lohi.Load())
			if hi-lo > most {
				t.victim, most = i, hi-lo
			}
		}
		if t.victim < 0 {
			return 0, false
		}
	}
}

// take takes the run's first band (front) or its last, false when it is empty.
func (r *bandRun) take(front bool) (int, bool) {
	for {
		v := r.lohi.Load()
		lo, hi := unpackRun(v)
		if lo >= hi {
			return 0, false
		}
		b, nv := hi-1, uint64(lo)<<32|uint64(hi-1)
		if front {
			b, nv = lo, uint64(lo+1)<<32|uint64(hi)
		}
		if r.lohi.CompareAndSwap(v, nv) {
			return b, true
		}
	}
}
