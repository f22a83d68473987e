package resample

import (
	"image"
	"image/color"
	"math"
	"sync"
)

// scaleAxisAligned draws src into dst through an axis-aligned placement (x' = a*x + e,
// y' = d*y + f with a, d > 0), limited to clip, compositing Over. It is the fast path
// of Draw for the common unrotated picture: Catmull-Rom applied separably (a
// horizontal pass, then a vertical one) costs about 8 kernel taps per output pixel
// instead of the 16 of a general 2D transform, and each band of output rows keeps
// only the horizontally resampled source rows it needs, so the working memory stays a
// few MB whatever the sizes.
//
// Pixel conventions follow golang.org/x/image/draw's Transform: source pixel i covers
// [i, i+1); an output pixel is drawn when its centre maps inside the source, and the
// kernel's taps outside the source are left out (weights renormalised). When shrinking
// the kernel widens by the shrink factor, so every source pixel contributes.
// Sources without transparency take scaleOpaque's integer path.
//
// bd keeps the band workers' buffers across draws (bandBuffers) and stops them when
// the render's context ends (bandEnv).
func (isa kernels) scaleAxisAligned(dst *image.RGBA, clip image.Rectangle, src image.Image, a, e, d, f float64, workers int, bd bandEnv) {
	sb := src.Bounds()
	sw, sh := sb.Dx(), sb.Dy()
	// Output pixels whose centres map inside the source.
	x0 := int(math.Ceil(e - 0.5))
	x1 := int(math.Ceil(e + a*float64(sw) - 0.5))
	y0 := int(math.Ceil(f - 0.5))
	y1 := int(math.Ceil(f + d*float64(sh) - 0.5))
	area := image.Rect(x0, y0, x1, y1).Intersect(clip).Intersect(dst.Bounds())
	if area.Empty() {
		return
	}
	cols := kernelWeights(area.Min.X, area.Max.X, a, e, sw)
	rows := kernelWeights(area.Min.Y, area.Max.Y, d, f, sh)
	if fetch := isa.opaqueRowFetcher(src); fetch != nil {
		newFetch := func() func(int, []uint8) { return fetch }
		if v, ok := src.(*orientedView); ok && v.swap && isa.avx2 {
			// A quarter turn: each worker reads the picture's columns sixteen at
			// a time (orientedView.columnRows).
			newFetch = func() func(int, []uint8) { return v.columnRows(fetch) }
		}
		isa.scaleOpaque(dst, area, newFetch, sw, sh, cols, rows, d, workers, bd)
		return
	}
	fetch := rowFetcher(src)

	span := func(y int) (int, int) { w := &rows[y-area.Min.Y]; return w.start, len(w.w) }
	forEachBand(area, d, sh, workers, false, span, bd, func(bb *bandBuffers) func(by0, by1, r0, r1 int) {
		bb.srcRowF = grow(bb.srcRowF, 4*sw)
		srcRow := bb.srcRowF
		return func(by0, by1, r0, r1 int) {
			width := area.Dx()
			bb.inter = grow(bb.inter, 4*width*(r1-r0))
			tmp := bb.inter
			// Horizontal pass: each needed source row to output columns.
			for sy := r0; sy < r1; sy++ {
				fetch(sy, srcRow)
				out := tmp[4*width*(sy-r0):]
				for i := range cols {
					c := &cols[i]
					var pr, pg, pb, pa float32
					for k, wk := range c.w {
						p := srcRow[4*(c.start+k):]
						pr += wk * p[0]
						pg += wk * p[1]
						pb += wk * p[2]
						pa += wk * p[3]
					}
					o := out[4*i:]
					o[0], o[1], o[2], o[3] = pr, pg, pb, pa
				}
			}
			// Vertical pass and Over compositing.
			for y := by0; y < by1; y++ {
				rw := &rows[y-area.Min.Y]
				dp := dst.Pix[dst.PixOffset(area.Min.X, y):]
				for i := 0; i < width; i++ {
					var pr, pg, pb, pa float32
					for k, wk := range rw.w {
						p := tmp[4*width*(rw.start+k-r0)+4*i:]
						pr += wk * p[0]
						pg += wk * p[1]
						pb += wk * p[2]
						pa += wk * p[3]
					}
					// Catmull-Rom overshoots: keep a valid premultiplied colour.
					pa = clampf(pa, 0, 255)
					pr, pg, pb = clampf(pr, 0, pa), clampf(pg, 0, pa), clampf(pb, 0, pa)
					q := dp[4*i : 4*i+4 : 4*i+4]
					inv := (255 - pa) / 255
					q[0] = uint8(pr + float32(q[0])*inv + 0.5)
					q[1] = uint8(pg + float32(q[1])*inv + 0.5)
					q[2] = uint8(pb + float32(q[2])*inv + 0.5)
					q[3] = uint8(pa + float32(q[3])*inv + 0.5)
				}
			}
		}
	})
}

