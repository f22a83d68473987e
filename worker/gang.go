package worker

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path"
	"time"

	"github.com/printworker/printworker/gang/sheetjob"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/storage"
)

// Gang sheet jobs run in package sheetjob (docs/gang.md, "Sheet jobs"); the worker
// gives them its storage, memory budget and task log, and records each ganged file.

// getter is the optional part of a Storage that reads objects back (both storage
// backends can); a gang build loads its designs through it.
type getter interface {
	Get(ctx context.Context, key string) (io.ReadCloser, storage.Info, error)
}

// newSheetJobs returns the gang sheet jobs of w.
func (w *Worker) newSheetJobs() *sheetjob.Jobs {
	return sheetjob.New(sheetjob.Config{
		Gangs: w.gangs, Enqueuer: w.enq, Groups: w.cfg.Gangs, Storage: sheetStorage{w},
		Acquire: func(ctx context.Context, n int64) (func(), error) {
			return w.budget.Acquire(ctx, min(n, w.budget.total))
		},
		Lease: w.cfg.GangLease, Tick: w.cfg.GangTick, Logger: w.logger, Skipped: markSkipped,
	})
}

// sheetStorage is the worker's storage as the sheet jobs use it.
type sheetStorage struct{ w *Worker }

func (s sheetStorage) Put(ctx context.Context, kind string, obj storage.Object, body io.Reader) error {
	_, err := s.w.upload(ctx, kind, obj, body)
	return err
}

func (s sheetStorage) Get(ctx context.Context, bucket, key string) (io.ReadCloser, error) {
	gt, ok := s.w.storageOf(bucket).(getter)
	if !ok {
		return nil, &PermanentError{Reason: "gang: the storage cannot read files back"}
	}
	rc, _, err := gt.Get(ctx, key)
	return rc, err
}

// GangPlan is a gang add decided when a file is exported and made when its order
// completes (or, for an order held for review, when it is released: docs/shop-floor.md
// "Review holds"), so that no gang sheet carries a file of an order that may be held.
// The file's record holds the rest of the entry (key, bucket, size, dpi) and its
// group (FileRecord.Gang); the order's folder is its manifest's.
type GangPlan struct {
	// Design is a digest of the design reference (gangDesign; its token stays out of
	// the manifest) and Gen the export's generation: with the view and the line they
	// make the member the group dedupes on (jobs.GangMember), so an add made again (a
	// completion or release that runs again) is not a second entry, while a re-export
	// (a new generation) is a new one, as at export.
	Design string `json:"design"`
	Gen    int64  `json:"gen"`
	// Lines are the order's lines holding the design, each with its quantity, as the
	// export found them.
	Lines []GangLine `json:"lines"`
}

// GangLine is one order line of a GangPlan: its number (0: the export task's own
// quantity, the order's state naming none) and quantity.
type GangLine struct {
	Line     int `json:"line"`
	Quantity int `json:"quantity"`
}

// gangDesign is the design of a planned gang add as its member names it: a digest of
// the reference "<id>.<token>", so the manifest that keeps the plan holds no token.
func gangDesign(ref string) string {
	sum := sha256.Sum256([]byte(ref))
	return "d" + hex.EncodeToString(sum[:12])
}

// gangExported sends the exported file rec of design p to its gang group: at once,
// or, when the store's orders may be held for review, as a plan in rec made at the
// order's completion or release (gangPlanned).
func (w *Worker) gangExported(ctx context.Context, p jobs.DesignExport, orderDate time.Time, rec *FileRecord) error {
	if rec.Type != model.ExportPNG || rec.ContentType != "image/png" {
		w.logger(ctx).WarnContext(ctx, "file not ganged: only PNG files go on gang sheets", "key", rec.Key, "type", rec.Type, "gang", rec.Gang)
		return nil
	}
	// An undefined group fails the export at once, planned or not.
	if _, err := w.sheets.Group(rec.Gang); err != nil {
		return err
	}
	lines, err := w.gangLines(ctx, p)
	if err != nil {
		return err
	}
	if w.reviewActive(p.Store) {
		plan := &GangPlan{Design: gangDesign(p.Ref), Gen: p.Gen}
		for _, l := range lines {
			plan.Lines = append(plan.Lines, GangLine{Line: l.N, Quantity: l.Quantity})
		}
		rec.GangPlan = plan
		return nil
	}
	mk, err := w.cfg.Layout.ManifestKey(orderVars(p.OrderKey, orderDate))
	if err != nil {
		return &PermanentError{Reason: fmt.Sprintf("manifest key: %v", err)}
	}
	return w.gangAdd(ctx, p.OrderKey, p.Ref, p.Gen, path.Dir(mk), rec, lines)
}

// gangAdd records the PNG rec of order k's design ref (generation gen) as pending
// for its group, once per order line holding the design; orderDir is the order's
// folder, where the group writes gang.json.
func (w *Worker) gangAdd(ctx context.Context, k jobs.OrderKey, ref string, gen int64, orderDir string, rec *FileRecord, lines []sheetjob.Line) error {
	grp, err := w.sheets.Group(rec.Gang)
	if err != nil {
		return err
	}
	e := jobs.GangEntry{OrderKey: k, Key: rec.Key, Bucket: rec.Bucket, DesignID: rec.DesignID, View: rec.ViewID,
		DPI: rec.DPI, WidthPx: rec.WidthPx, HeightPx: rec.HeightPx, OrderDir: orderDir}
	return w.sheets.Add(ctx, grp, ref, gen, e, lines)
}

// gangPlanned makes the gang adds planned for the files of m, order k's manifest at
// mkey, and clears the plans. An add made before (a completion or release that runs
// again) is no second entry: the group remembers its members (jobs.Gangs.Add).
func (w *Worker) gangPlanned(ctx context.Context, k jobs.OrderKey, m *Manifest, mkey string) error {
	for i := range m.Files {
		f := &m.Files[i]
		plan := f.GangPlan
		if plan == nil {
			continue
		}
		lines := make([]sheetjob.Line, 0, len(plan.Lines))
		for _, l := range plan.Lines {
			lines = append(lines, sheetjob.Line{N: l.Line, Quantity: l.Quantity})
		}
		if err := w.gangAdd(ctx, k, plan.Design, plan.Gen, path.Dir(mkey), f, lines); err != nil {
			return fmt.Errorf("gang %s: %w", f.Key, err)
		}
		f.GangPlan = nil
	}
	return nil
}

// gangLines are the order's lines holding the design, each with its quantity; the
// task's quantity on line 0 when the order's state names none.
func (w *Worker) gangLines(ctx context.Context, p jobs.DesignExport) ([]sheetjob.Line, error) {
	var lines []sheetjob.Line
	snap, err := w.state.Snapshot(ctx, p.OrderKey)
	if err != nil {
		return nil, err
	}
	if snap.Order != nil {
		for i, li := range snap.Order.LineItems {
			if li.Ref().String() == p.Ref && li.Quantity > 0 {
				lines = append(lines, sheetjob.Line{N: i + 1, Quantity: li.Quantity})
			}
		}
	}
	if len(lines) == 0 {
		lines = []sheetjob.Line{{N: 0, Quantity: max(p.Quantity, 1)}}
	}
	return lines, nil
}

// EnqueueCutoffs enqueues a build of every group whose cut-off has come by now
// (sheetjob.Jobs.EnqueueCutoffs).
func (w *Worker) EnqueueCutoffs(ctx context.Context, now time.Time) (int, error) {
	return w.sheets.EnqueueCutoffs(ctx, now)
}
