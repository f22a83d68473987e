package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storage"
)

// objectReader is the optional part of a Storage that reads an object back (both
// storage backends can); the manifest's owner is checked through it.
type objectReader interface {
	Get(ctx context.Context, key string) (io.ReadCloser, storage.Info, error)
}

// maxManifestBytes bounds what is read of a manifest found in place.
const maxManifestBytes = 64 << 20

// manifestOwner checks the manifest already at key, if any, before the order k writes
// its own there. A manifest is only ever replaced by its own order (a re-export, a
// repeated completion): another order's manifest, or anything that is not a manifest,
// fails permanently and is left alone. exists tells the caller whether to replace
// (exists) or to create only if absent. A storage that cannot read back is trusted.
func (w *Worker) manifestOwner(ctx context.Context, key string, k jobs.OrderKey) (exists bool, err error) {
	r, ok := w.deps.Storage.(objectReader)
	if !ok {
		return false, nil
	}
	rc, _, err := r.Get(ctx, key)
	if errors.Is(err, storage.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read the manifest in place: %w", err)
	}
	defer rc.Close()
	var found jobs.OrderKey
	if err := json.NewDecoder(io.LimitReader(rc, maxManifestBytes)).Decode(&found); err != nil || found.OrderID == "" {
		return true, &PermanentError{Reason: fmt.Sprintf(
			"%s holds an object that is not a printworker manifest: it is not overwritten (move it away, then retry)", key)}
	}
	if found != k {
		return true, &PermanentError{Reason: fmt.Sprintf(
			"%s is the manifest of order %q (store %s, domain %s), not of order %q: it is not overwritten (the storage layout gives both orders one folder)",
			key, found.OrderID, found.Store, found.Domain, k.OrderID)}
	}
	return true, nil
}

// errManifestRace is returned when a manifest appeared at the key between the owner
// check and the conditional create: the job's retry checks the new one's owner. It
// carries no class, so it is retried.
func errManifestRace(key string, err error) error {
	return fmt.Errorf("a manifest appeared at %s while this one was written (%v); checking its owner again on retry", key, err.Error())
}
