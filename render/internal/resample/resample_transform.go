package resample

import (
	"context"
	"image"
	"image/draw"
	"math"

	"github.com/printworker/printworker/render/svg"
)

// Pictures under any affine placement (rotated, mirrored, turned by EXIF), and the
// antialiased edges of every picture.
//
// Edges: each output pixel is weighted by the exact area it shares with the picture's
// parallelogram cut by the clip rectangle (coverage, as a browser's canvas draws an
// image), so a rotated edge or a clip edge between pixels is smooth instead of a
// staircase snapped to pixel centres. The colour near an edge comes from the kernel
// with its taps clamped to the edge pixels (clamp to edge).
//
// Resampling: Catmull-Rom in two 1D passes (Catmull and Smith, 1980), so a rotated
// picture costs about what an unrotated one costs instead of the 16 taps a pixel of a
// direct 2D kernel. Pass 1 resamples each source row at the output columns: for the
// output column X, row v of the source is read at the u where the placement puts
// (u, v) on column X. Pass 2 resamples each output column down the pass-1 values at
// the v where the placement puts the pixel centre. The output is cut into bands of 64
// columns run on every worker (forEachBand over the transposed area); a band's pass-1
// values are computed once, for its columns only, so the work is that of the
// separable unrotated path. When the source's x axis lands nearer the vertical than
// the horizontal (rotations past 45°), a transposed copy of the source is resampled
// instead, so that pass 1 never squeezes a row into a sliver.

// Draw draws the picture src (w x h native pixels) through m (its pixels to dst's),
// cut to clip (dst's pixels, fractional edges allowed), compositing Over with
// coverage-weighted edges at opacity (0..1). Unrotated opaque placements draw their
// fully covered interior on the fast separable path (scaleAxisAligned) and only the
// one-pixel ring of partly covered pixels through the general path. Once ctx ends the
// band workers take no more bands and Draw returns, the picture partly drawn, for
// the caller to see ctx's error.
func (d *Drawer) Draw(ctx context.Context, dst *image.RGBA, clip Rect, m Matrix, src image.Image, w, h int, opacity float64) {
	bd := bandEnv{pool: d.pool, ctx: ctx}
	isa, workers := d.isa, d.workers
	sw, sh := float64(w), float64(h)
	poly := clipPolygon(placedQuad(m, sw, sh), clip)
	if len(poly) < 3 {
		return
	}
	area := polyPixels(poly).Intersect(dst.Bounds())
	if area.Empty() {
		return
	}
	if swap, flipX, flipY, n, ok := orthogonalPlacement(m, sw, sh); ok {
		// A quarter turn or mirror: the source seen turned (a view or a copy) drawn
		// unrotated (resample_orient.go).
		win := image.Rect(0, 0, w, h)
		turned := isa.newOrientedView(src, win, swap, flipX, flipY)
		if turned == nil {
			turned = orientedRGBA(src, win, swap, flipX, flipY)
		}
		d.Draw(ctx, dst, clip, n, turned, turned.Bounds().Dx(), turned.Bounds().Dy(), opacity)
		return
	}
	if m[1] == 0 && m[2] == 0 && m[0] > 0 && m[3] > 0 && opacity == 1 {
		// The picture cut by the clip is a rectangle: its pixels wholly inside take the
		// separable path; the partly covered ring around them, the general one.
		x0, y0, x1, y1 := polyBox(poly)
		inner := image.Rect(int(math.Ceil(x0)), int(math.Ceil(y0)), int(math.Floor(x1)), int(math.Floor(y1))).Intersect(area)
		if !inner.Empty() {
			isa.scaleAxisAligned(dst, inner, src, m[0], m[4], m[3], m[5], workers, bd)
			for _, ring := range [4]image.Rectangle{
				image.Rect(area.Min.X, area.Min.Y, area.Max.X, inner.Min.Y),
				image.Rect(area.Min.X, inner.Max.Y, area.Max.X, area.Max.Y),
				image.Rect(area.Min.X, inner.Min.Y, inner.Min.X, inner.Max.Y),
				image.Rect(inner.Max.X, inner.Min.Y, area.Max.X, inner.Max.Y),
			} {
				if !ring.Empty() {
					isa.drawTransformed(dst, ring, poly, src, m, 1, workers, bd)
				}
			}
			return
		}
	}
	isa.drawTransformed(dst, area, poly, src, m, opacity, workers, bd)
}

// placedQuad is the source rectangle (0, 0, w, h) mapped by m: four corners in order.
func placedQuad(m Matrix, w, h float64) []svg.Point {
	return []svg.Point{m.Apply(svg.Point{}), m.Apply(svg.Point{X: w}), m.Apply(svg.Point{X: w, Y: h}), m.Apply(svg.Point{Y: h})}
}

// clipPolygon cuts a convex polygon to the rectangle r (Sutherland-Hodgman).
func clipPolygon(poly []svg.Point, r Rect) []svg.Point {
	type side struct {
		inside func(svg.Point) bool
		cross  func(a, b svg.Point) svg.Point
	}
	atX := func(x float64) func(a, b svg.Point) svg.Point {
		return func(a, b svg.Point) svg.Point {
			t := (x - a.X) / (b.X - a.X)
			return svg.Point{X: x, Y: a.Y + t*(b.Y-a.Y)}
		}
	}
	atY := func(y float64) func(a, b svg.Point) svg.Point {
		return func(a, b svg.Point) svg.Point {
			t := (y - a.Y) / (b.Y - a.Y)
			return svg.Point{X: a.X + t*(b.X-a.X), Y: y}
		}
	}
	x0, y0, x1, y1 := r.X, r.Y, r.X+r.W, r.Y+r.H
	sides := [4]side{
		{func(p svg.Point) bool { return p.X >= x0 }, atX(x0)},
		{func(p svg.Point) bool { return p.X <= x1 }, atX(x1)},
		{func(p svg.Point) bool { return p.Y >= y0 }, atY(y0)},
		{func(p svg.Point) bool { return p.Y <= y1 }, atY(y1)},
	}
	for _, s := range sides {
		if len(poly) == 0 {
			return nil
		}
		var out []svg.Point
		for i, b := range poly {
			a := poly[(i+len(poly)-1)%len(poly)]
			switch ain, bin := s.inside(a), s.inside(b); {
			case ain && bin:
				out = append(out, b)
			case ain:
				out = append(out, s.cross(a, b))
			case bin:
				out = append(out, s.cross(a, b), b)
			}
		}
		poly = out
	}
	for _, p := range poly {
		if math.IsNaN(p.X) || math.IsNaN(p.Y) || math.IsInf(p.X, 0) || math.IsInf(p.Y, 0) {
			return nil
		}
	}
	return poly
}

func polyBox(poly []svg.Point) (x0, y0, x1, y1 float64) {
	x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range poly {
		x0, y0, x1, y1 = math.Min(x0, p.X), math.Min(y0, p.Y), math.Max(x1, p.X), math.Max(y1, p.Y)
	}
	return
}

