package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/filenames"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/shopfloor"
	"github.com/printworker/printworker/storage"
)

// Reprints (docs/operations.md "Reprint files"). A reprint copies the stored files
// from the order folder; nothing is rendered again, so the reprint is the very file
// printed before, made with the design and settings of its export. It works the same
// on every storage (a hot folder, SFTP, S3): it reads the order folder's copy and
// writes a new object. Each file goes where its original went (its machine folder,
// else its order folder) under a reprint name that no export ever gives,
// "<name>-REPRINT-<n>" (and "-<c>of<k>" for several copies), written as a create so
// it never replaces anything. The order folder gets a job ticket marked REPRINT,
// "ticket-reprint-<n>.pdf", and the manifest a record of the reprint.

// ReprintRecord is one reprint in the manifest.
type ReprintRecord struct {
	Seq    int64         `json:"seq"`
	At     string        `json:"at"`
	Line   int           `json:"line,omitempty"`
	View   string        `json:"view,omitempty"`
	Copies int           `json:"copies"`
	Files  []ReprintFile `json:"files"`
	// Ticket is the key of the REPRINT job ticket; absent when tickets are off.
	Ticket string `json:"ticket,omitempty"`
}

// ReprintFile is one written reprint file.
type ReprintFile struct {
	// Of is the order folder key of the file reprinted.
	Of     string `json:"of"`
	Key    string `json:"key"`
	Bucket string `json:"bucket,omitempty"`
	Ready  string `json:"ready,omitempty"`
	// Sidecars are the keys of the copy's white plate and cut file, in the order of
	// the original's sidecars: the reprint name's stem with each one's suffix.
	Sidecars []string `json:"sidecars,omitempty"`
}

// ReprintTicketName is the name of the n-th reprint's job ticket in the order folder.
func ReprintTicketName(n int64) string { return "ticket-reprint-" + strconv.FormatInt(n, 10) + ".pdf" }

// handleReprint writes the chosen files of an order again (see above). A retry
// finds the files it wrote before (the names are the reprint's own) and goes on.
func (w *Worker) handleReprint(ctx context.Context, t *asynq.Task) error {
	p, err := jobs.Decode[jobs.Reprint](t.Payload())
	if err != nil {
		return err
	}
	if p.Copies < 1 || p.Copies > jobs.MaxCopies || p.Seq < 1 || p.Line < 0 {
		return fmt.Errorf("%w: reprint copies %d, number %d, line %d", jobs.ErrPayload, p.Copies, p.Seq, p.Line)
	}
	k := p.OrderKey
	date := p.Date
	if date == "" {
		snap, err := w.state.Snapshot(ctx, k)
		if err != nil {
			return err
		}
		if !snap.Exists || snap.Date == "" {
			return &PermanentError{Reason: fmt.Sprintf("order %s has no state any more: give its date (--date yyyy-mm-dd) to find its folder", k)}
		}
		date = snap.Date
	}
	day, err := time.Parse(time.DateOnly, date)
	if err != nil {
		return &PermanentError{Reason: fmt.Sprintf("order %s: bad date %q", k, date)}
	}
	mkey, err := w.cfg.Layout.ManifestKey(orderVars(k, day))
	if err != nil {
		return &PermanentError{Reason: fmt.Sprintf("manifest key: %v", err)}
	}
	m, err := w.readManifest(ctx, mkey, k)
	if err != nil {
		return err
	}
	files, err := reprintFiles(m, p)
	if err != nil {
		return err
	}
	rec := ReprintRecord{Seq: p.Seq, At: time.Now().UTC().Format(time.RFC3339), Line: p.Line, View: p.View, Copies: p.Copies}
	for i := range files {
		out, err := w.reprintFile(ctx, &files[i], p)
		if err != nil {
			return err
		}
		rec.Files = append(rec.Files, out...)
	}
	dir := path.Dir(mkey)
	if size, _ := shopfloor.ParseTicketSize(w.cfg.ShopFloor.TicketSize); size != shopfloor.TicketOff {
		tm := reprintTicketData(m, files, rec)
		// The QR code opens the order's manifest on a phone when storage makes a
		// link for it; else the ticket shows the order number.
		link, err := w.link(ctx, "", mkey)
		if err != nil {
			w.logger(ctx).WarnContext(ctx, "reprint ticket: no link for the QR code, it holds the order number", "key", mkey, "err", err)
			link = ""
		}
		pdf, err := w.ticket(ctx, tm, size, link)
		if err != nil {
			return err
		}
		rec.Ticket = path.Join(dir, ReprintTicketName(p.Seq))
		if err := w.putShopFloor(ctx, rec.Ticket, "application/pdf", pdf); err != nil {
			return err
		}
	}
	m.Reprints = addReprint(m.Reprints, rec)
	if _, err := w.putManifest(ctx, mkey, m, false); err != nil {
		return err
	}
	w.logger(ctx).InfoContext(ctx, "files reprinted", "reprint", p.Seq, "files", len(rec.Files), "ticket", rec.Ticket)
	writeResult(ctx, w.logger(ctx), t, []byte(mkey))
	return nil
}