// Fixed-point scales of the opaque path. Horizontal weights carry hBits fraction
// bits; the horizontal sums are rounded to iBits (1/64 of a level, far below what
// the 8-bit output resolves) so that the vertical sums, with vBits-weight, stay
// within int32: 255 * 2^iBits * 2^vBits times the kernel's sum of absolute weights
// (under 1.3 for Catmull-Rom) is about 2^28.3.
const (
	hBits = 14
	iBits = 6
	vBits = 14
)

// scaleOpaque is scaleAxisAligned for a source without transparency. The result of
// Over is then the resampled colour itself: no alpha channel to carry, no blend with
// the canvas, and the arithmetic can be integer. Each band keeps its horizontally
// resampled source rows as int32 RGB at 2^iBits; bytes in, bytes out, no float
// conversion. BenchmarkScaleAxisAligned (the reference T-shirt's photo enlargement)
// takes about half the time of the float path (85 against 180 ms on one core).
//
// newFetch returns a row fetcher for one band worker.
func (isa kernels) scaleOpaque(dst *image.RGBA, area image.Rectangle, newFetch func() func(y int, out []uint8), sw, sh int, colsF, rowsF []tapWeights, d float64, workers int, bd bandEnv) {
	cols := isa.newRowPlan(fixedWeights(colsF, hBits), 3*sw)
	rows := fixedWeights(rowsF, vBits)
	width := area.Dx()
	span := func(y int) (int, int) { w := &rows[y-area.Min.Y]; return w.start, len(w.w) }
	forEachBand(area, d, sh, workers, false, span, bd, func(bb *bandBuffers) func(by0, by1, r0, r1 int) {
		// Padded: the SIMD kernel loads 16 bytes for a column's 12.
		bb.spanBuf = grow(bb.spanBuf, 3*sw+rowPad)
		srcRow := bb.spanBuf
		fetch := newFetch()
		return func(by0, by1, r0, r1 int) {
			bb.rowsInt = grow(bb.rowsInt, 3*width*(r1-r0))
			tmp := bb.rowsInt
			for sy := r0; sy < r1; sy++ {
				fetch(sy, srcRow)
				resampleRowRGB(tmp[3*width*(sy-r0):][:3*width], srcRow, &cols)
			}
			for y := by0; y < by1; y++ {
				rw := &rows[y-area.Min.Y]
				taps := bb.tapRows[:0]
				for k := range rw.w {
					taps = append(taps, tmp[3*width*(rw.start+k-r0):][:3*width])
				}
				bb.tapRows = taps
				dp := dst.Pix[dst.PixOffset(area.Min.X, y):][:4*width]
				if len(taps) == 4 {
					isa.combine4(dp, taps[0], taps[1], taps[2], taps[3], rw.w)
				} else {
					isa.combineN(dp, taps, rw.w)
				}
			}
		}
	})
}

