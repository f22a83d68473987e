package reconcile

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/printworker/printworker/intake"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
)

// Feeder takes a listed order through the intake's mapping, store order and
// enqueue (*intake.Fetcher).
type Feeder interface {
	ApplyOrder(ctx context.Context, platform, shop string, body []byte, handled intake.Handled) (intake.Applied, error)
}

// Pushes tells what the pipeline has of an order (*jobs.State).
type Pushes interface {
	Pushed(ctx context.Context, k jobs.OrderKey) (updated string, deleted bool, err error)
}

// Config is when and how far the sweeps read.
type Config struct {
	// Interval is how often a store is swept across the fleet (0: never on its
	// own; Sweep still runs on demand).
	Interval time.Duration
	// Margin is how far before the watermark a sweep starts reading: store clocks
	// and list indexes lag, so a change stamped just before the last sweep's end
	// may appear in the list only after it.
	Margin time.Duration
	// Settle leaves the orders changed in the last Settle to the next sweep: their
	// webhooks are most likely on the way.
	Settle time.Duration
	// FirstLookback is how far back the first sweep of a store reads.
	FirstLookback time.Duration
	// MaxPages bounds one sweep of one store; the watermark moves to the last
	// order read, and the next sweep continues.
	MaxPages int
	// SeenTTL is how long the version of an order a sweep handled is remembered
	// (far beyond Margin: the overlap reads it again).
	SeenTTL time.Duration
	// KeyPrefix starts the Redis keys (default "printworker").
	KeyPrefix string
}

// DefaultConfig is the fleet's default.
func DefaultConfig() Config {
	return Config{Interval: 10 * time.Minute, Margin: 5 * time.Minute, Settle: 2 * time.Minute,
		FirstLookback: 24 * time.Hour, MaxPages: 40, SeenTTL: 48 * time.Hour, KeyPrefix: "printworker"}
}

// Validate reports every bad value.
func (c Config) Validate() error {
	var errs []error
	for name, d := range map[string]time.Duration{"interval": c.Interval, "margin": c.Margin, "settle": c.Settle} {
		if d < 0 {
			errs = append(errs, fmt.Errorf("reconcile: %s %s is negative", name, d))
		}
	}
	if c.FirstLookback <= 0 || c.SeenTTL <= 0 || c.MaxPages < 1 {
		errs = append(errs, errors.New("reconcile: first lookback, seen ttl and max pages must be positive"))
	}
	return errors.Join(errs...)
}

// Result is what one sweep of one store did.
type Result struct {
	Platform, Shop string
	// Swept: this worker swept (false: another had the interval's slot or lease).
	Swept bool
	Since time.Time
	// Listed orders; Recovered: enqueued, no webhook had brought them; Handled:
	// the pipeline had them; Seen: an earlier sweep handled this version;
	// Skipped: nothing to print (no customizations, not approved yet); Failed:
	// could not be mapped (logged, not retried); Later: changed within Settle, left
	// to the next sweep; Retry: its read failed for now (the watermark stays
	// before it).
	Listed, Recovered, Handled, Seen, Skipped, Failed, Later, Retry int
	Mark                                                            time.Time
}

// Sweeper sweeps stores' order lists into the pipeline: each listed order
// changed since the store's watermark goes through the intake's mapping and
// enqueue (Feeder) unless the pipeline has it, so an order whose webhook was lost
// is printed all the same, and an order already handled is not enqueued again.
type Sweeper struct {
	cfg     Config
	rdb     redis.UniversalClient
	feed    Feeder
	pushes  Pushes
	listers []Lister
	m       *Metrics
	log     *slog.Logger
	now     func() time.Time
}

// Option adjusts a Sweeper.
type Option func(*Sweeper)

// WithClock sets the clock (tests).
func WithClock(now func() time.Time) Option { return func(s *Sweeper) { s.now = now } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(s *Sweeper) { s.log = l } }

// WithMetrics counts into m (nil: not counted).
func WithMetrics(m *Metrics) Option { return func(s *Sweeper) { s.m = m } }

// New builds a sweeper of listers.
func New(cfg Config, rdb redis.UniversalClient, feed Feeder, pushes Pushes, listers []Lister, opts ...Option) (*Sweeper, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.KeyPrefix == "" {
		cfg.KeyPrefix = "printworker"
	}
	s := &Sweeper{cfg: cfg, rdb: rdb, feed: feed, pushes: pushes, listers: listers, log: slog.Default(), now: time.Now}
	for _, o := range opts {
		o(s)
	}
	return s, nil
}

// Listers are the stores swept.
func (s *Sweeper) Listers() []Lister { return s.listers }

func (s *Sweeper) key(kind string, l Lister) string {
	return s.cfg.KeyPrefix + ":reconcile:" + kind + ":" + l.Platform() + ":" + url.PathEscape(l.Shop())
}

