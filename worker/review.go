package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/shopfloor"
	"github.com/printworker/printworker/storage"
)

// Review holds (docs/shop-floor.md "Review holds"). A review policy names the
// preflight findings (warning codes of the files) that hold an order: per store, and
// per production profile, which profiles choose per product and view. A completion
// whose files have such a finding moves the order's files from their keys to
// "review/<key>" in the same storage and writes the review manifest there
// ("review/<manifest key>") with a staff page that says why and how to release it;
// no day page entry, no files-ready event, no machine folder copy and no gang sheet
// entry (both are planned at export and made at completion: MachinePlan, GangPlan).
// The review manifest is the truth of the hold: nothing of it lives only in Redis,
// so a hold outlives the order's state. A release (jobs.TypeReview) moves the stored
// files back to their keys, makes the planned machine copies and gang adds, and
// finishes the order as a completion does (shop floor, manifest, day page,
// files-ready); nothing is rendered again. A rejection marks the review manifest
// rejected and keeps the files under review/; its planned adds are never made.

// ReviewPrefix prefixes the keys of a held order's objects.
const ReviewPrefix = "review/"

// Review statuses.
const (
	// ReviewHeld: waiting for an operator.
	ReviewHeld = "held"
	// ReviewReleased: released; the final manifest records it.
	ReviewReleased = "released"
	// ReviewRejected: rejected; the files stay under review/ until a re-export.
	ReviewRejected = "rejected"
	// ReviewSuperseded: a later revision of the order completed without a hold.
	ReviewSuperseded = "superseded"
)

// ReviewPolicy is which findings hold an order (profiles.ReviewKinds). A file's
// production profile with its own review list decides for that file; else its
// store's entry in Stores; else Hold. Empty lists hold nothing.
type ReviewPolicy struct {
	Hold   []string
	Stores map[string][]string
}

func (p ReviewPolicy) validate() error {
	var errs []error
	if _, err := profiles.ParseReview(p.Hold); err != nil {
		errs = append(errs, fmt.Errorf("review hold: %w", err))
	}
	for store, l := range p.Stores {
		if _, err := profiles.ParseReview(l); err != nil {
			errs = append(errs, fmt.Errorf("review hold of store %q: %w", store, err))
		}
	}
	return errors.Join(errs...)
}

// ReviewRecord is the review of an order: in its review manifest while held or
// rejected, in its final manifest once released.
type ReviewRecord struct {
	Status string `json:"status"`
	// Date is the order's date folder (yyyy-mm-dd), which names its manifests.
	Date   string `json:"date"`
	HeldAt string `json:"heldAt"`
	// Findings are the warnings that hold the order, each with its file's final key.
	Findings   []ManifestWarning `json:"findings"`
	ReleasedAt string            `json:"releasedAt,omitempty"`
	RejectedAt string            `json:"rejectedAt,omitempty"`
	Reason     string            `json:"reason,omitempty"`
}

// deleter is the optional part of a Storage that deletes (every backend does).
type deleter interface {
	Delete(ctx context.Context, key string) error
}

// storeHold is the policy of store's files without a profile's own.
func (w *Worker) storeHold(store string) []string {
	if l, ok := w.cfg.Review.Stores[store]; ok {
		return l
	}
	return w.cfg.Review.Hold
}

// holdKinds are the findings that hold a file of store's product and view.
func (w *Worker) holdKinds(store, product, view string) []string {
	if r := w.profileFor(store, product, view); r != nil && len(r.Profile.Review) > 0 {
		l, _ := profiles.ParseReview(r.Profile.Review) // checked when loaded
		return l
	}
	return w.storeHold(store)
}

// reviewActive says whether an order of store may be held: then its machine folder
// copies and gang adds wait for its completion.
func (w *Worker) reviewActive(store string) bool {
	return len(w.storeHold(store)) > 0 || w.cfg.Profiles.AnyReview()
}

// reviewFindings are the warnings of m's files that its policy holds.
func (w *Worker) reviewFindings(m *Manifest) []ManifestWarning {
	product := map[string]string{}
	for _, li := range m.LineItems {
		for _, k := range li.Files {
			product[k] = li.ProductID
		}
	}
	var out []ManifestWarning
	for _, f := range m.Files {
		kinds := w.holdKinds(m.Store, product[f.Key], f.ViewID)
		for _, wr := range f.Warnings {
			if slices.Contains(kinds, wr.Code) {
				out = append(out, ManifestWarning{Key: f.Key, Warning: wr})
			}
		}
	}
	return out
}

