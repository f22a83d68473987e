package resample

import (
	"encoding/binary"
	"image"
	"math"
	"math/bits"

	"github.com/printworker/printworker/render/svg"
)

// coveredRows returns the rows [y0, y1) of band whose pixels the convex polygon poly
// covers wholly: rows between the band's two side lines where both lie inside the
// polygon (a rectangle whose corners lie in a convex polygon lies in it). Those rows
// need no rasterizing; for a rotated picture they are all but the few rows per band
// its edges cross. y0 >= y1 when there are none.
func coveredRows(poly []svg.Point, band image.Rectangle) (int, int) {
	lo0, hi0, ok0 := verticalSpan(poly, float64(band.Min.X))
	lo1, hi1, ok1 := verticalSpan(poly, float64(band.Max.X))
	if !ok0 || !ok1 {
		return 0, 0
	}
	top, bottom := math.Max(lo0, lo1), math.Min(hi0, hi1)
	if !(top < bottom) {
		return 0, 0
	}
	y0 := max(band.Min.Y, int(math.Max(-1e9, math.Ceil(top))))
	y1 := min(band.Max.Y, int(math.Min(1e9, math.Floor(bottom))))
	return y0, y1
}

// verticalSpan returns the y range where the vertical line at x crosses the convex
// polygon poly (its edges included), and false when it misses it.
func verticalSpan(poly []svg.Point, x float64) (lo, hi float64, ok bool) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for i, p := range poly {
		q := poly[(i+1)%len(poly)]
		if (p.X < x && q.X < x) || (p.X > x && q.X > x) {
			continue
		}
		if p.X == q.X {
			lo, hi = math.Min(lo, math.Min(p.Y, q.Y)), math.Max(hi, math.Max(p.Y, q.Y))
			continue
		}
		y := p.Y + (x-p.X)/(q.X-p.X)*(q.Y-p.Y)
		lo, hi = math.Min(lo, y), math.Max(hi, y)
	}
	return lo, hi, lo <= hi
}

// fill255 sets every byte of b to 255 (wholly covered pixels).
func fill255(b []uint8) { fillByte(b, 255) }

