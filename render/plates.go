package render

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"image"
	"io"
	"math"
	"strings"

	gofpdf "codeberg.org/go-pdf/fpdf"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/contour"
	"github.com/printworker/printworker/render/internal/pngenc"
)

// Cut contours and white plates (docs/rendering.md "Cut contours and white plates"):
// the plates a cutter's or a white-ink printer's RIP takes from a print file, made
// from the alpha of the composited view. In pdf and pdf-simple output each is drawn
// on top of the art, in a Separation colour space of its own, overprinting, inside
// an optional content group named after it; beside a png the white plate is a grey
// PNG and the cut a PDF holding only the cut (Result.Sidecars).

// Sources of a cut contour (CutContour.Source).
const (
	// CutSourceAlpha follows the outline of the view's opaque artwork, offset.
	CutSourceAlpha = "alpha"
	// CutSourceBox cuts along the export box (the trim), corners rounded by
	// CutContour.CornerRadiusPt.
	CutSourceBox = "box"
	// CutSourceArea cuts along the view's area CutContour.Area, corners rounded by
	// CutContour.CornerRadiusPt.
	CutSourceArea = "area"
	// CutSourceSVGID cuts along the geometry of the SVG clipart's element whose id
	// is CutContour.ID (and the shapes inside it); without one the cut follows the
	// art's outline, with a warning.
	CutSourceSVGID = "svg-id"
)

// Defaults of the plates.
const (
	DefaultCutSpot     = "CutContour"
	DefaultPerfCutSpot = "PerfCutContour"
	DefaultWhiteSpot   = "White"
	// DefaultCutOffsetPt is the white border around the art a sticker gets: 1.5 mm.
	DefaultCutOffsetPt = 1.5 * mmPt
	// DefaultHairlinePt is the cut's stroke width.
	DefaultHairlinePt = 0.25
	// DefaultCutTolerancePt bounds how far the simplified cut strays from the
	// traced one: 0.1 mm.
	DefaultCutTolerancePt = 0.1 * mmPt
	// DefaultCutAlphaThreshold: a pixel of at least 10 % alpha is art the cut keeps.
	DefaultCutAlphaThreshold = 26
	// DefaultWhiteThreshold: white ink goes under pixels of at least 50 % alpha.
	DefaultWhiteThreshold = 128
	// DefaultWhiteChokePx is the choke of the white plate in plate pixels.
	DefaultWhiteChokePx = 1
	// DefaultPlateDPI is the resolution of the plates of a vector pdf page (rasters
	// take their own dpi).
	DefaultPlateDPI = 300
	// MaxPlateDPI bounds PlateDPI.
	MaxPlateDPI = 1200
	// maxChokePx bounds WhitePlate.ChokePx.
	maxChokePx = 100
	// maxSpotName bounds a spot colour's name.
	maxSpotName = 63
)

// CutContour is the cut line of a view. The zero value of each field but Source and
// OffsetPt takes its default.
type CutContour struct {
	// Source is CutSourceAlpha (default), CutSourceBox or CutSourceArea.
	Source string
	// Area is the id of the view's area the CutSourceArea cut follows.
	Area string
	// ID is the id of the SVG element the CutSourceSVGID cut follows.
	ID string
	// OffsetPt is how far outside the art the cut runs (alpha source), in points;
	// 0 cuts along the art's edge.
	OffsetPt float64
	// CornerRadiusPt rounds the corners of the box source.
	CornerRadiusPt float64
	// Spot is the name of the Separation colour (default DefaultCutSpot, or
	// DefaultPerfCutSpot when Perf is set).
	Spot string
	// Perf makes the line a perforation (PerfCutContour).
	Perf bool
	// HairlinePt is the stroke width (default DefaultHairlinePt).
	HairlinePt float64
	// AlphaThreshold is the alpha (1..255) from which a pixel is art (default
	// DefaultCutAlphaThreshold).
	AlphaThreshold uint8
	// Holes cuts out the holes of the art's pieces too (default: only the outside).
	Holes bool
	// TolerancePt is the simplification's tolerance (default DefaultCutTolerancePt).
	TolerancePt float64
	// MaxPieces and MaxPoints cap the paths (contour.DefaultMaxPieces and
	// contour.DefaultMaxPoints when 0); over them the cut is a rectangle around the
	// art with a warning.
	MaxPieces, MaxPoints int
}

