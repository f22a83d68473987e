package render

import (
	"image"
	"image/color"
	"math"

	"github.com/printworker/printworker/render/fonts"
	"github.com/printworker/printworker/render/svg"
)

// A Scene is one design view resolved into what to draw, independent of the output
// format: every rule of hub-gaps.md ("Designs and exports", "Rendering conventions")
// has been applied when a Scene exists, and media are decoded. The raster backend
// (raster.go: png, pdf-simple) and the vector PDF backend (pdf.go) only draw it.
//
// Coordinates: "template space" is the view's template pixels, y down, origin at the
// view's top-left, 1 template unit = 1 pt in the default "point" basis. Each layer has
// its own local space and a Transform from local to template space. A backend maps
// template space to its output with ToPixel (raster) or ToPage (PDF points, y down from
// the page's top-left; a PDF writer flips y itself).
//
// A Scene is read-only for backends, except that a backend may drop its reference to a
// layer's decoded image once drawn (to release memory early).
type Scene struct {
	ViewID string
	// Type is the view's export type: png, pdf or pdf-simple.
	Type string
	// Basis is "point" or "pixel" (Options.Basis).
	Basis string
	DPI   float64
	// Box is the page in template units: the export box (by export.areaType), grown
	// by the bleed when there is one.
	Box Rect
	// Trim is the export box itself; equal to Box without bleed.
	Trim Rect
	// BleedPt is the bleed around Trim in points.
	BleedPt float64
	// PageWidthPt and PageHeightPt are the physical size in PDF points: the box in the
	// point basis, the pixel size at DPI in the pixel basis.
	PageWidthPt, PageHeightPt float64
	// WidthPx and HeightPx are the raster size (png, pdf-simple).
	WidthPx, HeightPx int
	// Layers in drawing order, bottom first.
	Layers []Layer
	// Warnings met while resolving (preflight); backends append their own.
	Warnings []Warning
	// EffectiveDPI is the lowest effective resolution of the view's raster
	// pictures: source pixels per printed inch; 0 when it has none. A production
	// profile compares it with its lowest acceptable dpi.
	EffectiveDPI float64
	// MaxInkPercent is the highest total ink coverage a CMYK backend wrote (0..400);
	// backends set it.
	MaxInkPercent float64
	// cutArea is the area a CutSourceArea cut contour follows (plates.go).
	cutArea Rect
	// awaitMedia, when set, waits for the pictures still being decoded
	// (PreparedView.Render) and returns the decoding's error; Rasterize calls it
	// before drawing the first picture.
	awaitMedia func() error
	// svgBytes is the memory of the scene's SVG documents (mediaCache.svgBytes),
	// counted in the prepared plan's SourceBytes.
	svgBytes int64
	// finalRows, when set, is told of canvas rows no layer will change any more
	// while Rasterize still draws others (the rows the first picture and the layers
	// after it leave alone, once the layers ahead of it are drawn), so that the PNG
	// encoder can compress them while the picture decodes (renderScene).
	finalRows func(canvas *image.RGBA, y0, y1 int)
}

// ToPixel maps template space to output pixels of the raster.
func (s *Scene) ToPixel() Matrix {
	sx := float64(s.WidthPx) / s.Box.W
	sy := float64(s.HeightPx) / s.Box.H
	return Matrix{sx, 0, 0, sy, -s.Box.X * sx, -s.Box.Y * sy}
}

// ToPage maps template space to page points, y down from the page's top-left.
func (s *Scene) ToPage() Matrix {
	sx := s.PageWidthPt / s.Box.W
	sy := s.PageHeightPt / s.Box.H
	return Matrix{sx, 0, 0, sy, -s.Box.X * sx, -s.Box.Y * sy}
}

// Matrix is a 2x3 affine transform in SVG's matrix(a,b,c,d,e,f) layout:
// x' = a*x + c*y + e, y' = b*x + d*y + f. m.Mul(n) applies n first.
type Matrix = svg.Matrix

// Rect is an axis-aligned rectangle (X, Y top-left; W, H size).
type Rect struct{ X, Y, W, H float64 }

// Empty reports whether the rectangle has no area.
func (r Rect) Empty() bool { return !(r.W > 0 && r.H > 0) }

// Intersect returns the common part of r and o (zero size when none).
func (r Rect) Intersect(o Rect) Rect {
	x0, y0 := math.Max(r.X, o.X), math.Max(r.Y, o.Y)
	x1, y1 := math.Min(r.X+r.W, o.X+o.W), math.Min(r.Y+r.H, o.Y+o.H)
	if x1 <= x0 || y1 <= y0 {
		return Rect{X: x0, Y: y0}
	}
	return Rect{x0, y0, x1 - x0, y1 - y0}
}

// Contains reports whether o lies inside r, allowing tol units of overhang.
func (r Rect) Contains(o Rect, tol float64) bool {
	return o.X >= r.X-tol && o.Y >= r.Y-tol && o.X+o.W <= r.X+r.W+tol && o.Y+o.H <= r.Y+r.H+tol
}

