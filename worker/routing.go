package worker

import (
	"context"
	"fmt"
	"strings"
	"unicode"

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

// routeView applies the routing rules to a view's file: the target of the first
// matching rule (its machine folder and/or gang group), ok false when none matches.
// The file itself always stays in its order folder, with its thumbnail, beside the
// manifest; a machine folder gets a copy (machine.go).
func (w *Worker) routeView(ctx context.Context, x viewExport) (routing.Target, bool, error) {
	if w.cfg.Routing == nil {
		return routing.Target{}, false, nil
	}
	f := routing.File{Store: x.p.Store, Product: x.d.ProductID, Type: x.v.Export.Type, Quantity: x.p.Quantity}
	if w.cfg.Routing.UsesRush() {
		snap, err := w.state.Snapshot(ctx, x.p.OrderKey)
		if err != nil {
			return routing.Target{}, false, err
		}
		if snap.Order != nil {
			f.Rush = IsRush(snap.Order.Status)
		}
	}
	t, ok := w.cfg.Routing.Route(f)
	if ok {
		w.logger(ctx).DebugContext(ctx, "view routed", "view", x.v.ID, "rule", t.Rule, "name", t.Name, "prefix", t.Prefix, "bucket", t.Bucket, "gang", t.Gang)
	}
	return t, ok, nil
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