// reprintTicketData is the manifest a reprint's ticket is drawn from: the reprinted
// files only, each named by its reprint's name (the first copy's, with the number of
// copies), on the lines that hold them.
func reprintTicketData(m *Manifest, files []FileRecord, rec ReprintRecord) *Manifest {
	tm := *m
	tm.Reprint, tm.Warnings, tm.Reprints = true, nil, nil
	first := map[string]ReprintFile{}
	for _, rf := range rec.Files {
		if _, ok := first[rf.Of]; !ok {
			first[rf.Of] = rf
		}
	}
	tm.Files = nil
	keep := map[string]bool{}
	for _, f := range files {
		if rf, ok := first[f.Key]; ok {
			f.Filename = path.Base(rf.Key)
			// Its sidecars by their reprint names too (the slice is the manifest's).
			f.Sidecars = slices.Clone(f.Sidecars)
			for i, sk := range rf.Sidecars {
				if i < len(f.Sidecars) {
					f.Sidecars[i].Key, f.Sidecars[i].Filename = sk, path.Base(sk)
				}
			}
		}
		if rec.Copies > 1 {
			f.Filename += fmt.Sprintf(" (%d copies)", rec.Copies)
		}
		tm.Files = append(tm.Files, f)
		keep[f.Key] = true
	}
	tm.LineItems = nil
	for _, li := range m.LineItems {
		var fs []string
		for _, k := range li.Files {
			if keep[k] {
				fs = append(fs, k)
				delete(keep, k) // a design on two lines: its files once
			}
		}
		if len(fs) > 0 {
			li.Files = fs
			tm.LineItems = append(tm.LineItems, li)
		}
	}
	return &tm
}

// reprintFiles are the manifest's files the reprint p asks for.
func reprintFiles(m *Manifest, p jobs.Reprint) ([]FileRecord, error) {
	var keys map[string]bool
	if p.Line > 0 {
		if p.Line > len(m.LineItems) {
			return nil, &PermanentError{Reason: fmt.Sprintf("order %s has %d lines, no line %d", m.OrderID, len(m.LineItems), p.Line)}
		}
		keys = map[string]bool{}
		for _, k := range m.LineItems[p.Line-1].Files {
			keys[k] = true
		}
	}
	var out []FileRecord
	for _, f := range m.Files {
		if keys != nil && !keys[f.Key] {
			continue
		}
		if p.View != "" && f.ViewID != p.View && !strings.EqualFold(f.ViewName, p.View) {
			continue
		}
		out = append(out, f)
	}
	if len(out) == 0 {
		return nil, &PermanentError{Reason: fmt.Sprintf("order %s: no file of line %d view %q to reprint", m.OrderID, p.Line, p.View)}
	}
	return out, nil
}

