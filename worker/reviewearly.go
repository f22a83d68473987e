package worker

import (
	"context"
	"slices"

	"github.com/printworker/printworker/render"
)

// Early review moves (docs/shop-floor.md "Review holds"): a design whose files have a
// finding the policy holds makes its order held, so its files go to review/ as soon
// as the design is exported, not when the order completes (which waits for every
// other design of the order and its own turn in the queue). The completion's hold
// then finds them moved (moveObject: the source gone, the destination there); an
// order that turns out approved (an update of files that went to production
// already) gets them back before anything reads them.

// holdEarly moves the files of one exported design (print files, thumbnails,
// sidecars) under review/ when one of them has a finding the policy of store holds
// for product.
func (w *Worker) holdEarly(ctx context.Context, store, product string, files []FileRecord) error {
	if !w.reviewActive(store) {
		return nil
	}
	held := slices.ContainsFunc(files, func(f FileRecord) bool {
		kinds := w.holdKinds(store, product, f.ViewID)
		return slices.ContainsFunc(f.Warnings, func(wr render.Warning) bool { return slices.Contains(kinds, wr.Code) })
	})
	if !held {
		return nil
	}
	for _, mv := range moves(&Manifest{Files: files}, toReview) {
		if err := w.moveObject(ctx, mv); err != nil {
			return err
		}
	}
	w.logger(ctx).InfoContext(ctx, "design held for review: its files moved to review/ at export", "files", len(files))
	return nil
}

// unholdEarly brings back the files of m that holdEarly moved, for an order the
// completion does not hold after all; a file never moved costs two reads.
func (w *Worker) unholdEarly(ctx context.Context, m *Manifest) error {
	for _, mv := range moves(rekeyed(m, toReview), fromReview) {
		if err := w.moveObject(ctx, mv); err != nil {
			return err
		}
	}
	return nil
}
