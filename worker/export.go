package worker

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/hibiken/asynq"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/printworker/printworker/filenames"
	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/routing"
	"github.com/printworker/printworker/shopfloor"
	"github.com/printworker/printworker/storage"
)

// FileRecord describes one stored print file; the manifest lists them.
type FileRecord struct {
	// Key is the file in its order folder.
	Key string `json:"key"`
	// Bucket is the file's bucket; empty: the default one, which holds the order
	// folders.
	Bucket   string `json:"bucket,omitempty"`
	Filename string `json:"filename"`
	// URL is a link print staff can open: a file:// path for a hot folder, the
	// public base URL (--s3-public-url) or the bucket's address for S3.
	URL          string           `json:"url,omitempty"`
	DesignID     int64            `json:"designId"`
	ViewID       string           `json:"viewId"`
	ViewName     string           `json:"viewName,omitempty"`
	Type         string           `json:"type"`
	ContentType  string           `json:"contentType"`
	DPI          float64          `json:"dpi"`
	WidthPx      int              `json:"widthPx,omitempty"`
	HeightPx     int              `json:"heightPx,omitempty"`
	PageWidthPt  float64          `json:"pageWidthPt,omitempty"`
	PageHeightPt float64          `json:"pageHeightPt,omitempty"`
	Bytes        int64            `json:"bytes"`
	SHA256       string           `json:"sha256"`
	Mode         string           `json:"mode"`
	Warnings     []render.Warning `json:"warnings,omitempty"`
	// Colour is the rendered file's colour space, profile (name, checksum, intent),
	// trim and bleed, and highest ink coverage; absent for downloaded files.
	Colour *render.ColourInfo `json:"colour,omitempty"`
	// Thumbnail is the key of the file's JPEG preview (docs/shop-floor.md); absent
	// when thumbnails are off or the file could not be previewed.
	Thumbnail string `json:"thumbnail,omitempty"`
	// Gang names the gang group a routing rule sent the file to (docs/gang.md); its
	// sheets are named in the order's gang.json.
	Gang string `json:"gang,omitempty"`
	// Profile and ProfileDigest name the production profile the file was made by
	// and the digest of its resolved rules (docs/profiles.md); absent without
	// profiles.
	Profile       string `json:"profile,omitempty"`
	ProfileDigest string `json:"profileDigest,omitempty"`
	// EffectiveDPI is the lowest effective resolution of the file's pictures
	// (rendered files with pictures; the profile's minDpi is checked against it).
	EffectiveDPI float64 `json:"effectiveDpi,omitempty"`
	// Sidecars are the files stored beside this one: a png's white plate and cut.
	Sidecars []SidecarRecord `json:"sidecars,omitempty"`
	// Preflight is the file's preflight with its profile's check profile
	// (docs/preflight.md "In the worker"); absent without a profile.
	Preflight *PreflightRecord `json:"preflight,omitempty"`
	// Machine is the file's copy in the machine folder a routing rule sent it to
	// (docs/routing.md "Machine folders"); absent when no rule did.
	Machine *MachineFile `json:"machine,omitempty"`
	// MachinePlan is the machine folder copy still to make, at the order's
	// completion or its release from review (docs/shop-floor.md "Review holds").
	MachinePlan *MachinePlan `json:"machinePlan,omitempty"`
	// GangPlan is the add to the gang group (Gang) still to make, at the order's
	// completion or its release from review (docs/shop-floor.md "Review holds").
	GangPlan *GangPlan `json:"gangPlan,omitempty"`
	// HeldEarly says the file's objects were moved under review/ at its export
	// (holdEarly); the completion clears it, so no manifest carries it.
	HeldEarly bool `json:"heldEarly,omitempty"`
}

// DesignResult is what a finished design export records for the manifest.
type DesignResult struct {
	DesignID  int64        `json:"designId"`
	Name      string       `json:"name,omitempty"`
	ProductID string       `json:"productId,omitempty"`
	Gen       int64        `json:"gen"`
	Files     []FileRecord `json:"files"`
}