// WhitePlate is the white ink plate of a view. The zero value of each field takes
// its default.
type WhitePlate struct {
	// Spot is the name of the Separation colour (default DefaultWhiteSpot).
	Spot string
	// ChokePx shrinks the plate by this many plate pixels from the art's edges
	// (default DefaultWhiteChokePx; a negative value is no choke).
	ChokePx int
	// Threshold is the alpha (1..255) from which a pixel gets white ink (default
	// DefaultWhiteThreshold).
	Threshold uint8
	// SkipPureWhite leaves out pixels of pure white art (#ffffff): the white ink
	// itself prints them.
	SkipPureWhite bool
	// PlateDPI is the plate's resolution on vector pdf pages (default
	// DefaultPlateDPI); raster outputs use their own.
	PlateDPI float64
}

func (c *CutContour) spot() string {
	switch {
	case c.Spot != "":
		return c.Spot
	case c.Perf:
		return DefaultPerfCutSpot
	}
	return DefaultCutSpot
}

func (w *WhitePlate) spot() string {
	if w.Spot != "" {
		return w.Spot
	}
	return DefaultWhiteSpot
}

func (w *WhitePlate) chokePx() int {
	switch {
	case w.ChokePx < 0:
		return 0
	case w.ChokePx == 0:
		return DefaultWhiteChokePx
	}
	return w.ChokePx
}

func (w *WhitePlate) dpi() float64 {
	if w.PlateDPI > 0 {
		return w.PlateDPI
	}
	return DefaultPlateDPI
}

// Validate reports every bad setting at once.
func (c *CutContour) Validate() error {
	if c == nil {
		return nil
	}
	var errs []error
	switch c.Source {
	case "", CutSourceAlpha, CutSourceBox:
	case CutSourceArea:
		if c.Area == "" {
			errs = append(errs, errors.New("render: cut contour source area without an area id"))
		}
	case CutSourceSVGID:
		if c.ID == "" || len(c.ID) > 256 {
			errs = append(errs, errors.New("render: cut contour source svg-id without an element id (or one over 256 bytes)"))
		}
	default:
		errs = append(errs, fmt.Errorf("render: cut contour source %q: want %q, %q, %q or %q", c.Source, CutSourceAlpha, CutSourceBox, CutSourceArea, CutSourceSVGID))
	}
	for _, v := range []struct {
		name string
		v    float64
		max  float64
	}{{"offset", c.OffsetPt, 72}, {"corner radius", c.CornerRadiusPt, 720}, {"hairline", c.HairlinePt, 10}, {"tolerance", c.TolerancePt, 10}} {
		if !(v.v >= 0 && v.v <= v.max) {
			errs = append(errs, fmt.Errorf("render: cut contour %s %gpt: want 0..%gpt", v.name, v.v, v.max))
		}
	}
	if c.MaxPieces < 0 || c.MaxPoints < 0 {
		errs = append(errs, errors.New("render: cut contour caps must not be negative"))
	}
	if err := checkSpotName(c.Spot); err != nil {
		errs = append(errs, fmt.Errorf("render: cut contour: %w", err))
	}
	return errors.Join(errs...)
}

// Validate reports every bad setting at once.
func (w *WhitePlate) Validate() error {
	if w == nil {
		return nil
	}
	var errs []error
	if w.ChokePx > maxChokePx {
		errs = append(errs, fmt.Errorf("render: white plate choke %d px: want at most %d", w.ChokePx, maxChokePx))
	}
	if !(w.PlateDPI >= 0 && w.PlateDPI <= MaxPlateDPI) {
		errs = append(errs, fmt.Errorf("render: white plate dpi %g: want 0..%d", w.PlateDPI, MaxPlateDPI))
	}
	if err := checkSpotName(w.Spot); err != nil {
		errs = append(errs, fmt.Errorf("render: white plate: %w", err))
	}
	return errors.Join(errs...)
}

