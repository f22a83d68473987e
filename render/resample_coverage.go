package render

import (
	"image"
	"math"

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
func fill255(b []uint8) {
	if len(b) == 0 {
		return
	}
	b[0] = 255
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// nonZeroSpan returns the pixels [lo, hi) of a coverage row between its first and
// last covered one (lo >= hi when none is): a rotated picture leaves about half of
// its bands' rows uncovered, on both sides.
func nonZeroSpan(mrow []uint8) (lo, hi int) {
	hi = len(mrow)
	for lo < hi && mrow[lo] == 0 {
		lo++
	}
	for hi > lo && mrow[hi-1] == 0 {
		hi--
	}
	return lo, hi
}

// columnsRowInt4 is resampleColumnsRowInt's inner loop for pixels lo..hi-1 of a row
// when enlarging and every pixel's four taps lie inside the source: pixel i samples
// at vi + i dvi (32.32), the four ring rows are looked up only when the integer
// position changes, and no tap is clamped.
func columnsRowInt4(dp, mrow []uint8, inter []int32, stride, mask, lo, hi int, vi, dvi int64, opacity float64) {
	cur := -1
	var t0, t1, t2, t3 []int32
	v := vi + int64(lo)*dvi
	for i := lo; i < hi; i, v = i+1, v+dvi {
		cv := mrow[i]
		if cv == 0 {
			continue
		}
		if i0 := int(v >> 32); i0 != cur {
			cur = i0
			t0 = inter[stride*((i0-1)&mask):][:stride]
			t1 = inter[stride*(i0&mask):][:stride]
			t2 = inter[stride*((i0+1)&mask):][:stride]
			t3 = inter[stride*((i0+2)&mask):][:stride]
		}
		lw := &cmLUTInt[lutIndex(v)]
		w0, w1, w2, w3 := lw[0], lw[1], lw[2], lw[3]
		j := 3 * i
		a0, a1, a2, a3 := t0[j:j+3:j+3], t1[j:j+3:j+3], t2[j:j+3:j+3], t3[j:j+3:j+3]
		r := w0*a0[0] + w1*a1[0] + w2*a2[0] + w3*a3[0]
		g := w0*a0[1] + w1*a1[1] + w2*a2[1] + w3*a3[1]
		b := w0*a0[2] + w1*a1[2] + w2*a2[2] + w3*a3[2]
		q := dp[4*i : 4*i+4 : 4*i+4]
		if cv == 255 && opacity == 1 {
			q[0], q[1], q[2], q[3] = toByte(r), toByte(g), toByte(b), 255
			continue
		}
		blendOpaque(q, r, g, b, cv, opacity)
	}
}

// rowRunInt4 is resampleRowInt's inner loop while enlarging: it fills out (RGB at
// 2^iBits) from sample position ui (32.32, step dui) for as long as all four taps lie
// inside the row of n RGBA pixels, and returns how many values it wrote (3 a sample).
func rowRunInt4(out []int32, row []uint8, n int, ui, dui int64) int {
	const round = 1 << (hBits - iBits - 1)
	i := 0
	for ; i+3 <= len(out); i, ui = i+3, ui+dui {
		i0 := int(ui >> 32)
		if uint(i0-1) >= uint(n-3) {
			break
		}
		lw := &cmLUTInt[lutIndex(ui)]
		p := row[4*(i0-1) : 4*(i0-1)+16 : 4*(i0-1)+16]
		w0, w1, w2, w3 := lw[0], lw[1], lw[2], lw[3]
		r := w0*int32(p[0]) + w1*int32(p[4]) + w2*int32(p[8]) + w3*int32(p[12])
		g := w0*int32(p[1]) + w1*int32(p[5]) + w2*int32(p[9]) + w3*int32(p[13])
		b := w0*int32(p[2]) + w1*int32(p[6]) + w2*int32(p[10]) + w3*int32(p[14])
		o := out[i : i+3 : i+3]
		o[0], o[1], o[2] = (r+round)>>(hBits-iBits), (g+round)>>(hBits-iBits), (b+round)>>(hBits-iBits)
	}
	return i
}
