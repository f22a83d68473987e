package render

import (
	"fmt"
	"math"
	"strings"
)

// ExportTIFF is the CMYK TIFF export type (tiff.go), for RIPs that take raster CMYK.
// It needs a CMYK output profile.
const ExportTIFF = "tiff"

// WarnBleed: content reaches the trim on a side but does not run on through the
// bleed, so a slightly-off cut shows a white sliver there.
const WarnBleed = "bleed-not-covered"

// addBleed grows the plan's page by the bleed on every side: the export box becomes
// the trim, the page (Box, pixel and point sizes) covers trim plus bleed.
// A bleed wider than the page itself is a configuration that cannot be meant for
// this product: an InputError naming both.
func (r *Renderer) addBleed(p *Plan) error {
	if r.print == nil || r.print.BleedPt <= 0 {
		return nil
	}
	b := r.print.BleedPt
	if b >= min(p.PageWidthPt, p.PageHeightPt) {
		return inputErr(p.ViewID, "", nil, "bleed %.1f mm is larger than the %.1f x %.1f mm page: check the colour settings of this product",
			b*25.4/72, p.PageWidthPt*25.4/72, p.PageHeightPt*25.4/72)
	}
	// Template units per point and pixels per template unit of this basis.
	unitsPerPt := p.Box.W / p.PageWidthPt
	pxPerUnit := p.DPI / 72
	if p.Basis == BasisPixel {
		pxPerUnit = 1
	}
	bu := b * unitsPerPt
	p.BleedPt = b
	p.Box = Rect{p.Box.X - bu, p.Box.Y - bu, p.Box.W + 2*bu, p.Box.H + 2*bu}
	p.PageWidthPt += 2 * b
	p.PageHeightPt += 2 * b
	p.WidthPx = int(math.Round(p.Box.W * pxPerUnit))
	p.HeightPx = int(math.Round(p.Box.H * pxPerUnit))
	return nil
}

// intoBleed extends a clip rectangle (an element's area cut to the page) through the
// bleed on each side where it ends at the trim: a background or picture that fills
// its area up to the trim is meant to run off the edge, so it fills the bleed rather
// than stopping at the cut.
func (s *Scene) intoBleed(c Rect) Rect {
	if s.BleedPt <= 0 || c.Empty() {
		return c
	}
	const tol = 0.5
	t, b := s.Trim, s.Box
	x0, y0, x1, y1 := c.X, c.Y, c.X+c.W, c.Y+c.H
	if math.Abs(x0-t.X) <= tol {
		x0 = b.X
	}
	if math.Abs(y0-t.Y) <= tol {
		y0 = b.Y
	}
	if math.Abs(x1-(t.X+t.W)) <= tol {
		x1 = b.X + b.W
	}
	if math.Abs(y1-(t.Y+t.H)) <= tol {
		y1 = b.Y + b.H
	}
	return Rect{x0, y0, x1 - x0, y1 - y0}
}

// checkBleed warns, per side, when some layer reaches the trim edge but stops before
// the bleed edge: a cut a little outside the trim would show paper there. Sides no
// layer reaches (a white margin by design) need no bleed.
func (s *Scene) checkBleed() {
	if s.BleedPt <= 0 {
		return
	}
	const tol = 0.5
	t, b := s.Trim, s.Box
	type side struct {
		name          string
		reaches, runs func(r Rect) bool
	}
	sides := []side{
		{name: "left", reaches: func(r Rect) bool { return r.X <= t.X+tol }, runs: func(r Rect) bool { return r.X <= b.X+tol }},
		{name: "top", reaches: func(r Rect) bool { return r.Y <= t.Y+tol }, runs: func(r Rect) bool { return r.Y <= b.Y+tol }},
		{name: "right", reaches: func(r Rect) bool { return r.X+r.W >= t.X+t.W-tol }, runs: func(r Rect) bool { return r.X+r.W >= b.X+b.W-tol }},
		{name: "bottom", reaches: func(r Rect) bool { return r.Y+r.H >= t.Y+t.H-tol }, runs: func(r Rect) bool { return r.Y+r.H >= b.Y+b.H-tol }},
	}
	var short []string
	for _, sd := range sides {
		reached, ran := false, false
		for i := range s.Layers {
			ink := s.Layers[i].inkRect().Intersect(b)
			if ink.Empty() {
				continue
			}
			if sd.reaches(ink) {
				reached = true
				ran = ran || sd.runs(ink)
			}
		}
		if reached && !ran {
			short = append(short, sd.name)
		}
	}
	if len(short) > 0 {
		s.Warnings = append(s.Warnings, Warning{Code: WarnBleed, ViewID: s.ViewID, Message: fmt.Sprintf(
			"content reaches the trim but does not fill the %.1f mm bleed on the %s side(s)", s.BleedPt*25.4/72, strings.Join(short, ", "))})
	}
}

// inkRect is the template-space rectangle the layer can paint: its local extent
// through its transform, cut to its clip.
func (l *Layer) inkRect() Rect {
	var local Rect
	switch l.Kind {
	case LayerFill:
		local = l.Fill.Rect
	case LayerImage:
		local = Rect{0, 0, float64(l.Image.Width), float64(l.Image.Height)}
	case LayerSVG:
		local = Rect{0, 0, l.SVG.Doc.Width, l.SVG.Doc.Height}
	case LayerText:
		local = Rect{0, 0, l.Text.Width, l.Text.Height}
	default:
		return Rect{}
	}
	return bounds(l.Transform, local).Intersect(l.Clip)
}
