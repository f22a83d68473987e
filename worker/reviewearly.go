package worker

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/render"
)

// Early review moves (docs/shop-floor.md "Review holds"): a design whose files have a
// finding the policy holds makes its order held, so its files go to review/ as soon
// as the design is exported, not when the order completes (which waits for every
// other design of the order and its own turn in the queue). The completion's hold
// then finds them moved (moveObject: the source gone, the destination there); an
// order that turns out approved (an update of files that went to production
// already) gets them back before anything reads them.

// holdEarly moves the files of one exported design of order k (print files,
// thumbnails, sidecars) under review/ when one of them has a finding the policy of
// the store holds for product, or when a design of the order exported before did.
func (w *Worker) holdEarly(ctx context.Context, k jobs.OrderKey, product string, files []FileRecord) error {
	if !w.reviewActive(k.Store) {
		return nil
	}
	held := slices.ContainsFunc(files, func(f FileRecord) bool {
		kinds := w.holdKinds(k.Store, product, f.ViewID)
		return slices.ContainsFunc(f.Warnings, func(wr render.Warning) bool { return slices.Contains(kinds, wr.Code) })
	})
	if !held {
		// A design exported after another of the order was held goes with it: the
		// order is held whatever this design holds.
		var err error
		if held, err = w.heldEarlier(ctx, k); err != nil || !held {
			return err
		}
	}
	for _, mv := range moves(&Manifest{Files: files}, toReview) {
		if err := w.moveObject(ctx, mv); err != nil {
			return err
		}
	}
	for i := range files {
		files[i].HeldEarly = true
	}
	w.logger(ctx).InfoContext(ctx, "design held for review: its files moved to review/ at export", "files", len(files))
	return nil
}

// heldEarlier says whether a design of order k exported before moved its files to
// review/ (holdEarly): one read of the order's state.
func (w *Worker) heldEarlier(ctx context.Context, k jobs.OrderKey) (bool, error) {
	snap, err := w.state.Snapshot(ctx, k)
	if err != nil {
		return false, err
	}
	for _, raw := range snap.Done {
		var r DesignResult
		if json.Unmarshal(raw, &r) == nil && slices.ContainsFunc(r.Files, func(f FileRecord) bool { return f.HeldEarly }) {
			return true, nil
		}
	}
	return false, nil
}

// unholdEarly brings back the files of m that holdEarly moved, for an order the
// completion does not hold after all (approved, or the policy changed since the
// export), and clears their mark.
func (w *Worker) unholdEarly(ctx context.Context, m *Manifest) error {
	var early []FileRecord
	for _, f := range m.Files {
		if f.HeldEarly {
			early = append(early, f)
		}
	}
	for _, mv := range moves(rekeyed(&Manifest{Files: early}, toReview), fromReview) {
		if err := w.moveObject(ctx, mv); err != nil {
			return err
		}
	}
	clearHeldEarly(m)
	return nil
}

// clearHeldEarly drops the export's marks from m's files before a manifest is made.
func clearHeldEarly(m *Manifest) {
	for i := range m.Files {
		m.Files[i].HeldEarly = false
	}
}