// Run sweeps every store once per interval across the fleet until ctx ends: it
// wakes every half interval, and a slot key per store and interval decides
// which worker sweeps.
func (s *Sweeper) Run(ctx context.Context) {
	if s.cfg.Interval <= 0 || len(s.listers) == 0 {
		return
	}
	tk := time.NewTicker(max(s.cfg.Interval/2, time.Second))
	defer tk.Stop()
	for {
		for _, l := range s.listers {
			res, err := s.SweepInterval(ctx, l)
			switch {
			case err != nil && ctx.Err() == nil:
				s.log.WarnContext(ctx, "reconcile: sweep failed; the next interval reads again from the watermark",
					"platform", l.Platform(), "shop", l.Shop(), "err", err)
			case res.Recovered > 0:
				s.log.WarnContext(ctx, "reconcile: orders no webhook brought were enqueued",
					"platform", l.Platform(), "shop", l.Shop(), "recovered", res.Recovered)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-tk.C:
		}
	}
}

// SweepInterval sweeps l if this interval's slot is free (one sweep per store
// per interval across the fleet).
func (s *Sweeper) SweepInterval(ctx context.Context, l Lister) (Result, error) {
	iv := s.cfg.Interval
	if iv <= 0 {
		return Result{}, errors.New("reconcile: the interval is 0")
	}
	slot := s.key("slot", l) + ":" + strconv.FormatInt(s.now().UnixNano()/int64(iv), 10)
	ok, err := s.rdb.SetNX(ctx, slot, "1", 2*iv).Result()
	if err != nil {
		return Result{}, fmt.Errorf("reconcile: slot: %w", err)
	}
	if !ok {
		return Result{Platform: l.Platform(), Shop: l.Shop()}, nil
	}
	return s.Sweep(ctx, l, time.Time{})
}

// Sweep sweeps l now, from since (zero: the watermark less the margin), under
// the store's lease: a sweep still running elsewhere makes this one a no-op.
func (s *Sweeper) Sweep(ctx context.Context, l Lister, since time.Time) (Result, error) {
	res := Result{Platform: l.Platform(), Shop: l.Shop()}
	lease, err := jobs.TakeLease(ctx, s.rdb, s.key("lease", l), time.Minute)
	if err != nil {
		return res, err
	}
	if lease == nil {
		return res, nil
	}
	err = lease.Hold(ctx, func(ctx context.Context) error {
		var err error
		res, err = s.sweep(ctx, l, since)
		return err
	})
	s.m.sweep(l.Platform(), res, err)
	return res, err
}

func (s *Sweeper) sweep(ctx context.Context, l Lister, since time.Time) (Result, error) {
	res := Result{Platform: l.Platform(), Shop: l.Shop(), Swept: true}
	now := s.now()
	markKey := s.key("mark", l)
	mark, err := s.rdb.Get(ctx, markKey).Int64()
	switch {
	case errors.Is(err, redis.Nil):
		mark = now.Add(-s.cfg.FirstLookback).UnixMilli()
	case err != nil:
		return res, fmt.Errorf("reconcile: watermark: %w", err)
	}
	// A sweep cut off at MaxPages left the watermark at the last order it read,
	// in the list's past: the next goes on from there, not a margin before it
	// (with more orders in the margin than a sweep reads, it would read the same
	// ones again and again).
	cutKey := s.key("cut", l)
	cut, err := s.rdb.Get(ctx, cutKey).Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return res, fmt.Errorf("reconcile: watermark: %w", err)
	}
	if since.IsZero() {
		since = time.UnixMilli(mark).Add(-s.cfg.Margin)
		if err == nil && cut == mark {
			since = time.UnixMilli(mark)
		}
	}
	res.Since = since
	upper := now.Add(-s.cfg.Settle)
	// high is how far every order is handled: the list is sorted by change, so
	// when the pages run out (or the bound is reached) it is the last one read.
	high := upper
	// hold is the change time of the first order that could not be taken.
	var hold time.Time
	// sorted: the list came oldest change first, as asked. A list that did not
	// (an API ignoring the sort) cut off at MaxPages leaves the watermark alone.
	var prev time.Time
	sorted, truncated := true, false
	cursor := ""
	for page := 0; ; page++ {
		if page == s.cfg.MaxPages {
			break
		}
		p, err := l.List(ctx, since, cursor)
		if err != nil {
			return res, err
		}
		for _, o := range p.Orders {
			res.Listed++
			sorted = sorted && !o.Modified.Before(prev)
			prev = o.Modified
			if o.Modified.After(upper) {
				res.Later++
				continue
			}
			err := s.one(ctx, l, o, &res)
			var rc interface{ Retryable() bool }
			switch {
			case err != nil && errors.As(err, &rc) && rc.Retryable():
				// This order's read failed (its API answered 5xx, 429, 403...):
				// the others go on, and the watermark stays before it, so the
				// next sweep reads it again.
				res.Retry++
				s.m.order(l.Platform(), "retry")
				s.log.WarnContext(ctx, "reconcile: listed order not taken; the next sweep tries again", "platform", l.Platform(),
					"shop", l.Shop(), "order", o.ID, "err", err)
				if hold.IsZero() || o.Modified.Before(hold) {
					hold = o.Modified
				}
			case err != nil:
				return res, err
			}
		}
		if p.Next == "" {
			break
		}
		if page+1 == s.cfg.MaxPages && len(p.Orders) > 0 {
			switch last := p.Orders[len(p.Orders)-1].Modified; {
			case !sorted:
				high = time.UnixMilli(mark)
				s.log.WarnContext(ctx, "reconcile: the list is not sorted by change and has more pages than a sweep reads; the watermark stays",
					"platform", l.Platform(), "shop", l.Shop(), "pages", s.cfg.MaxPages)
			case last.Before(upper):
				high, truncated = last, true
			}
		}
		cursor = p.Next
	}
	if !hold.IsZero() && hold.Add(-time.Millisecond).Before(high) {
		high = hold.Add(-time.Millisecond)
	}
	res.Mark = time.UnixMilli(max(mark, high.UnixMilli()))
	if since.After(time.UnixMilli(mark)) {
		// A sweep from a later time (reconcile --since) did not read what lies
		// between the watermark and it: the watermark stays.
		res.Mark = time.UnixMilli(mark)
		return res, nil
	}
	if err := raiseMark.Run(ctx, s.rdb, []string{markKey}, high.UnixMilli()).Err(); err != nil {
		return res, fmt.Errorf("reconcile: watermark: %w", err)
	}
	if truncated && hold.IsZero() {
		err = s.rdb.Set(ctx, cutKey, high.UnixMilli(), s.cfg.SeenTTL).Err()
	} else {
		err = s.rdb.Del(ctx, cutKey).Err()
	}
	if err != nil {
		return res, fmt.Errorf("reconcile: watermark: %w", err)
	}
	return res, nil
}