// bounds returns the bounding box of the rectangle r transformed by m.
func bounds(m Matrix, r Rect) Rect {
	pts := [4]svg.Point{{X: r.X, Y: r.Y}, {X: r.X + r.W, Y: r.Y}, {X: r.X, Y: r.Y + r.H}, {X: r.X + r.W, Y: r.Y + r.H}}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range pts {
		q := m.Apply(p)
		x0, y0 = math.Min(x0, q.X), math.Min(y0, q.Y)
		x1, y1 = math.Max(x1, q.X), math.Max(y1, q.Y)
	}
	return Rect{x0, y0, x1 - x0, y1 - y0}
}

// LayerKind says which of a Layer's payload fields is set.
type LayerKind int

const (
	// LayerFill fills Fill.Rect (local space) with Fill.Color.
	LayerFill LayerKind = iota + 1
	// LayerImage draws Image.Image over the local rectangle (0,0)-(Width,Height):
	// one local unit per native source pixel.
	LayerImage
	// LayerSVG draws an SVG document; local space is the document's user space scaled
	// so that (0,0)-(Doc.Width, Doc.Height) is its natural size (svg.Draw's space).
	LayerSVG
	// LayerText draws glyph runs; local space has the text box's top-left at (0,0).
	LayerText
)

func (k LayerKind) String() string {
	switch k {
	case LayerFill:
		return "fill"
	case LayerImage:
		return "image"
	case LayerSVG:
		return "svg"
	case LayerText:
		return "text"
	}
	return "unknown"
}

// Layer is one drawing operation.
type Layer struct {
	Kind LayerKind
	// ElementID is the design element drawn ("" for the view's template image).
	ElementID string
	// Source names what the layer comes from for messages: "template", "background",
	// "picture", "illustration" or "text".
	Source string
	// Transform maps the layer's local space to template space.
	Transform Matrix
	// Clip is the element's area intersected with the export box, in template units.
	// Nothing outside it is drawn. Never empty (empty layers are left out).
	Clip Rect
	// Opacity multiplies the layer's alpha, 0..1.
	Opacity float64

	Fill  *FillLayer
	Image *ImageLayer
	SVG   *SVGLayer
	Text  *TextLayer
}

// FillLayer is a solid rectangle.
type FillLayer struct {
	Rect  Rect
	Color color.NRGBA
}

// ImageLayer is a raster source.
type ImageLayer struct {
	// Image is what to draw, already recoloured when the element asks for it. Its
	// bounds start at (0,0) and measure Width x Height. It is one of *image.RGBA,
	// *image.NRGBA, *image.YCbCr, *image.Gray (8-bit: 16-bit sources are reduced, the
	// output being 8-bit anyway).
	Image image.Image
	// Width and Height are the native pixel size of the source.
	Width, Height int
	// Data and MimeType are the original file ("image/jpeg", "image/png", "image/gif"
	// or "image/webp") when Image is exactly its decoding, for pass-through embedding
	// (a PDF can carry a JPEG as is); Data is nil when the pixels were changed
	// (recoloured).
	Data     []byte
	MimeType string
	// HasAlpha reports whether any pixel may be non-opaque.
	HasAlpha bool
}

// SVGLayer is a parsed SVG document, already recoloured when the element asks for it.
type SVGLayer struct {
	Doc *svg.Doc
}

// TextLayer is laid-out text: lines of shaped, positioned glyphs in one size and
// colour.
type TextLayer struct {
	// Font is the element's font; glyphs may come from fallback faces (Glyph.Font).
	Font *fonts.Font
	// Size is the font size in local units (template units: points in the point basis).
	Size  float64
	Color color.NRGBA
	// CharSpacing is the extra advance after every character but a line's last, in
	// local units (the element's charSpacing/1000 x Size).
	CharSpacing float64
	// Width and Height are the text box (hub-gaps.md: widest line; U x (lineHeight x
	// (n-1) + 1) with U = 1.13 x Size).
	Width, Height float64
	Lines         []TextLine
}

// TextLine is one line of text.
type TextLine struct {
	Text string
	// X is where the line starts (alignment applied); Baseline is the line's baseline;
	// both from the text box's top-left, in local units.
	X, Baseline float64
	// Width is the width of the line's box as fabric.js measures it (per grapheme
	// cluster; see fabricWidth), which alignment uses; Ink is the shaped line's advance
	// width, kerning and charSpacing included, which the glyphs span from X.
	Width, Ink float64
	// Glyphs are the line's shaped glyphs in visual order with their positions.
	Glyphs []Glyph
}

// Glyph is one positioned, shaped glyph of a line, in visual order.
type Glyph struct {
	// Font is the face the glyph comes from: the element's font or a fallback face.
	Font *fonts.Font
	// ID is the glyph's index in Font (0 is .notdef: no face had the character).
	ID uint32
	// X is where the glyph's origin is drawn, from the text box's left, in local units
	// (the line's X and the glyph's shaping offset included); Y is its vertical offset
	// from the baseline (y down; marks stacked by the shaper).
	X, Y float64
	// Advance is the glyph's shaped advance (kerning included, no charSpacing).
	Advance float64
	// Synth is the oblique and bold the renderer synthesizes because Font lacks the
	// element's style (synth.go).
	Synth synthesis
	// Text is the source text of the cluster this glyph starts (logical order; the
	// characters a copy from the PDF must give), "" for a cluster's later glyphs.
	Text string
}
