package render

import (
	"math"

	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/svg"
)

// Numbers a print file can hold (docs/rendering.md "Number range").
//
// PDF readers take reals up to about ±3.4e38 (ISO 32000-1 Annex C) and print nothing
// meaningful far below that: a coordinate of 10^7 pt is 3.5 km. A design value that
// takes an element's geometry past maxCoord (a font size, line height, charSpacing,
// scale, position, SVG transform or stroke), or makes it infinite or NaN, is a
// permanent InputError naming the element, in every output type, before anything is
// drawn: a raster export does not print nothing where the PDF would be broken.

// maxCoord bounds every number of a scene: each layer's local geometry, its transform
// to the page, and its extent on the page, in points. Scene numbers within it keep every
// number the vector PDF writes within pdfMaxNumber (a glyph outline reaches a few em
// past its origin, gofpdf flips y by the page height).
const maxCoord = 1e7

// pdfMaxNumber is the largest magnitude of any number the vector PDF writer puts in a
// content stream; the tests and fuzzers check every output PDF against it.
const pdfMaxNumber = 1e8

// MaxFontSize is the largest text font size, in template units.
const MaxFontSize = 1e5

// inRange reports whether v is finite and within ±lim.
func inRange(v, lim float64) bool { return math.Abs(v) <= lim } // false for NaN

// textNumbers checks a text element's font size, line height and charSpacing before
// layout: size is the font size in force.
func textNumbers(viewID string, e *model.Element, size float64) error {
	if !(size > 0 && size <= MaxFontSize) {
		return inputErr(viewID, e.ID, nil, "font size %.4g is outside 0..%g", size, float64(MaxFontSize))
	}
	if lh := LineHeight(e); !inRange(lh*size*fabricLineUnit, maxCoord) {
		return inputErr(viewID, e.ID, nil, "line height %.4g at font size %.4g puts lines %.4g pt apart, beyond the %g a print file holds",
			lh, size, lh*size*fabricLineUnit, float64(maxCoord))
	}
	if cs := e.CharSpacing(); !inRange(cs/1000*size, maxCoord) {
		return inputErr(viewID, e.ID, nil, "charSpacing %.4g at font size %.4g spaces characters %.4g pt apart, beyond the %g a print file holds",
			cs, size, cs/1000*size, float64(maxCoord))
	}
	return nil
}

// checkPageSize refuses a page (bleed included) whose side is beyond maxCoord points.
func checkPageSize(p Plan) error {
	if !inRange(p.PageWidthPt, maxCoord) || !inRange(p.PageHeightPt, maxCoord) {
		return inputErr(p.ViewID, "", nil, "page %.4gx%.4g pt is larger than the %g pt a print file holds",
			p.PageWidthPt, p.PageHeightPt, float64(maxCoord))
	}
	return nil
}

// checkLayerNumbers checks that every number of layer l is finite and within
// maxCoord: its local geometry, its transform to the page (page.Mul(l.Transform)),
// also as the PDF writes it with y up on a page pageH points high (flipConj), and its
// extent on the page. Errors are *InputError naming the element.
func checkLayerNumbers(viewID string, page Matrix, pageH float64, l *Layer) error {
	c := numberCheck{}
	m := page.Mul(l.Transform)
	for _, v := range m {
		c.value("transform", v)
	}
	c.value("transform", m[2]*pageH+m[4])
	c.value("transform", pageH-m[3]*pageH-m[5])
	c.rect("clip", bounds(page, l.Clip))
	switch l.Kind {
	case LayerFill:
		c.rect("rectangle", l.Fill.Rect)
		c.extend(l.Fill.Rect)
	case LayerImage:
		c.extend(Rect{0, 0, float64(l.Image.Width), float64(l.Image.Height)})
	case LayerSVG:
		c.svg(l.SVG.Doc)
	case LayerText:
		c.text(l.Text)
	}
	if c.bad == "" && c.has {
		c.rect("extent on the page", bounds(m, Rect{c.x0, c.y0, c.x1 - c.x0, c.y1 - c.y0}))
	}
	if c.bad == "" {
		return nil
	}
	what := l.Source
	if what == "" {
		what = l.Kind.String()
	}
	return inputErr(viewID, l.ElementID, nil, "%s: %s %.4g is not a number a print file holds (finite, within ±%g pt): check the element's size, scale, position and transforms",
		what, c.bad, c.badValue, float64(maxCoord))
}

