package svg

import (
	"context"
	"image"
	"image/draw"
	"math"
	"slices"

	"golang.org/x/image/vector"
)

// stripRows is the height of the band rasterized at once: memory stays at
// a few bytes per pixel of one band however large the shape is.
const stripRows = 128

// drawTol is the flattening tolerance in device pixels.
const drawTol = 0.1

// evenOddSamples is the number of sub-scanlines per pixel row in the
// even-odd rasterizer; horizontal coverage is exact.
const evenOddSamples = 16

// Draw paints d onto dst. m maps natural-size SVG coordinates to dst
// pixels; only pixels inside clip (and dst's bounds) change. Each shape is
// rasterized within its own bounding box, in bands, and composited
// source-over with anti-aliasing; opacity multiplies every shape's opacity.
//
// Fill rules: nonzero fills use golang.org/x/image/vector (exact area
// coverage). That rasterizer has no even-odd mode, so even-odd fills go
// through a scanline rasterizer here with 16 sub-scanlines per row and exact
// horizontal coverage. Strokes are converted to outlines (StrokeToPath) and
// filled nonzero.
//
// Group opacity is applied per shape, so overlapping shapes inside a
// translucent group show through each other (see docs/svg.md).
//
// Bounded work: ctx is checked before every shape, every band of rows and
// every few thousand edges; once it ends Draw returns its error, leaving dst
// partly drawn. DrawCost tells a caller the work before it draws.
func Draw(ctx context.Context, dst *image.RGBA, d *Doc, m Matrix, clip image.Rectangle, opacity float64) error {
	clip = clip.Intersect(dst.Bounds())
	if clip.Empty() || opacity <= 0 {
		return nil
	}
	scale := m.meanScale()
	if scale == 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
		return nil
	}
	r := &rasterizer{ctx: ctx}
	prepared := map[*Clip]*clipEdges{}
	for _, s := range d.Shapes {
		if err := ctx.Err(); err != nil {
			return err
		}
		alpha := s.Opacity * opacity
		if alpha <= 0 {
			continue
		}
		shapeClip := clip
		r.clips = r.clips[:0]
		for _, c := range s.Clips {
			ce := prepared[c]
			if ce == nil {
				ce = prepareClip(c, m)
				prepared[c] = ce
			}
			shapeClip = shapeClip.Intersect(ce.box)
			r.clips = append(r.clips, ce)
		}
		if shapeClip.Empty() {
			continue
		}
		if s.Fill != nil && s.Fill.A > 0 {
			if err := r.fill(dst, shapeClip, s.Path.Transform(m), s.FillRule == "evenodd", newShader(*s.Fill, s.FillGradient, m, alpha)); err != nil {
				return err
			}
		}
		if s.Stroke != nil && s.Stroke.A > 0 && s.StrokeWidth > 0 {
			if err := r.stroke(dst, shapeClip, s, m, scale, newShader(*s.Stroke, s.StrokeGradient, m, alpha)); err != nil {
				return err
			}
		}
	}
	return nil
}

// Weights of DrawCost, in pixel operations (one pixel composited through a
// coverage mask): an edge in every band of stripRows it is clipped to; a row
// an edge crosses (the nonzero rasterizer accumulates a cell or two, the
// even-odd one sorts a crossing on each of its 16 sample rows: log2 of the
// edges more); and the edges a stroke's outline has per point of its
// flattened path (two sides, a join and the closing edges of its pieces).
const (
	costEdgeBand     = 16
	costRowNonZero   = 4
	costSampleRow    = 1
	strokeEdgesPerPt = 8
)

// DefaultMaxDrawCost is the drawing cost (DrawCost) the renderer allows one
// raster output by default: about 40 s to 150 s of one core.
const DefaultMaxDrawCost = 10_000_000_000