// forEachBand splits area's output rows into bands whose source rows stay under
// about 256 (d is the vertical scale) and runs them on up to workers goroutines.
// Each goroutine calls newBand once with its own scratch buffers, taken from bd.pool
// (bandBuffers; nil: new ones) and put back there once every band is done, then runs
// the returned func on the bands it takes, until none is left or bd.ctx ends: output
// rows [by0, by1) and the source rows [r0, r1) they read, as span(y) gives each
// output row's first tap and tap count.
// With inRuns each goroutine takes a run of neighbouring bands of its own (bandQueue):
// for the rotated path's column bands, whose edges share canvas lines. Row bands,
// which share none but where they meet, go in turn: in runs, an unrotated two-worker
// draw took 2 % longer (40 interleaved runs).
func forEachBand(area image.Rectangle, d float64, sh, workers int, inRuns bool, span func(y int) (start, n int), bd bandEnv, newBand func(*bandBuffers) func(by0, by1, r0, r1 int)) {
	bandRows := max(1, min(64, int(256*d)))
	nBands := (area.Dy() + bandRows - 1) / bandRows
	runs := 1
	if inRuns {
		runs = workers
	}
	q := newBandQueue(nBands, runs)
	bufs := takeBandBuffers(bd.pool, max(1, min(workers, nBands)))
	var wg sync.WaitGroup
	for w, bb := range bufs {
		wg.Go(func() {
			band := newBand(bb)
			t := q.taker(w % len(q.runs))
			for {
				bi, ok := t.next()
				if !ok || bd.stopped() {
					return
				}
				by0 := area.Min.Y + bi*bandRows
				by1 := min(area.Max.Y, by0+bandRows)
				r0, r1 := sh, 0
				for y := by0; y < by1; y++ {
					start, n := span(y)
					r0, r1 = min(r0, start), max(r1, start+n)
				}
				band(by0, by1, r0, r1)
			}
		})
	}
	wg.Wait()
	putBandBuffers(bd.pool, bufs)
}

// rowPlan is the horizontal pass of scaleOpaque: each output column's taps, and the
// runs of columns that the SIMD kernels compute, with their byte offsets: runs of four
// or five taps for resampleRowRGBBlocks (weights fitting 16 bits, the 16 bytes it
// loads inside a row of srcLen+rowPad bytes), pairTaps weights (24 a column) in wts;
// runs of six taps or more (a shrink) for resampleRowRGBGroups, groupTaps weights
// (16*groups a column) in gwts. Without the SIMD kernels there are no runs.
type rowPlan struct {
	cols   []fixedTaps
	runs   []tapRun
	offs   []int32
	wts    []int16
	groups int
	gwts   []int16
}

// tapRun is a run of columns [i0, i1) of a rowPlan: all of four taps (taps 4), or of
// four and five (taps 5, four-tap columns with a zero fifth weight), as a slight
// shrink gives (the 600-dpi poster: 5100 source columns to 4958); or, groups > 0, of
// six taps or more, at most 4*groups (taps the most of them), as a stronger shrink
// gives (the thumbnails: about 26 taps).
type tapRun struct{ i0, i1, taps, groups int }

// rowPad is the padding after an RGB row that resampleRowRGB reads: 16 bytes loaded
// for a last column's 12.
const rowPad = 4