// checkSpotName accepts printable ASCII without PDF delimiters or '#'; a space is
// allowed (ONYX's "Spot 1"), written #20 in the PDF name.
func checkSpotName(s string) error {
	if s == "" {
		return nil
	}
	if strings.TrimSpace(s) != s {
		return fmt.Errorf("spot colour name %q: leading or trailing space", s)
	}
	if len(s) > maxSpotName {
		return fmt.Errorf("spot colour name %q: longer than %d characters", s, maxSpotName)
	}
	for _, r := range s {
		if r < ' ' || r > '~' || strings.ContainsRune("()<>[]{}/%#", r) {
			return fmt.Errorf("spot colour name %q: want printable ASCII without ()<>[]{}/%%#", s)
		}
	}
	return nil
}

// WarnCutContour: the cut contour was over its caps and is a rectangle around the
// art instead.
const WarnCutContour = "cut-contour"

// Sidecar is a file written beside a view's file: the white plate of a png, the cut
// of a png.
type Sidecar struct {
	// Suffix goes before the view file's extension is replaced: "-white.png",
	// "-cut.pdf".
	Suffix      string `json:"suffix"`
	ContentType string `json:"contentType"`
	Data        []byte `json:"-"`
}

// plates are a view's plates, in page points (cut) and page pixels (white).
type plates struct {
	// cut holds closed paths in page points, y down from the page's top-left.
	cut [][]gofpdf.PointType
	// white is the plate; nil when there is none. Its pixels span the page.
	white *contour.Mask
}

// hasPlates reports whether the renderer makes any plate.
func (r *Renderer) hasPlates() bool {
	return r.print != nil && (r.print.Cut != nil || r.print.White != nil)
}

// makePlates computes the scene's plates from its composited canvas, whose pixels
// span the page (trim plus bleed). The canvas is read, not changed.
func (r *Renderer) makePlates(ctx context.Context, s *Scene, canvas *image.RGBA) (*plates, error) {
	pl := &plates{}
	w, h := canvas.Rect.Dx(), canvas.Rect.Dy()
	if w == 0 || h == 0 {
		return pl, nil
	}
	ptPerPx := s.PageWidthPt / float64(w)
	if c := r.print.Cut; c != nil {
		source := c.Source
		if source == CutSourceSVGID {
			tol := c.TolerancePt
			if tol == 0 {
				tol = DefaultCutTolerancePt
			}
			maxPts := c.MaxPoints
			if maxPts == 0 {
				maxPts = contour.DefaultMaxPoints
			}
			var why string
			if pl.cut, why = s.svgCut(c.ID, tol, maxPts); why != "" {
				s.Warnings = append(s.Warnings, Warning{Code: WarnCutContour, ViewID: s.ViewID,
					Message: why + ": the cut follows the art's outline"})
				source = CutSourceAlpha
			}
		}
		switch source {
		case CutSourceSVGID:
			// pl.cut holds the element's geometry.
		case CutSourceBox, CutSourceArea:
			r := s.Trim
			if c.Source == CutSourceArea {
				r = s.cutArea
			}
			t := bounds(s.ToPage(), r)
			p := contour.RoundedRect(t.X, t.Y, t.W, t.H, c.CornerRadiusPt, DefaultCutTolerancePt)
			pl.cut = append(pl.cut, toPoints(p, 1))
		default:
			thr := c.AlphaThreshold
			if thr == 0 {
				thr = DefaultCutAlphaThreshold
			}
			m, err := contour.FromAlpha(ctx, canvas.Pix, canvas.Stride, w, h, thr, nil)
			if err != nil {
				return nil, err
			}
			tol := c.TolerancePt
			if tol == 0 {
				tol = DefaultCutTolerancePt
			}
			t, err := contour.Cut(ctx, m, contour.CutOptions{
				Offset: c.OffsetPt / ptPerPx, Tolerance: tol / ptPerPx, Holes: c.Holes,
				Limits: contour.Limits{MaxPieces: c.MaxPieces, MaxPoints: c.MaxPoints},
			})
			if err != nil {
				return nil, err
			}
			if t.Truncated {
				s.Warnings = append(s.Warnings, Warning{Code: WarnCutContour, ViewID: s.ViewID,
					Message: "the art's outline has more pieces or points than the cut contour's caps: the cut is a rectangle around the art"})
			}
			for _, p := range t.Paths {
				pl.cut = append(pl.cut, toPoints(p, ptPerPx))
			}
		}
	}
	if wp := r.print.White; wp != nil {
		thr := wp.Threshold
		if thr == 0 {
			thr = DefaultWhiteThreshold
		}
		var skip func(r, g, b, a uint8) bool
		if wp.SkipPureWhite {
			// Premultiplied: pure white art has every channel equal to its alpha.
			skip = func(r, g, b, a uint8) bool { return r == a && g == a && b == a }
		}
		m, err := contour.FromAlpha(ctx, canvas.Pix, canvas.Stride, w, h, thr, skip)
		if err != nil {
			return nil, err
		}
		if pl.white, err = contour.Erode(ctx, m, float64(wp.chokePx())); err != nil {
			return nil, err
		}
	}
	return pl, nil
}

