package svg

import (
	"math"
	"strings"
)

// Gradient is a resolved SVG linear or radial gradient: attributes and stops
// gathered through href chains, geometry in gradient space, and Transform
// mapping gradient space to the document's natural-size coordinates (the
// element's transform, the bounding box for objectBoundingBox units and
// gradientTransform, in that order).
type Gradient struct {
	Radial bool
	// Linear: the gradient vector from (X1, Y1) (offset 0) to (X2, Y2) (offset 1).
	X1, Y1, X2, Y2 float64
	// Radial: the end circle (CX, CY, R) at offset 1 and the focal circle
	// (FX, FY, FR) at offset 0. The focal point is kept inside the end circle.
	CX, CY, R, FX, FY, FR float64
	// Spread is "pad", "reflect" or "repeat".
	Spread string
	// Stops have offsets in [0, 1], in order (never decreasing), at least
	// two; colours have straight alpha (stop-opacity folded in).
	Stops []Stop
	// Transform maps gradient space to natural-size coordinates.
	Transform Matrix
	// Opacity is the paint's fill-opacity or stroke-opacity.
	Opacity float64
}

// Stop is one colour stop of a Gradient.
type Stop struct {
	Offset float64
	Color  Paint
}

// maxGradientStops caps the stops kept per gradient. The element limit
// already bounds them; the cap keeps PDF functions and per-pixel searches small.
const maxGradientStops = 1024

// hrefDepthMax bounds href chains between gradients.
const hrefDepthMax = 16

// gradientTemplate is a gradient as referenced, before the painted element's
// bounding box is known.
type gradientTemplate struct {
	g    Gradient
	obb  bool   // gradientUnits objectBoundingBox (the default)
	gt   Matrix // gradientTransform
	mean Paint  // mean stop colour, the fallback for backends without gradients
}

// gradientAttrs are the attributes inherited through href (SVG 1.1 13.2.2/13.2.3).
var gradientAttrs = []string{"gradientUnits", "gradientTransform", "spreadMethod",
	"x1", "y1", "x2", "y2", "cx", "cy", "r", "fx", "fy", "fr"}

// resolveGradient reads gradient element g and the chain of gradients it
// references. ok is false when painting must act as none (no stops).
func (p *parser) resolveGradient(g *node) (gradientTemplate, bool) {
	attrs := map[string]string{}
	var stops *node
	seen := map[*node]bool{}
	for n, depth := g, 0; n != nil && depth < hrefDepthMax && !seen[n]; depth++ {
		seen[n] = true
		if n.name != "linearGradient" && n.name != "radialGradient" {
			break
		}
		for _, k := range gradientAttrs {
			if _, done := attrs[k]; !done {
				if v, ok := n.attrs[k]; ok {
					attrs[k] = v
				}
			}
		}
		if stops == nil && hasStops(n) {
			stops = n
		}
		href := strings.TrimSpace(n.attr("href"))
		if href == "" {
			break
		}
		if !strings.HasPrefix(href, "#") {
			p.unsupportedf("external reference")
			break
		}
		next := p.ids[href[1:]]
		if seen[next] {
			p.unsupportedf("circular gradient reference")
			break
		}
		n = next
	}
	t := gradientTemplate{g: Gradient{Radial: g.name == "radialGradient", Spread: "pad"}, obb: true, gt: Identity}
	if attrs["gradientUnits"] == "userSpaceOnUse" {
		t.obb = false
	}
	if v := attrs["gradientTransform"]; v != "" {
		m, ok := parseTransform(v)
		if !ok {
			p.unsupportedf("invalid transform")
		}
		t.gt = m
	}
	switch attrs["spreadMethod"] {
	case "reflect", "repeat":
		t.g.Spread = attrs["spreadMethod"]
	}
	w, h, diag := p.vpW, p.vpH, math.Hypot(p.vpW, p.vpH)/math.Sqrt2
	if t.obb {
		w, h, diag = 1, 1, 1
	}
	length := func(k, def string, ref float64) float64 {
		v, ok := gradLength(attrs[k], ref, t.obb)
		if !ok {
			v, _ = gradLength(def, ref, t.obb)
		}
		return v
	}
	g2 := &t.g
	if g2.Radial {
		g2.CX, g2.CY = length("cx", "50%", w), length("cy", "50%", h)
		g2.R = length("r", "50%", diag)
		g2.FX, g2.FY = g2.CX, g2.CY
		if _, ok := gradLength(attrs["fx"], w, t.obb); ok {
			g2.FX = length("fx", "", w)
		}
		if _, ok := gradLength(attrs["fy"], h, t.obb); ok {
			g2.FY = length("fy", "", h)
		}
		g2.FR = math.Max(0, length("fr", "0", diag))
		g2.FX, g2.FY, g2.FR = focalInside(g2.CX, g2.CY, g2.R, g2.FX, g2.FY, g2.FR)
	} else {
		g2.X1, g2.Y1 = length("x1", "0%", w), length("y1", "0%", h)
		g2.X2, g2.Y2 = length("x2", "100%", w), length("y2", "0%", h)
	}
	if stops == nil {
		return t, false
	}
	t.g.Stops, t.mean = p.readStops(stops)
	return t, len(t.g.Stops) > 0
}