// polyPixels is the pixel rectangle touching the polygon.
func polyPixels(poly []svg.Point) image.Rectangle {
	x0, y0, x1, y1 := polyBox(poly)
	lim := func(v float64) int { return int(math.Max(-1e9, math.Min(1e9, v))) }
	return image.Rect(lim(math.Floor(x0)), lim(math.Floor(y0)), lim(math.Ceil(x1)), lim(math.Ceil(y1)))
}

// columnRows returns the rows [y0, y1) the polygon touches within columns [x0, x1).
func columnRows(poly []svg.Point, x0, x1 int) (int, int) {
	c := clipPolygon(poly, Rect{X: float64(x0), Y: -1e9, W: float64(x1 - x0), H: 2e9})
	if len(c) == 0 {
		return 0, 0
	}
	_, ya, _, yb := polyBox(c)
	return int(math.Floor(ya)), int(math.Ceil(yb))
}

// cmLUTSteps is the number of fractional positions whose Catmull-Rom weights are
// tabulated for enlargement (1/1024 of a source pixel: far below what 8 bits show).
const (
	cmLUTBits  = 10
	cmLUTSteps = 1 << cmLUTBits
)

// cmLUT holds the four Catmull-Rom weights of taps -1, 0, 1, 2 for each fraction.
var cmLUT = func() (t [cmLUTSteps + 1][4]float32) {
	for i := range t {
		f := float64(i) / cmLUTSteps
		for k := range 4 {
			t[i][k] = float32(catmullRom(math.Abs(float64(k-1) - f)))
		}
	}
	return
}()

// kernel1D samples a row of values at fractional positions with Catmull-Rom,
// widened by stretch when shrinking, taps clamped to [0, n).
type kernel1D struct {
	stretch float64
	support float64
	n       int
	// linear: an enlargement beyond linearAbove, sampled with the tent at
	// positions rounded down to 1/bilinearSteps (as kernelWeights does for
	// unrotated pictures) through the generic taps, not the Catmull-Rom tables.
	linear bool
}

func newKernel(scale float64, n int) kernel1D {
	s := math.Max(1, 1/math.Abs(scale))
	return kernel1D{stretch: s, support: 2 * s, n: n, linear: math.Abs(scale) > linearAbove}
}

// tabulated reports whether k samples with the tabulated Catmull-Rom weights
// (cmLUT and its fixed-point forms): enlarging up to linearAbove.
func (k kernel1D) tabulated() bool { return k.stretch == 1 && !k.linear }

// taps writes the source indexes and weights for centre c (in source pixel centres)
// into idx and w, returning how many; the weights sum to 1.
func (k kernel1D) taps(c float64, idx []int, w []float32) int {
	// Far outside the source every tap is the edge pixel; keep c where the integer
	// conversions below are exact.
	c = math.Max(-k.support-2, math.Min(float64(k.n)+k.support+1, c))
	if math.IsNaN(c) {
		c = 0
	}
	if k.linear {
		c = math.Floor(c*bilinearSteps) / bilinearSteps
	}
	if k.tabulated() {
		i0 := int(math.Floor(c))
		f := c - float64(i0)
		lw := &cmLUT[int(f*cmLUTSteps+0.5)]
		for j := range 4 {
			idx[j] = min(max(i0-1+j, 0), k.n-1)
			w[j] = lw[j]
		}
		return 4
	}
	lo, hi := int(math.Ceil(c-k.support)), int(math.Floor(c+k.support))
	n := 0
	var sum float32
	for i := lo; i <= hi && n < len(idx); i++ {
		idx[n] = min(max(i, 0), k.n-1)
		if k.linear {
			w[n] = float32(tent(math.Abs(float64(i) - c)))
		} else {
			w[n] = float32(catmullRom(math.Abs(float64(i)-c) / k.stretch))
		}
		sum += w[n]
		n++
	}
	if sum != 0 {
		for j := range n {
			w[j] /= sum
		}
	}
	return n
}

func (k kernel1D) maxTaps() int { return int(2*math.Ceil(k.support)) + 2 }

