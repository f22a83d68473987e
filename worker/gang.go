package worker

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"io"
	"path"
	"sort"
	"strconv"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/gang"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/pngenc"
	"github.com/printworker/printworker/routing"
	"github.com/printworker/printworker/storage"
)

// GangGroups are the gang groups the routing rules define (*routing.Rules;
// docs/gang.md "Sheet jobs").
type GangGroups interface {
	Gang(name string) (*routing.Group, bool)
	Gangs() []*routing.Group
}

// Defaults of gang sheet jobs.
const (
	// DefaultGangLease is the builder lease of a group; the builder renews it every
	// third of it, so a dead builder's batch waits at most this long.
	DefaultGangLease = 2 * time.Minute
	// DefaultGangTick is how often each worker looks for groups whose cut-off came.
	DefaultGangTick = 15 * time.Second
	// gangMaxCopies is what one batch takes: gang.Plan refuses more (MaxRects is
	// quadratic in the copies).
	gangMaxCopies = 10000
	// gangRenderBytes is what a sheet build asks of the memory budget: the encoder's
	// strips in flight plus the designs near the current rows (docs/gang.md,
	// "Output": a 6600 x 60000 sheet peaks near 310 MB of RSS).
	gangRenderBytes = 256 << 20
	// GangRecordName is the per-order file naming the sheets of its designs.
	GangRecordName = "gang.json"
)

// getter is the optional part of a Storage that reads objects back (both storage
// backends can); a gang build loads its designs through it.
type getter interface {
	Get(ctx context.Context, key string) (io.ReadCloser, storage.Info, error)
}

// gangBusyError: another builder holds the group's lease. The task is retried after
// a while without using up a retry (isFailure).
type gangBusyError struct {
	g     jobs.GangKey
	after time.Duration
}

func (e *gangBusyError) Error() string {
	return fmt.Sprintf("gang %s: another worker is building this group's sheets", e.g)
}
func (e *gangBusyError) Retryable() bool           { return true }
func (e *gangBusyError) RetryAfter() time.Duration { return e.after }

// gangAdd records the PNG of one exported view as pending for its group, once per
// order line holding the design (each line its own quantity and label). It runs
// after the file is stored and before the view's record, so a crash in between
// repeats it, which jobs.Gangs.Add makes harmless.
func (w *Worker) gangAdd(ctx context.Context, p jobs.DesignExport, orderDate time.Time, rec FileRecord) error {
	log := w.logger(ctx)
	if rec.Type != model.ExportPNG || rec.ContentType != "image/png" {
		log.WarnContext(ctx, "file not ganged: only PNG files go on gang sheets", "key", rec.Key, "type", rec.Type, "gang", rec.Gang)
		return nil
	}
	grp, err := w.gangGroup(rec.Gang)
	if err != nil {
		return err
	}
	mk, err := w.cfg.Layout.ManifestKey(orderVars(p.OrderKey, orderDate))
	if err != nil {
		return &PermanentError{Reason: fmt.Sprintf("manifest key: %v", err)}
	}
	e := jobs.GangEntry{OrderKey: p.OrderKey, Key: rec.Key, Bucket: rec.Bucket, DesignID: rec.DesignID, View: rec.ViewID,
		DPI: rec.DPI, WidthPx: rec.WidthPx, HeightPx: rec.HeightPx, OrderDir: path.Dir(mk)}
	type line struct{ n, qty int }
	var lines []line
	snap, err := w.state.Snapshot(ctx, p.OrderKey)
	if err != nil {
		return err
	}
	if snap.Order != nil {
		for i, li := range snap.Order.LineItems {
			if li.Ref().String() == p.Ref && li.Quantity > 0 {
				lines = append(lines, line{i + 1, li.Quantity})
			}
		}
	}
	if len(lines) == 0 {
		lines = []line{{0, max(p.Quantity, 1)}}
	}
	g := jobs.GangKey{Store: p.Store, Group: grp.Name}
	added := false
	for _, l := range lines {
		e.Line, e.Quantity = l.n, l.qty
		a, err := w.gangs.Add(ctx, g, jobs.GangMember(p.OrderKey, p.Ref, p.Gen, rec.ViewID, l.n), e)
		if err != nil {
			return err
		}
		added = added || a
	}
	if !added {
		return nil
	}
	log.InfoContext(ctx, "design pending for a gang sheet", "gang", grp.Name, "key", rec.Key, "lines", len(lines))
	return w.gangCheckFull(ctx, g, grp)
}