// approved says whether the order's manifest in place (old) already lists the very
// files findings name (same key, same checksum): released from review, or completed
// before (the policy came later). Those bytes went to production already; an update
// of the order that keeps them is not held, a re-export whose files changed is.
func approved(old, m *Manifest, findings []ManifestWarning) bool {
	if old == nil {
		return false
	}
	sums := map[string]string{}
	for _, f := range old.Files {
		sums[f.Key] = f.SHA256
	}
	for _, fd := range findings {
		i := slices.IndexFunc(m.Files, func(f FileRecord) bool { return f.Key == fd.Key })
		if i < 0 || m.Files[i].SHA256 == "" || sums[fd.Key] != m.Files[i].SHA256 {
			return false
		}
	}
	return true
}

// findManifest reads order k's manifest at key; nil when there is none, the storage
// cannot read back, or it is another order's (manifestOwner reports that).
func (w *Worker) findManifest(ctx context.Context, key string, k jobs.OrderKey) (*Manifest, error) {
	r, ok := w.deps.Storage.(objectReader)
	if !ok {
		return nil, nil
	}
	rc, _, err := r.Get(ctx, key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the manifest %s: %w", key, err)
	}
	defer rc.Close()
	var m Manifest
	if err := json.NewDecoder(io.LimitReader(rc, maxManifestBytes)).Decode(&m); err != nil {
		return nil, nil
	}
	if (jobs.OrderKey{Store: m.Store, Domain: m.Domain, OrderID: m.OrderID}) != k {
		return nil, nil
	}
	return &m, nil
}

// rekeyed is a copy of m whose object keys are f of its keys.
func rekeyed(m *Manifest, f func(string) string) *Manifest {
	c := *m
	opt := func(k string) string {
		if k == "" {
			return ""
		}
		return f(k)
	}
	c.Files = make([]FileRecord, len(m.Files))
	for i, fr := range m.Files {
		fr.Key, fr.Thumbnail = f(fr.Key), opt(fr.Thumbnail)
		fr.Sidecars = slices.Clone(fr.Sidecars)
		for j := range fr.Sidecars {
			fr.Sidecars[j].Key = f(fr.Sidecars[j].Key)
		}
		if fr.Preflight != nil {
			p := *fr.Preflight
			p.Report = opt(p.Report)
			fr.Preflight = &p
		}
		c.Files[i] = fr
	}
	c.LineItems = make([]ManifestLine, len(m.LineItems))
	for i, li := range m.LineItems {
		li.Files = slices.Clone(li.Files)
		for j := range li.Files {
			li.Files[j] = f(li.Files[j])
		}
		c.LineItems[i] = li
	}
	c.Warnings = slices.Clone(m.Warnings)
	for i := range c.Warnings {
		c.Warnings[i].Key = f(c.Warnings[i].Key)
	}
	c.Ticket, c.StaffPage = opt(m.Ticket), opt(m.StaffPage)
	return &c
}

func toReview(k string) string   { return ReviewPrefix + k }
func fromReview(k string) string { return strings.TrimPrefix(k, ReviewPrefix) }

// moves are the objects of m's files (print file, thumbnail, sidecars) as from -> to
// pairs, with what a copy checks.
type move struct {
	bucket, from, to, contentType, sha string
	size                               int64
}

func moves(m *Manifest, f func(string) string) []move {
	var out []move
	for _, fr := range m.Files {
		out = append(out, move{fr.Bucket, fr.Key, f(fr.Key), fr.ContentType, fr.SHA256, fr.Bytes})
		if fr.Thumbnail != "" {
			out = append(out, move{fr.Bucket, fr.Thumbnail, f(fr.Thumbnail), "image/jpeg", "", 0})
		}
		for _, sc := range fr.Sidecars {
			out = append(out, move{fr.Bucket, sc.Key, f(sc.Key), sc.ContentType, sc.SHA256, sc.Bytes})
		}
		if fr.Preflight != nil && fr.Preflight.Report != "" {
			out = append(out, move{"", fr.Preflight.Report, f(fr.Preflight.Report), "application/json", "", 0})
		}
	}
	return out
}

