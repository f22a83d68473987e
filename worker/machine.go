package worker

import (
	"context"
	"fmt"
	"io"
	"path"
	"strings"

	"github.com/printworker/printworker/filenames"
	"github.com/printworker/printworker/routing"
	"github.com/printworker/printworker/storage"
)

// Machine folders (docs/routing.md "Machine folders"): a routed print file is
// stored in its order folder like every file, then copied into the machine folder
// of its rule, where a RIP watches for it. The machine folder receives the print
// file only (thumbnails, tickets, pages and the manifest stay in the order folder),
// at its top level by default, under a name unique across orders. The copy is
// written under a hidden ".part" name and renamed (storage.Dir, storage.SFTP; an S3
// object appears whole), so the RIP never sees a partial file; a rule may ask for an
// empty "<name>.ready" marker written after it.

// MachineFile is the copy of a print file in a machine folder.
type MachineFile struct {
	Key string `json:"key"`
	// Bucket is the rule's bucket; empty: the default one.
	Bucket string `json:"bucket,omitempty"`
	// Rule is the index of the routing rule, Route its name; a file no rule routed
	// that went to its production profile's route has Rule -1 and Route
	// "profile <name>".
	Rule  int    `json:"rule"`
	Route string `json:"route,omitempty"`
	// Ready is the key of the marker written after the file; absent when the rule
	// asks for none.
	Ready string `json:"ready,omitempty"`
	// Sidecars are the keys of the file's sidecars (white plate, cut) copied with
	// it: the machine name's stem with the sidecar's suffix.
	Sidecars []string `json:"sidecars,omitempty"`
}

// ReadySuffix ends the name of a file's ready marker.
const ReadySuffix = ".ready"

// machineKey is the key of the file rec (stored in its order folder) in the machine
// folder of t: flat, the rule's pattern under the prefix; nested, the order folder's
// path and name (or the rule's pattern) under the prefix.
func (w *Worker) machineKey(x viewExport, t routing.Target, rec *FileRecord) (string, error) {
	name := rec.Filename
	// A flat folder's default pattern gives way to the order folder's name when that
	// names the order (the default [order]-[id]-[title] does): one name per file on
	// the ticket, the staff page, the manifest and in the machine folder
	// (docs/routing.md "Machine folders"). Within an order a name is one design's
	// view, [line] added nothing that [id] does not.
	sameName := t.Layout == routing.LayoutFlat && t.Filename == routing.DefaultMachinePattern &&
		strings.Contains(w.cfg.Filenames.Pattern, "[order]")
	if t.Filename != "" && !sameName {
		opts := w.cfg.Filenames
		opts.Pattern = t.Filename
		made := filenames.ForDesign(opts, x.fields, x.views)[x.index]
		// The file's type may differ from its view's (a hub sending a PNG for a pdf
		// view): the name follows the stored file.
		if have, want := path.Ext(made), path.Ext(rec.Filename); !strings.EqualFold(have, want) {
			made = filenames.WithExt(opts, made, have, want)
		}
		name = made
	}
	key := name
	if t.Layout == routing.LayoutNested {
		if dir := path.Dir(rec.Key); dir != "." {
			key = dir + "/" + name
		}
	}
	if t.Prefix != "" {
		key = t.Prefix + "/" + key
	}
	if err := storage.ValidateKey(key); err != nil {
		return "", &PermanentError{Reason: fmt.Sprintf("machine folder key (rule %d): %v", t.Rule, err)}
	}
	return key, nil
}

// MachinePlan is a machine folder copy decided when a file is exported and made
// when its order completes (or, for an order held for review, when it is released:
// docs/shop-floor.md "Review holds"), so that no RIP sees a file of an order that
// may be held.
type MachinePlan struct {
	Key    string `json:"key"`
	Bucket string `json:"bucket,omitempty"`
	Rule   int    `json:"rule"`
	Route  string `json:"route,omitempty"`
	Ready  bool   `json:"ready,omitempty"`
}

// deliverMachine sends the stored file rec into the machine folder of t: at once,
// or, when the store's orders may be held for review, as a plan made at the order's
// completion (deliverPlanned).
func (w *Worker) deliverMachine(ctx context.Context, x viewExport, t routing.Target, rec *FileRecord) error {
	key, err := w.machineKey(x, t, rec)
	if err != nil {
		return err
	}
	plan := &MachinePlan{Key: key, Bucket: t.Bucket, Rule: t.Rule, Route: t.Name, Ready: t.Ready}
	if w.reviewActive(x.p.Store) {
		rec.MachinePlan = plan
		return nil
	}
	return w.deliverPlan(ctx, rec, plan)
}