func (isa kernels) newRowPlan(cols []fixedTaps, srcLen int) rowPlan {
	p := rowPlan{cols: cols}
	if !isa.sse {
		return p
	}
	p.offs = make([]int32, len(cols))
	p.wts = make([]int16, 24*len(cols))
	// One group count for the whole row: the widest column's (a shrink's columns
	// differ by one tap at most, edge columns have fewer).
	most := 0
	for i := range cols {
		if n := len(cols[i].w); n >= 6 {
			most = max(most, n)
		}
	}
	if isa.avx2 {
		p.groups = (most + 3) / 4
	}
	p.gwts = make([]int16, 16*p.groups*len(cols))
	g := p.groups
	// kind is the kernel that computes column i (setting its offset and weights): 1
	// resampleRowRGBBlocks, 2 resampleRowRGBGroups, 0 neither (the Go loop).
	kind := func(i int) int {
		c := &cols[i]
		if len(c.w) <= 5 {
			if 3*c.start+16 <= srcLen+rowPad && pairTaps(c.w, p.wts[24*i:24*i+24]) {
				p.offs[i] = int32(3 * c.start)
				return 1
			}
			return 0
		}
		if g == 0 {
			return 0
		}
		// The kernel reads the 4g pixels from ws on (and 4 bytes more): from the
		// column's first tap, or further left where that would pass the row's end
		// (last, the byte offset of the last window inside the row).
		last := srcLen + rowPad - 12*g - 4
		ws := min(c.start, last/3)
		if last < 0 || ws < c.start+len(c.w)-4*g {
			return 0
		}
		if !groupTaps(c.w, c.start-ws, p.gwts[16*g*i:16*g*(i+1)]) {
			return 0
		}
		p.offs[i] = int32(3 * ws)
		return 2
	}
	for i := 0; i < len(cols); {
		k := kind(i)
		if k == 0 {
			i++
			continue
		}
		r := tapRun{i0: i, taps: 4}
		if k == 2 {
			r.groups = g
		}
		j := i
		for ; j < len(cols) && (j == i || kind(j) == k); j++ {
			r.taps = max(r.taps, len(cols[j].w))
		}
		r.i1 = j
		p.runs = append(p.runs, r)
		i = j
	}
	return p
}

// groupTaps writes the weights w, whose first tap is pixel sh of a window of 4*groups
// pixels (len(out) = 16*groups), in the order of resampleRowRGBGroups
// (resample_shrink_amd64.s): for each pair of groups of four taps, the (0, 1) pairs of
// the first then the second group, the (2, 3) pairs of the first then the second,
// each pair four times; an odd last group its (0, 1) then its (2, 3) pairs. The
// window's other taps weigh zero. It reports false, leaving the column to the Go loop,
// when a weight does not fit 16 bits (VPMADDWD's operands).
func groupTaps(w []int32, sh int, out []int16) bool {
	for _, v := range w {
		if v != int32(int16(v)) {
			return false
		}
	}
	groups := len(out) / 16
	wt := func(t int) int16 {
		if t -= sh; t >= 0 && t < len(w) {
			return int16(w[t])
		}
		return 0
	}
	for g := range groups {
		// Where the (0, 1) and (2, 3) pairs of group g go.
		at01, at23 := 32*(g/2)+8*(g%2), 32*(g/2)+16+8*(g%2)
		if g == groups-1 && g%2 == 0 {
			at23 = at01 + 8
		}
		for c := range 4 {
			out[at01+2*c], out[at01+2*c+1] = wt(4*g), wt(4*g+1)
			out[at23+2*c], out[at23+2*c+1] = wt(4*g+2), wt(4*g+3)
		}
	}
	return true
}

// resampleRowRGB resamples one RGB source row (padded by rowPad) to the output
// columns, at 2^iBits: the plan's runs with the SIMD kernels (about 20 instructions a
// column of four taps instead of 90; wider columns: docs/benchmarks.md, "Shrinking
// pictures and thumbnails"), the other columns with resampleColsRGB.
func resampleRowRGB(out []int32, src []uint8, p *rowPlan) {
	at := 0
	for _, r := range p.runs {
		resampleColsRGB(out, src, p.cols, at, r.i0)
		if r.groups > 0 {
			g := 16 * r.groups
			resampleRowRGBGroups(out[3*r.i0:3*r.i1], src, p.offs[r.i0:r.i1], p.gwts[g*r.i0:g*r.i1], r.i1-r.i0, r.groups)
		} else {
			resampleRowRGBBlocks(out[3*r.i0:3*r.i1], src, p.offs[r.i0:r.i1], p.wts[24*r.i0:24*r.i1], r.i1-r.i0, r.taps)
		}
		at = r.i1
	}
	resampleColsRGB(out, src, p.cols, at, len(p.cols))
}