// svgCut is the cut along the SVG clipart's element id: the geometry of every shape
// it draws, in every SVG layer of the scene, mapped to page points and flattened
// within tol, each subpath a closed loop. why says why there is none: no such
// element (or it paints nothing), or more than maxPts points.
func (s *Scene) svgCut(id string, tol float64, maxPts int) (cut [][]gofpdf.PointType, why string) {
	toPage := s.ToPage()
	n := 0
	for i := range s.Layers {
		l := &s.Layers[i]
		if l.Kind != LayerSVG || l.SVG == nil || l.SVG.Doc == nil {
			continue
		}
		m := toPage.Mul(l.Transform)
		for _, p := range l.SVG.Doc.Marked(id) {
			// Flatten's step count errs on the coarse side for cubic arcs (a 28 pt
			// circle at the 0.1 mm tolerance is a 12-gon a point off the curve):
			// an eighth of it keeps the chords within the tolerance.
			for _, poly := range p.Transform(m).Flatten(tol / 8) {
				if len(poly.Pts) < 2 {
					continue
				}
				if n += len(poly.Pts); n > maxPts {
					return nil, fmt.Sprintf("the SVG element %q has more than %d points", id, maxPts)
				}
				pts := make([]gofpdf.PointType, len(poly.Pts))
				for j, q := range poly.Pts {
					pts[j] = gofpdf.PointType{X: q.X, Y: q.Y}
				}
				cut = append(cut, pts)
			}
		}
	}
	if len(cut) == 0 {
		return nil, fmt.Sprintf("no SVG element %q draws a shape in this view", id)
	}
	return cut, ""
}

func toPoints(p contour.Path, scale float64) []gofpdf.PointType {
	out := make([]gofpdf.PointType, len(p))
	for i, q := range p {
		out[i] = gofpdf.PointType{X: q.X * scale, Y: q.Y * scale}
	}
	return out
}

// cutArea returns the rectangle of the view's area a CutSourceArea cut follows, in
// template units; an InputError when the view has no such area.
func (r *Renderer) cutArea(v *model.View) (Rect, error) {
	c := r.print.cutSettings()
	if c == nil || c.Source != CutSourceArea {
		return Rect{}, nil
	}
	a, ok := v.AreaByID(c.Area)
	if !ok {
		return Rect{}, inputErr(v.ID, "", nil, "cut contour area %q: the view has no such area", c.Area)
	}
	return Rect{a.X, a.Y, a.Width, a.Height}, nil
}