// deliverPlan copies the stored file rec (and its sidecars) into the machine folder
// plan names, then writes the ready marker when the rule asks for one.
func (w *Worker) deliverPlan(ctx context.Context, rec *FileRecord, plan *MachinePlan) error {
	key := plan.Key
	mf := &MachineFile{Key: key, Bucket: plan.Bucket, Rule: plan.Rule, Route: plan.Route}
	if err := w.copyObject(ctx, rec, storage.Object{Key: key, ContentType: rec.ContentType, Filename: path.Base(key)}, w.storageOf(plan.Bucket)); err != nil {
		return err
	}
	// A plate or cut file is a print file too: the RIP takes it beside its artwork.
	for _, sc := range rec.Sidecars {
		sk := sidecarMachineKey(key, rec.Filename, sc.Filename)
		src := &FileRecord{Key: sc.Key, Bucket: rec.Bucket, ContentType: sc.ContentType, Bytes: sc.Bytes, SHA256: sc.SHA256}
		if err := w.copyObject(ctx, src, storage.Object{Key: sk, ContentType: sc.ContentType, Filename: path.Base(sk)}, w.storageOf(plan.Bucket)); err != nil {
			return err
		}
		mf.Sidecars = append(mf.Sidecars, sk)
	}
	if plan.Ready {
		var err error
		if mf.Ready, err = w.putReady(ctx, plan.Bucket, key); err != nil {
			return err
		}
	}
	rec.Machine, rec.MachinePlan = mf, nil
	w.logger(ctx).InfoContext(ctx, "file delivered to its machine folder", "view", rec.ViewID, "rule", plan.Rule, "route", plan.Route, "key", key, "bucket", plan.Bucket)
	return nil
}

// deliverPlanned makes the machine folder copies planned for m's files. A file the
// order's manifest in place (old, nil for none) already lists as delivered, the same
// bytes to the same machine key, is not copied again: a completion that runs again,
// or an update of the order, never hands a RIP the file twice.
func (w *Worker) deliverPlanned(ctx context.Context, m, old *Manifest) error {
	done := map[string]*MachineFile{}
	if old != nil {
		for _, f := range old.Files {
			if f.Machine != nil {
				done[f.Key+"\x00"+f.SHA256] = f.Machine
			}
		}
	}
	for i := range m.Files {
		f := &m.Files[i]
		if f.MachinePlan == nil {
			continue
		}
		if mf := done[f.Key+"\x00"+f.SHA256]; mf != nil && mf.Key == f.MachinePlan.Key && mf.Bucket == f.MachinePlan.Bucket {
			f.Machine, f.MachinePlan = mf, nil
			continue
		}
		if err := w.deliverPlan(ctx, f, f.MachinePlan); err != nil {
			return err
		}
	}
	return nil
}

// copyObject streams the order folder's file rec into obj of dst; obj gets the
// file's length and checksum, so a short or altered read stores nothing.
func (w *Worker) copyObject(ctx context.Context, rec *FileRecord, obj storage.Object, dst Storage) error {
	g, ok := w.storageOf(rec.Bucket).(getter)
	if !ok {
		return &PermanentError{Reason: "the storage cannot read files back: a machine folder or reprint needs a storage with Get"}
	}
	if dst == nil {
		return &PermanentError{Reason: fmt.Sprintf("no storage for the bucket of %s", obj.Key)}
	}
	body, _, err := g.Get(ctx, rec.Key)
	if err != nil {
		return fmt.Errorf("read %s from the order folder: %w", rec.Key, err)
	}
	defer body.Close()
	obj.Size = rec.Bytes
	if rec.SHA256 != "" {
		obj.Metadata = map[string]string{"sha256": rec.SHA256}
	}
	if _, err := w.uploadTo(ctx, dst, kindFile, obj, io.Reader(body)); err != nil {
		return fmt.Errorf("write %s: %w", obj.Key, err)
	}
	return nil
}

// putReady writes the empty ready marker of the file at key, in bucket.
func (w *Worker) putReady(ctx context.Context, bucket, key string) (string, error) {
	rk := key + ReadySuffix
	if _, err := w.uploadTo(ctx, w.storageOf(bucket), kindFile, storage.Object{Key: rk, ContentType: "text/plain",
		Filename: path.Base(rk), Size: -1}, strings.NewReader("")); err != nil {
		return "", fmt.Errorf("write ready marker %s: %w", rk, err)
	}
	return rk, nil
}

// sidecarMachineKey is the machine folder key of a sidecar named sidecar beside the
// file named name whose machine key is key: key's stem with the sidecar's suffix
// ("-white.png"), so the pair sorts together under the machine's name.
func sidecarMachineKey(key, name, sidecar string) string {
	stem := strings.TrimSuffix(name, path.Ext(name))
	if suffix, ok := strings.CutPrefix(sidecar, stem); ok {
		return strings.TrimSuffix(key, path.Ext(key)) + suffix
	}
	return path.Join(path.Dir(key), sidecar)
}
