package worker

import (
	"context"
	"fmt"
	"strings"
	"unicode"

	"github.com/printworker/printworker/routing"
	"github.com/printworker/printworker/storage"
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

// routeView applies the routing rules to a view's default key: a matched rule puts
// the key under its prefix and/or in its bucket. The manifest is not routed: it stays
// at the layout's manifest key in the default bucket and lists every file's key and
// bucket. The last result is the gang group the file is also nested on ("" none).
func (w *Worker) routeView(ctx context.Context, x viewExport, key string) (string, string, string, error) {
	if w.cfg.Routing == nil {
		return key, "", "", nil
	}
	f := routing.File{Store: x.p.Store, Product: x.d.ProductID, Type: x.v.Export.Type, Quantity: x.p.Quantity}
	if w.cfg.Routing.UsesRush() {
		snap, err := w.state.Snapshot(ctx, x.p.OrderKey)
		if err != nil {
			return "", "", "", err
		}
		if snap.Order != nil {
			f.Rush = IsRush(snap.Order.Status)
		}
	}
	t, ok := w.cfg.Routing.Route(f)
	if !ok {
		return key, "", "", nil
	}
	if t.Prefix != "" {
		key = t.Prefix + "/" + key
		if err := storage.ValidateKey(key); err != nil {
			return "", "", "", &PermanentError{Reason: fmt.Sprintf("routed object key (rule %d): %v", t.Rule, err)}
		}
	}
	w.logger(ctx).DebugContext(ctx, "view routed", "view", x.v.ID, "rule", t.Rule, "name", t.Name, "key", key, "bucket", t.Bucket, "gang", t.Gang)
	return key, t.Bucket, t.Gang, nil
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