// DrawCost estimates the work of Draw(d, m, clip, opacity) in pixel
// operations without drawing: for every painted fill and stroke, the pixels
// of its bounding box within clip (each is rasterized into a coverage mask
// and composited), costEdgeBand for every edge of its flattened outline in
// every band of rows the box spans, and the rows its edges cross. A
// stroke's box grows by its width and miter reach, its outline counts
// strokeEdgesPerPt edges per point of its flattened path and crosses twice
// the rows of the path plus the stroke's width at every point. One
// operation is about 4 to 15 ns of one core.
func DrawCost(d *Doc, m Matrix, clip image.Rectangle, opacity float64) float64 {
	scale := m.meanScale()
	if opacity <= 0 || scale == 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
		return 0
	}
	clipH := float64(clip.Dy())
	total := 0.0
	for i := range d.Shapes {
		s := &d.Shapes[i]
		if s.Opacity*opacity <= 0 {
			continue
		}
		fill := s.Fill != nil && s.Fill.A > 0
		stroke := s.Stroke != nil && s.Stroke.A > 0 && s.StrokeWidth > 0
		if !fill && !stroke {
			continue
		}
		x0, y0, x1, y1, pts, rows := costOf(s.Path, m, clipH)
		if pts == 0 {
			continue
		}
		// Every band of a clipped shape rasterizes its clips' parts too.
		for _, c := range s.Clips {
			for _, pt := range c.Parts {
				_, _, _, _, cp, cr := costOf(pt.Path, m, clipH)
				pts, rows = pts+cp, rows+cr
			}
		}
		box := func(grow float64) (area, bands float64) {
			bx0, by0 := math.Max(x0-grow, float64(clip.Min.X)), math.Max(y0-grow, float64(clip.Min.Y))
			bx1, by1 := math.Min(x1+grow+1, float64(clip.Max.X)), math.Min(y1+grow+1, float64(clip.Max.Y))
			if !(bx1 > bx0 && by1 > by0) {
				return 0, 0
			}
			return (bx1 - bx0) * (by1 - by0), math.Ceil((by1 - by0) / stripRows)
		}
		if fill {
			if area, bands := box(0); area > 0 {
				perRow := float64(costRowNonZero)
				if s.FillRule == "evenodd" {
					perRow = evenOddSamples * costSampleRow * (4 + math.Log2(pts))
				}
				total += area + costEdgeBand*pts*bands + perRow*rows
			}
		}
		if stroke {
			miter := math.Max(1, s.MiterLimit)
			if s.LineJoin != "miter" {
				miter = math.Sqrt2 // square caps reach the half width times √2
			}
			w := s.StrokeWidth * scale
			if s.Pen != (Matrix{}) {
				w *= s.Pen.stretch() // a stretched pen reaches further
			}
			if area, bands := box(w / 2 * math.Max(miter, math.Sqrt2)); area > 0 {
				edges := strokeEdgesPerPt * pts
				total += area + costEdgeBand*edges*bands + costRowNonZero*(2*rows+pts*math.Min(w, clipH))
			}
		}
	}
	return total
}

// costOf returns the bounding box of p mapped by m (control points
// included), the number of points its flattening at drawTol gives, and the
// rows its segments span (each at most maxRows, control points included),
// without flattening it.
func costOf(p Path, m Matrix, maxRows float64) (x0, y0, x1, y1, pts, rows float64) {
	x0, y0 = math.Inf(1), math.Inf(1)
	x1, y1 = math.Inf(-1), math.Inf(-1)
	var last, start Point
	for _, s := range p {
		var q [3]Point
		lo, hi := last.Y, last.Y
		for j := 0; j < s.Op.points(); j++ {
			q[j] = m.Apply(s.Pts[j])
			x0, x1 = math.Min(x0, q[j].X), math.Max(x1, q[j].X)
			y0, y1 = math.Min(y0, q[j].Y), math.Max(y1, q[j].Y)
			lo, hi = math.Min(lo, q[j].Y), math.Max(hi, q[j].Y)
		}
		switch s.Op {
		case MoveTo:
			pts++
			last, start = q[0], q[0]
			continue
		case LineTo:
			pts++
			last = q[0]
		case QuadTo:
			pts += float64(curveSteps(math.Hypot(last.X-2*q[0].X+q[1].X, last.Y-2*q[0].Y+q[1].Y), drawTol))
			last = q[1]
		case CubicTo:
			dd := math.Max(math.Hypot(last.X-2*q[0].X+q[1].X, last.Y-2*q[0].Y+q[1].Y),
				math.Hypot(q[0].X-2*q[1].X+q[2].X, q[0].Y-2*q[1].Y+q[2].Y))
			pts += float64(curveSteps(1.5*dd, drawTol))
			last = q[2]
		case Close:
			pts++
			lo, hi = math.Min(lo, start.Y), math.Max(hi, start.Y)
			last = start
		}
		rows += math.Min(hi-lo+1, maxRows)
	}
	if math.IsNaN(x0+y0+x1+y1+rows) || x0 > x1 {
		return 0, 0, 0, 0, 0, 0
	}
	return x0, y0, x1, y1, pts, rows
}