// drawTransformed draws src through m into the pixels of area that the polygon poly
// (the placed picture cut by the clip) touches, weighted by coverage and opacity.
func (isa kernels) drawTransformed(dst *image.RGBA, area image.Rectangle, poly []svg.Point, src image.Image, m Matrix, opacity float64, workers int, bd bandEnv) {
	inv, ok := m.Invert()
	if !ok {
		return
	}
	// Only the source pixels the area reads are converted (the one-pixel ring of an
	// unrotated picture reads a few rows or columns): the area's preimage, widened
	// by the kernel's reach.
	sb := src.Bounds()
	pre := bounds(inv, area)
	pad := 4 + 4*math.Max(1, math.Max(math.Abs(inv[0])+math.Abs(inv[2]), math.Abs(inv[1])+math.Abs(inv[3])))
	lim := func(v float64) int { return int(math.Max(-1e9, math.Min(1e9, v))) }
	win := image.Rect(lim(math.Floor(pre.X-pad)), lim(math.Floor(pre.Y-pad)), lim(math.Ceil(pre.X+pre.W+pad)), lim(math.Ceil(pre.Y+pre.H+pad))).
		Intersect(image.Rect(0, 0, sb.Dx(), sb.Dy()))
	if win.Empty() {
		return
	}
	// Pass 1 runs along the source rows; transpose when they stand nearer vertical.
	// Opaque sources are read span by span from the decoded image by the band
	// workers (resample_span.go); others are converted and transposed in one copy.
	swap := math.Abs(m[0]) < math.Abs(m[1])
	fetchSpan := isa.opaqueSpanFetcher(src, win, swap)
	var prefetchSpan func(y, x0, x1 int)
	var rgba *image.RGBA
	if fetchSpan != nil {
		if isa.prefetch {
			prefetchSpan = spanPrefetcher(src, win, swap)
		}
	} else {
		rgba = orientedRGBA(src, win, swap, false, false)
		if rgba.Opaque() {
			fetchSpan = rgbaSpanFetcher(rgba.Pix, rgba.Stride, 0, false)
		}
	}
	opaque := fetchSpan != nil
	m = m.Mul(svg.Translate(float64(win.Min.X), float64(win.Min.Y)))
	sw, sh := win.Dx(), win.Dy()
	if swap {
		sw, sh = sh, sw
		m = Matrix{m[2], m[3], m[0], m[1], m[4], m[5]}
	}
	a, b, c, d, e, f := m[0], m[1], m[2], m[3], m[4], m[5]
	det := a*d - b*c
	if a == 0 || det == 0 {
		return
	}
	kx := newKernel(a, sw)     // pass 1: a output columns per source column
	ky := newKernel(det/a, sh) // pass 2: det/a output rows per source row
	// The source rows a band fills come in the order of v down its columns: upwards
	// where v decreases as Y grows.
	// Their spans move by -c/a pixels a row (u is linear in y): the span rowsAhead
	// rows on is this row's moved by spanShift, near enough for a hint.
	rowsAhead := prefetchAhead
	if a/det < 0 {
		rowsAhead = -rowsAhead
	}
	spanShift := int(max(-1e9, min(1e9, math.Round(-c/a*float64(rowsAhead)))))
	// Source centre coordinates (pixel i's centre at i) of the two passes:
	//   pass 1, row y, column X: u = (X + 0.5 - c (y + 0.5) - e) / a - 0.5
	//   pass 2, column X, row Y: v = (Y + 0.5 - f - b (X + 0.5 - e) / a) a / det - 0.5
	vAt := func(X, Y float64) float64 { return (Y+0.5-f-b*(X+0.5-e)/a)*a/det - 0.5 }
	// The source rows a column band reads: the v range of its pixels, widened by the
	// kernel, clamped to the source.
	// forEachBand's lines are groups of colsPerLine output columns: its 64-line bands
	// are then 64*colsPerLine columns wide, which keeps the canvas stores of a band
	// row in whole cache lines while the ring of pass-1 rows still fits in L2.
	const colsPerLine = 2
	transposed := image.Rect(area.Min.Y, 0, area.Max.Y, (area.Dx()+colsPerLine-1)/colsPerLine)
	// rows returns the output rows [ya, yb) the band of columns [x0, x1) draws and the
	// source rows [r0, r1) they read: the v range at the band's corners (v is linear
	// in X and Y), widened by the kernel, clamped to the source.
	rows := func(x0, x1 int) (ya, yb, r0, r1 int) {
		ya, yb = columnRows(poly, x0, x1)
		ya, yb = max(ya, area.Min.Y), min(yb, area.Max.Y)
		if ya >= yb {
			return 0, 0, 0, 0
		}
		v0, v1 := math.Inf(1), math.Inf(-1)
		for _, X := range [2]float64{float64(x0), float64(x1 - 1)} {
			for _, Y := range [2]float64{float64(ya), float64(yb - 1)} {
				v := vAt(X, Y)
				v0, v1 = math.Min(v0, v), math.Max(v1, v)
			}
		}
		r0 = int(math.Max(0, math.Min(float64(sh-1), math.Floor(v0-ky.support))))
		r1 = int(math.Max(0, math.Min(float64(sh-1), math.Ceil(v1+ky.support)))) + 1
		return ya, yb, r0, r1
	}
	// Bands of 64 columns (d = 1): each band computes its own source rows with rows,
	// so forEachBand's per-line span is not needed.
	noSpan := func(int) (int, int) { return 0, 0 }
	forEachBand(transposed, 1, sh, workers, true, noSpan, bd, func(bb *bandBuffers) func(bx0, bx1, _, _ int) {
		idx, w := bb.taps(max(kx.maxTaps(), ky.maxTaps()))
		fetchSpan := fetchSpan
		if m, ok := src.(*image.YCbCr); ok && swap && fetchSpan != nil {
			// Past 45°: the picture's columns read sixteen at a time, for this
			// worker.
			if f := isa.columnBlockFetcher(m, m.Rect.Min.X+win.Min.X, m.Rect.Min.Y+win.Min.Y, fetchSpan, c/a); f != nil {
				fetchSpan = f
			}
		}
		return func(l0, l1, _, _ int) {
			bx0, bx1 := area.Min.X+l0*colsPerLine, min(area.Max.X, area.Min.X+l1*colsPerLine)
			ya, yb, r0, r1 := rows(bx0, bx1)
			if ya >= yb || r0 >= r1 {
				return
			}
			bw := bx1 - bx0
			band := image.Rect(bx0, ya, bx1, yb)
			full0, full1 := coverage(&bb.cov, &bb.mask, poly, band)
			// Pass 1 runs lazily into a ring of source rows: as the output rows advance,
			// the rows they read (a window the band's shear wide) are computed once each
			// and stay in cache instead of a whole column of the source.
			dvdx := -b / det
			ring := ringRows(bw, dvdx, a/det, ky)
			if ring > 2*(r1-r0) {
				ring = nextPow2(r1 - r0)
			}
			rr := rowRing{have0: 0, have1: 0, size: ring}
			cs := intRingStride(ring)
			var fill func(y int)
			if opaque {
				// Opaque sources: RGB in fixed point, as the unrotated path does, in
				// a column-major ring (intRing): a pixel's four taps are 16
				// consecutive values.
				bb.interInt = grow(bb.interInt, cs*bw)
				fill = func(y int) {
					u0 := (float64(bx0)+0.5-c*(float64(y)+0.5)-e)/a - 0.5
					// Only the source pixels the band's columns reach: the samples'
					// positions relative to the span's first pixel are exact (an
					// integer subtracted), and taps clamp at the span's ends only
					// where those are the source's (sourceSpan), so the values are
					// those of the whole row.
					lo, hi := sourceSpan(u0, u0+float64(bw-1)/a, kx, sw)
					bb.spanBuf = grow(bb.spanBuf, 4*(hi-lo)+spanPad)
					row := fetchSpan(y, lo, hi, bb.spanBuf)
					if yn := y + rowsAhead; prefetchSpan != nil && yn >= r0 && yn < r1 {
						prefetchSpan(yn, max(0, lo+spanShift), min(sw, hi+spanShift))
					}
					ks := kx
					ks.n = hi - lo
					slot := y & (ring - 1)
					isa.resampleRowInt(bb.interInt[4*slot:], bw, cs, row, u0-float64(lo), 1/a, ks, idx, w)
					mirrorSlot(bb.interInt, bw, cs, ring, slot)
				}
			} else {
				bb.inter = grow(bb.inter, 4*bw*ring)
				fill = func(y int) {
					u0 := (float64(bx0)+0.5-c*(float64(y)+0.5)-e)/a - 0.5
					resampleRow(bb.inter[4*bw*(y&(ring-1)):][:4*bw], rgba.Pix[y*rgba.Stride:][:4*sw], u0, 1/a, kx, idx, w)
				}
			}
			// Pass 2 and Over compositing, row by row for contiguous stores. v is linear:
			// v(X, Y) = v(bx0, Y) + (X - bx0) dvdx.
			span := float64(bw-1) * dvdx
			// vAt(bx0, Y) with its column term computed once a band: the same
			// operations in the same order, so the same value, one division a row
			// fewer.
			sx := b * (float64(bx0) + 0.5 - e) / a
			for Y := ya; Y < yb; Y++ {
				v0 := (float64(Y)+0.5-f-sx)*a/det - 0.5
				lo, hi := v0, v0+span
				if lo > hi {
					lo, hi = hi, lo
				}
				rr.ensure(max(r0, int(math.Floor(lo-ky.support))-1), min(r1, int(math.Ceil(hi+ky.support))+2), fill)
				dp := dst.Pix[dst.PixOffset(bx0, Y):][:4*bw]
				var mrow []uint8
				switch {
				case Y < full0:
					mrow = bb.mask[(Y-ya)*bw:][:bw]
				case Y < full1:
					mrow = bb.full(bw)
				default:
					mrow = bb.mask[(Y-ya-(full1-full0))*bw:][:bw]
				}
				if Y+prefetchAhead < yb {
					isa.prefetchForWrite(dst.Pix[dst.PixOffset(bx0, Y+prefetchAhead):][:4*bw])
				}
				if opaque {
					isa.resampleColumnsRowInt(dp, mrow, Y >= full0 && Y < full1, bb.interInt, cs, ring, sh, v0, dvdx, opacity, ky, idx, w)
				} else {
					resampleColumnsRow(dp, mrow, bb.inter, bw, ring, sh, v0, dvdx, float32(opacity), ky, idx, w)
				}
			}
		}
	})
}