// handleExport exports every view of one design of an order, in weight order, to
// deterministic keys, then records the design as done; the design that completes the
// order enqueues its manifest. Before any work, and before each view, it checks the
// order's state: a cancelled order, a design no longer in the order and a task
// superseded by a re-export stop without error. Views already stored by an earlier
// attempt of the same generation are not exported again.
func (w *Worker) handleExport(ctx context.Context, t *asynq.Task) error {
	p, err := jobs.Decode[jobs.DesignExport](t.Payload())
	if err != nil {
		return err
	}
	ref, err := p.DesignRef()
	if err != nil {
		return fmt.Errorf("%w: %v", jobs.ErrPayload, err)
	}
	k := p.OrderKey
	st, err := w.state.DesignStatus(ctx, k, p.Ref)
	if err != nil {
		return err
	}
	switch {
	case !st.Exists:
		return &PermanentError{Reason: fmt.Sprintf("order %s has no export state (never recorded, or expired): re-run the export", k)}
	case st.Cancelled:
		markSkipped(ctx, "order cancelled")
		return nil
	case p.Gen < st.Gen:
		markSkipped(ctx, "superseded by a re-export")
		return nil
	case !st.Expected:
		markSkipped(ctx, "design no longer in the order")
		return nil
	case st.Done:
		// A repeated delivery, possibly after a crash between recording the design
		// and enqueueing the completion: finish that step.
		markSkipped(ctx, "design already exported")
		return w.completeIfDone(ctx, k, p.Ref, p.Gen, nil)
	}
	orderDate, err := time.Parse(time.DateOnly, st.Date)
	if err != nil {
		return &PermanentError{Reason: fmt.Sprintf("order %s: bad date folder %q in state", k, st.Date)}
	}
	// The order's folder is its own before any file is written into it.
	if err := w.claimFolder(ctx, k, orderDate); err != nil {
		return err
	}

	h, err := w.hubFor(p.Store)
	if err != nil {
		return err
	}
	d, err := h.GetDesign(ctx, ref)
	if err != nil {
		return fmt.Errorf("design %d: %w", ref.ID, err)
	}
	if err := render.CheckViews(d); err != nil {
		return fmt.Errorf("design %d: %w", ref.ID, err)
	}
	views := render.Views(d)
	if len(views) == 0 {
		return &PermanentError{Reason: fmt.Sprintf("design %d has no views to export", ref.ID)}
	}
	choices, err := w.chooseViews(ctx, p, d, views, w.cfg.modeFor(p.Store) == ModeDownload)
	if err != nil {
		return err
	}
	fields, err := w.nameFields(ctx, p, ref, d, orderDate)
	if err != nil {
		return err
	}
	names := w.profileNames(choices, views, filenames.ForDesign(w.cfg.Filenames, fields, views), fields)
	ids := make([]string, len(views))
	for i, v := range views {
		ids[i] = v.ID
	}
	prior, err := w.state.ViewsDone(ctx, k, p.Ref, p.Gen, ids)
	if err != nil {
		return err
	}
	res := DesignResult{DesignID: ref.ID, Name: d.Name, ProductID: d.ProductID, Gen: p.Gen}
	mode := w.cfg.modeFor(p.Store)
	for i, v := range views {
		if b, ok := prior[v.ID]; ok {
			var rec FileRecord
			if err := json.Unmarshal(b, &rec); err == nil {
				res.Files = append(res.Files, rec)
				continue
			}
		}
		cancelled, err := w.state.Cancelled(ctx, k)
		if err != nil {
			return err
		}
		if cancelled {
			markSkipped(ctx, "order cancelled during export")
			return nil
		}
		x := viewExport{h: h, p: p, ref: ref, d: d, v: v, name: names[i], orderDate: orderDate, mode: mode,
			fields: fields, views: views, index: i, prof: choices[i].prof, target: choices[i].target, routed: choices[i].routed}
		rec, err := w.exportView(ctx, x)
		if err != nil {
			return fmt.Errorf("design %d view %s: %w", ref.ID, v.ID, err)
		}
		if rec.Gang != "" {
			if err := w.gangExported(ctx, p, orderDate, &rec); err != nil {
				return fmt.Errorf("design %d view %s: gang: %w", ref.ID, v.ID, err)
			}
		}
		b, _ := json.Marshal(rec)
		if err := w.state.ViewDone(ctx, k, p.Ref, p.Gen, v.ID, b); err != nil {
			return err
		}
		res.Files = append(res.Files, rec)
	}
	if err := w.holdEarly(ctx, k, d.ProductID, res.Files); err != nil {
		return fmt.Errorf("design %d: %w", ref.ID, err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		return fmt.Errorf("design %d: encode result: %w", ref.ID, err)
	}
	return w.completeIfDone(ctx, k, p.Ref, p.Gen, b)
}

// completeIfDone records the design's result (or only checks, result nil) and
// enqueues the order's completion when this was the last design.
func (w *Worker) completeIfDone(ctx context.Context, k jobs.OrderKey, ref string, gen int64, result []byte) error {
	c, rev, err := w.state.MarkDone(ctx, k, ref, gen, result)
	if err != nil {
		return err
	}
	switch c {
	case jobs.Cancelled:
		markSkipped(ctx, "order cancelled")
	case jobs.Superseded:
		markSkipped(ctx, "superseded by a re-export")
	case jobs.Complete:
		q, err := w.enq.Complete(ctx, k, rev)
		if err != nil {
			return err
		}
		w.logger(ctx).InfoContext(ctx, "order complete, manifest enqueued", "rev", rev, "duplicate", q.Duplicate)
	}
	return nil
}

// nameFields are the naming fields of a design of an order, for the naming path
// `printworker render` and the hub simulator share (filenames.ForDesign): the
// configured pattern, when set, names every view; else each view's own export
// filename pattern (spec 2.8); a view's production
// profile with a pattern names that view (profileNames). [id] and [design] are the reference's design id;
// [date] the order's date, or the design's creation day with --filename-date design
// (when it has one); [created] the design's creation day; [order] the order id,
// [line] the first order line of the design, [qty] its quantity, [store] the store.
func (w *Worker) nameFields(ctx context.Context, p jobs.DesignExport, ref model.DesignRef, d *model.DesignDetail, orderDate time.Time) (filenames.Fields, error) {
	f := filenames.DesignFields(d)
	f.ID = strconv.FormatInt(ref.ID, 10)
	f.Design = f.ID
	if w.cfg.FileDate != "design" || f.Date.IsZero() {
		f.Date = orderDate
	}
	f.Order, f.Store, f.Quantity = p.OrderID, p.Store, p.Quantity
	snap, err := w.state.Snapshot(ctx, p.OrderKey)
	if err != nil {
		return f, err
	}
	if snap.Order != nil {
		for i, li := range snap.Order.LineItems {
			if li.Ref().String() == p.Ref {
				f.Line = i + 1
				break
			}
		}
	}
	return f, nil
}

// viewExport is one view to export.
type viewExport struct {
	h         Hub
	p         jobs.DesignExport
	ref       model.DesignRef
	d         *model.DesignDetail
	v         *model.View
	name      string
	orderDate time.Time
	mode      string
	// r renders the view with its store's and product's colour settings.
	r Renderer
	// prof is the view's production profile (nil: none); target is where the view's
	// file goes when routed (chooseViews).
	prof   *profiles.Resolved
	target routing.Target
	routed bool
	// fields, views and index name the view's file in a machine folder: the naming
	// fields of the design, its exported views and the view's place among them.
	fields filenames.Fields
	views  []*model.View
	index  int
}

// contentTypes of the export types.
func contentType(exportType string) string {
	switch exportType {
	case model.ExportPNG:
		return "image/png"
	case model.ExportPDF, model.ExportPDFSimple:
		return "application/pdf"
	case render.ExportTIFF:
		return render.ContentTypeTIFF
	}
	return "application/octet-stream"
}

// exportView renders or downloads one view into storage and describes the file.
func (w *Worker) exportView(ctx context.Context, x viewExport) (FileRecord, error) {
	v := x.v
	rec := FileRecord{Filename: x.name, DesignID: x.ref.ID, ViewID: v.ID, ViewName: v.Name.Pick(""),
		Type: v.Export.Type, ContentType: contentType(v.Export.Type), DPI: v.Export.DPI}
	// The name is the order's before anything is stored (names.go).
	name, key, err := w.reserveKey(ctx, x, x.name, v.Export.Type)
	if err != nil {
		return rec, err
	}
	x.name, rec.Filename = name, name
	target, routed := x.target, x.routed
	rec.Gang = target.Gang
	rec.Key = key
	rec.URL = w.objectURL(key)

	var plan render.Plan
	planned := false
	if w.deps.Renderer != nil {
		if x.r, err = w.rendererFor(x.p.Store, x.d.ProductID, x.prof, x.prof.SlugText(x.fields, viewLabel(v))); err != nil {
			return rec, err
		}
		x.r = w.withThumbnails(x.r)
		plan, err = x.r.Plan(x.d, v.ID)
		if err != nil && x.mode != ModeDownload {
			return rec, err
		}
		if err == nil {
			planned = true
			rec.WidthPx, rec.HeightPx = plan.WidthPx, plan.HeightPx
			rec.PageWidthPt, rec.PageHeightPt = plan.PageWidthPt, plan.PageHeightPt
		}
	}
	use := x.mode
	if use == ModeAuto {
		use = ModeRender
		if planned && len(plan.Unsupported) > 0 {
			use = ModeDownload
			rec.Warnings = append(rec.Warnings, render.Warning{Code: render.WarnUnsupported, ViewID: v.ID,
				Message: fmt.Sprintf("downloaded from the hub: the renderer does not draw %v", plan.Unsupported)})
		}
	}
	rec.Mode = use
	obj := storage.Object{Key: key, ContentType: rec.ContentType, Filename: x.name, Metadata: map[string]string{
		"store": x.p.Store, "order": x.p.OrderID, "design": strconv.FormatInt(x.ref.ID, 10), "view": v.ID,
		"dpi": strconv.FormatFloat(v.Export.DPI, 'f', -1, 64), "quantity": strconv.Itoa(x.p.Quantity), "mode": use,
	}}
	var put storage.PutResult
	if use == ModeRender {
		put, err = w.renderView(ctx, x, obj, &rec)
	} else {
		put, err = w.downloadView(ctx, x, obj, &rec)
	}
	if err != nil {
		return rec, err
	}
	rec.Bytes, rec.SHA256 = put.Bytes, put.SHA256
	if routed && target.Machine() {
		if err := w.deliverMachine(ctx, x, target, &rec); err != nil {
			return rec, err
		}
	}
	w.m.bytes.WithLabelValues("file").Add(float64(put.Bytes))
	w.m.viewsByMode.WithLabelValues(use).Inc()
	w.logger(ctx).InfoContext(ctx, "view stored", "view", v.ID, "mode", use, "key", key, "bytes", put.Bytes)
	return rec, nil
}

// errStorageStopped unblocks a renderer whose output storage stopped reading.
var errStorageStopped = errors.New("storage stopped reading the rendered file")

// renderView renders into storage through a pipe, admitted by the memory budget.
// The view's media are read and measured first (render.PrepareView), so the budget
// admits the render at the size the files' own headers give, not the size the design
// declares; nothing is decoded before that. The file is never held whole: the encoder
// writes while storage uploads, and the SHA-256 is computed on the way through.
func (w *Worker) renderView(ctx context.Context, x viewExport, obj storage.Object, rec *FileRecord) (storage.PutResult, error) {
	// The render span holds the media fetches and the drawing; the upload is its
	// sibling, under the task's span.
	sctx, span := w.tracer.Start(ctx, "render", trace.WithAttributes(
		attribute.String("printworker.view", x.v.ID),
		attribute.String("printworker.export.type", x.v.Export.Type),
		attribute.Float64("printworker.export.dpi", x.v.Export.DPI)))
	// The media are admitted one by one as they are read, then the hold grows to the
	// render's peak (which counts them).
	adm := &mediaAdmission{b: w.budget}
	defer adm.release()
	prep, err := x.r.PrepareView(sctx, x.d, x.v.ID, mediaSource{h: x.h, adm: adm})
	if err == nil {
		err = adm.growTo(ctx, prep.Plan().PeakBytes())
	}
	if err != nil {
		endSpan(span, err)
		return storage.PutResult{}, err
	}
	rctx, cancel := context.WithCancel(sctx)
	defer cancel()
	pr, pw := io.Pipe()
	type out struct {
		res *render.Result
		err error
	}
	done := make(chan out, 1)
	go func() {
		res, err := w.render(rctx, x, prep, pw)
		pw.CloseWithError(err)
		done <- out{res, err}
	}()
	var src io.Reader = pr
	pc := w.preflightCapture(x)
	if pc != nil {
		src = io.TeeReader(pr, pc)
	}
	put, perr := w.uploadTo(ctx, w.deps.Storage, kindFile, obj, src)
	pr.CloseWithError(errStorageStopped)
	if perr != nil {
		cancel()
	}
	o := <-done
	endSpan(span, o.err)
	var ie *render.InputError
	switch {
	case errors.As(o.err, &ie):
		return put, o.err
	case perr != nil:
		return put, perr
	case o.err != nil:
		return put, fmt.Errorf("render: %w", o.err)
	}
	r := o.res
	rec.ContentType, rec.DPI = r.ContentType, r.DPI
	rec.WidthPx, rec.HeightPx, rec.PageWidthPt, rec.PageHeightPt = r.WidthPx, r.HeightPx, r.PageWidthPt, r.PageHeightPt
	rec.Warnings = append(rec.Warnings, r.Warnings...)
	rec.Colour = &r.Colour
	recordProfile(rec, x.prof, r)
	if err := w.recordPreflight(ctx, x, rec, pc); err != nil {
		return put, err
	}
	if len(r.Sidecars) > 0 {
		if err := w.putSidecars(ctx, x, rec, r.Sidecars); err != nil {
			return put, err
		}
	}
	if r.Thumbnail != nil {
		return put, w.putThumbnail(ctx, rec, r.Thumbnail)
	}
	return put, nil
}

// downloadView streams the hub's export of the view straight into storage.
func (w *Worker) downloadView(ctx context.Context, x viewExport, obj storage.Object, rec *FileRecord) (storage.PutResult, error) {
	dl, err := x.h.ExportView(ctx, x.ref, x.v.ID)
	if err != nil {
		return storage.PutResult{}, err
	}
	defer dl.Body.Close()
	if dl.Length > 0 {
		obj.Size = dl.Length
	}
	if err := w.followKind(ctx, x, dl, &obj, rec); err != nil {
		return storage.PutResult{}, err
	}
	// Nothing is stored before the head of the file is checked, and the upload fails
	// at the end when the end is wrong (downloadcheck.go).
	retried, _ := asynq.GetRetryCount(ctx)
	var bad *DownloadError
	body, err := checkedDownload(dl.Body, rec.Type, rec.WidthPx, rec.HeightPx, func(reason string) error {
		bad = &DownloadError{View: x.v.ID, Type: rec.Type, Reason: reason, Attempt: retried + 1}
		return bad
	})
	if err != nil {
		return storage.PutResult{}, err
	}
	var c *shopfloor.Capture
	if !w.cfg.ShopFloor.NoThumbnails && (dl.Length <= 0 || dl.Length <= shopfloor.MaxPreviewSource) {
		c = shopfloor.NewCapture(body, shopfloor.MaxPreviewSource)
		body = c
	}
	put, err := w.uploadTo(ctx, w.deps.Storage, kindFile, obj, body)
	if bad != nil {
		// The end was wrong: storage saw a failed read and stored nothing; the
		// reason is the file's, whatever storage made of it.
		return put, bad
	}
	if err != nil {
		return put, err
	}
	if img := c.Preview(); img != nil {
		return put, w.putThumbnail(ctx, rec, img)
	}
	return put, nil
}

// render decodes the prepared view's media and renders it into out, and records its
// duration and pixels on the render span in ctx.
func (w *Worker) render(ctx context.Context, x viewExport, prep *render.PreparedView, out io.Writer) (*render.Result, error) {
	start := time.Now()
	res, err := prep.Render(ctx, out)
	if err == nil {
		w.m.renderDur.WithLabelValues(x.v.Export.Type).Observe(time.Since(start).Seconds())
		px := int64(res.WidthPx) * int64(res.HeightPx)
		w.m.pixels.Add(float64(px))
		trace.SpanFromContext(ctx).SetAttributes(attribute.Int64("printworker.render.pixels", px), attribute.Int64("printworker.render.bytes", res.Bytes))
	}
	return res, err
}

func kindOf(exportType string) string {
	if exportType == model.ExportPNG {
		return hub.KindPNG
	}
	return hub.KindPDF
}
