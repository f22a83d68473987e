package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/storage"
)

// ManifestVersion is the version of the manifest's schema.
const ManifestVersion = 1

// Manifest describes a complete order: written last, next to the order's files, its
// presence means every file it lists is stored.
type Manifest struct {
	Version      int            `json:"version"`
	Store        string         `json:"store"`
	Domain       string         `json:"domain"`
	OrderID      string         `json:"orderId"`
	Revision     int64          `json:"revision"`
	OrderStatus  string         `json:"orderStatus,omitempty"`
	OrderCreated string         `json:"orderCreated,omitempty"`
	OrderUpdated string         `json:"orderUpdated,omitempty"`
	GeneratedAt  string         `json:"generatedAt"`
	Customer     Customer       `json:"customer"`
	Shipping     model.Address  `json:"shipping"`
	LineItems    []ManifestLine `json:"lineItems"`
	Files        []FileRecord   `json:"files"`
	// ColorSpace is the colour space of the files: sRGB, CMYK, or mixed (each file
	// says its own); ColorProfile names the CMYK profile the files were made with
	// (several: the first). Downloaded hub exports count as sRGB.
	ColorSpace   string            `json:"colorSpace"`
	ColorProfile string            `json:"colorProfile,omitempty"`
	Warnings     []ManifestWarning `json:"warnings,omitempty"`
	// Ticket and StaffPage are the keys of the job ticket and staff page written
	// before the manifest (docs/shop-floor.md); absent when turned off.
	Ticket    string `json:"ticket,omitempty"`
	StaffPage string `json:"staffPage,omitempty"`
	// Reprints are the order's reprints (docs/operations.md "Reprint files"), kept
	// when the manifest is written again.
	Reprints []ReprintRecord `json:"reprints,omitempty"`
	// Review is the order's review hold (docs/shop-floor.md "Review holds"): in a
	// review manifest while held or rejected, in the final one once released.
	Review *ReviewRecord `json:"review,omitempty"`
	// Reprint marks the copy of a manifest a reprint's job ticket is drawn from: the
	// ticket then says REPRINT.
	Reprint bool `json:"-"`
}

// KeyVars are the layout values of the order's folders (its manifest, staff page and
// day folder), dated date: the one place a manifest names its order to the layout, so
// no caller leaves the domain out.
func (m *Manifest) KeyVars(date time.Time) storage.KeyVars {
	return storage.KeyVars{Store: m.Store, Domain: m.Domain, Order: m.OrderID, Date: date}
}

// Customer is who ordered.
type Customer struct {
	FirstName string `json:"firstName"`
	LastName  string `json:"lastName"`
}

// ManifestLine is one order line with the files of its design.
type ManifestLine struct {
	DesignID   int64    `json:"designId"`
	DesignName string   `json:"designName,omitempty"`
	ProductID  string   `json:"productId,omitempty"`
	Quantity   int      `json:"quantity"`
	Price      float64  `json:"price"`
	Files      []string `json:"files"`
}

// ManifestWarning is a file's warning with the file it belongs to.
type ManifestWarning struct {
	Key string `json:"key"`
	render.Warning
}

