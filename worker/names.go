package worker

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"github.com/printworker/printworker/filenames"
	"github.com/printworker/printworker/gang/sheetjob"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/shopfloor"
	"github.com/printworker/printworker/storage"
)

// File names of an order (docs/storage.md "One name, one file"): every print file of
// an order gets a name no other file of the order has, compared case-insensitively
// (hot folders may sit on a case-insensitive filesystem), and never one of the names
// the worker gives the order's own files. The name is reserved in the order's state
// before anything is uploaded (jobs.State.ReserveName), so two designs exporting at
// once on two workers never both win it, and a retry gets the name it got before. A
// name that is free stays exactly as the filename pattern made it; a taken one gets
// "-2", "-3", ... before its extension.

// orderFileNames are the names the worker writes into an order's folder besides the
// print files, in lower case; a print file never takes one of them.
var orderFileNames = map[string]bool{
	storage.ManifestName:    true, // manifest.json
	shopfloor.TicketName:    true, // ticket.pdf
	shopfloor.StaffPageName: true, // index.html
	sheetjob.RecordName:     true, // gang.json
}

// nameBatch is how many choices one reservation offers after the first; maxNameChoice
// bounds the numbers tried (an order never has that many files of one name).
const (
	nameBatch     = 16
	maxNameChoice = 1 << 20
)

// claimsOf are the names a file at key occupies in its folder: its own and its
// thumbnail's (shopfloor.ThumbnailKey).
func claimsOf(key string) []string {
	return []string{path.Base(key), path.Base(shopfloor.ThumbnailKey(key))}
}

// reserveKey reserves the name of the file of view x, of type typ, that would be
// name without a collision, and returns the reserved name and its key. The owner of
// the reservation is the design's view, its slot the type, so a retry (and the type a
// hub's bytes turn out to have, followKind) each keep their own name.
func (w *Worker) reserveKey(ctx context.Context, x viewExport, name, typ string) (string, string, error) {
	return w.reserveSlot(ctx, x, name, typ, typ)
}

// reserveSlot is reserveKey with the reservation's slot given: a view's sidecars
// (profiles.go) have their own slots beside the view file's type.
func (w *Worker) reserveSlot(ctx context.Context, x viewExport, name, typ, slot string) (string, string, error) {
	owner := x.p.Ref + "|" + x.v.ID
	ext := filenames.Ext(typ)
	keys := map[string]string{}
	for first, n := 1, 1; first <= maxNameChoice; first += n {
		n = nameBatch
		if first == 1 {
			n = 1 // the name as made: free for nearly every file
		}
		var choices []jobs.NameChoice
		for i := first; i < first+n; i++ {
			cand := name
			if i > 1 {
				cand = filenames.Numbered(w.cfg.Filenames, name, ext, i)
			}
			key, err := w.objectKey(x, cand, typ)
			if err != nil {
				return "", "", err
			}
			claims := claimsOf(key)
			if orderFileNames[strings.ToLower(claims[0])] || orderFileNames[strings.ToLower(claims[1])] {
				continue
			}
			keys[cand] = key
			choices = append(choices, jobs.NameChoice{Name: cand, Claims: claims})
		}
		if len(choices) == 0 {
			continue
		}
		got, next, err := w.state.ReserveName(ctx, x.p.OrderKey, owner, slot, name, first, choices)
		if err != nil {
			return "", "", err
		}
		if got != "" {
			key, ok := keys[got]
			if !ok { // reserved by an earlier attempt
				if key, err = w.objectKey(x, got, typ); err != nil {
					return "", "", err
				}
			}
			if got != name {
				w.logger(ctx).InfoContext(ctx, "file name taken in the order, numbered", "view", x.v.ID, "name", name, "stored", got)
			}
			return got, key, nil
		}
		if next > first+n {
			n = next - first
		}
	}
	return "", "", &PermanentError{Reason: fmt.Sprintf("no free file name for %s in order %s", name, x.p.OrderID)}
}

// claimFolder makes the order's folder its own before any file of the order is
// written: the folder's claim in the order state (two orders exporting at once) and
// the manifest in place (an order completed before, whose claim may have expired). A
// folder of another order fails permanently and nothing is written.
func (w *Worker) claimFolder(ctx context.Context, k jobs.OrderKey, date time.Time) error {
	key, err := w.cfg.Layout.ManifestKey(orderVars(k, date))
	if err != nil {
		return &PermanentError{Reason: fmt.Sprintf("order %q: manifest key: %v", k.OrderID, err)}
	}
	owner, err := w.state.ClaimFolder(ctx, key, k)
	if err != nil {
		return err
	}
	if owner != k {
		return &PermanentError{Reason: fmt.Sprintf(
			"the folder of %s belongs to order %q (store %s, domain %s), not to order %q: nothing written (the storage layout gives both orders one folder)",
			key, owner.OrderID, owner.Store, owner.Domain, k.OrderID)}
	}
	// Another order's manifest in place fails; one that cannot be read now (a store
	// answering 503) does not stop the export, whose uploads meet the same store: the
	// completion checks the owner again before writing the manifest.
	if _, err := w.manifestOwner(ctx, key, k); err != nil {
		var pe *PermanentError
		if errors.As(err, &pe) {
			return err
		}
		w.logger(ctx).WarnContext(ctx, "manifest in place unreadable, its owner is checked again at completion", "key", key, "err", err)
	}
	return nil
}

// orderVars are the order-level layout variables of order k.
func orderVars(k jobs.OrderKey, date time.Time) storage.KeyVars {
	return storage.KeyVars{Store: k.Store, Domain: k.Domain, Order: k.OrderID, Date: date}
}