// edge is a line segment of a flattened, closed outline in device pixels.
type edge struct{ x0, y0, x1, y1 float64 }

type crossing struct {
	x   float32
	dir int8
}

// sampleEdge is an edge of the even-odd rasterizer's band, clipped to it: it
// crosses the band's sample rows [k0, k1), at x = xa + (y-ya)*slope on the
// sample row at y (band coordinates).
type sampleEdge struct {
	k0, k1        int32
	dir           int8
	xa, ya, slope float64
}

// edgeCheck is how many edges are handled between two checks of the context.
const edgeCheck = 4096

// rasterizer holds buffers reused across shapes.
type rasterizer struct {
	ctx context.Context
	// work counts edges handled since the context was last checked.
	work  int
	pts   []Point // a stroke polygon mapped to device pixels
	z     vector.Rasterizer
	mask  image.Alpha
	edges []edge
	// even-odd state: the band's clipped edges by first sample row, those
	// crossing the current sample row, and that row's crossings. Memory is
	// a few words an edge, whatever the band's height.
	band   []sampleEdge
	active []sampleEdge
	xs     []crossing
	acc    []float32
	diff   []float32
	// clips are the clipping regions of the shape being drawn; clipR
	// rasterizes them band by band into clipMask.
	clips    []*clipEdges
	clipR    *rasterizer
	clipMask []uint8
}

// checkAfter counts n more edges handled and returns the context's error once
// edgeCheck of them have been since the last check.
func (r *rasterizer) checkAfter(n int) error {
	if r.work += n; r.work < edgeCheck {
		return nil
	}
	r.work = 0
	return r.ctx.Err()
}

// addPolygon adds the edges of a closed polygon (the last point joins the first),
// leaving out horizontal and non-finite ones.
func (r *rasterizer) addPolygon(pts []Point) {
	n := len(pts)
	for i := 0; i < n; i++ {
		a, b := pts[i], pts[(i+1)%n] // fills close every subpath
		if a.Y != b.Y && finite(a) && finite(b) {
			r.edges = append(r.edges, edge{a.X, a.Y, b.X, b.Y})
		}
	}
}

func (r *rasterizer) fill(dst *image.RGBA, clip image.Rectangle, p Path, evenOdd bool, sh shader) error {
	if sh.skip {
		return nil
	}
	x0, y0, x1, y1, ok := p.bounds()
	if !ok {
		return nil
	}
	box, ok := pixelBox(clip, x0, y0, x1, y1)
	if !ok {
		return nil
	}
	r.edges = r.edges[:0]
	for _, pl := range p.Flatten(drawTol) {
		if err := r.checkAfter(len(pl.Pts)); err != nil {
			return err
		}
		r.addPolygon(pl.Pts)
	}
	return r.fillEdges(dst, box, evenOdd, sh)
}

