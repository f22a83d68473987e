package svg

import (
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
func Draw(dst *image.RGBA, d *Doc, m Matrix, clip image.Rectangle, opacity float64) {
	clip = clip.Intersect(dst.Bounds())
	if clip.Empty() || opacity <= 0 {
		return
	}
	r := &rasterizer{}
	scale := m.meanScale()
	if scale == 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
		return
	}
	for _, s := range d.Shapes {
		alpha := s.Opacity * opacity
		if alpha <= 0 {
			continue
		}
		if s.Fill != nil && s.Fill.A > 0 {
			r.fill(dst, clip, s.Path.Transform(m), s.FillRule == "evenodd", newShader(*s.Fill, s.FillGradient, m, alpha))
		}
		if s.Stroke != nil && s.Stroke.A > 0 && s.StrokeWidth > 0 {
			outline := StrokeToPath(s, drawTol/scale)
			r.fill(dst, clip, outline.Transform(m), false, newShader(*s.Stroke, s.StrokeGradient, m, alpha))
		}
	}
}

// edge is a line segment of a flattened, closed outline in device pixels.
type edge struct{ x0, y0, x1, y1 float64 }

type crossing struct {
	x   float32
	dir int8
}

// rasterizer holds buffers reused across shapes.
type rasterizer struct {
	z     vector.Rasterizer
	mask  image.Alpha
	edges []edge
	// even-odd state
	rows [][]crossing
	acc  []float32
	diff []float32
}

func (r *rasterizer) fill(dst *image.RGBA, clip image.Rectangle, p Path, evenOdd bool, sh shader) {
	if sh.skip {
		return
	}
	x0, y0, x1, y1, ok := p.bounds()
	if !ok {
		return
	}
	if math.IsNaN(x0 + y0 + x1 + y1) {
		return
	}
	// Clamp far-off coordinates so that int conversions cannot overflow.
	lim := func(v float64) int { return int(math.Max(-1e9, math.Min(1e9, v))) }
	box := image.Rect(lim(math.Floor(x0)), lim(math.Floor(y0)), lim(math.Ceil(x1))+1, lim(math.Ceil(y1))+1)
	box = box.Intersect(clip)
	if box.Empty() {
		return
	}
	r.edges = r.edges[:0]
	for _, pl := range p.Flatten(drawTol) {
		n := len(pl.Pts)
		for i := 0; i < n; i++ {
			a, b := pl.Pts[i], pl.Pts[(i+1)%n] // fills close every subpath
			if a.Y != b.Y && finite(a) && finite(b) {
				r.edges = append(r.edges, edge{a.X, a.Y, b.X, b.Y})
			}
		}
	}
	if len(r.edges) == 0 {
		return
	}
	c, alpha := sh.color, sh.alpha
	pa := uint32(clamp01(c.A*alpha)*255 + 0.5)
	if pa == 0 && sh.grad == nil {
		return
	}
	cr := uint32(clamp01(c.R)*255 + 0.5)
	cg := uint32(clamp01(c.G)*255 + 0.5)
	cb := uint32(clamp01(c.B)*255 + 0.5)
	w := box.Dx()
	for top := box.Min.Y; top < box.Max.Y; top += stripRows {
		h := min(stripRows, box.Max.Y-top)
		band := image.Rect(box.Min.X, top, box.Max.X, top+h)
		if cap(r.mask.Pix) < w*h {
			r.mask.Pix = make([]uint8, w*h)
		}
		r.mask.Pix = r.mask.Pix[:w*h]
		r.mask.Stride = w
		r.mask.Rect = image.Rect(0, 0, w, h)
		if evenOdd {
			r.evenOdd(band)
		} else {
			r.nonZero(band)
		}
		if sh.grad != nil {
			compositeGradient(dst, band, r.mask.Pix, &sh)
		} else {
			composite(dst, band, r.mask.Pix, cr, cg, cb, pa)
		}
	}
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

func (r *rasterizer) nonZero(band image.Rectangle) {
	w, h := band.Dx(), band.Dy()
	r.z.Reset(w, h)
	r.z.DrawOp = draw.Src
	ox, oy := float64(band.Min.X), float64(band.Min.Y)
	for _, e := range r.edges {
		c, ok := clipY(e, oy, oy+float64(h))
		if !ok {
			continue
		}
		// Coverage accumulates per edge, so separate segments need no
		// closing: each MoveTo/LineTo pair contributes on its own.
		for _, c := range clipX(c, ox, ox+float64(w)) {
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
}

func (r *rasterizer) evenOdd(band image.Rectangle) {
	w, h := band.Dx(), band.Dy()
	const S = evenOddSamples
	n := h * S
	if cap(r.rows) < n {
		r.rows = make([][]crossing, n)
	}
	r.rows = r.rows[:n]
	for i := range r.rows {
		r.rows[i] = r.rows[i][:0]
	}
	ox, oy := float64(band.Min.X), float64(band.Min.Y)
	for _, e := range r.edges {
		c, ok := clipY(e, oy, oy+float64(h))
		if !ok {
			continue
		}
		for _, c := range clipX(c, ox, ox+float64(w)) {
			r.addCrossings(c, ox, oy, n)
		}
	}
	r.accumulateEvenOdd(w, h)
}

func (r *rasterizer) addCrossings(c edge, ox, oy float64, n int) {
	const S = evenOddSamples
	{
		dir := int8(1)
		ya, yb, xa, xb := c.y0-oy, c.y1-oy, c.x0-ox, c.x1-ox
		if ya > yb {
			dir, ya, yb, xa, xb = -1, yb, ya, xb, xa
		}
		// Sample rows at (k+0.5)/S; an edge covers samples in [ya, yb).
		k0 := int(math.Ceil(ya*S - 0.5))
		k1 := int(math.Ceil(yb*S - 0.5))
		k0, k1 = max(k0, 0), min(k1, n)
		slope := (xb - xa) / (yb - ya)
		for k := k0; k < k1; k++ {
			y := (float64(k) + 0.5) / S
			r.rows[k] = append(r.rows[k], crossing{float32(xa + (y-ya)*slope), dir})
		}
	}
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
	for row := 0; row < h; row++ {
		clear(acc)
		clear(diff)
		for k := row * S; k < (row+1)*S; k++ {
			xs := r.rows[k]
			if len(xs) < 2 {
				continue
			}
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
// keeps coordinates small for the fixed-point rasterizer.
func clipX(e edge, xa, xb float64) []edge {
	ts := [4]float64{0, 1, 1, 1}
	n := 1
	for _, x := range [2]float64{xa, xb} {
		if (e.x0 < x) != (e.x1 < x) && e.x0 != e.x1 {
			ts[n] = (x - e.x0) / (e.x1 - e.x0)
			n++
		}
	}
	ts[n] = 1
	if n == 3 && ts[1] > ts[2] {
		ts[1], ts[2] = ts[2], ts[1]
	}
	out := make([]edge, 0, n)
	cl := func(x float64) float64 { return math.Max(xa, math.Min(xb, x)) }
	for i := 0; i < n; i++ {
		t0, t1 := ts[i], ts[i+1]
		y0 := e.y0 + (e.y1-e.y0)*t0
		y1 := e.y0 + (e.y1-e.y0)*t1
		c := edge{cl(e.x0 + (e.x1-e.x0)*t0), y0, cl(e.x0 + (e.x1-e.x0)*t1), y1}
		// Coordinates near the float64 range overflow to NaN when
		// interpolated: such edges are dropped.
		if y0 == y1 || math.IsNaN(c.x0+c.x1+c.y0+c.y1) {
			continue
		}
		out = append(out, c)
	}
	return out
}