// cutSettings is the cut contour (nil when none).
func (p *Print) cutSettings() *CutContour {
	if p == nil {
		return nil
	}
	return p.Cut
}

// plateBytes estimates the plates' working memory for a view's plan (Plan.PlateBytes).
func (r *Renderer) plateBytes(p Plan) int64 {
	if !r.hasPlates() {
		return 0
	}
	px := float64(p.WidthPx) * float64(p.HeightPx)
	perPx := 6.0
	if p.Type == model.ExportPDF {
		dpi := r.plateDPI()
		px = math.Round(p.PageWidthPt*dpi/72) * math.Round(p.PageHeightPt*dpi/72)
		perPx += 4
	}
	return int64(perPx * px)
}

// plateDPI is the plate resolution of vector pages.
func (r *Renderer) plateDPI() float64 {
	if wp := r.print.White; wp != nil {
		return wp.dpi()
	}
	return DefaultPlateDPI
}

// plateScene is a copy of the scene to rasterize for the plates of a vector page at
// dpi: its own layer list, since Rasterize drops each picture once drawn, and no
// early encoding.
func plateScene(s *Scene, dpi float64) *Scene {
	c := *s
	c.Layers = append([]Layer(nil), s.Layers...)
	c.finalRows = nil
	c.WidthPx = max(1, int(math.Round(s.PageWidthPt*dpi/72)))
	c.HeightPx = max(1, int(math.Round(s.PageHeightPt*dpi/72)))
	return &c
}

// vectorPlates rasterizes the scene at the plate resolution for a vector page.
func (r *Renderer) vectorPlates(ctx context.Context, s *Scene) (*plates, error) {
	c := plateScene(s, r.plateDPI())
	canvas, err := r.Rasterize(ctx, c)
	if err != nil {
		return nil, err
	}
	pl, err := r.makePlates(ctx, c, canvas)
	s.Warnings = c.Warnings
	return pl, err
}

// Optional content groups of the plates: declared once per document, in this order
// (newPrintPDF), so a page refers to them by number.
func (r *Renderer) plateLayers() (cut, white int) {
	cut, white = -1, -1
	n := 0
	if r.print != nil && r.print.Cut != nil {
		cut = n
		n++
	}
	if r.print != nil && r.print.White != nil {
		white = n
	}
	return cut, white
}

// declarePlates registers the plates' spot colours and optional content groups in
// a new document. The cut's alternate is 100 % magenta, the colour RIPs and
// designers use for cut lines; the white's is no ink at all, so a RIP that does not
// know the name prints nothing for it rather than a colour over the art.
func (r *Renderer) declarePlates(pdf *gofpdf.Fpdf) {
	if !r.hasPlates() {
		return
	}
	if c := r.print.Cut; c != nil {
		pdf.AddSpotColor(padSpot(c.spot(), r.spotWidth()), 0, 100, 0, 0)
		pdf.AddLayer(c.spot(), true)
	}
	if w := r.print.White; w != nil {
		pdf.AddSpotColor(padSpot(w.spot(), r.spotWidth()), 0, 0, 0, 0)
		pdf.AddLayer(w.spot(), true)
	}
}

// spotWidth is the length the spot names are padded to (see padSpot).
func (r *Renderer) spotWidth() int {
	n := 0
	if c := r.print.Cut; c != nil {
		n = max(n, spotLen(c.spot()))
	}
	if w := r.print.White; w != nil {
		n = max(n, spotLen(w.spot()))
	}
	return n
}

// spotLen is the length of a spot name as fpdf writes it (a space as #20).
func spotLen(name string) int { return len(name) + 2*strings.Count(name, " ") }

// padSpot pads a spot name with tabs (white space ending the PDF name) to n bytes:
// fpdf writes its spot colours in map order, and equal lengths keep every object's
// offset the same whatever the order; sortSpots then puts them in a fixed order.
func padSpot(name string, n int) string {
	return name + strings.Repeat("\t", max(0, n-spotLen(name)))
}