// gangGroup is the group named name of the routing rules.
func (w *Worker) gangGroup(name string) (*routing.Group, error) {
	if w.cfg.Gangs != nil {
		if g, ok := w.cfg.Gangs.Gang(name); ok {
			return g, nil
		}
	}
	return nil, &PermanentError{Reason: fmt.Sprintf("gang group %q is not defined in this worker's routing rules", name)}
}

// gangCheckFull enqueues a build when the group's pending designs fill at least one
// sheet (or roll section). It plans their full file sizes: the worker does not read
// back what it wrote, and the alpha-trimmed boxes the build packs are never larger,
// so a sheet called full here may come out somewhat shorter. An area bound first
// spares the plan while the group is clearly short of a sheet.
func (w *Worker) gangCheckFull(ctx context.Context, g jobs.GangKey, grp *routing.Group) error {
	st, err := w.gangs.Status(ctx, g)
	if err != nil {
		return err
	}
	c := grp.Sheet
	var area int64
	copies := 0
	var designs []gang.Design
	for _, m := range sortedMembers(st.Pending) {
		e := st.Pending[m]
		area += int64(e.WidthPx+c.Gap) * int64(e.HeightPx+c.Label+c.Gap) * int64(e.Quantity)
		copies += e.Quantity
		designs = append(designs, gang.Design{Key: e.Key, Quantity: e.Quantity, Width: e.WidthPx, Height: e.HeightPx,
			Trim: image.Rect(0, 0, e.WidthPx, e.HeightPx), DPI: e.DPI})
	}
	full := copies > gangMaxCopies
	if !full && area >= int64(c.Width-2*c.Margin+c.Gap)*int64(c.MaxLength-2*c.Margin+c.Gap) {
		l, err := gang.Plan(designs, c)
		full = err == nil && len(l.Sheets) > 1
	}
	if !full {
		return nil
	}
	// One fill build per batch to come: every add until the build claims them
	// collapses on this TaskID.
	q, err := w.enq.GangBuild(ctx, g, jobs.GangFull, st.Batches+1)
	if err != nil {
		return err
	}
	w.logger(ctx).InfoContext(ctx, "gang sheet full, build enqueued", "gang", g.Group, "copies", copies, "duplicate", q.Duplicate)
	return nil
}

