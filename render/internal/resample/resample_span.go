package resample

import (
	"image"
	"image/color"
	"math"
)

// Source spans for the rotated path. Pass 1 of a column band reads, from each source
// row, only the pixels under the band's columns plus the kernel's reach (about
// 64*colsPerLine/scale + 4 of them). For opaque sources those pixels are converted
// straight from the decoded image (YCbCr, Gray, RGBA, NRGBA) into a band-sized
// scratch row, on the band's worker, instead of converting (and, past 45°,
// transposing) the whole source window into an RGBA copy on one core first: that copy
// cost about 25 ms and 4 bytes a source pixel for a 2000x2000 photo, serial, before
// any worker started.

// spanFetcher writes pixels [x0, x1) of row y of a source (the window of the picture
// the draw reads, transposed when pass 1 runs along source columns) as opaque RGBA
// bytes (alpha 255), and returns them: either a part of buf, or a view into the
// source. buf's capacity holds spanPad bytes more than the span's, which the fetcher
// may overwrite.
type spanFetcher func(y, x0, x1 int, buf []uint8) []uint8

// opaqueSpanFetcher returns the spanFetcher of src's window win (coordinates from src's
// top-left), transposed when swap (row y is then the window's column y), or nil when
// src may have transparent pixels or is of another type: those take the whole-window
// premultiplied copy (orientedRGBA) and the float path.
func (isa kernels) opaqueSpanFetcher(src image.Image, win image.Rectangle, swap bool) spanFetcher {
	b := src.Bounds()
	// Window coordinates to image coordinates.
	ox, oy := b.Min.X+win.Min.X, b.Min.Y+win.Min.Y
	switch m := src.(type) {
	case *image.YCbCr:
		return isa.yccSpanFetcher(m, ox, oy, swap, true)
	case *orientedView:
		// win is in the view's coordinates (its bounds start at 0, 0).
		return func(y, x0, x1 int, buf []uint8) []uint8 {
			buf = buf[:4*(x1-x0)]
			if swap {
				m.run(buf, 4, win.Min.X+y, win.Min.Y+x0, 0, 1, x1-x0)
			} else {
				m.run(buf, 4, win.Min.X+x0, win.Min.Y+y, 1, 0, x1-x0)
			}
			return buf
		}
	case *image.Gray:
		return func(y, x0, x1 int, buf []uint8) []uint8 {
			buf = buf[:4*(x1-x0)]
			if !swap {
				p := m.Pix[m.PixOffset(ox+x0, oy+y):][:x1-x0]
				for i, v := range p {
					q := buf[4*i : 4*i+4 : 4*i+4]
					q[0], q[1], q[2], q[3] = v, v, v, 255
				}
				return buf
			}
			at := m.PixOffset(ox+y, oy+x0)
			for i := range x1 - x0 {
				v := m.Pix[at]
				q := buf[4*i : 4*i+4 : 4*i+4]
				q[0], q[1], q[2], q[3] = v, v, v, 255
				at += m.Stride
			}
			return buf
		}
	case *image.RGBA:
		if !m.SubImage(win.Add(b.Min)).(*image.RGBA).Opaque() {
			return nil
		}
		return rgbaSpanFetcher(m.Pix, m.Stride, m.PixOffset(ox, oy), swap)
	case *image.NRGBA:
		// Opaque NRGBA pixels are their RGBA pixels.
		if !m.SubImage(win.Add(b.Min)).(*image.NRGBA).Opaque() {
			return nil
		}
		return rgbaSpanFetcher(m.Pix, m.Stride, m.PixOffset(ox, oy), swap)
	}
	return nil
}

