package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/printworker/printworker/model"
)

// Plan is what a render of one view will produce, computed from the design alone (no
// media I/O), so a caller can budget memory and refuse early.
type Plan struct {
	ViewID string
	Type   string
	Basis  string
	DPI    float64
	// Box is the export box in template units, grown by the bleed when there is one:
	// the page (PDF MediaBox, raster size).
	Box Rect
	// Trim is the export box itself (the PDF TrimBox); Box without bleed.
	Trim Rect
	// BleedPt is the bleed around Trim in points (Print.BleedPt).
	BleedPt                   float64
	WidthPx, HeightPx         int
	PageWidthPt, PageHeightPt float64
	// CanvasBytes is the output raster (4 bytes a pixel); 0 for vector pdf.
	CanvasBytes int64
	// SourceBytes estimates the decoded media: 4 bytes a pixel by the sizes the design
	// declares in Plan; measured from the files' headers in PreparedView.Plan, which is
	// what a memory budget must admit (a design may under-declare).
	SourceBytes int64
	// TransformBytes is the working copy a rotated picture's draw may make of its
	// source (4 bytes a source pixel, render/internal/resample): the largest over the
	// view's rotated raster pictures, as pictures are drawn one at a time; 0 for
	// vector pdf. An upper bound: opaque pictures at general angles are read without
	// the copy (render/internal/resample), which the plan cannot tell before decoding.
	TransformBytes int64
	// PlateBytes is the working memory of the cut contour and white plate
	// (plates.go), when the renderer makes any: about 6 bytes a plate pixel (the
	// masks and the distance transform), plus the plate raster itself (4 bytes a
	// pixel at the plate dpi) for vector pdf, whose art is not rasterized otherwise.
	PlateBytes int64
	// Unsupported names the design features met that the renderer does not draw.
	Unsupported []string
}

// PeakBytes estimates the render's peak memory, for a worker's memory budget:
//   - png: the canvas, the decoded sources and the encoder's strips (a tenth of the
//     canvas at most);
//   - pdf-simple: the same plus the page's PNG, which gofpdf copies and holds in its
//     output buffer (together about half the canvas for photographs);
//   - pdf: the decoded sources and their embedded copies in gofpdf (at most as large).
//
// Raster outputs add TransformBytes, the copy a rotated picture is drawn from.
//
// Every output adds PlateBytes.
func (p Plan) PeakBytes() int64 {
	switch p.Type {
	case model.ExportPDF:
		return 2*p.SourceBytes + p.PlateBytes
	case model.ExportPDFSimple:
		return p.CanvasBytes + p.SourceBytes + p.TransformBytes + p.CanvasBytes/2 + p.PlateBytes
	}
	return p.CanvasBytes + p.SourceBytes + p.TransformBytes + p.CanvasBytes/10 + p.PlateBytes
}

// Plan computes the plan of a view. Errors are *InputError.
func (r *Renderer) Plan(d *model.DesignDetail, viewID string) (Plan, error) {
	if err := CheckViews(d); err != nil {
		return Plan{}, err
	}
	v, ok := d.ViewByID(viewID)
	if !ok {
		return Plan{}, inputErr(viewID, "", nil, "no such view in design %s", d.ID)
	}
	return r.plan(v)
}

// CheckViews refuses a design in which two views share an id: views are chosen by id,
// so the second would silently print the first. The error is an *InputError naming
// the id.
func CheckViews(d *model.DesignDetail) error {
	seen := make(map[string]int, len(d.Views))
	for i := range d.Views {
		id := d.Views[i].ID
		if j, ok := seen[id]; ok {
			return inputErr(id, "", nil, "design %s has two views with id %q (views %d and %d): each view needs its own id", d.ID, id, j+1, i+1)
		}
		seen[id] = i
	}
	return nil
}

// Views returns the design's views in export order: ascending weight, ties in array
// order (the hub's "export all" page order).
func Views(d *model.DesignDetail) []*model.View {
	out := make([]*model.View, len(d.Views))
	for i := range d.Views {
		out[i] = &d.Views[i]
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Weight < out[j].Weight })
	return out
}