// resampleColsRGB is resampleRowRGB in Go for columns [i0, i1).
func resampleColsRGB(out []int32, src []uint8, cols []fixedTaps, i0, i1 int) {
	const round = 1 << (hBits - iBits - 1)
	for i := i0; i < i1; i++ {
		c := &cols[i]
		p := src[3*c.start:]
		var r, g, b int32
		if len(c.w) == 4 {
			// Enlarging: always four taps, unrolled.
			w, q := c.w[:4:4], p[:12:12]
			r = w[0]*int32(q[0]) + w[1]*int32(q[3]) + w[2]*int32(q[6]) + w[3]*int32(q[9])
			g = w[0]*int32(q[1]) + w[1]*int32(q[4]) + w[2]*int32(q[7]) + w[3]*int32(q[10])
			b = w[0]*int32(q[2]) + w[1]*int32(q[5]) + w[2]*int32(q[8]) + w[3]*int32(q[11])
		} else {
			for k, wk := range c.w {
				q := p[3*k : 3*k+3 : 3*k+3]
				r += wk * int32(q[0])
				g += wk * int32(q[1])
				b += wk * int32(q[2])
			}
		}
		o := out[3*i : 3*i+3 : 3*i+3]
		o[0], o[1], o[2] = (r+round)>>(hBits-iBits), (g+round)>>(hBits-iBits), (b+round)>>(hBits-iBits)
	}
}

// combine4 is the vertical pass for the four taps of an enlarging Catmull-Rom: four
// intermediate rows to one output row, written opaque.
func (isa kernels) combine4(dp []uint8, t0, t1, t2, t3 []int32, w []int32) {
	w0, w1, w2, w3 := w[0], w[1], w[2], w[3]
	n := len(dp) / 4
	t0, t1, t2, t3 = t0[:3*n], t1[:3*n], t2[:3*n], t3[:3*n]
	// Four pixels at a time with SSE4.1 (resample_amd64.s: the same arithmetic, so
	// the same bytes); the Go loop does the rest.
	k := 0
	if isa.sse {
		k = n / 4
		combine4Blocks(dp, t0, t1, t2, t3, w[:4], k)
	}
	for i := 4 * k; i < n; i++ {
		j := 3 * i
		a0, a1, a2, a3 := t0[j:j+3:j+3], t1[j:j+3:j+3], t2[j:j+3:j+3], t3[j:j+3:j+3]
		r := w0*a0[0] + w1*a1[0] + w2*a2[0] + w3*a3[0]
		g := w0*a0[1] + w1*a1[1] + w2*a2[1] + w3*a3[1]
		b := w0*a0[2] + w1*a1[2] + w2*a2[2] + w3*a3[2]
		q := dp[4*i : 4*i+4 : 4*i+4]
		q[0], q[1], q[2], q[3] = toByte(r), toByte(g), toByte(b), 255
	}
}

// combineN is the vertical pass for any number of taps (shrinking widens the kernel;
// edges cut it): its first pixels in blocks on amd64 (resample_shrink_amd64.s, the
// same arithmetic, so the same bytes), the rest in Go.
func (isa kernels) combineN(dp []uint8, taps [][]int32, w []int32) {
	combineNCols(dp, taps, w, isa.combineNBlocks(dp, taps, w))
}

// combineNBlocks computes combineN's first pixels in blocks of 8 with AVX2
// (combineNBlocksAVX2) and reports how many it wrote. Every tap row must hold the
// blocks' values and w a weight a tap, as the Go loop would index them.
func (isa kernels) combineNBlocks(dp []uint8, taps [][]int32, w []int32) int {
	if len(taps) == 0 || len(w) < len(taps) || !isa.avx2 {
		return 0
	}
	nb := len(dp) / 32
	for _, t := range taps {
		if len(t) < 24*nb {
			return 0
		}
	}
	combineNBlocksAVX2(dp, taps, w, nb)
	return 8 * nb
}

// combineNCols is combineN in Go for the pixels from i0 on.
func combineNCols(dp []uint8, taps [][]int32, w []int32, i0 int) {
	n := len(dp) / 4
	for i := i0; i < n; i++ {
		j := 3 * i
		var r, g, b int32
		for k, t := range taps {
			q := t[j : j+3 : j+3]
			r += w[k] * q[0]
			g += w[k] * q[1]
			b += w[k] * q[2]
		}
		q := dp[4*i : 4*i+4 : 4*i+4]
		q[0], q[1], q[2], q[3] = toByte(r), toByte(g), toByte(b), 255
	}
}