func sortedMembers[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// handleGangBuild builds sheets of one group: under the group's lease it finishes a
// batch a dead builder left, then claims the pending designs batch after batch until
// none is left. Each design is on exactly one batch (Claim moves it atomically) and a
// batch is finished only after its sheets and the orders' gang.json are stored.
func (w *Worker) handleGangBuild(ctx context.Context, t *asynq.Task) error {
	p, err := jobs.Decode[jobs.GangBuild](t.Payload())
	if err != nil {
		return err
	}
	grp, err := w.gangGroup(p.Group)
	if err != nil {
		return err
	}
	g := p.GangKey
	lease, err := w.gangs.Lease(ctx, g, w.cfg.GangLease)
	if err != nil {
		return err
	}
	if lease == nil {
		return &gangBusyError{g: g, after: w.cfg.GangLease / 4}
	}
	// Released on the way out, also after a failure: the batch stays claimed and the
	// retry (or another worker) rebuilds it.
	return lease.Hold(ctx, func(ctx context.Context) error { return w.buildPending(ctx, g, grp) })
}

// buildPending claims and builds the group's pending batches until none is left;
// the caller holds the group's lease.
func (w *Worker) buildPending(ctx context.Context, g jobs.GangKey, grp *routing.Group) error {
	built := 0
	for {
		b, ok, err := w.gangs.Claim(ctx, g, time.Now().UTC().Format(time.DateOnly), gangMaxCopies)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if err := w.buildBatch(ctx, g, grp, b); err != nil {
			return err
		}
		if err := w.gangs.Finish(ctx, g, b.N); err != nil {
			return err
		}
		built++
	}
	if built == 0 {
		markSkipped(ctx, "nothing pending")
	}
	return nil
}

// sheetBase is the key of sheet i (0-based) of batch b without extension:
// {prefix}/{store}/gang/{group}/{date}/sheet-{batch}-{sheet}.
func sheetBase(grp *routing.Group, g jobs.GangKey, b jobs.GangBatch, i int) string {
	k := path.Join(storage.KeyValue(g.Store), "gang", grp.Name, b.Date, fmt.Sprintf("sheet-%06d-%02d", b.N, i+1))
	if grp.Prefix != "" {
		k = grp.Prefix + "/" + k
	}
	return k
}

// GangFileRecord is one ganged file of an order in its gang.json: which sheets hold
// its copies, or why it is on none.
type GangFileRecord struct {
	Key      string      `json:"key"`
	Bucket   string      `json:"bucket,omitempty"`
	Line     int         `json:"lineItem,omitempty"`
	DesignID int64       `json:"designId"`
	ViewID   string      `json:"viewId"`
	Quantity int         `json:"quantity"`
	Group    string      `json:"group"`
	Batch    int64       `json:"batch"`
	Sheets   []GangSheet `json:"sheets"`
	Rejected string      `json:"rejected,omitempty"`
}

// GangSheet is one sheet holding copies of a file.
type GangSheet struct {
	Image    string `json:"image"`
	Manifest string `json:"manifest"`
	Copies   int    `json:"copies"`
}

// GangRecord is an order's gang.json.
type GangRecord struct {
	Version int              `json:"version"`
	Store   string           `json:"store"`
	Domain  string           `json:"domain"`
	OrderID string           `json:"orderId"`
	Files   []GangFileRecord `json:"files"`
}

// buildBatch renders, stores and records one batch. Everything it writes has a key
// and bytes fixed by the batch (members sorted, designs measured from their stored
// files, a deterministic plan and encoder), so a rebuild after a crash overwrites
// each object with the same bytes.
func (w *Worker) buildBatch(ctx context.Context, g jobs.GangKey, grp *routing.Group, b jobs.GangBatch) error {
	log := w.logger(ctx).With("gang", grp.Name, "batch", b.N)
	designs, members, missing, err := w.gangDesigns(ctx, b)
	if err != nil {
		return err
	}
	recs := map[string]*GangFileRecord{}
	for _, m := range b.Members {
		e := b.Entries[m]
		recs[m] = &GangFileRecord{Key: e.Key, Bucket: e.Bucket, Line: e.Line, DesignID: e.DesignID, ViewID: e.View,
			Quantity: e.Quantity, Group: grp.Name, Batch: b.N, Sheets: []GangSheet{}}
		if why, ok := missing[m]; ok {
			recs[m].Rejected = why
			log.ErrorContext(ctx, "design left off the gang sheet", "key", e.Key, "order", e.OrderID, "reason", why)
		}
	}
	var l *gang.Layout
	if len(designs) > 0 {
		l, err = gang.Plan(designs, grp.Sheet)
		var ie *gang.InputError
		switch {
		case errors.Is(err, gang.ErrNothingPlaced), err == nil:
		case errors.As(err, &ie):
			// Cannot be fixed by a retry: every design of the batch is reported and
			// the batch ends, rather than failing again and again.
			for _, m := range members {
				recs[m].Rejected = ie.Reason
			}
			log.ErrorContext(ctx, "gang batch cannot be planned", "reason", ie.Reason)
			l = nil
		default:
			return err
		}
	}
	if l != nil {
		for _, r := range l.Rejected {
			recs[members[r.Design]].Rejected = r.Reason
			log.ErrorContext(ctx, "design left off the gang sheet", "key", r.Key, "order", designs[r.Design].OrderID, "reason", r.Reason)
		}
		if err := w.writeSheets(ctx, g, grp, b, l, members, recs); err != nil {
			return err
		}
	}
	return w.recordOrders(ctx, b, recs)
}

// gangDesigns measures the batch's files (alpha-trimmed box) in member order. A file
// that is gone or not a readable PNG is left off with its reason (missing); a
// storage error that a retry may fix fails the build.
func (w *Worker) gangDesigns(ctx context.Context, b jobs.GangBatch) ([]gang.Design, []string, map[string]string, error) {
	var designs []gang.Design
	var members []string
	missing := map[string]string{}
	type size struct {
		w, h int
		trim image.Rectangle
		err  string
	}
	sizes := map[string]size{}
	for _, m := range b.Members {
		e := b.Entries[m]
		s, ok := sizes[e.Bucket+"\x00"+e.Key]
		if !ok {
			img, err := w.loadDesign(ctx, e.Bucket, e.Key)
			var r interface{ Retryable() bool }
			switch {
			case err == nil:
				n := asNRGBA(img)
				s = size{w: n.Rect.Dx(), h: n.Rect.Dy(), trim: gang.AlphaBounds(n)}
			case errors.As(err, &r) && !r.Retryable():
				s = size{err: err.Error()}
			default:
				return nil, nil, nil, err
			}
			sizes[e.Bucket+"\x00"+e.Key] = s
		}
		if s.err != "" {
			missing[m] = s.err
			continue
		}
		designs = append(designs, gang.Design{Key: e.Key, OrderID: e.OrderID, Line: e.Line, DesignID: e.DesignID, View: e.View,
			Quantity: e.Quantity, Width: s.w, Height: s.h, Trim: s.trim, DPI: e.DPI})
		members = append(members, m)
	}
	return designs, members, missing, nil
}

// loadDesign reads and decodes one stored PNG.
func (w *Worker) loadDesign(ctx context.Context, bucket, key string) (image.Image, error) {
	gt, ok := w.storageOf(bucket).(getter)
	if !ok {
		return nil, &PermanentError{Reason: "gang: the storage cannot read files back"}
	}
	rc, _, err := gt.Get(ctx, key)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	img, err := png.Decode(rc)
	if err != nil {
		return nil, &PermanentError{Reason: fmt.Sprintf("%s: not a readable PNG: %v", key, err)}
	}
	return img, nil
}

// asNRGBA returns img as *image.NRGBA, converting when the decoder gave another
// layout.
func asNRGBA(img image.Image) *image.NRGBA {
	if n, ok := img.(*image.NRGBA); ok {
		return n
	}
	n := image.NewNRGBA(img.Bounds())
	draw.Draw(n, n.Rect, img, img.Bounds().Min, draw.Src)
	return n
}

// gangLoader gives the renderer a batch's designs from storage.
type gangLoader struct {
	w       *Worker
	buckets map[string]string // key -> bucket
}

func (l gangLoader) Load(ctx context.Context, key string) (image.Image, error) {
	return l.w.loadDesign(ctx, l.buckets[key], key)
}

// writeSheets stores every sheet of the layout: PNG (streamed: the canvas is never in
// memory, and S3 multipart or the hot folder's temporary file keeps a partial sheet
// invisible), PDF when the group wants it, preview, and the sheet manifest last.
func (w *Worker) writeSheets(ctx context.Context, g jobs.GangKey, grp *routing.Group, b jobs.GangBatch, l *gang.Layout, members []string, recs map[string]*GangFileRecord) error {
	release, err := w.budget.Acquire(ctx, min(int64(gangRenderBytes), w.budget.total))
	if err != nil {
		return err
	}
	defer release()
	ld := gangLoader{w: w, buckets: map[string]string{}}
	for i, d := range l.Designs {
		ld.buckets[d.Key] = recs[members[i]].Bucket
	}
	meta := map[string]string{"store": g.Store, "gang": grp.Name, "batch": strconv.FormatInt(b.N, 10)}
	for i := range l.Sheets {
		base := sheetBase(grp, g, b, i)
		if err := w.putStream(ctx, storage.Object{Key: base + ".png", ContentType: "image/png", Metadata: meta}, func(wr io.Writer) error {
			return gang.Render(ctx, wr, l, i, ld, pngenc.Options{})
		}); err != nil {
			return fmt.Errorf("gang sheet %s: %w", base, err)
		}
		if grp.PDF {
			if err := w.putStream(ctx, storage.Object{Key: base + ".pdf", ContentType: "application/pdf", Metadata: meta}, func(wr io.Writer) error {
				return gang.RenderPDF(ctx, wr, l, i, ld)
			}); err != nil {
				return fmt.Errorf("gang sheet %s: %w", base, err)
			}
		}
		if grp.PreviewWidth > 0 {
			var buf bytes.Buffer
			if err := pngenc.Encode(&buf, l.Preview(i, grp.PreviewWidth), pngenc.Options{}); err != nil {
				return fmt.Errorf("gang preview %s: %w", base, err)
			}
			if _, err := w.upload(ctx, kindFile, storage.Object{Key: base + "-preview.png", ContentType: "image/png", Size: int64(buf.Len()), Metadata: meta}, &buf); err != nil {
				return err
			}
		}
		m := l.Manifest(i, path.Base(base)+".png")
		mb, err := gang.MarshalManifest(m)
		if err != nil {
			return err
		}
		if _, err := w.upload(ctx, kindManifest, storage.Object{Key: base + ".json", ContentType: "application/json", Size: int64(len(mb)), Metadata: meta}, bytes.NewReader(mb)); err != nil {
			return err
		}
		copies := map[int]int{}
		for _, p := range l.Sheets[i].Placements {
			copies[p.Design]++
		}
		for d, n := range copies {
			r := recs[members[d]]
			r.Sheets = append(r.Sheets, GangSheet{Image: base + ".png", Manifest: base + ".json", Copies: n})
		}
		w.logger(ctx).InfoContext(ctx, "gang sheet stored", "gang", grp.Name, "batch", b.N, "key", base+".png",
			"copies", len(m.Copies), "length_mm", m.LengthMM, "utilisation", m.Utilisation)
	}
	return nil
}

// putStream streams what write produces into the default storage through a pipe.
func (w *Worker) putStream(ctx context.Context, obj storage.Object, write func(io.Writer) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		err := write(pw)
		pw.CloseWithError(err)
		done <- err
	}()
	_, perr := w.upload(ctx, kindFile, obj, pr)
	pr.CloseWithError(errStorageStopped)
	if perr != nil {
		cancel()
	}
	if werr := <-done; werr != nil && perr == nil {
		return werr
	}
	return perr
}

