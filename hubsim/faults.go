package hubsim

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"
)

// Faults are the failures the simulator injects. Each random fault has a share (0..1 of
// requests, drawn from a generator seeded with Seed, so a run is repeatable) and an
// optional count: after that many injections the fault stops, which lets a test say
// "the first two calls fail, then the hub recovers".
type Faults struct {
	// Latency is added before every answer (the request's context cuts it short).
	Latency time.Duration

	// ErrorRate is the share of requests answered with ErrorStatus (default 503) and a
	// JSON error, before authentication and without touching any data.
	ErrorRate   float64
	ErrorCount  int
	ErrorStatus int

	// RateLimit is the number of requests a store may make per RatePeriod (default one
	// second); further requests in the window get 429 with Retry-After (whole seconds,
	// rounded up, at least 1). 0 disables it. Media downloads carry no store and are
	// not limited.
	RateLimit  int
	RatePeriod time.Duration

	// FailFirst answers the first FailFirst requests of every path (media included)
	// with ErrorStatus, then lets that path through: a hub that is flaky everywhere
	// but never down, so a caller that retries each call a few times always gets
	// through. The paths are counted apart (at most maxFailFirstPaths of them; paths
	// beyond are not failed, so made-up paths cannot grow the table).
	FailFirst int

	// DropRate is the share of requests whose connection is closed without an answer.
	// With DropAfterHandling the request is processed first (an order is stored) and
	// only the answer is lost, as when a network fails on the way back.
	DropRate          float64
	DropCount         int
	DropAfterHandling bool

	// TruncateRate is the share of answers that declare their full Content-Length but
	// send only the first half of the body before the connection is closed.
	TruncateRate  float64
	TruncateCount int

	// Seed seeds the generator that decides the shares (0 is a valid seed).
	Seed uint64
}

// Validate checks the shares and counts.
func (f Faults) Validate() error {
	var errs []error
	for _, r := range []struct {
		name string
		v    float64
	}{{"error rate", f.ErrorRate}, {"drop rate", f.DropRate}, {"truncate rate", f.TruncateRate}} {
		if r.v < 0 || r.v > 1 || math.IsNaN(r.v) {
			errs = append(errs, fmt.Errorf("hubsim: %s %v: want 0..1", r.name, r.v))
		}
	}
	if f.ErrorStatus != 0 && (f.ErrorStatus < 500 || f.ErrorStatus > 599) {
		errs = append(errs, fmt.Errorf("hubsim: error status %d: want 5xx", f.ErrorStatus))
	}
	if f.Latency < 0 || f.RatePeriod < 0 || f.RateLimit < 0 || f.ErrorCount < 0 || f.DropCount < 0 || f.TruncateCount < 0 || f.FailFirst < 0 {
		errs = append(errs, errors.New("hubsim: fault latency, rate and counts must not be negative"))
	}
	return errors.Join(errs...)
}

// fault is what the injector decided for one request.
type fault string

const (
	faultNone      fault = ""
	faultError     fault = "error"
	faultFailFirst fault = "fail-first"
	faultRateLimit fault = "rate-limit"
	faultDrop      fault = "drop"
	faultTruncate  fault = "truncate"
)

// injector holds the fault settings and their state (generator, counters, windows).
type injector struct {
	mu        sync.Mutex
	f         Faults
	rng       *rand.Rand
	errors    int
	drops     int
	truncates int
	windows   map[string]*window
	// perPath counts the requests of each path for FailFirst.
	perPath map[string]int
}

// maxFailFirstPaths bounds the paths FailFirst counts.
const maxFailFirstPaths = 1 << 16

type window struct {
	start time.Time
	n     int
}

func newInjector(f Faults) *injector {
	in := &injector{}
	in.set(f)
	return in
}

func (in *injector) set(f Faults) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if f.ErrorStatus == 0 {
		f.ErrorStatus = 503
	}
	if f.RatePeriod <= 0 {
		f.RatePeriod = time.Second
	}
	in.f = f
	in.rng = rand.New(rand.NewPCG(f.Seed, f.Seed^0x9e3779b97f4a7c15))
	in.errors, in.drops, in.truncates = 0, 0, 0
	in.windows = map[string]*window{}
	in.perPath = map[string]int{}
}

func (in *injector) get() Faults {
	in.mu.Lock()
	defer in.mu.Unlock()
	return in.f
}

// hit draws once for a share, honouring the fault's count.
func (in *injector) hit(rate float64, count int, done *int) bool {
	if rate <= 0 || (count > 0 && *done >= count) {
		return false
	}
	if rate < 1 && in.rng.Float64() >= rate {
		return false
	}
	*done++
	return true
}

// before decides the faults that answer instead of the handler: the rate limit, a
// drop before handling, a fail-first 5xx or a random 5xx. retryAfter is set for a
// rate-limit answer. store is the configured store the request names, "" for none
// (unknown stores get no window, so made-up store ids cannot grow the table); path is
// the request's path.
func (in *injector) before(store, path string, now time.Time) (f fault, retryAfter time.Duration) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.f.RateLimit > 0 && store != "" {
		w := in.windows[store]
		if w == nil || now.Sub(w.start) >= in.f.RatePeriod {
			w = &window{start: now}
			in.windows[store] = w
		}
		w.n++
		if w.n > in.f.RateLimit {
			return faultRateLimit, w.start.Add(in.f.RatePeriod).Sub(now)
		}
	}
	if !in.f.DropAfterHandling && in.hit(in.f.DropRate, in.f.DropCount, &in.drops) {
		return faultDrop, 0
	}
	if in.failFirst(path) {
		return faultFailFirst, 0
	}
	if in.hit(in.f.ErrorRate, in.f.ErrorCount, &in.errors) {
		return faultError, 0
	}
	return faultNone, 0
}

// failFirst counts a request of path and reports whether it is among the path's first
// FailFirst. The caller holds the lock.
func (in *injector) failFirst(path string) bool {
	if in.f.FailFirst <= 0 {
		return false
	}
	n, ok := in.perPath[path]
	if !ok && len(in.perPath) >= maxFailFirstPaths {
		return false
	}
	if n >= in.f.FailFirst {
		return false
	}
	in.perPath[path] = n + 1
	return true
}

// after decides the faults that spoil a handled answer: a drop after handling or a
// truncated body.
func (in *injector) after() fault {
	in.mu.Lock()
	defer in.mu.Unlock()
	if in.f.DropAfterHandling && in.hit(in.f.DropRate, in.f.DropCount, &in.drops) {
		return faultDrop
	}
	if in.hit(in.f.TruncateRate, in.f.TruncateCount, &in.truncates) {
		return faultTruncate
	}
	return faultNone
}

// retryAfterSeconds rounds a wait up to whole seconds, at least 1, as Retry-After
// carries whole seconds.
func retryAfterSeconds(d time.Duration) int {
	s := int(math.Ceil(d.Seconds()))
	if s < 1 {
		s = 1
	}
	return s
}