// drawPlates draws the page's plates over its art: the white plate (an image mask
// painted with the white spot), then the cut (a stroked path in the cut's spot),
// each overprinting in its own optional content group. slug is the page's margin
// around the bleed box (crop marks).
func (r *Renderer) drawPlates(pdf *gofpdf.Fpdf, s *Scene, pl *plates, slug float64) error {
	if pl == nil {
		return nil
	}
	cutLayer, whiteLayer := r.plateLayers()
	pdf.TransformBegin()
	if slug > 0 {
		pdf.TransformTranslate(slug, slug)
	}
	pdf.SetAlpha(1, blendOverprint)
	if wp := r.print.White; wp != nil && pl.white != nil && pl.white.Count() > 0 {
		name := "white-" + s.ViewID
		data, err := stencilData(pl.white)
		if err != nil {
			return fmt.Errorf("render: view %s: white plate: %w", s.ViewID, err)
		}
		// A fraction of a pixel from the plate's bytes keeps fpdf's image order
		// fixed beside the page's raster and other plates of the same width.
		sum := sha256.Sum256(data)
		frac := (float64(binary.BigEndian.Uint16(sum[:])) + 1) / (2 * 65537)
		im := rawImage{w: pl.white.W, h: pl.white.H, cs: stencilMarker, bpc: 1, data: data, wFrac: frac}
		if err := registerImageInfo(pdf, name, im, data, nil); err != nil {
			return fmt.Errorf("render: view %s: white plate: %w", s.ViewID, err)
		}
		pdf.BeginLayer(whiteLayer)
		pdf.SetFillSpotColor(padSpot(wp.spot(), r.spotWidth()), 100)
		pdf.ImageOptions(carriedName(name), 0, 0, s.PageWidthPt, s.PageHeightPt, false, gofpdf.ImageOptions{}, 0, "")
		pdf.EndLayer()
	}
	if c := r.print.Cut; c != nil && len(pl.cut) > 0 {
		pdf.BeginLayer(cutLayer)
		pdf.SetDrawSpotColor(padSpot(c.spot(), r.spotWidth()), 100)
		hw := c.HairlinePt
		if hw == 0 {
			hw = DefaultHairlinePt
		}
		pdf.SetLineWidth(hw)
		pdf.SetLineJoinStyle("round")
		for _, p := range pl.cut {
			if len(p) < 2 {
				continue
			}
			pdf.MoveTo(p[0].X, p[0].Y)
			for _, q := range p[1:] {
				pdf.LineTo(q.X, q.Y)
			}
			pdf.ClosePath()
			pdf.DrawPath("D")
		}
		pdf.EndLayer()
	}
	pdf.TransformEnd()
	// Q restored the graphics state; fpdf's idea of it goes back too, so that a
	// later page does not start in the plates' colours.
	pdf.SetLineWidth(0.2 * 72 / 25.4)
	pdf.SetDrawColor(0, 0, 0)
	pdf.SetFillColor(0, 0, 0)
	pdf.SetLineJoinStyle("miter")
	if err := pdf.Error(); err != nil {
		return fmt.Errorf("render: view %s: plates: %w", s.ViewID, err)
	}
	return nil
}

// stencilMarker is the colour space name the white plate's image is registered
// with; the document writer turns "/ColorSpace /<marker>" into "/ImageMask true"
// (stencilPatch), which fpdf cannot say.
const stencilMarker = "PWStencilMaskImage"

var stencilPatch = [2][]byte{
	[]byte("/ColorSpace /" + stencilMarker),
	pad("/ImageMask true", len("/ColorSpace /"+stencilMarker)),
}