// spanPrefetcher returns, for the sources whose rows opaqueSpanFetcher reads in place
// (not transposed: YCbCr, Gray, RGBA, NRGBA), a function that asks the CPU for the
// bytes of row y's pixels [x0, x1) before they are fetched (prefetchLines), or nil.
// A band reads some hundred bytes of each source row, one row a stride after the
// other, a pattern the hardware prefetchers do not follow: a 30° draw's conversion
// waited on those loads for three quarters of its time (perf annotate); without the
// prefetch a 30° draw takes 11-17 % more CPU.
func spanPrefetcher(src image.Image, win image.Rectangle, swap bool) func(y, x0, x1 int) {
	if swap {
		return nil
	}
	b := src.Bounds()
	ox, oy := b.Min.X+win.Min.X, b.Min.Y+win.Min.Y
	switch m := src.(type) {
	case *image.YCbCr:
		return func(y, x0, x1 int) {
			prefetchIn(m.Y, m.YOffset(ox+x0, oy+y), x1-x0)
			ci, cj := m.COffset(ox+x0, oy+y), m.COffset(ox+x1-1, oy+y)
			prefetchIn(m.Cb, ci, cj-ci+1)
			prefetchIn(m.Cr, ci, cj-ci+1)
		}
	case *image.Gray:
		return func(y, x0, x1 int) { prefetchIn(m.Pix, m.PixOffset(ox+x0, oy+y), x1-x0) }
	case *image.RGBA:
		return func(y, x0, x1 int) { prefetchIn(m.Pix, m.PixOffset(ox+x0, oy+y), 4*(x1-x0)) }
	case *image.NRGBA:
		return func(y, x0, x1 int) { prefetchIn(m.Pix, m.PixOffset(ox+x0, oy+y), 4*(x1-x0)) }
	}
	return nil
}

// prefetchIn is prefetchLines on p[at:at+n], nothing where that lies outside p.
func prefetchIn(p []uint8, at, n int) {
	if at >= 0 && n > 0 && at+n <= len(p) {
		prefetchLines(p[at:at+n], false)
	}
}

// rgbaSpanFetcher reads opaque 4-byte pixels whose window origin is at pix[off]: rows
// are views into pix, transposed rows are gathered.
func rgbaSpanFetcher(pix []uint8, stride, off int, swap bool) spanFetcher {
	if !swap {
		return func(y, x0, x1 int, _ []uint8) []uint8 {
			return pix[off+y*stride+4*x0:][:4*(x1-x0)]
		}
	}
	return func(y, x0, x1 int, buf []uint8) []uint8 {
		buf = buf[:4*(x1-x0)]
		at := off + x0*stride + 4*y
		for i := range x1 - x0 {
			p := pix[at : at+4 : at+4]
			q := buf[4*i : 4*i+4 : 4*i+4]
			q[0], q[1], q[2], q[3] = p[0], p[1], p[2], 255
			at += stride
		}
		return buf
	}
}

// yccSpanFetcher converts spans of a YCbCr image whose window origin is (ox, oy) in
// image coordinates, with the same arithmetic as image/draw's conversion
// (color.YCbCrToRGB), so the output does not depend on which path converted it.
// Unless padded (buf with spanPad bytes of room, the span anywhere in it: a
// spanFetcher), a row is written from buf[0] and nothing past it.
func (isa kernels) yccSpanFetcher(m *image.YCbCr, ox, oy int, swap, padded bool) spanFetcher {
	// The common JPEG layouts (4:2:0 and 4:2:2: one chroma sample per two pixels of a
	// row) read chroma by index; COffset's arithmetic per pixel otherwise.
	fast := (m.SubsampleRatio == image.YCbCrSubsampleRatio420 || m.SubsampleRatio == image.YCbCrSubsampleRatio422) &&
		m.Rect.Min.X >= 0 && m.Rect.Min.Y >= 0
	if !swap {
		return func(y, x0, x1 int, buf []uint8) []uint8 {
			buf = buf[:4*(x1-x0)]
			yrow := m.Y[m.YOffset(ox+x0, oy+y):][:x1-x0]
			if fast {
				ci := m.COffset(ox+x0, oy+y)
				// Image column x has chroma column x/2 (coordinates >= 0): pixel
				// x0+i's is (ox+x0+i)/2 - (ox+x0)/2 = (i+ph)/2 columns from ci's.
				ph := (ox + x0) & 1
				if padded {
					if row := isa.yccPlaneBlocks(m.Y, m.Cb, m.Cr, buf, m.YOffset(ox+x0, oy+y), ci, ph, x1-x0); row != nil {
						return row
					}
				}
				n := (ph + x1 - x0 + 1) / 2
				isa.yccRowHalf(buf, 4, yrow, m.Cb[ci:][:n], m.Cr[ci:][:n], ph)
				return buf
			}
			for i, yv := range yrow {
				ci := m.COffset(ox+x0+i, oy+y)
				q := buf[4*i : 4*i+4 : 4*i+4]
				q[0], q[1], q[2] = color.YCbCrToRGB(yv, m.Cb[ci], m.Cr[ci])
				q[3] = 255
			}
			return buf
		}
	}
	// Transposed: row y is image column ox+y, pixel i is image row oy+x0+i.
	if gatherable420(m) {
		return func(y, x0, x1 int, buf []uint8) []uint8 {
			buf = buf[:4*(x1-x0)]
			isa.gatherYCC420(buf, 4, m, ox+y, oy+x0, 0, 1, x1-x0)
			return buf
		}
	}
	return func(y, x0, x1 int, buf []uint8) []uint8 {
		buf = buf[:4*(x1-x0)]
		yi := m.YOffset(ox+y, oy+x0)
		for i := range x1 - x0 {
			ci := m.COffset(ox+y, oy+x0+i)
			q := buf[4*i : 4*i+4 : 4*i+4]
			q[0], q[1], q[2] = color.YCbCrToRGB(m.Y[yi], m.Cb[ci], m.Cr[ci])
			q[3] = 255
			yi += m.YStride
		}
		return buf
	}
}