// moveObject moves one stored object within its storage: a copy checked against
// its length and checksum (when known), then the source is deleted. It can run
// again after a crash anywhere: a source that is gone was moved when its
// destination is there.
func (w *Worker) moveObject(ctx context.Context, mv move) error {
	st := w.storageOf(mv.bucket)
	g, ok := st.(getter)
	d, ok2 := st.(deleter)
	if !ok || !ok2 {
		return &PermanentError{Reason: "review holds need a storage that reads back and deletes"}
	}
	body, info, err := g.Get(ctx, mv.from)
	if errors.Is(err, storage.ErrNotFound) {
		rc, _, err := g.Get(ctx, mv.to)
		if err == nil {
			rc.Close()
			return nil
		}
		if errors.Is(err, storage.ErrNotFound) {
			return &PermanentError{Reason: fmt.Sprintf("%s is in neither %s nor %s: re-export the order", path.Base(mv.from), mv.from, mv.to)}
		}
		return fmt.Errorf("read %s: %w", mv.to, err)
	}
	if err != nil {
		return fmt.Errorf("read %s: %w", mv.from, err)
	}
	defer body.Close()
	obj := storage.Object{Key: mv.to, ContentType: mv.contentType, Filename: path.Base(mv.to), Size: mv.size}
	if obj.Size <= 0 {
		obj.Size = info.Size
	}
	if mv.sha != "" {
		obj.Metadata = map[string]string{"sha256": mv.sha}
	}
	put, err := w.uploadTo(ctx, st, kindFile, obj, body)
	if err != nil {
		return fmt.Errorf("write %s: %w", mv.to, err)
	}
	if mv.sha != "" && put.SHA256 != "" && put.SHA256 != mv.sha {
		return fmt.Errorf("%s: checksum %s, want %s", mv.to, put.SHA256, mv.sha)
	}
	if err := d.Delete(ctx, mv.from); err != nil && !errors.Is(err, storage.ErrNotFound) {
		return fmt.Errorf("delete %s: %w", mv.from, err)
	}
	return nil
}

// holdOrder holds the order of manifest m (whose key is key) for review: its files
// move under review/, and the review manifest and staff page are written there.
func (w *Worker) holdOrder(ctx context.Context, t *asynq.Task, k jobs.OrderKey, date string, m *Manifest, key string, findings []ManifestWarning) error {
	for _, mv := range moves(m, toReview) {
		if err := w.moveObject(ctx, mv); err != nil {
			return err
		}
	}
	hm := rekeyed(m, toReview)
	hm.Ticket, hm.StaffPage = "", ""
	hm.Review = &ReviewRecord{Status: ReviewHeld, Date: date, HeldAt: time.Now().UTC().Format(time.RFC3339), Findings: findings}
	rkey := toReview(key)
	if err := w.refreshLinks(ctx, hm); err != nil {
		return err
	}
	if err := w.putReview(ctx, hm, rkey); err != nil {
		return err
	}
	w.logger(ctx).InfoContext(ctx, "order held for review", "key", rkey, "findings", len(findings), "rev", m.Revision)
	writeResult(ctx, w.logger(ctx), t, []byte(rkey))
	return nil
}

// putReview writes the review manifest hm at rkey, after its staff page.
func (w *Worker) putReview(ctx context.Context, hm *Manifest, rkey string) error {
	if !w.cfg.ShopFloor.NoStaffPages {
		dir := path.Dir(rkey)
		hm.StaffPage = path.Join(dir, shopfloor.StaffPageName)
		o := shopOrder(hm)
		o.Review = &shopfloor.Review{Status: hm.Review.Status, Reason: hm.Review.Reason, Commands: ReviewCommands(hm)}
		for _, f := range hm.Review.Findings {
			o.Review.Findings = append(o.Review.Findings, path.Base(f.Key)+": "+f.Code+": "+f.Message)
		}
		page, err := shopfloor.StaffPage(o, rkey, w.pageLinker(ctx, dir))
		if err != nil {
			return err
		}
		if err := w.putShopFloor(ctx, hm.StaffPage, "text/html; charset=utf-8", page); err != nil {
			return err
		}
	}
	if _, err := w.manifestOwner(ctx, rkey, jobs.OrderKey{Store: hm.Store, Domain: hm.Domain, OrderID: hm.OrderID}); err != nil {
		return err
	}
	_, err := w.putManifest(ctx, rkey, hm, false)
	return err
}

// ReviewCommands are the commands that release and reject the held order of m.
func ReviewCommands(m *Manifest) []string {
	args := " --store " + shellQuote(m.Store) + " --domain " + shellQuote(m.Domain) + " --order " + shellQuote(m.OrderID)
	if m.Review != nil {
		args += " --date " + m.Review.Date
	}
	return []string{"printworker review release" + args, "printworker review reject" + args + " --reason '...'"}
}

// shellQuote quotes s for a POSIX shell when it holds anything but safe characters.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.:/@+=,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// supersedeReview marks a held review of order k at rkey superseded: a later
// revision completed without a hold. Its files stay under review/.
func (w *Worker) supersedeReview(ctx context.Context, rkey string, k jobs.OrderKey) error {
	hm, err := w.findManifest(ctx, rkey, k)
	if err != nil || hm == nil || hm.Review == nil || hm.Review.Status != ReviewHeld {
		return err
	}
	hm.Review.Status = ReviewSuperseded
	return w.putReview(ctx, hm, rkey)
}