func (r *Renderer) plan(v *model.View) (Plan, error) {
	x := v.Export
	x.Type = r.print.ExportType(x.Type)
	p := Plan{ViewID: v.ID, Type: x.Type, Basis: r.opts.Basis, DPI: x.DPI}
	switch x.Type {
	case model.ExportPNG, model.ExportPDF, model.ExportPDFSimple:
	case ExportTIFF:
		if !r.print.CMYK() {
			return p, inputErr(v.ID, "", nil, "export type %q needs a CMYK output profile (--color-profile)", x.Type)
		}
	case "":
		return p, inputErr(v.ID, "", nil, "export type missing")
	default:
		return p, inputErr(v.ID, "", nil, "export type %q: want png, pdf or pdf-simple", x.Type)
	}
	if !(x.DPI >= MinDPI && x.DPI <= MaxDPI) {
		return p, inputErr(v.ID, "", nil, "export dpi %v outside %d..%d", x.DPI, MinDPI, MaxDPI)
	}
	box, err := exportBox(v)
	if err != nil {
		return p, err
	}
	p.Box = box
	if err := r.checkSize(v.ID, box, x.DPI); err != nil {
		return p, err
	}
	switch r.opts.Basis {
	case BasisPixel:
		p.WidthPx, p.HeightPx = int(math.Round(box.W)), int(math.Round(box.H))
		p.PageWidthPt, p.PageHeightPt = float64(p.WidthPx)*72/x.DPI, float64(p.HeightPx)*72/x.DPI
	default:
		p.WidthPx, p.HeightPx = int(math.Round(box.W*x.DPI/72)), int(math.Round(box.H*x.DPI/72))
		p.PageWidthPt, p.PageHeightPt = box.W, box.H
	}
	p.Trim = box
	if err := r.addBleed(&p); err != nil {
		return p, err
	}
	if err := checkPageSize(p); err != nil {
		return p, err
	}
	if p.WidthPx < 1 || p.HeightPx < 1 {
		return p, inputErr(v.ID, "", nil, "export box %gx%g is smaller than one pixel at %g dpi", box.W, box.H, x.DPI)
	}
	// Checked in float: the product of two large ints may overflow.
	if px := float64(p.WidthPx) * float64(p.HeightPx); px > float64(r.opts.MaxPixels) {
		return p, inputErr(v.ID, "", nil, "output %dx%d px (%.3g megapixels) exceeds the cap of %.3g megapixels",
			p.WidthPx, p.HeightPx, px/1e6, float64(r.opts.MaxPixels)/1e6)
	}
	if x.Type != model.ExportPDF {
		p.CanvasBytes = 4 * int64(p.WidthPx) * int64(p.HeightPx)
	}
	if m, ok, _ := v.Template.Media(); ok && x.ExportTemplate {
		p.SourceBytes += 4 * int64(m.Meta.Width) * int64(m.Meta.Height)
	}
	for i := range v.Elements {
		e := &v.Elements[i]
		if !e.Exported() || e.Value == nil {
			continue
		}
		if m, ok, _ := e.Value.Media(); ok {
			p.SourceBytes += 4 * int64(m.Meta.Width) * int64(m.Meta.Height)
			if x.Type != model.ExportPDF && rotated(e) && !strings.Contains(m.MimeType, "svg") {
				p.TransformBytes = max(p.TransformBytes, 4*int64(m.Meta.Width)*int64(m.Meta.Height))
			}
		}
	}
	for _, f := range unsupportedFeatures(v) {
		p.Unsupported = append(p.Unsupported, f.String())
	}
	p.PlateBytes = r.plateBytes(p)
	if _, err := r.cutArea(v); err != nil {
		return p, err
	}
	return p, nil
}

// checkSize refuses a side longer than the whole pixel cap while it is still a
// float: converting a width of 1e308 px to int overflows (to a negative number),
// which was reported as "smaller than one pixel". The area is checked after.
func (r *Renderer) checkSize(viewID string, box Rect, dpi float64) error {
	w, h := box.W, box.H
	if r.opts.Basis != BasisPixel {
		w, h = w*dpi/72, h*dpi/72
	}
	if limit := float64(r.opts.MaxPixels); w > limit || h > limit {
		return inputErr(viewID, "", nil, "output %.3gx%.3g px is too large: one side exceeds the cap of %.3g megapixels", w, h, limit/1e6)
	}
	return nil
}