// yccPlaneBlocks converts the n pixels of a 4:2:0 or 4:2:2 row span whose first is
// Y[yi] with chroma Cb, Cr[ci] (ph 1 when it is the second of its chroma pair) in
// whole blocks of eight from the first pixel of that pair on, into buf (which must
// hold a block more than the span: spanPad), and returns the span's pixels, or nil
// when the CPU lacks AVX2 or the blocks would read past a plane or write past buf's
// capacity. The planes are a decoded picture's (rows) or a column block's
// (columnBlockFetcher). The blocks read and convert up to 8 pixels past the span
// (the rest of the row, or the next row's first: nothing reads them) so that no pixel
// of the span is converted alone: those one-pixel ends cost a 30° draw about 3 % (two
// a span, with the calls). The span starts at buf[4*ph].
func (isa kernels) yccPlaneBlocks(Y, Cb, Cr, buf []uint8, yi, ci, ph, n int) []uint8 {
	if !isa.avx2 {
		return nil
	}
	yi -= ph
	nb := (n + ph + 7) / 8
	if yi < 0 || ci < 0 || yi+8*nb > len(Y) || ci+4*nb > len(Cb) || ci+4*nb > len(Cr) || 32*nb > cap(buf) {
		return nil
	}
	all := buf[:32*nb]
	yccHalfBlocksAVX2RGBA(all, Y[yi:yi+8*nb], Cb[ci:ci+4*nb], Cr[ci:ci+4*nb], nb)
	return all[4*ph : 4*(ph+n)]
}

// transpose8 copies eight columns of a plane into eight planes: dst[c*ls + r] =
// src[at + r*stride + c] for c < 8 and r < rows, whole groups of eight rows with
// transpose8Blocks (an 8x8 byte transpose) where the indexes allow.
func (isa kernels) transpose8(dst, src []uint8, at, stride, rows, ls int) {
	r := 0
	// The first and last rows read bound the others (stride may be negative: a
	// column read upwards).
	n := rows / 8
	last := at + (8*n-1)*stride
	if n > 0 && isa.sse && min(at, last) >= 0 && max(at, last)+8 <= len(src) && ls >= rows && 7*ls+rows <= len(dst) {
		transpose8Blocks(dst, src, at, stride, n, ls)
		r = 8 * n
	}
	for ; r < rows; r++ {
		p := src[at+r*stride : at+r*stride+8 : at+r*stride+8]
		for c, v := range p {
			dst[c*ls+r] = v
		}
	}
}