// prefetchAhead is how many rows ahead of its work a band asks for the canvas row it
// will write (prefetchForWrite: owned, so that a line another core wrote last is taken
// over before the store reaches it) and the source row it will read (prefetchLines).
// A band's row is a few hundred bytes of a canvas row (13.6 KB at 3400 pixels), so
// each row it writes lies in another page, and the hardware prefetchers, which follow
// streams within a page, do not bring it in: a 30° draw's stores and its conversion's
// loads waited for about a fifth of its time (perf annotate). Eight rows are some
// microseconds of work ahead, within the L1 cache's room: a 30° draw took 10 % less
// CPU at one core, and 2, 4, 16 or 32 rows measured no better.
const prefetchAhead = 8

// prefetchForWrite asks for the lines of p, which are about to be written: owned
// where the CPU has PREFETCHW, so that a store to a line another core wrote last does
// not wait for it to be taken back; read otherwise.
func (isa kernels) prefetchForWrite(p []uint8) {
	if isa.prefetch {
		prefetchLines(p, isa.prefetchW)
	}
}

// sourceSpan returns the pixels [lo, hi) of a source row of n pixels that pass 1
// reads for samples at positions u0..u1 (either order): every tap of every sample,
// clamped to the row. A span shorter than the kernel's reach on a side ends at the
// row's edge there, so a tap clamped to the span is clamped to the row. Samples all
// beyond one edge read that edge's pixel alone.
func sourceSpan(u0, u1 float64, k kernel1D, n int) (lo, hi int) {
	if u0 > u1 {
		u0, u1 = u1, u0
	}
	pad := int(math.Ceil(k.support)) + 1
	// math.Max and math.Min are calls on amd64 (about 1 % of a rotated draw, which
	// calls this for every source row of every band): the same clamp in
	// comparisons, NaN passing through as it did.
	lim := func(v float64) int {
		v = math.Floor(v)
		if v < -1e9 {
			v = -1e9
		} else if v > 1e9 {
			v = 1e9
		}
		return int(v)
	}
	lo, hi = max(0, lim(u0)-pad), min(n, lim(u1)+pad+1)
	if hi <= lo {
		if lim(u1) < 0 {
			return 0, 1
		}
		return n - 1, n
	}
	return lo, hi
}

// ringRows is the ring size (a power of two) holding the pass-1 rows one output row of
// a band reads, and the next row's: the shear across the band, the kernel, the step.
func ringRows(bw int, dvdx, dvdy float64, ky kernel1D) int {
	n := math.Abs(dvdx)*float64(bw) + 2*ky.support + math.Abs(dvdy) + 8
	if n > 1<<20 || math.IsNaN(n) {
		n = 1 << 20
	}
	return nextPow2(int(n))
}

func nextPow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}

// rowRing tracks which source rows [have0, have1) hold valid pass-1 values in a ring
// of size slots (row y in slot y mod size).
type rowRing struct{ have0, have1, size int }

// ensure computes with fill the rows of [lo, hi) not held yet.
func (r *rowRing) ensure(lo, hi int, fill func(y int)) {
	if lo >= hi || (lo >= r.have0 && hi <= r.have1) {
		return
	}
	if hi-lo > r.size {
		hi = lo + r.size
	}
	// The rows below and above those held, in order: a band's next output row
	// mostly needs one or two new rows of a window of dozens (looping over the
	// window cost 19M instructions a 300-dpi rotated draw: callgrind).
	for y := lo; y < min(hi, r.have0); y++ {
		fill(y)
	}
	for y := max(lo, r.have1); y < hi; y++ {
		fill(y)
	}
	if hi < r.have0 || lo > r.have1 {
		r.have0, r.have1 = lo, hi
		return
	}
	// Rows kept from before are those whose slots the new rows did not take.
	r.have0 = max(min(lo, r.have0), hi-r.size)
	r.have1 = min(max(hi, r.have1), lo+r.size)
}

// resampleRow is pass 1 for one source row: out[4i:4i+4] is the row sampled at
// u0 + i du (source pixel centres), premultiplied RGBA floats.
func resampleRow(out []float32, row []uint8, u0, du float64, k kernel1D, idx []int, w []float32) {
	n := len(row) / 4
	u := u0
	for i := 0; i < len(out); i += 4 {
		o := out[i : i+4 : i+4]
		c := u
		if c < -4 {
			c = -4
		} else if c > float64(n)+4 {
			c = float64(n) + 4
		}
		if i0 := int(math.Floor(c)); k.tabulated() && i0 >= 1 && i0+2 < n {
			// Enlarging, all four taps inside: tabulated weights, no clamping.
			lw := &cmLUT[int((c-float64(i0))*cmLUTSteps+0.5)]
			p := row[4*(i0-1) : 4*(i0-1)+16 : 4*(i0-1)+16]
			w0, w1, w2, w3 := lw[0], lw[1], lw[2], lw[3]
			o[0] = w0*float32(p[0]) + w1*float32(p[4]) + w2*float32(p[8]) + w3*float32(p[12])
			o[1] = w0*float32(p[1]) + w1*float32(p[5]) + w2*float32(p[9]) + w3*float32(p[13])
			o[2] = w0*float32(p[2]) + w1*float32(p[6]) + w2*float32(p[10]) + w3*float32(p[14])
			o[3] = w0*float32(p[3]) + w1*float32(p[7]) + w2*float32(p[11]) + w3*float32(p[15])
		} else {
			m := k.taps(c, idx, w)
			var pr, pg, pb, pa float32
			for j := range m {
				p := row[4*idx[j] : 4*idx[j]+4 : 4*idx[j]+4]
				wj := w[j]
				pr += wj * float32(p[0])
				pg += wj * float32(p[1])
				pb += wj * float32(p[2])
				pa += wj * float32(p[3])
			}
			o[0], o[1], o[2], o[3] = pr, pg, pb, pa
		}
		u += du
	}
}

