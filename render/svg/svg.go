// Package svg reads SVG clipart safely and turns it into backend-neutral
// geometry: absolute paths made of lines and Béziers with resolved paint,
// already mapped into the document's natural-size coordinate space.
//
// The raster backend draws a Doc with Draw; the vector PDF backend walks
// Doc.Shapes and emits the segments as PDF path operators. The supported
// subset is documented in docs/svg.md. Nothing is ever fetched: external
// references, DTDs and entities are refused or ignored.
package svg

import (
	"errors"
	"math"
	"slices"
)

// Limits caps what Parse accepts. Zero fields take the defaults.
type Limits struct {
	MaxBytes    int64 // input size; default 5 MiB
	MaxElements int   // XML elements; default 20000. <use> expansion may visit 4x this many.
	MaxDepth    int   // element nesting; default 64
}

// Default limits.
const (
	DefaultMaxBytes    = 5 << 20
	DefaultMaxElements = 20000
	DefaultMaxDepth    = 64
)

func (l Limits) withDefaults() Limits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxBytes
	}
	if l.MaxElements <= 0 {
		l.MaxElements = DefaultMaxElements
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = DefaultMaxDepth
	}
	return l
}

// Doc is a parsed SVG document.
type Doc struct {
	// Width and Height are the natural size in px (1/96 in): from the width
	// and height attributes, else the viewBox size, else the drawing's
	// extent from the origin.
	Width, Height float64
	ViewBox       [4]float64 // min-x, min-y, width, height
	HasViewBox    bool
	// Shapes are in paint order, in natural-size coordinates (the viewBox
	// and every transform already applied).
	Shapes []Shape
	// Unsupported names each feature met and not rendered, once, in the
	// order first met (for example "gradient", "text", "filter").
	Unsupported []string
}

// Shape is one painted path.
type Shape struct {
	Path     Path
	Fill     *Paint // nil: no fill
	FillRule string // "nonzero" or "evenodd"

	Stroke      *Paint // nil: no stroke
	StrokeWidth float64
	LineCap     string // "butt", "round", "square"
	LineJoin    string // "miter", "round", "bevel"
	MiterLimit  float64
	Dashes      []float64 // even length, nil for solid
	DashOffset  float64
	// Pen, when not zero, is the shape of the pen: the linear part of the
	// element's transform divided by its mean scale (|det| 1). The stroke is
	// drawn in pen space (the path mapped by Pen's inverse, StrokeWidth and
	// Dashes as they are) and mapped back by Pen, so a non-uniform scale or a
	// skew widens and narrows it as browsers do. Zero means a round pen.
	Pen Matrix

	// Opacity is the product of the element's and its ancestors' opacity.
	// fill-opacity and stroke-opacity are already folded into Fill.A and
	// Stroke.A.
	Opacity float64

	// FillGradient and StrokeGradient, when set, paint the fill or stroke
	// instead of the solid colour; Fill or Stroke then holds the
	// gradient's mean colour (times fill- or stroke-opacity), for backends
	// that cannot draw gradients.
	FillGradient, StrokeGradient *Gradient

	// Text, when set, is a run of SVG text the shape stands for: Path is empty
	// and a text engine (package render) fills it with the run's glyph
	// outlines (Doc.SetText), painted with the shape's fill and stroke.
	Text *Text

	// Clips are the clipping paths (clip-path) of the element and of its
	// ancestors: the shape is drawn only where it lies inside every one.
	// Shapes of one clipped group share the same *Clip.
	Clips []*Clip

	// Marks are the ids of the element that drew the shape and of its ancestors,
	// outermost first (nil when none has an id), for finding an element's
	// geometry (Doc.Marked).
	Marks []string
}

// Text is a run of an SVG <text> element: its characters (white space
// collapsed), font and position in the user space Transform maps to
// natural-size coordinates.
type Text struct {
	Content string
	// Family is the font-family list as written; Size is in user units.
	Family       string
	Size         float64
	Bold, Italic bool
	// Anchor is the text-anchor of the chunk the run belongs to: "start",
	// "middle" or "end".
	Anchor string
	// HasX and HasY tell whether the run starts at X or Y (an x or y
	// attribute); otherwise it goes on where the previous run ended. A run
	// with HasX starts a new chunk (text-anchor aligns each chunk). DX and DY
	// shift the run's start.
	X, Y, DX, DY float64
	HasX, HasY   bool
	Transform    Matrix
}

// Clip is a clipping region, the union of its parts' fills (a clipPath's
// children), in natural-size coordinates. A clip without parts hides everything.
type Clip struct {
	Parts []ClipPart
}

// ClipPart is one child of a clipPath: its geometry and its clip-rule.
type ClipPart struct {
	Path    Path
	EvenOdd bool
}

// bounds returns the extent of the clip's parts (control points included);
// false when it has none.
func (c *Clip) bounds() (x0, y0, x1, y1 float64, ok bool) {
	x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, pt := range c.Parts {
		a, b, cc, d, ok := pt.Path.bounds()
		if !ok {
			continue
		}
		x0, y0, x1, y1 = math.Min(x0, a), math.Min(y0, b), math.Max(x1, cc), math.Max(y1, d)
	}
	return x0, y0, x1, y1, x0 <= x1 && y0 <= y1
}