// handleComplete writes the manifest of a complete order revision. It does nothing
// for a cancelled order or a revision superseded by a newer one (whose own
// completion writes the manifest). The manifest is one object written atomically
// after every file, so its presence means the order is complete.
func (w *Worker) handleComplete(ctx context.Context, t *asynq.Task) error {
	p, err := jobs.Decode[jobs.OrderComplete](t.Payload())
	if err != nil {
		return err
	}
	k := p.OrderKey
	snap, err := w.state.Snapshot(ctx, k)
	if err != nil {
		return err
	}
	switch {
	case !snap.Exists || snap.Order == nil:
		return &PermanentError{Reason: fmt.Sprintf("order %s has no export state (never recorded, or expired)", k)}
	case snap.Cancelled:
		markSkipped(ctx, "order cancelled")
		return nil
	case p.Rev < snap.Rev:
		markSkipped(ctx, fmt.Sprintf("revision %d superseded by %d", p.Rev, snap.Rev))
		return nil
	}
	if err := w.quantityError(snap.Order); err != nil {
		return err
	}
	for _, ref := range snap.Expected {
		if _, ok := snap.Done[ref]; !ok {
			// Cannot happen for a completion enqueued by the last design; seen only if
			// state was altered by hand. Retrying lets a running export finish.
			return fmt.Errorf("order %s revision %d: design %s not exported yet", k, p.Rev, designID(ref))
		}
	}
	date, _ := time.Parse(time.DateOnly, snap.Date)
	key, err := w.cfg.Layout.ManifestKey(orderVars(k, date))
	if err != nil {
		return &PermanentError{Reason: fmt.Sprintf("manifest key: %v", err)}
	}
	prev, last, err := w.settledResults(ctx, k, snap)
	if err != nil {
		return err
	}
	m, err := w.buildManifest(k, snap, prev)
	if err != nil {
		return err
	}
	if snap.OrderSlim {
		// A settled state keeps the order's lines and status; the rest of the order
		// is in its last manifest.
		m.OrderCreated, m.OrderUpdated, m.Customer, m.Shipping = last.OrderCreated, last.OrderUpdated, last.Customer, last.Shipping
	}
	// Machine folder copies and gang adds wait for the order's completion when it
	// may be held (docs/shop-floor.md "Review holds").
	var old *Manifest
	review := w.reviewActive(k.Store)
	if review || slices.ContainsFunc(m.Files, func(f FileRecord) bool { return f.MachinePlan != nil }) {
		if old, err = w.findManifest(ctx, key, k); err != nil {
			return err
		}
	}
	if review {
		if f := w.reviewFindings(m); len(f) > 0 {
			if !approved(old, m, f) {
				clearHeldEarly(m)
				return w.holdOrder(ctx, t, k, snap.Date, m, key, f)
			}
			m.Review = old.Review
		}
	}
	if err := w.unholdEarly(ctx, m); err != nil {
		return err
	}
	if err := w.deliverPlanned(ctx, m, old); err != nil {
		return err
	}
	if err := w.gangPlanned(ctx, k, m, key); err != nil {
		return err
	}
	if review {
		if err := w.supersedeReview(ctx, toReview(key), k); err != nil {
			return err
		}
	}
	if err := w.finishOrder(ctx, t, k, m, key, date); err != nil {
		return err
	}
	// The manifest lists every file: the state keeps only what a re-export, an
	// update and duplicate detection need (docs/operations.md, "Redis sizing"). A
	// failure costs memory, not correctness, so it does not repeat the completion.
	if _, err := w.state.Settle(ctx, k, snap.Rev, key); err != nil {
		w.logger(ctx).WarnContext(ctx, "order state kept whole", "err", err)
	}
	return nil
}

// finishOrder writes the shop floor and the manifest m of order k at key, lists the
// order on its day page and raises files-ready: the end of a completion, and of a
// release from review.
func (w *Worker) finishOrder(ctx context.Context, t *asynq.Task, k jobs.OrderKey, m *Manifest, key string, date time.Time) error {
	if err := w.refreshLinks(ctx, m); err != nil {
		return err
	}
	if err := w.writeShopFloor(ctx, m, key); err != nil {
		return err
	}
	// A manifest is never written over another order's: an existing one is replaced
	// only when it is this order's, and a new one is created only if none appeared.
	exists, err := w.manifestOwner(ctx, key, k)
	if err != nil {
		return err
	}
	if exists {
		// The order's reprints outlive a re-export: their files are still there.
		if m.Reprints, err = w.keptReprints(ctx, key, k); err != nil {
			return err
		}
	}
	put, err := w.putManifest(ctx, key, m, !exists)
	if errors.Is(err, storage.ErrExists) {
		return errManifestRace(key, err)
	}
	if err != nil {
		return err
	}
	w.m.bytes.WithLabelValues("manifest").Add(float64(put.Bytes))
	w.logger(ctx).InfoContext(ctx, "manifest written", "key", key, "files", len(m.Files), "rev", m.Revision)
	if err := w.publishFilesReady(ctx, k, key, m); err != nil {
		return err
	}
	// The day page lists the order after a debounced build of its own: the
	// completion records the order and enqueues the build, and does not wait for it
	// (docs/shop-floor.md). A failure here retries the completion, which writes the
	// same manifest and event again.
	if err := w.noteDayPage(ctx, m, key, date); err != nil {
		return err
	}
	writeResult(ctx, w.logger(ctx), t, []byte(key))
	return nil
}