// resampleColumnsRow is pass 2 for one output row of a band: pixel i samples column i
// of the pass-1 rows (row y in slot y mod ring of inter, bw columns each; sh source
// rows) at v0 + i dvdx, and is composited Over dp weighted by coverage and opacity.
func resampleColumnsRow(dp []uint8, mrow []uint8, inter []float32, bw, ring, sh int, v0, dvdx float64, opacity float32, k kernel1D, idx []int, w []float32) {
	stride := 4 * bw
	mask := ring - 1
	hiC := float64(sh) + 4
	for i, cv := range mrow {
		if cv == 0 {
			continue
		}
		c := v0 + float64(i)*dvdx
		if c < -4 {
			c = -4
		} else if c > hiC {
			c = hiC
		}
		var pr, pg, pb, pa float32
		if i0 := int(math.Floor(c)); k.tabulated() && i0 >= 1 && i0+2 < sh {
			lw := &cmLUT[int((c-float64(i0))*cmLUTSteps+0.5)]
			a0 := stride*((i0-1)&mask) + 4*i
			a1 := stride*(i0&mask) + 4*i
			a2 := stride*((i0+1)&mask) + 4*i
			a3 := stride*((i0+2)&mask) + 4*i
			p0, p1, p2, p3 := inter[a0:a0+4:a0+4], inter[a1:a1+4:a1+4], inter[a2:a2+4:a2+4], inter[a3:a3+4:a3+4]
			w0, w1, w2, w3 := lw[0], lw[1], lw[2], lw[3]
			pr = w0*p0[0] + w1*p1[0] + w2*p2[0] + w3*p3[0]
			pg = w0*p0[1] + w1*p1[1] + w2*p2[1] + w3*p3[1]
			pb = w0*p0[2] + w1*p1[2] + w2*p2[2] + w3*p3[2]
			pa = w0*p0[3] + w1*p1[3] + w2*p2[3] + w3*p3[3]
		} else {
			m := k.taps(c, idx, w)
			for j := range m {
				at := stride*(idx[j]&mask) + 4*i
				p := inter[at : at+4 : at+4]
				wj := w[j]
				pr += wj * p[0]
				pg += wj * p[1]
				pb += wj * p[2]
				pa += wj * p[3]
			}
		}
		// Catmull-Rom overshoots: keep a valid premultiplied colour.
		pa = clampf(pa, 0, 255)
		pr, pg, pb = clampf(pr, 0, pa), clampf(pg, 0, pa), clampf(pb, 0, pa)
		q := dp[4*i : 4*i+4 : 4*i+4]
		if cv == 255 && opacity == 1 && pa == 255 {
			q[0], q[1], q[2], q[3] = uint8(pr+0.5), uint8(pg+0.5), uint8(pb+0.5), 255
			continue
		}
		f := float32(cv) / 255 * opacity
		pr, pg, pb, pa = pr*f, pg*f, pb*f, pa*f
		inv := (255 - pa) / 255
		q[0] = uint8(pr + float32(q[0])*inv + 0.5)
		q[1] = uint8(pg + float32(q[1])*inv + 0.5)
		q[2] = uint8(pb + float32(q[2])*inv + 0.5)
		q[3] = uint8(pa + float32(q[3])*inv + 0.5)
	}
}

// cmLUTInt is cmLUT in fixed point: hBits (= vBits) fraction bits, each row summing
// to exactly one so that flat areas stay flat.
var cmLUTInt = func() (t [cmLUTSteps + 1][4]int32) {
	for i := range t {
		sum, big := int32(0), 0
		for k := range 4 {
			t[i][k] = int32(math.Round(float64(cmLUT[i][k]) * (1 << hBits)))
			sum += t[i][k]
			if abs32(t[i][k]) > abs32(t[i][big]) {
				big = k
			}
		}
		t[i][big] += 1<<hBits - sum
	}
	return
}()

// cmLUTRounded is cmLUT with each weight rounded to hBits as fixedTapWeights rounds
// the generic taps' weights (without cmLUTInt's correction of their sum).
var cmLUTRounded = func() (t [cmLUTSteps + 1][4]int32) {
	for i := range t {
		fixedTapWeights(cmLUT[i][:], t[i][:])
	}
	return
}()

// clampedTaps4 is, for an enlarging kernel (stretch 1) over n pixels at the 32.32
// position v, what kernel1D.taps and fixedTapWeights give: taps t0..t0+3, each
// clamped to [0, n), with the weights cmLUTRounded[L]. Those took a float position,
// its clamps and four float roundings a sample: about 5 % of a 60° draw's time
// (pprof), spent on the pixels whose taps cross the picture's edges.
func clampedTaps4(v int64, n int) (t0, L int) {
	// As taps clamps the position to [-support-2, n+support+1] = [-4, n+3]: a
	// whole pixel there, weight row 0.
	switch {
	case v < -4<<32:
		return -5, 0
	case v > int64(n+3)<<32:
		return n + 2, 0
	}
	return int(v>>32) - 1, lutIndex(v)
}

// cmLUTIntSum is, for each row of cmLUT, the sum of its weights as fixedTapWeights
// rounds them: a sample whose four taps all clamp to one edge pixel is that pixel
// times this sum, what the generic taps give to the bit.
var cmLUTIntSum = func() (t [cmLUTSteps + 1]int32) {
	for i := range t {
		var wi [4]int32
		fixedTapWeights(cmLUT[i][:], wi[:])
		t[i] = wi[0] + wi[1] + wi[2] + wi[3]
	}
	return
}()

// edgeSample reports whether kernel k, enlarging, samples a row of n pixels at c
// (pixel centres) with all four taps clamped to one edge pixel, e, and the cmLUT row
// L the generic taps would use: beyond the row's first or last pixel by more than
// the kernel's reach, where a rotated band's columns meet the picture's edges
// (about 6 % of pass-1 samples at 30°, each costing two to three inside ones
// through taps: callgrind).
func edgeSample(c float64, k kernel1D, n int) (e, L int, ok bool) {
	if !k.tabulated() {
		return 0, 0, false
	}
	// As taps clamps and splits c.
	c = math.Max(-k.support-2, math.Min(float64(n)+k.support+1, c))
	i0 := int(math.Floor(c))
	switch {
	case i0 <= -2:
		e = 0
	case i0 >= n:
		e = n - 1
	default:
		return 0, 0, false
	}
	return e, int((c-float64(i0))*cmLUTSteps + 0.5), true
}

// edgeSampleFixed is edgeSample at a 32.32 position, in integers: the float clamps
// and conversions cost pass 1 about 30M instructions a 300-dpi rotated draw
// (callgrind). Beyond the clamp (c < -4 or c > n+3, support 2) the position is a
// whole pixel, weight row 0.
func edgeSampleFixed(ui int64, k kernel1D, n int) (e, L int, ok bool) {
	if !k.tabulated() {
		return 0, 0, false
	}
	switch i0 := ui >> 32; {
	case i0 < -4:
		return 0, 0, true
	case i0 >= int64(n)+3:
		return n - 1, 0, true
	case i0 <= -2:
		e = 0
	case i0 >= int64(n):
		e = n - 1
	default:
		return 0, 0, false
	}
	return e, lutIndex(ui), true
}