// columnBlockFetcher returns, for the transposed spans of a 4:2:0 picture
// (opaqueSpanFetcher's rows are the picture's columns: row y is image column ox+y,
// pixel i image row oy+x0+i), a spanFetcher for one band worker that reads the
// picture sixteen columns at a time: the block of sixteen columns around a requested
// one is copied, over the rows requested and a margin, into sixteen contiguous planes
// (and its eight chroma columns into eight) by 8x8 byte transposes
// (transpose8Blocks), and the next requests of those columns (the band's next
// source rows) are converted from the planes. Gathering each column down the picture
// (gatherYCC420, gatherStrideBlocks) took about 2.7 instructions a byte and each
// chroma column twice: about a fifth of a 60° draw; the blocks take about 10 % off
// its CPU. Spans the blocks do not serve (the picture's last
// columns, an odd first row) take fallback. It returns nil where m is not
// gatherable420 or the CPU lacks AVX2. drift is how many rows a band's span moves
// from one column to the next (either way): the block holds the rows requested plus
// sixteen columns of that drift and eight more, each way, so that one copy serves
// the block's sixteen columns. (A fixed 48 each way copied 1.8 times the picture at
// 60°, where the drift is 0.58.)
func (isa kernels) columnBlockFetcher(m *image.YCbCr, ox, oy int, fallback spanFetcher, drift float64) spanFetcher {
	if !gatherable420(m) || !isa.avx2 {
		return nil
	}
	margin := 64
	if d := math.Abs(drift); d < 3.5 {
		margin = int(math.Ceil(16*d)) + 8
	}
	r := m.Rect
	// The block held: columns [xb, xb+16), rows [rb0, rb1) (rb0 even), planes of
	// stride ls (luma) and lc (chroma), each with room for the conversion's reads
	// past a span's end.
	xb, rb0, rb1, ls, lc := -1, 0, 0, 0, 0
	var yt, cbt, crt []uint8
	load := func(x, r0, r1 int) bool {
		xb = x &^ 15
		rb0, rb1 = max(r.Min.Y, r0-margin), min(r.Max.Y, r1+margin)
		rb0 += rb0 & 1
		if xb < r.Min.X || xb+16 > r.Max.X || r0 < rb0 || r1 > rb1 {
			xb = -1
			return false
		}
		rows, crows := rb1-rb0, (rb1-rb0+1)/2
		ls, lc = rows+16, crows+8
		// Grown by doubling: a band's spans lengthen as it goes.
		if cap(yt) < 16*ls {
			yt = make([]uint8, 32*ls)
		}
		if cap(cbt) < 8*lc {
			cbt, crt = make([]uint8, 16*lc), make([]uint8, 16*lc)
		}
		yt, cbt, crt = yt[:16*ls], cbt[:8*lc], crt[:8*lc]
		at := m.YOffset(xb, rb0)
		isa.transpose8(yt, m.Y, at, m.YStride, rows, ls)
		isa.transpose8(yt[8*ls:], m.Y, at+8, m.YStride, rows, ls)
		ci := m.COffset(xb, rb0)
		isa.transpose8(cbt, m.Cb, ci, m.CStride, crows, lc)
		isa.transpose8(crt, m.Cr, ci, m.CStride, crows, lc)
		return true
	}
	return func(y, x0, x1 int, buf []uint8) []uint8 {
		x, r0, r1 := ox+y, oy+x0, oy+x1
		if (x&^15 != xb || r0 < rb0 || r1 > rb1) && !load(x, r0, r1) {
			return fallback(y, x0, x1, buf)
		}
		k, ph := x-xb, r0&1
		// Pixel r0's luma is row r0-rb0 of plane k, its chroma row r0/2 - rb0/2
		// of plane k/2.
		yi, ci := k*ls+r0-rb0, (k>>1)*lc+(r0>>1)-(rb0>>1)
		if row := isa.yccPlaneBlocks(yt, cbt, crt, buf, yi, ci, ph, x1-x0); row != nil {
			return row
		}
		return fallback(y, x0, x1, buf)
	}
}

// spanPad is the bytes a span buffer holds beyond its span's pixels for
// yccPlaneBlocks's whole blocks.
const spanPad = 32 + 4