// reprintFile writes p.Copies copies of f where its original went.
func (w *Worker) reprintFile(ctx context.Context, f *FileRecord, p jobs.Reprint) ([]ReprintFile, error) {
	orig, bucket, ready := f.Key, f.Bucket, false
	if f.Machine != nil {
		orig, bucket, ready = f.Machine.Key, f.Machine.Bucket, f.Machine.Ready != ""
	}
	var out []ReprintFile
	for c := 1; c <= p.Copies; c++ {
		suffix := "REPRINT-" + strconv.FormatInt(p.Seq, 10)
		if p.Copies > 1 {
			suffix += fmt.Sprintf("-%dof%d", c, p.Copies)
		}
		name := filenames.Suffixed(w.cfg.Filenames, path.Base(orig), path.Ext(orig), suffix)
		key := name
		if dir := path.Dir(orig); dir != "." {
			key = dir + "/" + name
		}
		if err := storage.ValidateKey(key); err != nil {
			return nil, &PermanentError{Reason: fmt.Sprintf("reprint key: %v", err)}
		}
		obj := storage.Object{Key: key, ContentType: f.ContentType, Filename: name, IfAbsent: true}
		err := w.copyObject(ctx, f, obj, w.storageOf(bucket))
		// The name is this reprint's own: an object there is an earlier attempt's.
		if err != nil && !errors.Is(err, storage.ErrExists) {
			return nil, err
		}
		rf := ReprintFile{Of: f.Key, Key: key, Bucket: bucket}
		// A white plate or cut file is printed with its artwork: each copy carries
		// every sidecar of the original, before its ready marker.
		for _, sc := range f.Sidecars {
			sk := sidecarMachineKey(key, f.Filename, sc.Filename)
			src := &FileRecord{Key: sc.Key, Bucket: f.Bucket, ContentType: sc.ContentType, Bytes: sc.Bytes, SHA256: sc.SHA256}
			err := w.copyObject(ctx, src, storage.Object{Key: sk, ContentType: sc.ContentType, Filename: path.Base(sk), IfAbsent: true}, w.storageOf(bucket))
			if err != nil && !errors.Is(err, storage.ErrExists) {
				return nil, err
			}
			rf.Sidecars = append(rf.Sidecars, sk)
		}
		if ready {
			if rf.Ready, err = w.putReady(ctx, bucket, key); err != nil {
				return nil, err
			}
		}
		out = append(out, rf)
	}
	return out, nil
}

// addReprint adds rec to list, replacing a record of the same reprint (a retry).
func addReprint(list []ReprintRecord, rec ReprintRecord) []ReprintRecord {
	for i := range list {
		if list[i].Seq == rec.Seq {
			list[i] = rec
			return list
		}
	}
	return append(list, rec)
}

// readManifest reads the manifest of order k at key.
func (w *Worker) readManifest(ctx context.Context, key string, k jobs.OrderKey) (*Manifest, error) {
	r, ok := w.deps.Storage.(objectReader)
	if !ok {
		return nil, &PermanentError{Reason: "the storage cannot read files back: a reprint needs a storage with Get"}
	}
	rc, _, err := r.Get(ctx, key)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, &PermanentError{Reason: fmt.Sprintf("order %s has no manifest at %s: only a completed order's files can be reprinted", k, key)}
	}
	if err != nil {
		return nil, fmt.Errorf("read the manifest: %w", err)
	}
	defer rc.Close()
	var m Manifest
	if err := json.NewDecoder(io.LimitReader(rc, maxManifestBytes)).Decode(&m); err != nil {
		return nil, &PermanentError{Reason: fmt.Sprintf("%s is not a readable manifest: %v", key, err)}
	}
	if (jobs.OrderKey{Store: m.Store, Domain: m.Domain, OrderID: m.OrderID}) != k {
		return nil, &PermanentError{Reason: fmt.Sprintf("%s is the manifest of order %q, not of order %q", key, m.OrderID, k.OrderID)}
	}
	return &m, nil
}

// keptReprints are the reprints recorded in order k's manifest at key, which a new
// manifest of the order keeps; none when the storage cannot read back.
func (w *Worker) keptReprints(ctx context.Context, key string, k jobs.OrderKey) ([]ReprintRecord, error) {
	if _, ok := w.deps.Storage.(objectReader); !ok {
		return nil, nil
	}
	m, err := w.readManifest(ctx, key, k)
	if err != nil {
		return nil, err
	}
	return m.Reprints, nil
}

// putManifest writes m as the manifest at key, indented for people; ifAbsent makes
// the write create-only (storage.ErrExists when one is there). The completion and
// a reprint write manifests through it.
func (w *Worker) putManifest(ctx context.Context, key string, m *Manifest, ifAbsent bool) (storage.PutResult, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return storage.PutResult{}, fmt.Errorf("encode manifest: %w", err)
	}
	put, err := w.upload(ctx, kindManifest, storage.Object{
		Key: key, ContentType: "application/json", Filename: storage.ManifestName, Size: int64(buf.Len()),
		Metadata: map[string]string{"store": m.Store, "order": m.OrderID, "revision": strconv.FormatInt(m.Revision, 10)},
		IfAbsent: ifAbsent,
	}, &buf)
	if err != nil {
		return put, fmt.Errorf("write manifest: %w", err)
	}
	return put, nil
}