// stroke fills the outline of s's stroke mapped by m (scale its mean scale) with
// the nonzero rule: the outline's polygons go straight into edges as the stroker
// makes them, so the memory is the edges, not the outline's path, its mapped copy
// and its flattening besides.
func (r *rasterizer) stroke(dst *image.RGBA, clip image.Rectangle, s Shape, m Matrix, scale float64, sh shader) error {
	if sh.skip {
		return nil
	}
	x0, y0 := math.Inf(1), math.Inf(1)
	x1, y1 := math.Inf(-1), math.Inf(-1)
	var err error
	r.edges = r.edges[:0]
	strokeOutline(s, drawTol/scale, func(pts []Point) {
		if err != nil {
			return
		}
		if err = r.checkAfter(len(pts)); err != nil {
			return
		}
		r.pts = r.pts[:0]
		for _, p := range pts {
			q := m.Apply(p)
			x0, x1 = math.Min(x0, q.X), math.Max(x1, q.X)
			y0, y1 = math.Min(y0, q.Y), math.Max(y1, q.Y)
			r.pts = append(r.pts, q)
		}
		r.addPolygon(r.pts)
	})
	if err != nil {
		return err
	}
	box, ok := pixelBox(clip, x0, y0, x1, y1)
	if !ok {
		return nil
	}
	return r.fillEdges(dst, box, false, sh)
}

// pixelBox is the pixels within clip of the box x0..x1, y0..y1; false when none
// (or the box is not a number).
func pixelBox(clip image.Rectangle, x0, y0, x1, y1 float64) (image.Rectangle, bool) {
	if math.IsNaN(x0 + y0 + x1 + y1) {
		return image.Rectangle{}, false
	}
	// Clamp far-off coordinates so that int conversions cannot overflow.
	lim := func(v float64) int { return int(math.Max(-1e9, math.Min(1e9, v))) }
	box := image.Rect(lim(math.Floor(x0)), lim(math.Floor(y0)), lim(math.Ceil(x1))+1, lim(math.Ceil(y1))+1)
	box = box.Intersect(clip)
	return box, !box.Empty()
}

// fillEdges fills r.edges within box.
func (r *rasterizer) fillEdges(dst *image.RGBA, box image.Rectangle, evenOdd bool, sh shader) error {
	if len(r.edges) == 0 {
		return nil
	}
	c, alpha := sh.color, sh.alpha
	pa := uint32(clamp01(c.A*alpha)*255 + 0.5)
	if pa == 0 && sh.grad == nil {
		return nil
	}
	cr := uint32(clamp01(c.R)*255 + 0.5)
	cg := uint32(clamp01(c.G)*255 + 0.5)
	cb := uint32(clamp01(c.B)*255 + 0.5)
	w := box.Dx()
	for top := box.Min.Y; top < box.Max.Y; top += stripRows {
		if err := r.ctx.Err(); err != nil {
			return err
		}
		h := min(stripRows, box.Max.Y-top)
		band := image.Rect(box.Min.X, top, box.Max.X, top+h)
		if cap(r.mask.Pix) < w*h {
			r.mask.Pix = make([]uint8, w*h)
		}
		r.mask.Pix = r.mask.Pix[:w*h]
		r.mask.Stride = w
		r.mask.Rect = image.Rect(0, 0, w, h)
		var err error
		if evenOdd {
			err = r.evenOdd(band)
		} else {
			err = r.nonZero(band)
		}
		if err != nil {
			return err
		}
		if err := r.applyClips(band); err != nil {
			return err
		}
		if sh.grad != nil {
			compositeGradient(dst, band, r.mask.Pix, &sh)
		} else {
			composite(dst, band, r.mask.Pix, cr, cg, cb, pa)
		}
	}
	return nil
}

// clipY returns the part of e within rows [ya, yb), if any.
func clipY(e edge, ya, yb float64) (edge, bool) {
	lo, hi := math.Min(e.y0, e.y1), math.Max(e.y0, e.y1)
	if hi <= ya || lo >= yb {
		return e, false
	}
	at := func(y float64) float64 { return e.x0 + (e.x1-e.x0)*(y-e.y0)/(e.y1-e.y0) }
	c := e
	if lo < ya {
		if e.y0 < ya {
			c.x0, c.y0 = at(ya), ya
		} else {
			c.x1, c.y1 = at(ya), ya
		}
	}
	if hi > yb {
		if e.y0 > yb {
			c.x0, c.y0 = at(yb), yb
		} else {
			c.x1, c.y1 = at(yb), yb
		}
	}
	return c, true
}