// raiseMark sets the watermark only forward: a slow sweep finishing after a later
// one must not move it back.
var raiseMark = redis.NewScript(`local v = tonumber(redis.call('GET', KEYS[1]) or '0') if tonumber(ARGV[1]) > v then redis.call('SET', KEYS[1], ARGV[1]) end return 1`)

// handled reads the push state: an order the pipeline deleted, pushed at this
// version or a newer one, or a cancelled order the hub never had, needs nothing.
func (s *Sweeper) handled(ctx context.Context, store string, o *model.Order, del bool) (bool, error) {
	updated, deleted, err := s.pushes.Pushed(ctx, jobs.OrderKey{Store: store, Domain: o.Domain, OrderID: o.OrderID})
	switch {
	case err != nil:
		return false, err
	case deleted:
		return true, nil
	case del:
		return updated == "", nil
	}
	return updated != "" && updated >= o.Updated, nil
}

// one handles one listed order: a version a sweep handled before is passed over;
// otherwise the intake maps it and, unless the pipeline pushed this version (or a
// newer one, or deleted the order), enqueues it, which counts as recovered.
func (s *Sweeper) one(ctx context.Context, l Lister, o Listed, res *Result) error {
	seenKey := s.key("seen", l) + ":" + url.PathEscape(o.ID)
	stamp := o.Modified.UnixMilli()
	prev, err := s.rdb.Get(ctx, seenKey).Int64()
	if err != nil && !errors.Is(err, redis.Nil) {
		return fmt.Errorf("reconcile: seen: %w", err)
	}
	if err == nil && prev >= stamp {
		res.Seen++
		s.m.order(l.Platform(), "seen")
		return nil
	}
	got, err := s.feed.ApplyOrder(ctx, l.Platform(), l.Shop(), o.Raw, s.handled)
	var rc interface{ Retryable() bool }
	switch {
	case err != nil && errors.As(err, &rc) && !rc.Retryable():
		res.Failed++
		s.m.order(l.Platform(), "failed")
		s.log.ErrorContext(ctx, "reconcile: listed order cannot be taken; not retried", "platform", l.Platform(),
			"shop", l.Shop(), "order", o.ID, "err", err)
	case err != nil:
		return fmt.Errorf("reconcile: %s order %s: %w", l.Platform(), o.ID, err)
	case got.Skip == "" && len(got.Jobs) > 0:
		res.Recovered++
		s.m.order(l.Platform(), "recovered")
		s.log.WarnContext(ctx, "reconcile: order no webhook brought enqueued", "platform", l.Platform(), "shop", l.Shop(),
			"order", o.ID, "store", got.Store, "modified", o.Modified, "jobs", got.Jobs)
	case got.Skip == intake.SkipHandled:
		res.Handled++
		s.m.order(l.Platform(), "handled")
	default:
		res.Skipped++
		s.m.order(l.Platform(), "skipped")
	}
	if err := s.rdb.Set(ctx, seenKey, stamp, s.cfg.SeenTTL).Err(); err != nil {
		return fmt.Errorf("reconcile: seen: %w", err)
	}
	return nil
}