// focalInside moves the focal circle inside the end circle, as SVG 1.1 asks
// for a focal point outside it (and as rsvg and browsers draw it): onto the
// line to the centre, just inside the edge. A focal radius larger than the
// end circle's is cut to it.
func focalInside(cx, cy, r, fx, fy, fr float64) (float64, float64, float64) {
	if r <= 0 {
		return cx, cy, 0
	}
	fr = math.Min(fr, r)
	dx, dy := fx-cx, fy-cy
	d := math.Hypot(dx, dy)
	if lim := (r - fr) * 0.999; d > lim {
		if d == 0 || math.IsNaN(d) || math.IsInf(d, 0) {
			return cx, cy, fr
		}
		fx, fy = cx+dx*lim/d, cy+dy*lim/d
	}
	return fx, fy, fr
}

// gradLength reads a gradient coordinate: with bounding-box units a plain
// number or a percentage is a fraction of the box; otherwise a length, with
// percentages of ref (the viewport).
func gradLength(s string, ref float64, obb bool) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	if obb {
		if strings.HasSuffix(s, "%") {
			v, ok := parseLength(s, 100)
			return v / 100, ok
		}
		sc := &numScanner{s: s}
		v, err := sc.number()
		if err != nil || !sc.done() || math.IsNaN(v) || math.IsInf(v, 0) {
			return 0, false
		}
		return v, true
	}
	return parseLength(s, ref)
}

// readStops reads the stop children of g: offsets clamped to [0, 1] and made
// non-decreasing, colours with stop-opacity folded into alpha. One stop is
// returned twice (a solid paint). More than maxGradientStops are resampled.
func (p *parser) readStops(g *node) ([]Stop, Paint) {
	var stops []Stop
	last := 0.0
	for _, c := range g.children {
		if c.name != "stop" {
			continue
		}
		st := p.computeStyle(c, rootStyle())
		v := st.own("stop-color")
		if v == "" {
			v = "black"
		}
		col, ok := parseColor(v)
		if !ok {
			if v == "currentColor" {
				col, ok = parseColor(st.get("color"))
			}
			if !ok {
				col = Paint{0, 0, 0, 1}
			}
		}
		if o := st.own("stop-opacity"); o != "" {
			col.A *= parseOpacity(o)
		}
		off := parseOffset(c.attr("offset"))
		off = math.Max(off, last)
		last = off
		stops = append(stops, Stop{off, col})
	}
	if len(stops) == 0 {
		return nil, Paint{}
	}
	if len(stops) == 1 {
		stops = append(stops, stops[0])
	}
	if len(stops) > maxGradientStops {
		stops = resampleStops(stops, maxGradientStops)
	}
	var sum Paint
	for _, s := range stops {
		sum.R, sum.G, sum.B, sum.A = sum.R+s.Color.R, sum.G+s.Color.G, sum.B+s.Color.B, sum.A+s.Color.A
	}
	f := float64(len(stops))
	return stops, Paint{sum.R / f, sum.G / f, sum.B / f, sum.A / f}
}

// parseOffset reads a stop offset (number or percentage) clamped to [0, 1];
// anything unreadable (NaN included) is 0, as browsers treat it.
func parseOffset(s string) float64 {
	s = strings.TrimSpace(s)
	pct := strings.HasSuffix(s, "%")
	sc := &numScanner{s: strings.TrimSuffix(s, "%")}
	v, err := sc.number()
	if err != nil || math.IsNaN(v) {
		return 0
	}
	if pct {
		v /= 100
	}
	return clamp01(v)
}

// resampleStops evaluates stops at n evenly spaced offsets.
func resampleStops(stops []Stop, n int) []Stop {
	out := make([]Stop, n)
	for i := range out {
		t := float64(i) / float64(n-1)
		out[i] = Stop{t, colorAt(stops, t)}
	}
	return out
}