// gatherable420 reports whether gatherYCC420 reads m: 4:2:0 chroma (a sample per two
// pixels along either axis) and coordinates >= 0, where image column x has chroma
// column x/2 and row y chroma row y/2 (COffset's truncating division is then floor).
func gatherable420(m *image.YCbCr) bool {
	return m.SubsampleRatio == image.YCbCrSubsampleRatio420 && m.Rect.Min.X >= 0 && m.Rect.Min.Y >= 0
}

// gatherYCC420 converts n pixels of a 4:2:0 image m (gatherable420) from the image
// point (x, y) on, one step (dx, dy) apart (one of them 0, the other ±1: along a row
// or a column, either way), to RGB (ps 3; out then holds 4 bytes more, which it may
// overwrite) or opaque RGBA (ps 4) in out, with color.YCbCrToRGB's arithmetic. The
// quarter turns and mirrors read the decoded picture this way instead of copying it
// turned (orientedView). A run along a row from left to right is converted in
// place; any other run is gathered 128 pixels at a time into planes on the stack
// (chroma a sample per two pixels, as in a row) and converted by yccRowHalf.
func (isa kernels) gatherYCC420(out []uint8, ps int, m *image.YCbCr, x, y, dx, dy, n int) {
	yi, ci := m.YOffset(x, y), m.COffset(x, y)
	if dx == 1 && dy == 0 {
		// Pixel i's chroma is (i+ph)/2 columns right of the first's.
		ph := x & 1
		nc := (ph + n + 1) / 2
		isa.yccRowHalf(out, ps, m.Y[yi:][:n], m.Cb[ci:][:nc], m.Cr[ci:][:nc], ph)
		return
	}
	// ys and cs step the luma and chroma indexes a pixel and a chroma sample along
	// the run; p is the coordinate that advances. The first pixel shares its chroma
	// with the next one (ph 0) when the next lies in the same pair: p even going
	// forward, odd going back.
	ys, cs, p := dx, dx, x
	if dx == 0 {
		ys, cs, p = dy*m.YStride, dy*m.CStride, y
	}
	ph := p & 1
	if ys < 0 {
		ph = (p + 1) & 1
	}
	if ph == 1 && n > 0 {
		// The first pixel has a chroma sample of its own: converted alone, so that
		// the blocks below start on a pair and only the run's last pixels (fewer
		// than four) are converted one at a time.
		yccPixel(out, ps, m.Y[yi], m.Cb[ci], m.Cr[ci])
		out, yi, ci, n = out[ps:], yi+ys, ci+cs, n-1
	}
	// The planes' headers in locals: read through m, they were loaded again for
	// every sample.
	Y, Cb, Cr := m.Y, m.Cb, m.Cr
	var yp [128]uint8
	var cbp, crp [64]uint8
	for at := 0; at < n; at += len(yp) {
		c := min(len(yp), n-at)
		isa.gatherStride(yp[:c], Y, yi, ys)
		yi += c * ys
		// at is even, so pixel at+i's chroma is at/2 + i/2 samples on.
		nc := (c + 1) / 2
		cj := ci + (at>>1)*cs
		isa.gatherStride2(cbp[:nc], crp[:nc], Cb, Cr, cj, cs)
		end := ps * (at + c)
		if ps == 3 {
			end += 4
		}
		isa.yccRowHalf(out[ps*at:end], ps, yp[:c], cbp[:nc], crp[:nc], 0)
	}
}

// gatherStride sets dst[i] = src[at + i*step] for every i of dst, four bytes a step
// with gatherStrideBlocks where the assembly is: the Go loop, a bounds check a byte,
// cost the 60° rotated draw about 70M instructions, a sixth of it (callgrind).
func (isa kernels) gatherStride(dst, src []uint8, at, step int) {
	n := len(dst)
	if n == 0 {
		return
	}
	// The indexes are linear in i: the first and last inside src, all are.
	if last := at + (n-1)*step; isa.sse && uint(at) < uint(len(src)) && uint(last) < uint(len(src)) {
		gatherStrideBlocks(dst, src, at, step)
		return
	}
	for i := range dst {
		dst[i] = src[at]
		at += step
	}
}

