package worker

import (
	"context"
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

// gangAdd records the PNG of one exported view as pending for its group, once per
// order line holding the design.
func (w *Worker) gangAdd(ctx context.Context, p jobs.DesignExport, orderDate time.Time, rec FileRecord) error {
	if rec.Type != model.ExportPNG || rec.ContentType != "image/png" {
		w.logger(ctx).WarnContext(ctx, "file not ganged: only PNG files go on gang sheets", "key", rec.Key, "type", rec.Type, "gang", rec.Gang)
		return nil
	}
	grp, err := w.sheets.Group(rec.Gang)
	if err != nil {
		return err
	}
	mk, err := w.cfg.Layout.ManifestKey(orderVars(p.OrderKey, orderDate))
	if err != nil {
		return &PermanentError{Reason: fmt.Sprintf("manifest key: %v", err)}
	}
	e := jobs.GangEntry{OrderKey: p.OrderKey, Key: rec.Key, Bucket: rec.Bucket, DesignID: rec.DesignID, View: rec.ViewID,
		DPI: rec.DPI, WidthPx: rec.WidthPx, HeightPx: rec.HeightPx, OrderDir: path.Dir(mk)}
	lines, err := w.gangLines(ctx, p)
	if err != nil {
		return err
	}
	return w.sheets.Add(ctx, grp, p.Ref, p.Gen, e, lines)
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