// exportBox returns the export box by areaType (hub-gaps.md "Designs and exports").
func exportBox(v *model.View) (Rect, error) {
	x := v.Export
	var box Rect
	switch x.AreaType {
	case model.AreaTypeTemplate, "":
		box = Rect{0, 0, v.Width, v.Height}
	case model.AreaTypeArea:
		if x.Area == nil || *x.Area == "" {
			return box, inputErr(v.ID, "", nil, "export areaType area without an area id")
		}
		a, ok := v.AreaByID(*x.Area)
		if !ok {
			return box, inputErr(v.ID, "", nil, "export area %q is not an area of the view", *x.Area)
		}
		box = Rect{a.X, a.Y, a.Width, a.Height}
	case model.AreaTypeCustom:
		box = Rect{x.X, x.Y, x.Width, x.Height}
	default:
		return box, inputErr(v.ID, "", nil, "export areaType %q: want template, custom or area", x.AreaType)
	}
	for _, f := range []float64{box.X, box.Y, box.W, box.H} {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return box, inputErr(v.ID, "", nil, "export box is not finite")
		}
	}
	if box.Empty() {
		return box, inputErr(v.ID, "", nil, "export box %gx%g is empty", box.W, box.H)
	}
	return box, nil
}

// feature is a design feature the renderer meets and does not draw.
type feature struct {
	elementID string // "" for view-level features
	what      string
}

func (f feature) String() string {
	if f.elementID == "" {
		return f.what
	}
	return fmt.Sprintf("element %s: %s", f.elementID, f.what)
}

// unsupportedFeatures lists the features of the view the renderer does not draw, so
// they are reported, never silently dropped.
func unsupportedFeatures(v *model.View) []feature {
	var out []feature
	if present(v.CutOutMask) {
		out = append(out, feature{what: "view cutOutMask"})
	}
	if isTrue(v.Export.ExportCutOutMask) {
		out = append(out, feature{what: "export exportCutOutMask"})
	}
	for _, f := range []struct {
		name string
		raw  json.RawMessage
	}{
		{"custom", v.Export.Custom}, {"mergeDimensions", v.Export.MergeDimensions},
		{"mergeInFile", v.Export.MergeInFile}, {"mergePosition", v.Export.MergePosition},
	} {
		if present(f.raw) {
			out = append(out, feature{what: "export " + f.name})
		}
	}
	for i := range v.Elements {
		e := &v.Elements[i]
		if !e.Exported() {
			continue
		}
		for _, f := range elementUnsupported(e) {
			out = append(out, feature{elementID: e.ID, what: f})
		}
	}
	return out
}

func elementUnsupported(e *model.Element) []string {
	var out []string
	switch e.Type {
	case model.ElementText, model.ElementPicture, model.ElementIllustration, model.ElementBackground:
	default:
		out = append(out, fmt.Sprintf("element type %q", e.Type))
	}
	if isTrue(e.Curvable) && rawNum(e.CurveRadius) != 0 {
		out = append(out, "curved text (curveRadius)")
	}
	if present(e.Fx) {
		out = append(out, "effects (fx)")
	}
	if e.Type == model.ElementText && e.Align != nil {
		switch *e.Align {
		case "", "left", "center", "right":
		default:
			out = append(out, fmt.Sprintf("align %q (drawn centred)", *e.Align))
		}
	}
	if e.AutoResize != nil {
		switch *e.AutoResize {
		case "", "none", "fill", "fit":
		default:
			out = append(out, fmt.Sprintf("autoResize %q (drawn as none)", *e.AutoResize))
		}
	}
	return out
}

// present reports whether a raw field carries something other than null, false, 0,
// "", [] or {}.
func present(r json.RawMessage) bool {
	s := string(bytes.TrimSpace(r))
	switch s {
	case "", "null", "false", "0", `""`, "[]", "{}":
		return false
	}
	return true
}

func isTrue(r json.RawMessage) bool { return string(bytes.TrimSpace(r)) == "true" }

func rawNum(r json.RawMessage) float64 {
	var f float64
	if json.Unmarshal(r, &f) != nil {
		return 0
	}
	return f
}

// rotated reports whether the element's rotation turns its picture (not a whole
// number of turns), so that its draw copies the source (render/internal/resample). A
// turn from the JPEG's EXIF orientation is not known before decoding and is not
// counted.
func rotated(e *model.Element) bool {
	return e.Rotation != nil && math.Mod(*e.Rotation, 360) != 0
}