// recordOrders records, per order of the batch, which sheets hold its files, then
// rewrites the order's gang.json from that record. The file is rewritten until the
// record's version did not move while it was written: two builders (of two groups)
// finishing designs of one order at once each end with a write that holds both.
func (w *Worker) recordOrders(ctx context.Context, b jobs.GangBatch, recs map[string]*GangFileRecord) error {
	byOrder := map[jobs.OrderKey]map[string][]byte{}
	dirs := map[jobs.OrderKey]string{}
	for _, m := range b.Members {
		e := b.Entries[m]
		raw, err := json.Marshal(recs[m])
		if err != nil {
			return err
		}
		if byOrder[e.OrderKey] == nil {
			byOrder[e.OrderKey] = map[string][]byte{}
		}
		byOrder[e.OrderKey][m] = raw
		dirs[e.OrderKey] = e.OrderDir
	}
	keys := make([]jobs.OrderKey, 0, len(byOrder))
	for k := range byOrder {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
	for _, k := range keys {
		if err := w.gangs.RecordSheets(ctx, k, byOrder[k]); err != nil {
			return err
		}
		if err := w.writeGangRecord(ctx, k, dirs[k]); err != nil {
			return err
		}
	}
	return nil
}

func (w *Worker) writeGangRecord(ctx context.Context, k jobs.OrderKey, dir string) error {
	key := GangRecordName
	if dir != "." && dir != "" {
		key = dir + "/" + GangRecordName
	}
	for try := 0; try < 10; try++ {
		all, ver, err := w.gangs.OrderSheets(ctx, k)
		if err != nil {
			return err
		}
		rec := GangRecord{Version: 1, Store: k.Store, Domain: k.Domain, OrderID: k.OrderID, Files: []GangFileRecord{}}
		for _, m := range sortedMembers(all) {
			var f GangFileRecord
			if json.Unmarshal([]byte(all[m]), &f) == nil {
				rec.Files = append(rec.Files, f)
			}
		}
		body, err := json.MarshalIndent(rec, "", "  ")
		if err != nil {
			return err
		}
		body = append(body, '\n')
		if _, err := w.upload(ctx, kindManifest, storage.Object{Key: key, ContentType: "application/json", Size: int64(len(body)),
			Metadata: map[string]string{"store": k.Store, "order": k.OrderID}}, bytes.NewReader(body)); err != nil {
			return fmt.Errorf("write %s: %w", key, err)
		}
		now, err := w.gangs.SheetsVersion(ctx, k)
		if err != nil {
			return err
		}
		if now == ver {
			return nil
		}
	}
	return fmt.Errorf("order %s: %s kept changing while written; retrying", k, GangRecordName)
}

// EnqueueCutoffs enqueues a build of every group whose cut-off has come by now: the
// first time of the group's schedule after its oldest pending design arrived. The
// TaskID names that time, so every worker of the fleet enqueues the same one build.
// It returns the number of builds enqueued (duplicates included).
func (w *Worker) EnqueueCutoffs(ctx context.Context, now time.Time) (int, error) {
	if w.cfg.Gangs == nil {
		return 0, nil
	}
	groups, err := w.gangs.Groups(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	var errs []error
	for _, g := range groups {
		grp, ok := w.cfg.Gangs.Gang(g.Group)
		if !ok || grp.Schedule == nil {
			continue
		}
		since, err := w.gangs.Since(ctx, g)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if since.IsZero() {
			continue
		}
		due := grp.Schedule.Next(since)
		if due.After(now) {
			continue
		}
		if _, err := w.enq.GangBuild(ctx, g, jobs.GangCutoff, due.Unix()); err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	return n, errors.Join(errs...)
}

// runGangScheduler checks the cut-offs every GangTick until ctx ends.
func (w *Worker) runGangScheduler(ctx context.Context) {
	tk := time.NewTicker(w.cfg.GangTick)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-tk.C:
			if _, err := w.EnqueueCutoffs(ctx, now); err != nil && ctx.Err() == nil {
				w.log.WarnContext(ctx, "gang cut-off check failed", "err", err)
			}
		}
	}
}

// hasCutoffs reports whether any group has a cut-off schedule.
func (w *Worker) hasCutoffs() bool {
	if w.cfg.Gangs == nil {
		return false
	}
	for _, g := range w.cfg.Gangs.Gangs() {
		if g.Schedule != nil {
			return true
		}
	}
	return false
}