// settledResults are the results of the designs of a settled order (those whose
// result in the state is jobs.SettledResult), read from its manifest by design id,
// and that manifest. The manifest is read too when the state keeps only the order's
// lines (Snapshot.OrderSlim): the rest of the order is in it.
func (w *Worker) settledResults(ctx context.Context, k jobs.OrderKey, snap jobs.Snapshot) (map[int64]DesignResult, *Manifest, error) {
	settled := snap.OrderSlim
	for _, ref := range snap.Expected {
		if string(snap.Done[ref]) == jobs.SettledResult {
			settled = true
		}
	}
	if !settled {
		return nil, nil, nil
	}
	missing := &PermanentError{Reason: fmt.Sprintf(
		"order %s: the manifest %s listing the files of its designs exported before is missing or unreadable; re-export the whole order (printworker enqueue reexport)", k, snap.Manifest)}
	if snap.OrderSlim {
		missing.Reason = fmt.Sprintf(
			"order %s: the manifest %s holding the order's data and the files of its designs exported before is missing or unreadable; once the store sends an update of the order, re-export the whole order (printworker enqueue reexport)", k, snap.Manifest)
	}
	r, ok := w.deps.Storage.(objectReader)
	if !ok || snap.Manifest == "" {
		return nil, nil, missing
	}
	rc, _, err := r.Get(ctx, snap.Manifest)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil, missing
	}
	if err != nil {
		return nil, nil, fmt.Errorf("read the manifest of the designs exported before: %w", err)
	}
	defer rc.Close()
	var m Manifest
	if err := json.NewDecoder(io.LimitReader(rc, maxManifestBytes)).Decode(&m); err != nil || m.OrderID != k.OrderID {
		return nil, nil, missing
	}
	byKey := map[string]FileRecord{}
	for _, f := range m.Files {
		byKey[f.Key] = f
	}
	out := map[int64]DesignResult{}
	for _, li := range m.LineItems {
		if _, ok := out[li.DesignID]; ok {
			continue
		}
		r := DesignResult{DesignID: li.DesignID, Name: li.DesignName, ProductID: li.ProductID, Files: []FileRecord{}}
		for _, fk := range li.Files {
			if f, ok := byKey[fk]; ok {
				r.Files = append(r.Files, f)
			}
		}
		out[li.DesignID] = r
	}
	return out, &m, nil
}

// buildManifest assembles the manifest from the order and the designs' results:
// files in line order, each design's views in weight order.
// A settled design's result (jobs.SettledResult) comes from prev, the results in the
// order's last manifest by design id.
func (w *Worker) buildManifest(k jobs.OrderKey, snap jobs.Snapshot, prev map[int64]DesignResult) (*Manifest, error) {
	o := snap.Order
	m := &Manifest{
		Version: ManifestVersion, Store: k.Store, Domain: k.Domain, OrderID: k.OrderID,
		Revision: snap.Rev, OrderStatus: o.Status, OrderCreated: o.Created, OrderUpdated: o.Updated,
		GeneratedAt: time.Now().UTC().Format(time.RFC3339),
		Customer:    Customer{FirstName: o.FirstName, LastName: o.LastName},
		Shipping:    o.ShippingDetails, ColorSpace: "sRGB",
		Files: []FileRecord{}, LineItems: []ManifestLine{},
	}
	results := map[string]DesignResult{}
	for ref, raw := range snap.Done {
		if !slices.Contains(snap.Expected, ref) {
			continue
		}
		if string(raw) == jobs.SettledResult {
			r, ok := prev[idOf(ref)]
			if !ok {
				return nil, &PermanentError{Reason: fmt.Sprintf("order %s: design %s is not in the manifest of its earlier revision; re-export the whole order", k, designID(ref))}
			}
			results[ref] = r
			continue
		}
		var r DesignResult
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("order %s: result of design %s: %w", k, designID(ref), err)
		}
		results[ref] = r
	}
	listed := map[string]bool{}
	for _, li := range o.LineItems {
		ref := li.Ref()
		if ref.Validate() != nil {
			continue
		}
		r := results[ref.String()]
		line := ManifestLine{DesignID: ref.ID, DesignName: r.Name, ProductID: r.ProductID, Quantity: li.Quantity, Price: li.Price, Files: []string{}}
		for _, f := range r.Files {
			line.Files = append(line.Files, f.Key)
			if listed[f.Key] {
				continue // the same design on two lines: its files once
			}
			listed[f.Key] = true
			m.Files = append(m.Files, f)
			for _, wr := range f.Warnings {
				m.Warnings = append(m.Warnings, ManifestWarning{Key: f.Key, Warning: wr})
			}
		}
		m.LineItems = append(m.LineItems, line)
	}
	m.ColorSpace, m.ColorProfile = manifestColour(m.Files)
	return m, nil
}

// idOf is a design reference's id as a number (0 when it has none).
func idOf(ref string) int64 {
	id, _ := strconv.ParseInt(designID(ref), 10, 64)
	return id
}

// designID is the id part of a design reference: tokens stay out of messages.
func designID(ref string) string {
	id, _, _ := strings.Cut(ref, ".")
	return id
}