// toByte rounds a vertical sum (at 2^(iBits+vBits)) to a level, clamping Catmull-Rom's
// overshoot.
func toByte(v int32) uint8 {
	const s = iBits + vBits
	return uint8(min(max((v+1<<(s-1))>>s, 0), 255))
}

// fixedTaps are tapWeights in fixed point.
type fixedTaps struct {
	start int
	w     []int32
}

// fixedWeights rounds the weights to bits fraction bits, keeping each pixel's sum at
// exactly 1<<bits (the rounding remainder goes to its largest weight) so that flat
// areas come out unchanged.
func fixedWeights(tw []tapWeights, bits int) []fixedTaps {
	n := 0
	for i := range tw {
		n += len(tw[i].w)
	}
	all := make([]int32, 0, n)
	out := make([]fixedTaps, len(tw))
	one := float32(int32(1) << bits)
	for i := range tw {
		ws := all[len(all) : len(all)+len(tw[i].w)]
		sum, big := int32(0), 0
		for k, w := range tw[i].w {
			ws[k] = int32(math.Round(float64(w * one)))
			sum += ws[k]
			if abs32(ws[k]) > abs32(ws[big]) {
				big = k
			}
		}
		ws[big] += int32(1)<<bits - sum
		all = all[:len(all)+len(ws)]
		out[i] = fixedTaps{start: tw[i].start, w: ws}
	}
	return out
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// opaqueRowFetcher returns a function writing source row y as RGB bytes into out, or
// nil when the source may have transparent pixels (or is of a type without a fast
// path). Decoded JPEGs (YCbCr) and grey images are opaque by type; RGBA and NRGBA
// sources are checked, which reads the image once but saves far more.
func (isa kernels) opaqueRowFetcher(src image.Image) func(y int, out []uint8) {
	b := src.Bounds()
	w := b.Dx()
	switch m := src.(type) {
	case *image.YCbCr:
		return func(y int, out []uint8) {
			yrow := m.Y[m.YOffset(b.Min.X, b.Min.Y+y):][:w]
			if m.SubsampleRatio == image.YCbCrSubsampleRatio420 && b.Min.X%2 == 0 {
				// The common JPEG layout: one chroma sample per two pixels of the row,
				// read by index instead of COffset's per-pixel arithmetic.
				ci := m.COffset(b.Min.X, b.Min.Y+y)
				cb, cr := m.Cb[ci:][:(w+1)/2], m.Cr[ci:][:(w+1)/2]
				x := 0
				if isa.avx2 && len(out) >= 3*w+4 {
					// Eight pixels at a time (yccHalfBlocksAVX2: it stores 4 bytes past
					// a block, within out's padding, rowPad).
					nb := w / 8
					yccHalfBlocksAVX2(out[:24*nb+4], yrow[:8*nb], cb[:4*nb], cr[:4*nb], nb)
					x = 8 * nb
				}
				if isa.sse && len(out) >= 3*w+4 {
					// Four pixels at a time (yccHalfBlocks, RGB, padded the same).
					nb := (w - x) / 4
					yccHalfBlocks(out[3*x:][:12*nb+4], yrow[x:][:4*nb], cb[x/2:][:2*nb], cr[x/2:][:2*nb], nb, 12)
					x += 4 * nb
				}
				out = out[:3*w]
				// color.YCbCrToRGB's arithmetic inlined, its chroma terms computed once
				// per pair of pixels (it was a call per pixel: 13 % of the poster's
				// instructions with this loop).
				for ; x+1 < w; x += 2 {
					rc, gc, bc := chromaTerms(cb[x/2], cr[x/2])
					q := out[3*x : 3*x+6 : 3*x+6]
					q[0], q[1], q[2] = lumaPlusChroma(yrow[x], rc, gc, bc)
					q[3], q[4], q[5] = lumaPlusChroma(yrow[x+1], rc, gc, bc)
				}
				if x < w {
					q := out[3*x : 3*x+3 : 3*x+3]
					q[0], q[1], q[2] = color.YCbCrToRGB(yrow[x], cb[x/2], cr[x/2])
				}
				return
			}
			out = out[:3*w]
			for x, yv := range yrow {
				ci := m.COffset(b.Min.X+x, b.Min.Y+y)
				q := out[3*x : 3*x+3 : 3*x+3]
				q[0], q[1], q[2] = color.YCbCrToRGB(yv, m.Cb[ci], m.Cr[ci])
			}
		}
	case *orientedView:
		return func(y int, out []uint8) { m.run(out, 3, 0, y, 1, 0, w) }
	case *image.Gray:
		return func(y int, out []uint8) {
			p := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):][:w]
			out = out[:3*w]
			for x, v := range p {
				q := out[3*x : 3*x+3 : 3*x+3]
				q[0], q[1], q[2] = v, v, v
			}
		}
	case *image.RGBA:
		if m.Opaque() {
			return rgbFromRGBA(m.Pix, m.Stride, m.PixOffset(b.Min.X, b.Min.Y), w)
		}
	case *image.NRGBA:
		// Opaque NRGBA pixels are their RGBA pixels.
		if m.Opaque() {
			return rgbFromRGBA(m.Pix, m.Stride, m.PixOffset(b.Min.X, b.Min.Y), w)
		}
	}
	return nil
}