// handleReview releases or rejects a held order revision (see above). Its steps can
// run again after a crash anywhere; two actions on one revision are one task id.
func (w *Worker) handleReview(ctx context.Context, t *asynq.Task) error {
	p, err := jobs.Decode[jobs.Review](t.Payload())
	if err != nil {
		return err
	}
	k := p.OrderKey
	day, err := time.Parse(time.DateOnly, p.Date)
	if err != nil {
		return fmt.Errorf("%w: date %q", jobs.ErrPayload, p.Date)
	}
	mkey, err := w.cfg.Layout.ManifestKey(orderVars(k, day))
	if err != nil {
		return &PermanentError{Reason: fmt.Sprintf("manifest key: %v", err)}
	}
	rkey := toReview(mkey)
	hm, err := w.findManifest(ctx, rkey, k)
	if err != nil {
		return err
	}
	if hm == nil || hm.Review == nil {
		old, err := w.findManifest(ctx, mkey, k)
		if err != nil {
			return err
		}
		if old != nil && old.Review != nil && old.Review.Status == ReviewReleased && old.Revision == p.Rev && p.Action == jobs.ReviewRelease {
			markSkipped(ctx, "already released")
			return nil
		}
		return &PermanentError{Reason: fmt.Sprintf("order %s has no review at %s", k, rkey)}
	}
	if hm.Revision != p.Rev {
		return &PermanentError{Reason: fmt.Sprintf("order %s: revision %d is under review, not %d (printworker review list)", k, hm.Revision, p.Rev)}
	}
	switch st := hm.Review.Status; {
	case st == ReviewRejected && p.Action == jobs.ReviewReject:
		markSkipped(ctx, "already rejected")
		return nil
	case st != ReviewHeld:
		return &PermanentError{Reason: fmt.Sprintf("order %s revision %d is %s, not held: re-export it to make new files", k, p.Rev, st)}
	}
	if p.Action == jobs.ReviewReject {
		hm.Review.Status, hm.Review.Reason = ReviewRejected, p.Reason
		hm.Review.RejectedAt = time.Now().UTC().Format(time.RFC3339)
		if err := w.putReview(ctx, hm, rkey); err != nil {
			return err
		}
		w.logger(ctx).InfoContext(ctx, "order rejected in review", "key", rkey, "rev", hm.Revision)
		writeResult(ctx, w.logger(ctx), t, []byte(rkey))
		return nil
	}
	// The order's state, while Redis still has it, says whether the held revision is
	// still the order's: a release must not write over a newer export's files, nor
	// produce a cancelled order.
	snap, err := w.state.Snapshot(ctx, k)
	if err != nil {
		return err
	}
	switch {
	case snap.Exists && snap.Cancelled:
		return &PermanentError{Reason: fmt.Sprintf("order %s is cancelled: not released", k)}
	case snap.Exists && snap.Rev > hm.Revision:
		return &PermanentError{Reason: fmt.Sprintf("order %s: revision %d was exported after the held revision %d; its own completion decides (printworker review list)", k, snap.Rev, hm.Revision)}
	}
	return w.release(ctx, t, k, hm, mkey, day)
}

// release puts the held order hm's files at their keys and finishes the order.
func (w *Worker) release(ctx context.Context, t *asynq.Task, k jobs.OrderKey, hm *Manifest, mkey string, day time.Time) error {
	for _, mv := range moves(hm, fromReview) {
		if err := w.moveObject(ctx, mv); err != nil {
			return err
		}
	}
	m := rekeyed(hm, fromReview)
	m.Ticket, m.StaffPage = "", ""
	old, err := w.findManifest(ctx, mkey, k)
	if err != nil {
		return err
	}
	if err := w.deliverPlanned(ctx, m, old); err != nil {
		return err
	}
	if err := w.gangPlanned(ctx, k, m, mkey); err != nil {
		return err
	}
	m.Review.Status = ReviewReleased
	if m.Review.ReleasedAt == "" {
		m.Review.ReleasedAt = time.Now().UTC().Format(time.RFC3339)
	}
	if err := w.finishOrder(ctx, t, k, m, mkey, day); err != nil {
		return err
	}
	// The review folder's own objects go last: until then a retry finds the hold.
	if d, ok := w.deps.Storage.(deleter); ok {
		for _, key := range []string{hm.StaffPage, toReview(mkey)} {
			if key == "" {
				continue
			}
			if err := d.Delete(ctx, key); err != nil && !errors.Is(err, storage.ErrNotFound) {
				return fmt.Errorf("delete %s: %w", key, err)
			}
		}
	}
	w.logger(ctx).InfoContext(ctx, "order released from review", "key", mkey, "rev", m.Revision)
	return nil
}