// numberCheck collects a layer's local extent and the first out-of-range number.
type numberCheck struct {
	bad            string // what the first bad number is, "" when none
	badValue       float64
	has            bool
	x0, y0, x1, y1 float64
}

func (c *numberCheck) value(what string, v float64) {
	if c.bad == "" && !inRange(v, maxCoord) {
		c.bad, c.badValue = what, v
	}
}

func (c *numberCheck) rect(what string, r Rect) {
	c.value(what, r.X)
	c.value(what, r.Y)
	c.value(what, r.X+r.W)
	c.value(what, r.Y+r.H)
}

// point checks a local point and adds it to the extent.
func (c *numberCheck) point(what string, x, y float64) {
	c.value(what, x)
	c.value(what, y)
	if !c.has {
		c.x0, c.y0, c.x1, c.y1, c.has = x, y, x, y, true
		return
	}
	c.x0, c.y0 = math.Min(c.x0, x), math.Min(c.y0, y)
	c.x1, c.y1 = math.Max(c.x1, x), math.Max(c.y1, y)
}

func (c *numberCheck) extend(r Rect) {
	c.point("size", r.X, r.Y)
	c.point("size", r.X+r.W, r.Y+r.H)
}

func (c *numberCheck) svg(d *svg.Doc) {
	c.extend(Rect{0, 0, d.Width, d.Height})
	for i := range d.Shapes {
		sh := &d.Shapes[i]
		fill := sh.Fill != nil && sh.Fill.A > 0
		stroke := sh.Stroke != nil && sh.Stroke.A > 0 && sh.StrokeWidth > 0
		if !fill && !stroke {
			continue
		}
		hw := 0.0
		if stroke {
			c.value("stroke width", sh.StrokeWidth)
			c.value("miter limit", sh.MiterLimit)
			c.value("dash offset", sh.DashOffset)
			for _, d := range sh.Dashes {
				c.value("dash length", d)
			}
			hw = sh.StrokeWidth / 2
			if p := sh.Pen; p != (svg.Matrix{}) {
				// A stretched pen reaches further (at most its norm times the width).
				hw *= math.Sqrt(p[0]*p[0] + p[1]*p[1] + p[2]*p[2] + p[3]*p[3])
			}
		}
		// The path's bounds first (plain comparisons: this loop sees every point of
		// a large document), then one check of them.
		x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		nan := false
		for _, s := range sh.Path {
			for j := range segPoints(s.Op) {
				p := s.Pts[j]
				nan = nan || p.X != p.X || p.Y != p.Y
				if p.X < x0 {
					x0 = p.X
				}
				if p.X > x1 {
					x1 = p.X
				}
				if p.Y < y0 {
					y0 = p.Y
				}
				if p.Y > y1 {
					y1 = p.Y
				}
			}
		}
		if nan {
			c.value("path coordinate", math.NaN())
		}
		if x0 <= x1 {
			c.point("path coordinate", x0-hw, y0-hw)
			c.point("path coordinate", x1+hw, y1+hw)
		}
		for _, cl := range sh.Clips {
			for _, pt := range cl.Parts {
				for _, s := range pt.Path {
					for j := range segPoints(s.Op) {
						c.value("clip path coordinate", s.Pts[j].X)
						c.value("clip path coordinate", s.Pts[j].Y)
					}
				}
			}
		}
		if c.bad != "" {
			return
		}
	}
}

func (c *numberCheck) text(t *TextLayer) {
	c.value("font size", t.Size)
	c.value("charSpacing", t.CharSpacing)
	c.extend(Rect{0, 0, t.Width, t.Height})
	for _, line := range t.Lines {
		c.value("line position", line.X)
		c.value("line width", line.Width)
		c.value("baseline", line.Baseline)
		for _, g := range line.Glyphs {
			c.value("glyph advance", g.Advance)
			c.point("glyph position", g.X, line.Baseline+g.Y-t.Size)
			c.point("glyph position", g.X+g.Advance, line.Baseline+g.Y+t.Size)
		}
	}
}