// stencilData is the plate as a zlib stream of 1-bit rows: 0 where the white ink
// goes (an image mask paints its 0 samples), 1 elsewhere.
func stencilData(m *contour.Mask) ([]byte, error) {
	var buf bytes.Buffer
	zw, err := zlib.NewWriterLevel(&buf, zlib.BestSpeed)
	if err != nil {
		return nil, err
	}
	row := make([]byte, (m.W+7)/8)
	for y := 0; y < m.H; y++ {
		for i := range row {
			row[i] = 0xff
		}
		for x, p := range m.Pix[y*m.W : (y+1)*m.W] {
			if p != 0 {
				row[x/8] &^= 0x80 >> (x % 8)
			}
		}
		if _, err := zw.Write(row); err != nil {
			return nil, err
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// fixPlates applies the document fixes the plates need to fpdf's output, each the
// same length as what it replaces so no offset moves: the white plate's image
// becomes an image mask; the optional content configuration gets the /Name PDF/X-4
// asks of it; the spot colours go in a fixed order (sortSpots).
func fixPlates(doc []byte) {
	for _, pt := range [][2][]byte{stencilPatch, ocConfigPatch} {
		for i := 0; ; {
			j := bytes.Index(doc[i:], pt[0])
			if j < 0 {
				break
			}
			copy(doc[i+j:], pt[1])
			i += j + len(pt[1])
		}
	}
	sortSpots(doc)
}

// ocConfigPatch names the default optional content configuration (fpdf writes none;
// ISO 15930-7 requires one): "/OFF [] " of a configuration hiding nothing becomes
// "/Name(D)", as long.
var ocConfigPatch = [2][]byte{[]byte("/D <</OFF [] /Order ["), []byte("/D <</Name(D)/Order [")}

// sortSpots puts the Separation colour space objects of fpdf's output in the order
// of their resource names (/CS1, /CS2: the order declarePlates added them), so the
// same document has the same bytes. fpdf numbers them in map order; padSpot made
// them equally long, so their bodies can be exchanged in place. The page resources'
// "/CSn k 0 R" lines are then rewritten in the same order.
func sortSpots(doc []byte) {
	const head = " 0 obj\n[/Separation /"
	type obj struct{ at, end, num int }
	var objs []obj
	for i := 0; ; {
		j := bytes.Index(doc[i:], []byte(head))
		if j < 0 {
			break
		}
		j += i
		// The object number before " 0 obj".
		k := j
		for k > 0 && doc[k-1] >= '0' && doc[k-1] <= '9' {
			k--
		}
		num := 0
		fmt.Sscan(string(doc[k:j]), &num)
		body := j + len(" 0 obj\n")
		end := bytes.Index(doc[body:], []byte("endobj"))
		if end < 0 {
			return
		}
		objs = append(objs, obj{body, body + end, num})
		i = body + end
	}
	if len(objs) < 2 {
		return
	}
	// The resource lines map /CSn to object numbers; reorder the bodies so /CS1's is
	// in the lowest-numbered object, and so on.
	bodies := map[int][]byte{} // resource id -> body
	for i := 0; ; {
		j := bytes.Index(doc[i:], []byte("\n/CS"))
		if j < 0 {
			break
		}
		j += i + 1
		var id, num int
		if n, _ := fmt.Sscanf(string(doc[j:min(len(doc), j+32)]), "/CS%d %d 0 R", &id, &num); n == 2 {
			for _, o := range objs {
				if o.num == num && bodies[id] == nil {
					bodies[id] = append([]byte(nil), doc[o.at:o.end]...)
				}
			}
		}
		i = j
	}
	if len(bodies) != len(objs) {
		return
	}
	for n, o := range objs {
		b := bodies[n+1]
		if len(b) != o.end-o.at {
			return
		}
	}
	for n, o := range objs {
		copy(doc[o.at:o.end], bodies[n+1])
	}
	// Each page's "/ColorSpace <<" block: its lines in id order, pointing at the
	// objects in order; every line keeps its length class since the numbers are the
	// same set.
	lines := make([]string, len(objs))
	for n, o := range objs {
		lines[n] = fmt.Sprintf("/CS%d %d 0 R", n+1, o.num)
	}
	block := []byte("/ColorSpace <<\n" + strings.Join(lines, "\n") + "\n>>")
	for i := 0; ; {
		j := bytes.Index(doc[i:], []byte("/ColorSpace <<\n"))
		if j < 0 {
			break
		}
		j += i
		end := bytes.Index(doc[j:], []byte(">>"))
		if end < 0 || end+2 != len(block) {
			return
		}
		copy(doc[j:], block)
		i = j + len(block)
	}
}

// whitePNG is the white plate as an 8-bit grey PNG of the view's size: 255 where
// the white ink goes, 0 where none does.
func (r *Renderer) whitePNG(ctx context.Context, m *contour.Mask, dpi float64) ([]byte, error) {
	g := image.NewGray(image.Rect(0, 0, m.W, m.H))
	for i, p := range m.Pix {
		if p != 0 {
			g.Pix[i] = 255
		}
	}
	var buf bytes.Buffer
	opt := pngenc.Options{DPI: dpi, Workers: r.opts.Workers, Opaque: true}
	if err := pngenc.EncodeContext(ctx, &buf, g, opt); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// cutPDF is the cut of a png view alone: a page of the view's size holding the
// cut path, for the cutter.
func (r *Renderer) cutPDF(d *model.DesignDetail, s *Scene, pl *plates) ([]byte, error) {
	cr := *r
	p := *r.print
	p.White = nil
	cr.print = &p
	pdf := newPDF(d)
	cr.declarePlates(pdf)
	pdf.AddPageFormat("P", gofpdf.SizeType{Wd: s.PageWidthPt, Ht: s.PageHeightPt})
	if err := cr.drawPlates(pdf, s, &plates{cut: pl.cut}, 0); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := cr.writePlainPDF(pdf, &buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// writePlainPDF writes an sRGB document that has plates: held whole, the plates'
// fixes and the overprint states applied (pdfxWriter does the latter for PDF/X).
func (r *Renderer) writePlainPDF(pdf *gofpdf.Fpdf, w io.Writer) error {
	var doc bytes.Buffer
	if err := writePDF(pdf, &doc); err != nil {
		return err
	}
	b := doc.Bytes()
	trimBeforeBleed(b)
	fixPlates(b)
	for _, pt := range [][2][]byte{{overprintFrom, overprintTo}, {knockoutFrom, knockoutTo}} {
		for i := 0; ; {
			j := bytes.Index(b[i:], pt[0])
			if j < 0 {
				break
			}
			copy(b[i+j:], pt[1])
			i += j + len(pt[1])
		}
	}
	_, err := w.Write(b)
	return err
}

// SidecarName is the file name of a sidecar of the file named name: the name's
// extension replaced by the sidecar's suffix ("front.png" -> "front-white.png").
func SidecarName(name string, sc Sidecar) string {
	if i := strings.LastIndexByte(name, '.'); i > 0 && !strings.ContainsRune(name[i:], '/') {
		name = name[:i]
	}
	return name + sc.Suffix
}

// Suffixes of the sidecars.
const (
	SidecarWhite = "-white.png"
	SidecarCut   = "-cut.pdf"
)

// pngSidecars are a png view's plates as files: the white plate as a grey PNG, the
// cut as a PDF holding only the cut.
func (r *Renderer) pngSidecars(ctx context.Context, d *model.DesignDetail, s *Scene, canvas *image.RGBA) ([]Sidecar, error) {
	pl, err := r.makePlates(ctx, s, canvas)
	if err != nil {
		return nil, err
	}
	var out []Sidecar
	if pl.white != nil {
		b, err := r.whitePNG(ctx, pl.white, s.DPI)
		if err != nil {
			return nil, fmt.Errorf("render: view %s: white plate: %w", s.ViewID, err)
		}
		out = append(out, Sidecar{Suffix: SidecarWhite, ContentType: ContentTypePNG, Data: b})
	}
	if r.print.Cut != nil {
		b, err := r.cutPDF(d, s, pl)
		if err != nil {
			return nil, fmt.Errorf("render: view %s: cut: %w", s.ViewID, err)
		}
		out = append(out, Sidecar{Suffix: SidecarCut, ContentType: ContentTypePDF, Data: b})
	}
	return out, nil
}