// chromaTerms and lumaPlusChroma split color.YCbCrToRGB (Go 1.26, the same
// constants and clamping) so that two pixels sharing their chroma compute it once;
// TestYCbCrSplitMatchesStdlib checks every input.
func chromaTerms(cb, cr uint8) (rc, gc, bc int32) {
	cb1, cr1 := int32(cb)-128, int32(cr)-128
	return 91881 * cr1, -22554*cb1 - 46802*cr1, 116130 * cb1
}

func lumaPlusChroma(y uint8, rc, gc, bc int32) (uint8, uint8, uint8) {
	yy1 := int32(y) * 0x10101
	return clamp16(yy1 + rc), clamp16(yy1 + gc), clamp16(yy1 + bc)
}

// clamp16 is YCbCrToRGB's branch-light clamp of a 16.16 value to a level.
func clamp16(v int32) uint8 {
	if uint32(v)&0xff000000 == 0 {
		return uint8(v >> 16)
	}
	return uint8(^(v >> 31))
}

func rgbFromRGBA(pix []uint8, stride, off, w int) func(y int, out []uint8) {
	return func(y int, out []uint8) {
		p := pix[off+y*stride:][:4*w]
		out = out[:3*w]
		for x := range w {
			s := p[4*x : 4*x+3 : 4*x+3]
			q := out[3*x : 3*x+3 : 3*x+3]
			q[0], q[1], q[2] = s[0], s[1], s[2]
		}
	}
}

// grow returns b with length n: b itself when it has the room (its contents kept),
// else a new zeroed slice. Scratch that lives across bands and draws grows this way.
func grow[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}

func clampf(v, lo, hi float32) float32 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// tapWeights are the normalised kernel weights of one output pixel over source pixels
// start, start+1, ...
type tapWeights struct {
	start int
	w     []float32
}

// linearAbove is the magnification beyond which an unrotated picture is enlarged
// with the linear (tent) kernel instead of Catmull-Rom. Chromium's canvas draws
// fabric.js pictures with bilinear filtering (imageSmoothingQuality "low"): far
// enlarged, a hard edge of pixel art stays a soft ramp there, where Catmull-Rom's
// negative lobes ring into a dark rim and a bright spot a source pixel wide (52x:
// TestPixelArtEnlargedStaysSoft). Up to this magnification the two differ by less
// than a pixel's sharpening and Catmull-Rom is kept.
const linearAbove = 4

// bilinearSteps is the subpixel precision of Skia's bilinear sampler: 4 bits.
const bilinearSteps = 16