// gatherStride2 is gatherStride on two planes (a picture's Cb and Cr) with the same
// indexes, dst1 as long as dst0: one loop, half the calls (about 3M instructions a
// 60° draw).
func (isa kernels) gatherStride2(dst0, dst1, src0, src1 []uint8, at, step int) {
	n := len(dst0)
	dst1 = dst1[:n]
	if n == 0 {
		return
	}
	if last := at + (n-1)*step; isa.sse && uint(at) < uint(min(len(src0), len(src1))) && uint(last) < uint(min(len(src0), len(src1))) {
		gatherStride2Blocks(dst0, dst1, src0, src1, at, step)
		return
	}
	for i := range dst0 {
		dst0[i], dst1[i] = src0[at], src1[at]
		at += step
	}
}

// yccRowHalf converts a row of YCbCr pixels whose chroma pairs share (pixel i's
// chroma is cb, cr[(i+ph)/2]) to opaque RGBA (ps 4) or RGB (ps 3: buf then holds
// 4 bytes more, which it may overwrite) in buf: four pixels at a time with
// yccHalfBlocks where the CPU has it (about 10 instructions a pixel instead of 65),
// the rest one at a time.
func (isa kernels) yccRowHalf(buf []uint8, ps int, yrow, cb, cr []uint8, ph int) {
	one := func(i, k int) { yccPixel(buf[ps*i:], ps, yrow[i], cb[k], cr[k]) }
	i, k := 0, 0
	if ph == 1 && len(yrow) > 0 {
		one(0, 0)
		i, k = 1, 1
	}
	if ps == 4 && isa.avx2 {
		// Eight pixels at a time (half the time of four a block, which took a
		// quarter of a 30° draw); k stays (i+ph)/2.
		nb := (len(yrow) - i) / 8
		yccHalfBlocksAVX2RGBA(buf[4*i:4*(i+8*nb)], yrow[i:i+8*nb], cb[k:k+4*nb], cr[k:k+4*nb], nb)
		i, k = i+8*nb, k+4*nb
	}
	if ps == 3 && isa.avx2 {
		// RGB eight at a time, storing 4 bytes past each block as below.
		nb := (len(yrow) - i) / 8
		yccHalfBlocksAVX2(buf[3*i:3*(i+8*nb)+4], yrow[i:i+8*nb], cb[k:k+4*nb], cr[k:k+4*nb], nb)
		i, k = i+8*nb, k+4*nb
	}
	if isa.sse {
		// RGB blocks store 4 bytes past their 12 (into the next pixel, written after,
		// or buf's 4 more bytes).
		nb := (len(yrow) - i) / 4
		end := ps * (i + 4*nb)
		if ps == 3 {
			end += 4
		}
		yccHalfBlocks(buf[ps*i:end], yrow[i:i+4*nb], cb[k:k+2*nb], cr[k:k+2*nb], nb, 4*ps)
		i += 4 * nb
	}
	for ; i < len(yrow); i++ {
		one(i, (i+ph)>>1)
	}
}

// yccPixel converts one YCbCr pixel to opaque RGBA (ps 4) or RGB (ps 3) at q.
func yccPixel(q []uint8, ps int, yv, cb, cr uint8) {
	if ps == 4 {
		yccToRGBA(q[:4], yv, cb, cr)
		return
	}
	rc, gc, bc := chromaTerms(cb, cr)
	q = q[:3:3]
	q[0], q[1], q[2] = lumaPlusChroma(yv, rc, gc, bc)
}

// yccToRGBA is color.YCbCrToRGB's arithmetic (JFIF coefficients at 2^16, rounding
// adjustment 257*Y'), its clamping written as min/max, and alpha 255: written out
// because the library's call does not inline, and a call a pixel cost a third of the
// conversion (callgrind). TestYCCSpanMatchesConversion checks it against the library.
func yccToRGBA(q []uint8, yv, cb, cr uint8) {
	q = q[:4:4]
	yy1 := int32(yv) * 0x10101
	cb1, cr1 := int32(cb)-128, int32(cr)-128
	q[0] = uint8(min(max((yy1+91881*cr1)>>16, 0), 255))
	q[1] = uint8(min(max((yy1-22554*cb1-46802*cr1)>>16, 0), 255))
	q[2] = uint8(min(max((yy1+116130*cb1)>>16, 0), 255))
	q[3] = 255
}