// fixedTapWeights rounds the float weights of a generic tap set to hBits.
func fixedTapWeights(w []float32, out []int32) {
	for j, v := range w {
		out[j] = int32(roundHalfAway(float64(v) * (1 << hBits)))
	}
}

// resampleRowInt is resampleRow for opaque sources: RGB at 2^iBits, as
// resampleRowRGB of the unrotated path, sample s (of n) written to
// out[s*ostride:][:3]; out[s*ostride+3] (an intRing slot's fourth value, ostride >=
// 4) may be overwritten.
func (isa kernels) resampleRowInt(out []int16, n, ostride int, row []uint8, u0, du float64, k kernel1D, idx []int, w []float32) {
	const round = 1 << (hBits - iBits - 1)
	rn := len(row) / 4
	// u steps in 32.32 fixed point: the integer part indexes, the top bits of the
	// fraction pick the tabulated weights, no float rounding per sample.
	ui, dui := toFixed32(u0), toFixed32(du)
	for s := 0; s < n; s++ {
		if i0 := ui >> 32; k.tabulated() && i0 >= 1 && i0+2 < int64(rn) {
			// A run of samples with all four taps inside (resample_coverage.go),
			// from this one on; a sample beyond the row's edge skips the call (a
			// rotated band's rows start and end with dozens of them).
			ds := isa.rowRunInt4(out[s*ostride:], n-s, ostride, row, rn, ui, dui)
			if s += ds; s >= n {
				break
			}
			ui += int64(ds) * dui
		}
		if i0 := ui >> 32; k.tabulated() && (i0 < -4 || i0 >= int64(rn)+3) {
			// Beyond the clamp every tap is the edge pixel at a whole pixel
			// (edgeSampleFixed, weight row 0): one value for the run of samples
			// that stay there, stored without the per-sample tests (a rotated band
			// has dozens of them at each end of its rows near the source's sides).
			right, e := i0 >= 0, 0
			if right {
				e = rn - 1
			}
			p, sum := row[4*e:4*e+3:4*e+3], cmLUTIntSum[0]
			r := int16((sum*int32(p[0]) + round) >> (hBits - iBits))
			g := int16((sum*int32(p[1]) + round) >> (hBits - iBits))
			b := int16((sum*int32(p[2]) + round) >> (hBits - iBits))
			// The samples that stay there, counted up front (a test a sample cost
			// about 3M instructions a 60° draw).
			lo, hi := int64(rn+3)<<32, int64(1)<<62
			if !right {
				lo, hi = -1<<62, -4<<32
			}
			m := insideRange(n-s, ui, dui, lo, hi)
			for j, at := 0, s*ostride; j < m; j, at = j+1, at+ostride {
				o := out[at : at+3 : at+3]
				o[0], o[1], o[2] = r, g, b
			}
			s += m - 1
			ui += int64(m) * dui
			continue
		}
		o := out[s*ostride:][:3:3]
		var r, g, b int32
		if i0 := int(ui >> 32); k.tabulated() && i0 >= 1 && i0+2 < rn {
			lw := &cmLUTInt[lutIndex(ui)]
			p := row[4*(i0-1) : 4*(i0-1)+16 : 4*(i0-1)+16]
			w0, w1, w2, w3 := lw[0], lw[1], lw[2], lw[3]
			r = w0*int32(p[0]) + w1*int32(p[4]) + w2*int32(p[8]) + w3*int32(p[12])
			g = w0*int32(p[1]) + w1*int32(p[5]) + w2*int32(p[9]) + w3*int32(p[13])
			b = w0*int32(p[2]) + w1*int32(p[6]) + w2*int32(p[10]) + w3*int32(p[14])
		} else if e, L, ok := edgeSampleFixed(ui, k, rn); ok {
			// Every tap is the same edge pixel: its value times the weights' sum.
			p, sum := row[4*e:4*e+3:4*e+3], cmLUTIntSum[L]
			r, g, b = sum*int32(p[0]), sum*int32(p[1]), sum*int32(p[2])
		} else if k.tabulated() {
			// Near the row's ends: four taps clamped to the row (clampedTaps4).
			t0, L := clampedTaps4(ui, rn)
			lw := &cmLUTRounded[L]
			for j := range 4 {
				at := 4 * min(max(t0+j, 0), rn-1)
				p := row[at : at+3 : at+3]
				r += lw[j] * int32(p[0])
				g += lw[j] * int32(p[1])
				b += lw[j] * int32(p[2])
			}
		} else {
			// Declared here, zeroed only for the few samples that need it (every
			// call cleared it: 1M instructions a rotated draw).
			var wi [64]int32
			m := min(k.taps(fromFixed32(ui), idx, w), len(wi))
			fixedTapWeights(w[:m], wi[:m])
			for j := range m {
				p := row[4*idx[j] : 4*idx[j]+3 : 4*idx[j]+3]
				r += wi[j] * int32(p[0])
				g += wi[j] * int32(p[1])
				b += wi[j] * int32(p[2])
			}
		}
		o[0], o[1], o[2] = int16((r+round)>>(hBits-iBits)), int16((g+round)>>(hBits-iBits)), int16((b+round)>>(hBits-iBits))
		ui += dui
	}
}

// toFixed32 converts a source position to 32.32 fixed point, clamped far outside any
// source (a few pixels beyond an edge all read the edge pixel).
func toFixed32(v float64) int64 {
	if !(v > -1<<20) { // NaN too
		v = -1 << 20
	} else if v > 1<<20 {
		v = 1 << 20
	}
	return roundHalfAway(v * (1 << 32))
}

// roundHalfAway is int64(math.Round(x)) for |x| <= 2^52 (not NaN): math.Round is a
// call of some twenty instructions on amd64, and toFixed32 runs for every source row
// and output row of every band (about 4 % of a 30° draw's time in pprof). The
// conversion truncates toward zero and the remainder x - t is exact at these magnitudes, so comparing it
// with ±0.5 rounds halves away from zero as math.Round does.
func roundHalfAway(x float64) int64 {
	t := int64(x)
	if f := x - float64(t); f >= 0.5 {
		t++
	} else if f <= -0.5 {
		t--
	}
	return t
}

func fromFixed32(v int64) float64 { return float64(v) / (1 << 32) }

// lutIndex is the weight table row of a 32.32 position: its fraction rounded to
// 1/cmLUTSteps.
func lutIndex(v int64) int {
	const shift = 32 - cmLUTBits
	return int((v&0xffffffff + 1<<(shift-1)) >> shift)
}

