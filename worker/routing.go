package worker

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/routing"
)

// Router picks the key prefix and bucket of a print file (*routing.Rules;
// docs/routing.md).
type Router interface {
	Route(routing.File) (routing.Target, bool)
	// Buckets are the buckets the rules route to; each needs a Deps.Buckets entry.
	Buckets() []string
	// UsesRush: some rule looks at the rush flag, so the order must be read.
	UsesRush() bool
	// Profiles are the production profiles the rules name; each needs to be in
	// Config.Profiles (profiles.Load's also).
	Profiles() []string
}

// checkBuckets reports every routed bucket without a storage.
func checkBuckets(r Router, buckets map[string]Storage) []error {
	if r == nil {
		return nil
	}
	var errs []error
	for _, b := range r.Buckets() {
		if buckets[b] == nil {
			errs = append(errs, fmt.Errorf("worker: routing rules send files to bucket %q, which has no storage", b))
		}
	}
	return errs
}

// checkRoutingProfiles reports every profile the routing rules name that the
// worker's profiles did not load.
func checkRoutingProfiles(r Router, set *profiles.Set) []error {
	if r == nil {
		return nil
	}
	var errs []error
	for _, name := range r.Profiles() {
		if _, ok := set.Named(name); !ok {
			errs = append(errs, fmt.Errorf("worker: routing rules name profile %q, which Config.Profiles did not load", name))
		}
	}
	return errs
}

// rushOf reads whether the order is a rush order, when a routing rule asks.
func (w *Worker) rushOf(ctx context.Context, k jobs.OrderKey) (bool, error) {
	if w.cfg.Routing == nil || !w.cfg.Routing.UsesRush() {
		return false, nil
	}
	snap, err := w.state.Snapshot(ctx, k)
	if err != nil || snap.Order == nil {
		return false, err
	}
	return IsRush(snap.Order.Status), nil
}

// routeView applies the routing rules to a view's file of type typ: the target of
// the first matching rule (its machine folder, gang group and production profile),
// ok false when none matches. The file itself always stays in its order folder,
// with its thumbnail, beside the manifest; a machine folder gets a copy (machine.go).
func (w *Worker) routeView(ctx context.Context, p jobs.DesignExport, product string, v *model.View, typ string, rush bool) (routing.Target, bool) {
	if w.cfg.Routing == nil {
		return routing.Target{}, false
	}
	t, ok := w.cfg.Routing.Route(routing.File{Store: p.Store, Product: product, Type: typ, Quantity: p.Quantity, Rush: rush})
	if ok {
		w.logger(ctx).DebugContext(ctx, "view routed", "view", v.ID, "rule", t.Rule, "name", t.Name, "prefix", t.Prefix, "bucket", t.Bucket, "gang", t.Gang, "profile", t.Profile)
	}
	return t, ok
}

// IsRush reports whether an order status carries the word "rush" (any case), e.g.
// "paid/rush" or "rush". The hub order has no tags; the Shopify intake appends "rush"
// to the status of an order tagged rush (docs/routing.md).
func IsRush(status string) bool {
	for _, w := range strings.FieldsFunc(status, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if strings.EqualFold(w, "rush") {
			return true
		}
	}
	return false
}

// storageOf is the storage of a routed bucket ("" the default).
func (w *Worker) storageOf(bucket string) Storage {
	if bucket == "" {
		return w.deps.Storage
	}
	return w.deps.Buckets[bucket]
}

// bucketURL is the link to key in bucket, or "" when its storage cannot make one.
func (w *Worker) bucketURL(bucket, key string) string {
	if bucket == "" {
		return w.objectURL(key)
	}
	if l, ok := w.storageOf(bucket).(linker); ok {
		return l.URL(key)
	}
	return ""
}