// Marked returns the paths of the shapes drawn by the element whose id is id or
// inside it, in natural-size coordinates (their geometry, not their strokes). An
// element that paints nothing (no fill, no stroke, display none) has no shapes.
func (d *Doc) Marked(id string) []Path {
	var out []Path
	for _, s := range d.Shapes {
		if slices.Contains(s.Marks, id) {
			out = append(out, s.Path)
		}
	}
	return out
}

// Error is a permanent failure to read an SVG: malformed input, a refused
// construct or an exceeded limit. Retrying cannot help.
type Error struct {
	Reason string
	Err    error // ErrLimit, ErrMalformed or ErrRefused, possibly wrapping more
}

// Classes of Error, for errors.Is.
var (
	ErrLimit     = errors.New("limit exceeded")
	ErrMalformed = errors.New("malformed SVG")
	ErrRefused   = errors.New("refused SVG construct")
)

func (e *Error) Error() string { return "svg: " + e.Reason }

// Unwrap returns the error class.
func (e *Error) Unwrap() error { return e.Err }

// Retryable reports false: the same input always fails the same way.
func (e *Error) Retryable() bool { return false }

// Memory DrawBytes counts for a segment: of the document (its path, and its
// transformed copy while its shape is drawn); of the shape being drawn, filled
// (its flattened edges, clipped per band) and stroked (the edges of the
// outline's quads, joins and caps, round joins flattened to arcs). Measured
// (TestDrawMemory): 0.3 KB allocated a segment for a nonzero fill, 0.7 KB
// even-odd, 1.6 KB stroked, 2.3 KB with round joins.
const (
	docSegmentBytes    = 2 * 56
	fillSegmentBytes   = 1 << 10
	strokeSegmentBytes = 3 << 10
)

// DrawBytes estimates the memory the document holds while Draw draws it: every
// segment's path, and twice the largest shape's drawing buffers (the buffers of
// one shape become garbage when the next is drawn; the collector lets the heap
// reach about twice what is live). It errs high.
func (d *Doc) DrawBytes() int64 {
	var total, most int64
	for i := range d.Shapes {
		s := &d.Shapes[i]
		n := int64(len(s.Path))
		total += n * docSegmentBytes
		var b int64
		if s.Fill != nil {
			b += n * fillSegmentBytes
		}
		if s.Stroke != nil && s.StrokeWidth > 0 {
			b += n * strokeSegmentBytes
		}
		for _, c := range s.Clips {
			// A clip's edges, kept while the document is drawn, and its
			// paths (counted once per shape: they are shared).
			for _, pt := range c.Parts {
				total += int64(len(pt.Path)) * docSegmentBytes / 8
				b += int64(len(pt.Path)) * fillSegmentBytes
			}
		}
		most = max(most, b)
	}
	return total + 2*most
}

// Recolor replaces the colour of every painted fill and stroke with p's
// colour; each paint's own alpha is multiplied by p.A, so a colour with alpha
// (#00000066) draws as translucent as the designer shows it. Unpainted (none)
// fills and strokes stay unpainted.
func (d *Doc) Recolor(p Paint) {
	for i := range d.Shapes {
		s := &d.Shapes[i]
		if s.Fill != nil {
			s.Fill = &Paint{p.R, p.G, p.B, s.Fill.A * p.A}
		}
		s.FillGradient, s.StrokeGradient = nil, nil
		if s.Stroke != nil {
			s.Stroke = &Paint{p.R, p.G, p.B, s.Stroke.A * p.A}
		}
	}
}

// Bounds returns the extent of the painted geometry, strokes included, in
// natural-size coordinates. An empty document returns zeros.
func (d *Doc) Bounds() (minX, minY, maxX, maxY float64) {
	minX, minY = math.Inf(1), math.Inf(1)
	maxX, maxY = math.Inf(-1), math.Inf(-1)
	// Flattened points give a tight box; control points may lie far
	// outside the curve.
	var x0, y0, x1, y1 float64
	addPts := func(pts []Point) {
		for _, q := range pts {
			x0, y0 = math.Min(x0, q.X), math.Min(y0, q.Y)
			x1, y1 = math.Max(x1, q.X), math.Max(y1, q.Y)
		}
	}
	for _, s := range d.Shapes {
		x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		if s.Fill != nil {
			for _, pl := range s.Path.Flatten(0.01) {
				addPts(pl.Pts)
			}
		}
		if s.Stroke != nil && s.StrokeWidth > 0 {
			// The outline's polygons are its flattening: only lines.
			strokeOutline(s, 0.05, addPts)
		}
		// A clip cuts the extent down to its own.
		for _, c := range s.Clips {
			cx0, cy0, cx1, cy1, ok := c.bounds()
			if !ok {
				x0, x1 = math.Inf(1), math.Inf(-1)
				break
			}
			x0, y0, x1, y1 = math.Max(x0, cx0), math.Max(y0, cy0), math.Min(x1, cx1), math.Min(y1, cy1)
		}
		if x0 <= x1 && y0 <= y1 {
			minX, minY = math.Min(minX, x0), math.Min(minY, y0)
			maxX, maxY = math.Max(maxX, x1), math.Max(maxY, y1)
		}
	}
	if minX > maxX {
		return 0, 0, 0, 0
	}
	return minX, minY, maxX, maxY
}