// kernelWeights computes the weights of output pixels [o0, o1) along one axis, for
// the placement out = scale*in + off over n source pixels: Catmull-Rom, or the tent
// when enlarging beyond linearAbove. The taps stay those of Catmull-Rom's support
// (the tent's outer ones weigh zero), so every kernel tier sees the same layout.
func kernelWeights(o0, o1 int, scale, off float64, n int) []tapWeights {
	kernel, quantize := catmullRom, false
	if scale > linearAbove {
		kernel, quantize = tent, true
	}
	// Widen the kernel when shrinking so it low-pass filters.
	stretch := math.Max(1, 1/scale)
	support := 2 * stretch
	out := make([]tapWeights, o1-o0)
	for o := o0; o < o1; o++ {
		// Source coordinate of the output pixel's centre, in source pixel centres.
		c := (float64(o)+0.5-off)/scale - 0.5
		if quantize {
			c = math.Floor(c*bilinearSteps) / bilinearSteps
		}
		lo := max(0, int(math.Ceil(c-support)))
		hi := min(n-1, int(math.Floor(c+support)))
		tw := tapWeights{start: lo}
		var sum float64
		ws := make([]float64, 0, hi-lo+1)
		for i := lo; i <= hi; i++ {
			w := kernel(math.Abs(float64(i)-c) / stretch)
			ws = append(ws, w)
			sum += w
		}
		tw.w = make([]float32, len(ws))
		for i, w := range ws {
			if sum != 0 {
				w /= sum
			}
			tw.w[i] = float32(w)
		}
		if len(tw.w) == 0 { // cannot happen for a centre inside the source
			tw.w = []float32{1}
			tw.start = min(max(0, int(c)), n-1)
		}
		out[o-o0] = tw
	}
	return out
}

// tent is the linear interpolation kernel, support 1.
func tent(t float64) float64 { return max(0, 1-t) }

// catmullRom is the Catmull-Rom cubic (B=0, C=0.5), support 2.
func catmullRom(t float64) float64 {
	switch {
	case t < 1:
		return (1.5*t-2.5)*t*t + 1
	case t < 2:
		return ((-0.5*t+2.5)*t-4)*t + 2
	}
	return 0
}

// rowFetcher returns a function writing source row y as premultiplied RGBA floats
// (0..255) into out. The decoded types are read directly; others through At.
func rowFetcher(src image.Image) func(y int, out []float32) {
	b := src.Bounds()
	switch m := src.(type) {
	case *image.RGBA:
		return func(y int, out []float32) {
			p := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for i := range out[:4*b.Dx()] {
				out[i] = float32(p[i])
			}
		}
	case *image.NRGBA:
		return func(y int, out []float32) {
			p := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for i := 0; i < 4*b.Dx(); i += 4 {
				a := float32(p[i+3])
				out[i] = float32(p[i]) * a / 255
				out[i+1] = float32(p[i+1]) * a / 255
				out[i+2] = float32(p[i+2]) * a / 255
				out[i+3] = a
			}
		}
	case *image.YCbCr:
		return func(y int, out []float32) {
			for x := 0; x < b.Dx(); x++ {
				yi, ci := m.YOffset(b.Min.X+x, b.Min.Y+y), m.COffset(b.Min.X+x, b.Min.Y+y)
				r, g, bl := color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
				out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = float32(r), float32(g), float32(bl), 255
			}
		}
	case *image.Gray:
		return func(y int, out []float32) {
			p := m.Pix[m.PixOffset(b.Min.X, b.Min.Y+y):]
			for x := 0; x < b.Dx(); x++ {
				v := float32(p[x])
				out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = v, v, v, 255
			}
		}
	}
	return func(y int, out []float32) {
		for x := 0; x < b.Dx(); x++ {
			r, g, bl, a := src.At(b.Min.X+x, b.Min.Y+y).RGBA()
			out[4*x], out[4*x+1], out[4*x+2], out[4*x+3] = float32(r>>8), float32(g>>8), float32(bl>>8), float32(a>>8)
		}
	}
}