// colorAt interpolates the stops at t in [0, 1] (straight alpha, sRGB, as
// SVG's default color-interpolation).
func colorAt(stops []Stop, t float64) Paint {
	n := len(stops)
	if t <= stops[0].Offset {
		return stops[0].Color
	}
	if t >= stops[n-1].Offset {
		return stops[n-1].Color
	}
	// The first stop whose offset exceeds t.
	lo, hi := 1, n-1
	for lo < hi {
		mid := (lo + hi) / 2
		if stops[mid].Offset > t {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	a, b := stops[lo-1], stops[lo]
	d := b.Offset - a.Offset
	if d <= 0 {
		return b.Color
	}
	f := (t - a.Offset) / d
	return Paint{
		a.Color.R + (b.Color.R-a.Color.R)*f,
		a.Color.G + (b.Color.G-a.Color.G)*f,
		a.Color.B + (b.Color.B-a.Color.B)*f,
		a.Color.A + (b.Color.A-a.Color.A)*f,
	}
}

// instantiate places the template on an element whose geometry (in user
// space, before ctm) is path. It returns nil when the gradient cannot paint:
// a bounding-box gradient on a geometry without width or height (SVG 1.1
// 7.11: the gradient is then not applied).
func (t *gradientTemplate) instantiate(path Path, ctm Matrix, opacity float64) *Gradient {
	g := t.g
	g.Opacity = opacity
	g.Stops = t.g.Stops
	m := ctm
	if t.obb {
		x0, y0, x1, y1, ok := flatBounds(path)
		if !ok || x1-x0 <= 0 || y1-y0 <= 0 {
			return nil
		}
		m = m.Mul(Matrix{x1 - x0, 0, 0, y1 - y0, x0, y0})
	}
	g.Transform = m.Mul(t.gt)
	return &g
}

// flatBounds is the tight bounding box of path's geometry.
func flatBounds(path Path) (x0, y0, x1, y1 float64, ok bool) {
	x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, pl := range path.Flatten(0.01) {
		for _, q := range pl.Pts {
			x0, y0, x1, y1 = math.Min(x0, q.X), math.Min(y0, q.Y), math.Max(x1, q.X), math.Max(y1, q.Y)
		}
	}
	ok = x0 <= x1 && !math.IsNaN(x0+y0+x1+y1) && !math.IsInf(x0+y0+x1+y1, 0)
	return x0, y0, x1, y1, ok
}

// Param returns the gradient parameter t (before spreading) of point q in
// gradient space; ok is false where a radial gradient paints nothing.
func (g *Gradient) Param(q Point) (float64, bool) {
	if !g.Radial {
		dx, dy := g.X2-g.X1, g.Y2-g.Y1
		l2 := dx*dx + dy*dy
		if l2 == 0 {
			return 1, true // zero-length vector: the last stop's colour
		}
		return ((q.X-g.X1)*dx + (q.Y-g.Y1)*dy) / l2, true
	}
	if g.R <= 0 {
		return 1, true // zero radius: the last stop's colour
	}
	// Two-circle gradient: the largest t with |q - c(t)| = r(t), r(t) >= 0,
	// where c(t) = f + t (c - f) and r(t) = fr + t (r - fr).
	cdx, cdy, dr := g.CX-g.FX, g.CY-g.FY, g.R-g.FR
	px, py := q.X-g.FX, q.Y-g.FY
	a := cdx*cdx + cdy*cdy - dr*dr
	b := px*cdx + py*cdy + g.FR*dr
	c := px*px + py*py - g.FR*g.FR
	if a == 0 {
		if b == 0 {
			return 0, false
		}
		t := c / (2 * b)
		return t, g.FR+t*dr >= 0
	}
	disc := b*b - a*c
	if disc < 0 {
		return 0, false
	}
	s := math.Sqrt(disc)
	t1, t2 := (b+s)/a, (b-s)/a
	if t1 < t2 {
		t1, t2 = t2, t1
	}
	if g.FR+t1*dr >= 0 {
		return t1, true
	}
	if g.FR+t2*dr >= 0 {
		return t2, true
	}
	return 0, false
}

// Spreads maps t to [0, 1] by the spread method.
func (g *Gradient) Spreads(t float64) float64 {
	switch g.Spread {
	case "repeat":
		t -= math.Floor(t)
	case "reflect":
		t = math.Mod(math.Abs(t), 2)
		if t > 1 {
			t = 2 - t
		}
	}
	return clamp01(t)
}

// ColorAt returns the gradient's straight-alpha colour at point q of
// gradient space (Opacity not applied); ok is false where it paints nothing.
func (g *Gradient) ColorAt(q Point) (Paint, bool) {
	t, ok := g.Param(q)
	if !ok || math.IsNaN(t) {
		return Paint{}, false
	}
	return colorAt(g.Stops, g.Spreads(t)), true
}