func (r *rasterizer) nonZero(band image.Rectangle) error {
	w, h := band.Dx(), band.Dy()
	r.z.Reset(w, h)
	r.z.DrawOp = draw.Src
	ox, oy := float64(band.Min.X), float64(band.Min.Y)
	for _, e := range r.edges {
		if err := r.checkAfter(1); err != nil {
			return err
		}
		c, ok := clipY(e, oy, oy+float64(h))
		if !ok {
			continue
		}
		// Coverage accumulates per edge, so separate segments need no
		// closing: each MoveTo/LineTo pair contributes on its own.
		parts, np := clipX(c, ox, ox+float64(w))
		for _, c := range parts[:np] {
			// Nearly flat edges add next to no coverage but overflow the
			// fixed-point rasterizer's slope arithmetic.
			if math.Abs(c.y1-c.y0) < 1e-4 {
				continue
			}
			r.z.MoveTo(float32(c.x0-ox), float32(c.y0-oy))
			r.z.LineTo(float32(c.x1-ox), float32(c.y1-oy))
		}
	}
	r.z.Draw(&r.mask, r.mask.Rect, image.Opaque, image.Point{})
	return nil
}

// evenOdd fills the mask with the band's even-odd coverage. The edges are
// clipped to the band and sorted by their first sample row, then each sample
// row takes the crossings of the edges active on it (a scanline sweep), so
// the memory is a few words an edge, not an edge's crossings of every
// sample row of the band at once.
func (r *rasterizer) evenOdd(band image.Rectangle) error {
	w, h := band.Dx(), band.Dy()
	const S = evenOddSamples
	n := h * S
	ox, oy := float64(band.Min.X), float64(band.Min.Y)
	r.band = r.band[:0]
	for _, e := range r.edges {
		if err := r.checkAfter(1); err != nil {
			return err
		}
		c, ok := clipY(e, oy, oy+float64(h))
		if !ok {
			continue
		}
		parts, np := clipX(c, ox, ox+float64(w))
		for _, c := range parts[:np] {
			dir := int8(1)
			ya, yb, xa, xb := c.y0-oy, c.y1-oy, c.x0-ox, c.x1-ox
			if ya > yb {
				dir, ya, yb, xa, xb = -1, yb, ya, xb, xa
			}
			// Sample rows at (k+0.5)/S; an edge covers samples in [ya, yb).
			k0 := max(int(math.Ceil(ya*S-0.5)), 0)
			k1 := min(int(math.Ceil(yb*S-0.5)), n)
			if k0 < k1 {
				r.band = append(r.band, sampleEdge{int32(k0), int32(k1), dir, xa, ya, (xb - xa) / (yb - ya)})
			}
		}
	}
	slices.SortFunc(r.band, func(a, b sampleEdge) int { return int(a.k0 - b.k0) })
	r.accumulateEvenOdd(w, h)
	return nil
}

func (r *rasterizer) accumulateEvenOdd(w, h int) {
	const S = evenOddSamples
	if cap(r.acc) < w+2 {
		r.acc = make([]float32, w+2)
		r.diff = make([]float32, w+2)
	}
	acc, diff := r.acc[:w+2], r.diff[:w+2]
	const wt = float32(1) / S
	fw := float32(w)
	next := 0 // the first edge of r.band not yet active
	active := r.active[:0]
	for row := 0; row < h; row++ {
		clear(acc)
		clear(diff)
		for k := row * S; k < (row+1)*S; k++ {
			// Edges ending above this sample row leave, edges starting on it join.
			keep := active[:0]
			for _, e := range active {
				if int(e.k1) > k {
					keep = append(keep, e)
				}
			}
			active = keep
			for next < len(r.band) && int(r.band[next].k0) <= k {
				active = append(active, r.band[next])
				next++
			}
			if len(active) < 2 {
				continue
			}
			y := (float64(k) + 0.5) / S
			xs := r.xs[:0]
			for _, e := range active {
				xs = append(xs, crossing{float32(e.xa + (y-e.ya)*e.slope), e.dir})
			}
			r.xs = xs
			slices.SortFunc(xs, func(a, b crossing) int {
				switch {
				case a.x < b.x:
					return -1
				case a.x > b.x:
					return 1
				}
				return 0
			})
			for i := 0; i+1 < len(xs); i += 2 {
				addSpan(acc, diff, max(xs[i].x, 0), min(xs[i+1].x, fw), wt)
			}
		}
		out := r.mask.Pix[row*w : (row+1)*w]
		run := float32(0)
		for x := range out {
			run += diff[x]
			v := acc[x] + run
			if v >= 1 {
				out[x] = 255
			} else if v <= 0 {
				out[x] = 0
			} else {
				out[x] = uint8(v*255 + 0.5)
			}
		}
	}
	r.active = active
}