// resampleColumnsRowInt is resampleColumnsRow for opaque sources, over a
// column-major ring of pass-1 values (intRing: column i's slots from i*cs, RGB at
// 2^iBits): wholly covered pixels are written opaque, edge pixels blended by coverage.
// full says every pixel of the row is wholly covered (coverage's rows set without
// rasterizing, about nine in ten of a rotated picture's): no scan of mrow then.
func (isa kernels) resampleColumnsRowInt(dp []uint8, mrow []uint8, full bool, inter []int16, cs, ring, sh int, v0, dvdx, opacity float64, k kernel1D, idx []int, w []float32) {
	mask := ring - 1
	vi, dvi := toFixed32(v0), toFixed32(dvdx)
	lo, hi := 0, len(mrow)
	if !full {
		lo, hi = nonZeroSpan(mrow)
	}
	if lo >= hi {
		return
	}
	if k.tabulated() {
		// The pixels whose four taps lie inside the source (v is linear in i, so
		// they are one run) take columnsRowInt4; those beyond, near the source's top
		// and bottom edges, the loop below. A band's rows that cross those edges
		// (about 70 of them at 30°) went wholly through the loop.
		inside := func(i int) bool {
			i0 := (vi + int64(i)*dvi) >> 32
			return i0 >= 1 && i0+2 < int64(sh)
		}
		a, b := lo, hi
		for a < b && !inside(a) {
			a++
		}
		for b > a && !inside(b-1) {
			b--
		}
		if a < b {
			if full {
				isa.columnsRunInt4(dp, mrow, inter, cs, mask, a, b, vi, dvi, opacity)
			} else {
				isa.columnsRowInt4(dp, mrow, inter, cs, mask, a, b, vi, dvi, opacity)
			}
			columnsRowIntTaps(dp, mrow, inter, cs, mask, sh, b, hi, vi, dvi, opacity, k, idx, w)
			hi = a
		}
	}
	columnsRowIntTaps(dp, mrow, inter, cs, mask, sh, lo, hi, vi, dvi, opacity, k, idx, w)
}

// columnsRowIntTaps is resampleColumnsRowInt for pixels lo..hi-1 one at a time, taps
// clamped to the source's sh rows.
func columnsRowIntTaps(dp []uint8, mrow []uint8, inter []int16, cs, mask, sh, lo, hi int, vi, dvi int64, opacity float64, k kernel1D, idx []int, w []float32) {
	if lo >= hi {
		// Most rows of a rotated picture: none beyond the source's top and bottom
		// (and no weights to clear).
		return
	}
	var wi [64]int32
	vi += int64(lo-1) * dvi
	for i := lo; i < hi; i++ {
		cv := mrow[i]
		vi += dvi
		if cv == 0 {
			continue
		}
		var r, g, b int32
		col := inter[i*cs : (i+1)*cs]
		if i0 := int(vi >> 32); k.tabulated() && i0 >= 1 && i0+2 < sh {
			lw := &cmLUTInt[lutIndex(vi)]
			at := 4 * ((i0 - 1) & mask)
			p := col[at : at+16 : at+16]
			w0, w1, w2, w3 := lw[0], lw[1], lw[2], lw[3]
			r, g, b = tap4(p, 0, w0, w1, w2, w3), tap4(p, 1, w0, w1, w2, w3), tap4(p, 2, w0, w1, w2, w3)
		} else if k.tabulated() {
			// Near the source's top or bottom: four taps clamped to its rows
			// (clampedTaps4).
			t0, L := clampedTaps4(vi, sh)
			lw := &cmLUTRounded[L]
			for j := range 4 {
				at := 4 * (min(max(t0+j, 0), sh-1) & mask)
				p := col[at : at+3 : at+3]
				r += lw[j] * int32(p[0])
				g += lw[j] * int32(p[1])
				b += lw[j] * int32(p[2])
			}
		} else {
			m := min(k.taps(fromFixed32(vi), idx, w), len(wi))
			fixedTapWeights(w[:m], wi[:m])
			for j := range m {
				at := 4 * (idx[j] & mask)
				p := col[at : at+3 : at+3]
				r += wi[j] * int32(p[0])
				g += wi[j] * int32(p[1])
				b += wi[j] * int32(p[2])
			}
		}
		q := dp[4*i : 4*i+4 : 4*i+4]
		if cv == 255 && opacity == 1 {
			q[0], q[1], q[2], q[3] = toByte(r), toByte(g), toByte(b), 255
			continue
		}
		blendOpaque(q, r, g, b, cv, opacity)
	}
}

// blendOpaque composites an opaque pass-2 colour (at 2^(iBits+vBits)) Over q,
// weighted by coverage cv and opacity.
func blendOpaque(q []uint8, r, g, b int32, cv uint8, opacity float64) {
	q = q[:4:4]
	f := float32(cv) / 255 * float32(opacity)
	inv := 1 - f
	q[0] = uint8(float32(toByte(r))*f + float32(q[0])*inv + 0.5)
	q[1] = uint8(float32(toByte(g))*f + float32(q[1])*inv + 0.5)
	q[2] = uint8(float32(toByte(b))*f + float32(q[2])*inv + 0.5)
	q[3] = uint8(255*f + float32(q[3])*inv + 0.5)
}

// coverage writes into mask the exact area of each pixel of band that poly covers,
// row after row, w bytes a row.
// golang.org/x/image/vector is not used here: below 512 pixels a side it switches to
// fixed-point arithmetic that is off by up to a tenth of a pixel's area on slanted
// edges (65 instead of 91 of 255 on a 30° edge), which a rotated picture's edge shows.
// It returns the rows [in0, in1) that the polygon covers wholly (in0 = in1 =
// band.Max.Y when none), which it leaves out of the mask: the rows below them follow
// the rows above directly, so row Y's mask is row Y-band.Min.Y above them and row
// Y-band.Min.Y-(in1-in0) below. Their mask is a row of 255s, the caller's, and pass 2 needs no scan of
// it. Writing them cost a memset of most of the band, about 400 KB a band at 300 dpi,
// pushed through the cache for nothing, and a mask that size a worker each draw.
func coverage(cov *coverageScratch, mask *[]uint8, poly []svg.Point, band image.Rectangle) (in0, in1 int) {
	w := band.Dx()
	// Rows the polygon wholly covers across the band are not rasterized: only the
	// rows its edges cross are accumulated (resample_coverage.go).
	in0, in1 = coveredRows(poly, band)
	if in0 >= in1 {
		// None: the mask is every row, all of them "above".
		in0, in1 = band.Max.Y, band.Max.Y
	}
	above, below := in0-band.Min.Y, band.Max.Y-in1
	*mask = grow(*mask, w*(above+below))
	m := *mask
	coverageRows(cov, m[:w*above], poly, image.Rect(band.Min.X, band.Min.Y, band.Max.X, in0))
	coverageRows(cov, m[w*above:], poly, image.Rect(band.Min.X, in1, band.Max.X, band.Max.Y))
	return in0, in1
}

// coverageScratch is a band worker's buffers for coverageRows: the accumulation
// cells, all zero between uses (coverageRows clears the cells it read, not the whole
// buffer), and each row's span of the cells its edges touched.
type coverageScratch struct {
	acc []float64
	// spans[4y:4y+4] are the cells row y's downward edges touched, [lo, hi), and
	// those its upward edges touched, flat indexes. A convex polygon's edges going
	// down are on one side of it and those going up on the other, so each span is a
	// few cells; one span for both would be the whole row, as the polygon cut to the
	// band has edges on the band's two sides.
	spans []int
}