// fillByte sets every byte of b to v.
func fillByte(b []uint8, v uint8) {
	if len(b) == 0 {
		return
	}
	b[0] = v
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// nonZeroSpan returns the pixels [lo, hi) of a coverage row between its first and
// last covered one (lo >= hi when none is): a rotated picture leaves about half of
// its bands' rows uncovered, on both sides.
func nonZeroSpan(mrow []uint8) (lo, hi int) {
	hi = len(mrow)
	// Eight bytes at a time over the long runs of zeros.
	for lo+8 <= hi && binary.LittleEndian.Uint64(mrow[lo:]) == 0 {
		lo += 8
	}
	for lo < hi && mrow[lo] == 0 {
		lo++
	}
	for hi-8 >= lo && binary.LittleEndian.Uint64(mrow[hi-8:]) == 0 {
		hi -= 8
	}
	for hi > lo && mrow[hi-1] == 0 {
		hi--
	}
	return lo, hi
}

// Pass-1 values of opaque pictures are kept column-major (intRing): column i of a
// band holds its ring of source rows in slots of 4 values (RGB and a fourth that
// nothing reads) from i*cs, and the first three slots are repeated after the last.
// The four taps of any pass-2 pixel are then 16 consecutive values, read with one
// bounds check, where a row-major
// ring read them from four rows chosen again whenever the source row changed (about
// every other pixel along a row at 30°): that cost the Go pass 2 about 190
// instructions a pixel (callgrind), against about 130 on the column-major ring.

// The values are int16: pass 1's sums at 2^iBits lie within 255 * 2^iBits times the
// kernel's sum of absolute weights (under 1.3 for Catmull-Rom, enlarging or
// shrinking: about 21,200), so they fit, and pass 2 multiplies pairs of taps by pairs
// of weights with PMADDWL, as the horizontal pass does, where the int32 ring took a
// PMULLD (two micro-ops, ten cycles' latency) a tap: about 26 instructions a pixel
// instead of 40. The fourth value of a slot lets the SIMD pass 1 store a
// sample with one 8-byte move and pass 2 load two slots with one 16-byte move.

// intRingStride is the values per column of an intRing of ring slots: the slots and
// the three repeated ones.
func intRingStride(ring int) int { return 4 * (ring + 3) }

// mirrorSlot repeats the slot just written in the copies after the ring's end that
// stand for it (slots ring..ring+2 stand for slots 0..2, modulo ring).
func mirrorSlot(inter []int16, bw, cs, ring, slot int) {
	for t := slot + ring; t < ring+3; t += ring {
		for i := range bw {
			col := inter[i*cs : (i+1)*cs]
			copy(col[4*t:4*t+3], col[4*slot:4*slot+3])
		}
	}
}

// columnsRowInt4 is resampleColumnsRowInt's inner loop for pixels lo..hi-1 of a row
// when enlarging and every pixel's four taps lie inside the source: pixel i samples
// at vi + i dvi (32.32) from column i of the intRing, and no tap is clamped. Runs of
// wholly covered pixels go to columnsRun (columnsRunBlocksAVX2, columnsRunBlocksVEX
// or columnsRunBlocks, resample_simd_amd64.s) where the CPU has SSSE3: about 16 or
// 27 instructions a pixel instead of 120; the rest, and other CPUs, to
// columnsRowInt4Go.
func (isa kernels) columnsRowInt4(dp, mrow []uint8, inter []int16, cs, mask, lo, hi int, vi, dvi int64, opacity float64) {
	if opacity != 1 || !isa.sse || hi*cs > len(inter) {
		columnsRowInt4Go(dp, mrow, inter, cs, mask, lo, hi, vi, dvi, opacity)
		return
	}
	for i := lo; i < hi; {
		// Covered pixels eight at a time: the scan cost a tenth of the SIMD pass.
		j := i
		for j+8 <= hi && binary.LittleEndian.Uint64(mrow[j:]) == ^uint64(0) {
			j += 8
		}
		for j < hi && mrow[j] == 255 {
			j++
		}
		if j > i {
			isa.columnsRun(dp[4*i:4*j], inter, i*cs, cs, mask, vi+int64(i)*dvi, dvi, j-i)
			i = j
			continue
		}
		// Edge pixels up to the next wholly covered one.
		for j < hi && mrow[j] != 255 {
			j++
		}
		columnsRowInt4Go(dp, mrow, inter, cs, mask, i, j, vi, dvi, opacity)
		i = j
	}
}

// columnsRunInt4 is columnsRowInt4 when pixels lo..hi-1 are all wholly covered
// (resampleColumnsRowInt's full rows): one run, without the scan for runs.
func (isa kernels) columnsRunInt4(dp, mrow []uint8, inter []int16, cs, mask, lo, hi int, vi, dvi int64, opacity float64) {
	if opacity != 1 || !isa.sse || hi*cs > len(inter) || lo >= hi {
		columnsRowInt4Go(dp, mrow, inter, cs, mask, lo, hi, vi, dvi, opacity)
		return
	}
	isa.columnsRun(dp[4*lo:4*hi], inter, lo*cs, cs, mask, vi+int64(lo)*dvi, dvi, hi-lo)
}

// columnsRun writes the n wholly covered pixels of a run whose first is sampled at v
// from the column at inter[col:] (the SIMD kernels' arguments): four at a time with
// columnsRunBlocksAVX2 where the CPU has AVX2 and BMI1 (a pixel's taps in one 256-bit
// load: 6 % less CPU a 30° draw), a last pair with columnsRunBlocksVEX where it has
// AVX and BMI1 (about 17 instructions a pixel instead of 26), an odd last pixel and
// other CPUs with
// columnsRunBlocks.
func (isa kernels) columnsRun(dp []uint8, inter []int16, col, cs, mask int, v, dvi int64, n int) {
	// BEXTR's control: the slot is bits 32 and up of the position, as many as the
	// mask has (the ring is a power of two).
	slotCtl := 32 | bits.Len(uint(mask))<<8
	if n4 := n &^ 3; n4 > 0 && isa.avx2Cols {
		columnsRunBlocksAVX2(dp[:4*n4], inter, col, cs, v-1<<32+1<<21, dvi, n4, slotCtl, &cmLUTPairs)
		dp, col, v, n = dp[4*n4:], col+n4*cs, v+int64(n4)*dvi, n-n4
	}
	if n2 := n &^ 1; n2 > 0 && isa.vex {
		columnsRunBlocksVEX(dp[:4*n2], inter, col, cs, v-1<<32+1<<21, dvi, n2, slotCtl, &cmLUTPairs)
		dp, col, v, n = dp[4*n2:], col+n2*cs, v+int64(n2)*dvi, n-n2
	}
	if n > 0 {
		columnsRunBlocks(dp, inter, col, cs, mask, v, dvi, n, &cmLUTPairs)
	}
}

// columnsRowInt4Go is columnsRowInt4 in Go. Wholly covered pixels compute and store
// one channel at a time: fewer values live at once keeps the loop in registers (Go
// spilled a dozen of them to the stack a pixel).
func columnsRowInt4Go(dp, mrow []uint8, inter []int16, cs, mask, lo, hi int, vi, dvi int64, opacity float64) {
	v := vi + int64(lo)*dvi
	col := lo * cs
	for i := lo; i < hi; i, v, col = i+1, v+dvi, col+cs {
		cv := mrow[i]
		if cv == 0 {
			continue
		}
		at := col + 4*((int(v>>32)-1)&mask)
		p := inter[at : at+16 : at+16]
		lw := &cmLUTInt[lutIndex(v)]
		w0, w1, w2, w3 := lw[0], lw[1], lw[2], lw[3]
		q := dp[4*i : 4*i+4 : 4*i+4]
		if cv == 255 && opacity == 1 {
			q[0] = toByte(tap4(p, 0, w0, w1, w2, w3))
			q[1] = toByte(tap4(p, 1, w0, w1, w2, w3))
			q[2] = toByte(tap4(p, 2, w0, w1, w2, w3))
			q[3] = 255
			continue
		}
		blendOpaque(q, tap4(p, 0, w0, w1, w2, w3), tap4(p, 1, w0, w1, w2, w3), tap4(p, 2, w0, w1, w2, w3), cv, opacity)
	}
}

// tap4 is channel c of a pixel's four taps (16 intRing values from p) weighted.
func tap4(p []int16, c int, w0, w1, w2, w3 int32) int32 {
	p = p[c : c+13 : c+13]
	return w0*int32(p[0]) + w1*int32(p[4]) + w2*int32(p[8]) + w3*int32(p[12])
}

// rowRunInt4 is resampleRowInt's inner loop while enlarging: from sample position ui
// (32.32, step dui) it writes up to n samples (RGB at 2^iBits, sample s at
// out[s*ostride:]) for as long as all four taps lie inside the row of rn RGBA
// pixels, and returns how many it wrote. rowRunBlocks (SSSE3, resample_simd_amd64.s)
// does it where the CPU has it, rowRunInt4Go elsewhere.
func (isa kernels) rowRunInt4(out []int16, n, ostride int, row []uint8, rn int, ui, dui int64) int {
	if rn < 4 {
		// No sample has four taps inside (and rn-3 below would wrap).
		return 0
	}
	if isa.sse && len(row) >= 4*rn && n > 0 && (n-1)*ostride+4 <= len(out) {
		s := 0
		if isa.avx2Rows {
			// Whole blocks of four of the samples inside (about 13 instructions a
			// sample instead of 27), the rest as before. rowRunBlocksAVX2 reads a sample's taps
			// from its position rounded to the weight table: those within 2^-11
			// of a pixel short of the row's last inside position would read a
			// pixel past the row's end (times 0). Backwards they come first, and
			// take rowRunBlocks.
			end := int64(rn-2) << 32
			safe := end - 1<<(32-cmLUTBits-1)
			if dui < 0 {
				if s = insideRange(n, ui, dui, safe, end); s > 0 {
					rowRunBlocks(out, s, ostride, row, rn, ui, dui, &cmLUTPairs)
					ui += int64(s) * dui
				}
			}
			if k := insideRange(n-s, ui, dui, 1<<32, safe) &^ 3; k > 0 {
				rowRunBlocksAVX2(out[s*ostride:], k, ostride, row, ui, dui, &cmLUTPairs)
				s += k
				ui += int64(k) * dui
			}
			if s == n {
				return s
			}
		}
		return s + rowRunBlocks(out[s*ostride:], n-s, ostride, row, rn, ui, dui, &cmLUTPairs)
	}
	return rowRunInt4Go(out, n, ostride, row, rn, ui, dui)
}

// insideRange is how many samples, of n from position ui (32.32, step dui), lie in
// [lo, hi) before the first that does not: with lo 1<<32 and hi (rn-2)<<32,
// rowRunInt4Go's loop's count for a row of rn pixels (i0 = ui >> 32 from 1 to
// rn-3), without the loop.
func insideRange(n int, ui, dui, lo, hi int64) int {
	if ui < lo || ui >= hi {
		return 0
	}
	var k int64
	switch {
	case dui > 0:
		k = (hi-1-ui)/dui + 1
	case dui < 0:
		k = (ui-lo)/-dui + 1
	default:
		return n
	}
	return int(min(k, int64(n)))
}

func rowRunInt4Go(out []int16, n, ostride int, row []uint8, rn int, ui, dui int64) int {
	const round = 1 << (hBits - iBits - 1)
	if rn < 4 {
		return 0
	}
	s, oi := 0, 0
	for ; s < n; s, ui, oi = s+1, ui+dui, oi+ostride {
		i0 := int(ui >> 32)
		if uint(i0-1) >= uint(rn-3) {
			break
		}
		lw := &cmLUTInt[lutIndex(ui)]
		p := row[4*(i0-1) : 4*(i0-1)+16 : 4*(i0-1)+16]
		w0, w1, w2, w3 := lw[0], lw[1], lw[2], lw[3]
		// One channel at a time (see columnsRowInt4Go). The fourth value, which
		// nothing reads, is the alpha channel's as rowRunBlocks stores it.
		o := out[oi : oi+4 : oi+4]
		o[0] = int16((w0*int32(p[0]) + w1*int32(p[4]) + w2*int32(p[8]) + w3*int32(p[12]) + round) >> (hBits - iBits))
		o[1] = int16((w0*int32(p[1]) + w1*int32(p[5]) + w2*int32(p[9]) + w3*int32(p[13]) + round) >> (hBits - iBits))
		o[2] = int16((w0*int32(p[2]) + w1*int32(p[6]) + w2*int32(p[10]) + w3*int32(p[14]) + round) >> (hBits - iBits))
		o[3] = int16((w0*int32(p[3]) + w1*int32(p[7]) + w2*int32(p[11]) + w3*int32(p[15]) + round) >> (hBits - iBits))
	}
	return s
}

// cmLUTPairs is cmLUTInt as pairTaps lays out weights for the SIMD horizontal pass.
var cmLUTPairs = func() (t [cmLUTSteps + 1][16]int16) {
	for i := range t {
		pairTaps(cmLUTInt[i][:], t[i][:])
	}
	return
}()

// pairTaps lays out four 14-bit tap weights, or five, for the horizontal kernels of
// resample_simd_amd64.s, one pair per channel for PMADDWL: (w0, w1) four times, then
// (w2, w3) four times, and in a 24-value out (w4, 0) four times (0 for four taps).
// It reports false when the weights do not fit out or 16 bits (the latter never for
// Catmull-Rom at 2^hBits, whose weights lie within -0.1..1).
func pairTaps(w []int32, out []int16) bool {
	if len(w) < 4 || len(w) > 4+(len(out)-16)/8 {
		return false
	}
	for _, v := range w {
		if v != int32(int16(v)) {
			return false
		}
	}
	for c := range 4 {
		out[2*c], out[2*c+1] = int16(w[0]), int16(w[1])
		out[8+2*c], out[8+2*c+1] = int16(w[2]), int16(w[3])
		if len(out) == 24 {
			out[16+2*c], out[16+2*c+1] = 0, 0
			if len(w) == 5 {
				out[16+2*c] = int16(w[4])
			}
		}
	}
	return true
}