// addSpan adds weight wt times the covered fraction of each pixel in
// [xa, xb): partial coverage at the ends, a running difference inside.
func addSpan(acc, diff []float32, xa, xb, wt float32) {
	if xb <= xa {
		return
	}
	ia, ib := int(xa), int(xb)
	if ia == ib {
		acc[ia] += (xb - xa) * wt
		return
	}
	acc[ia] += (float32(ia+1) - xa) * wt
	diff[ia+1] += wt
	diff[ib] -= wt
	acc[ib] += (xb - float32(ib)) * wt
}

// composite blends a colour through an 8-bit coverage mask onto dst,
// source-over with premultiplied destination pixels.
func composite(dst *image.RGBA, band image.Rectangle, mask []uint8, cr, cg, cb, pa uint32) {
	w := band.Dx()
	for y := band.Min.Y; y < band.Max.Y; y++ {
		mrow := mask[(y-band.Min.Y)*w : (y-band.Min.Y+1)*w]
		off := dst.PixOffset(band.Min.X, y)
		drow := dst.Pix[off : off+4*w]
		for x, cov := range mrow {
			if cov == 0 {
				continue
			}
			a := uint32(cov) * pa // 0..255*255
			px := drow[4*x : 4*x+4 : 4*x+4]
			if a == 255*255 {
				px[0], px[1], px[2], px[3] = uint8(cr), uint8(cg), uint8(cb), 255
				continue
			}
			inv := 255*255 - a
			px[0] = uint8((cr*a + uint32(px[0])*inv + 32512) / 65025)
			px[1] = uint8((cg*a + uint32(px[1])*inv + 32512) / 65025)
			px[2] = uint8((cb*a + uint32(px[2])*inv + 32512) / 65025)
			px[3] = uint8((255*a + uint32(px[3])*inv + 32512) / 65025)
		}
	}
}

func finite(p Point) bool {
	return !math.IsNaN(p.X) && !math.IsNaN(p.Y) && !math.IsInf(p.X, 0) && !math.IsInf(p.Y, 0)
}

// clipX splits e at the band's left and right sides and moves the parts
// outside onto those sides. Coverage accumulates left to right, so a
// vertical edge on the side stands exactly for the part beyond it; this also
// keeps coordinates small for the fixed-point rasterizer. The parts are
// returned in an array (no allocation an edge and band), n of them.
func clipX(e edge, xa, xb float64) (parts [3]edge, n int) {
	ts := [4]float64{0, 1, 1, 1}
	k := 1
	for _, x := range [2]float64{xa, xb} {
		if (e.x0 < x) != (e.x1 < x) && e.x0 != e.x1 {
			ts[k] = (x - e.x0) / (e.x1 - e.x0)
			k++
		}
	}
	ts[k] = 1
	if k == 3 && ts[1] > ts[2] {
		ts[1], ts[2] = ts[2], ts[1]
	}
	cl := func(x float64) float64 { return math.Max(xa, math.Min(xb, x)) }
	for i := 0; i < k; i++ {
		t0, t1 := ts[i], ts[i+1]
		y0 := e.y0 + (e.y1-e.y0)*t0
		y1 := e.y0 + (e.y1-e.y0)*t1
		c := edge{cl(e.x0 + (e.x1-e.x0)*t0), y0, cl(e.x0 + (e.x1-e.x0)*t1), y1}
		// Coordinates near the float64 range overflow to NaN when
		// interpolated: such edges are dropped.
		if y0 == y1 || math.IsNaN(c.x0+c.x1+c.y0+c.y1) {
			continue
		}
		parts[n] = c
		n++
	}
	return parts, n
}