// coverageRows writes into pix (band's w x h pixels) the exact area of each pixel of
// band that poly covers.
func coverageRows(cov *coverageScratch, pix []uint8, poly []svg.Point, band image.Rectangle) {
	w, h := band.Dx(), band.Dy()
	if w <= 0 || h <= 0 {
		return
	}
	// The polygon cut to the band keeps every point inside the accumulation buffer.
	c := clipPolygon(poly, Rect{X: float64(band.Min.X), Y: float64(band.Min.Y), W: float64(w), H: float64(h)})
	if len(c) < 3 {
		clear(pix)
		return
	}
	// The cells are zero when they come (new, or cleared by the last use); the
	// spans are set below.
	cov.acc, cov.spans = grow(cov.acc, w*h+2), grow(cov.spans, 4*h)
	a, spans := cov.acc, cov.spans
	for y := range h {
		spans[4*y], spans[4*y+1], spans[4*y+2], spans[4*y+3] = len(a), 0, len(a), 0
	}
	ox, oy := float64(band.Min.X), float64(band.Min.Y)
	for i, p := range c {
		q := c[(i+1)%len(c)]
		accumulateLine(a, spans, w, h, p.X-ox, p.Y-oy, q.X-ox, q.Y-oy)
	}
	// The running sum of the cells is the coverage. Only the cells the edges touched
	// can add to it, a few a row (a band's edge rows are mostly wholly in or out), so
	// only those are read, and cleared for the next band; the pixels between them
	// take the coverage of the pixel before, filled as runs. The cells are read in the
	// same order and sum the same way as a scan of every cell, so the mask is the
	// same to the bit (TestCoverageRowsSparse). Scanning and clearing every cell
	// took a 30° draw's band workers about 6 % of their time.
	n := len(pix)
	sum, last, pos := 0.0, uint8(0), 0
	scan := func(lo, hi int) {
		lo, hi = max(lo, pos), min(hi, n)
		if lo >= hi {
			return
		}
		fillByte(pix[pos:lo], last)
		for i := lo; i < hi; i++ {
			if d := a[i]; d != 0 {
				a[i] = 0
				sum += d
				last = coverageByte(sum)
			}
			pix[i] = last
		}
		pos = hi
	}
	for y := range h {
		s := spans[4*y : 4*y+4 : 4*y+4]
		lo0, hi0, lo1, hi1 := s[0], s[1], s[2], s[3]
		if lo1 < lo0 {
			lo0, hi0, lo1, hi1 = lo1, hi1, lo0, hi0
		}
		if lo1 <= hi0 {
			// They overlap or meet: one run.
			scan(lo0, max(hi0, hi1))
			continue
		}
		scan(lo0, hi0)
		scan(lo1, hi1)
	}
	fillByte(pix[pos:], last)
	// The cells past the last pixel, where the last row's edges may spill, are not
	// read; keep them zero too.
	clear(a[n:])
}

// coverageByte is the mask value of a running sum of accumulated area: its magnitude
// (the winding direction does not matter), at most one, in 255ths.
func coverageByte(sum float64) uint8 {
	v := math.Abs(sum)
	if v >= 1 {
		return 255
	}
	return uint8(v*255 + 0.5)
}

// accumulateLine adds the signed area a line segment contributes to each pixel of a
// w x h buffer, whose running sum is then the coverage (the accumulation rasterizer of
// font-rs, in float64). The segment lies within [0, w] x [0, h]. Row y's span for the
// segment's direction (coverageScratch.spans) is widened to hold the cells its part
// of the segment touches (up to w+1 from the row's start: the last may be the next
// row's first).
func accumulateLine(a []float64, spans []int, w, h int, x0, y0, x1, y1 float64) {
	// Clipping may leave a point a rounding error outside.
	fw, fh := float64(w), float64(h)
	x0, x1 = math.Max(0, math.Min(fw, x0)), math.Max(0, math.Min(fw, x1))
	y0, y1 = math.Max(0, math.Min(fh, y0)), math.Max(0, math.Min(fh, y1))
	if y0 == y1 {
		return
	}
	dir := 1.0
	if y0 > y1 {
		dir, x0, y0, x1, y1 = -1, x1, y1, x0, y0
	}
	side := 0
	if dir < 0 {
		side = 2
	}
	dxdy := (x1 - x0) / (y1 - y0)
	x := x0
	for y := max(int(y0), 0); y < min(h, int(math.Ceil(y1))); y++ {
		line := y * w
		dy := math.Min(float64(y+1), y1) - math.Max(float64(y), y0)
		xnext := x + dxdy*dy
		d := dy * dir
		xa, xb := x, xnext
		if xa > xb {
			xa, xb = xb, xa
		}
		xaf := math.Floor(xa)
		xai := int(xaf)
		xbc := math.Ceil(xb)
		xbi := int(xbc)
		sp := spans[4*y+side : 4*y+side+2 : 4*y+side+2]
		sp[0], sp[1] = min(sp[0], line+xai), max(sp[1], line+max(xai+2, xbi+1))
		if xbi <= xai+1 {
			xmf := 0.5*(x+xnext) - xaf
			a[line+xai] += d - d*xmf
			a[line+xai+1] += d * xmf
		} else {
			s := 1 / (xb - xa)
			x0f := xa - xaf
			a0 := 0.5 * s * (1 - x0f) * (1 - x0f)
			x1f := xb - xbc + 1
			am := 0.5 * s * x1f * x1f
			a[line+xai] += d * a0
			if xbi == xai+2 {
				a[line+xai+1] += d * (1 - a0 - am)
			} else {
				a1 := s * (1.5 - x0f)
				a[line+xai+1] += d * (a1 - a0)
				for xi := xai + 2; xi < xbi-1; xi++ {
					a[line+xi] += d * s
				}
				a2 := a1 + float64(xbi-xai-3)*s
				a[line+xbi-1] += d * (1 - a2 - am)
			}
			a[line+xbi] += d * am
		}
		x = xnext
	}
}

// premultipliedRGBA returns the part win of src (in coordinates from src's top-left)
// as an *image.RGBA starting at (0, 0): a view into src when it is one, else a
// converted copy (the decoders' YCbCr, Gray and NRGBA).
func premultipliedRGBA(src image.Image, win image.Rectangle) *image.RGBA {
	b := src.Bounds()
	if m, ok := src.(*image.RGBA); ok {
		off := m.PixOffset(b.Min.X+win.Min.X, b.Min.Y+win.Min.Y)
		return &image.RGBA{Pix: m.Pix[off:], Stride: m.Stride, Rect: image.Rect(0, 0, win.Dx(), win.Dy())}
	}
	out := image.NewRGBA(image.Rect(0, 0, win.Dx(), win.Dy()))
	draw.Draw(out, out.Rect, src, b.Min.Add(win.Min), draw.Src)
	return out
}
