package render

import (
	"image"
	"image/draw"
	"math"
)

// Quarter turns and mirrors. A picture turned by a multiple of 90° or mirrored (by
// the element's rotation or the JPEG's EXIF orientation) maps source rows onto output
// rows or columns exactly, so instead of the general two-pass path it is redrawn as an
// unrotated picture: the source is copied once in the orientation the output shows
// (orientedRGBA, 4 bytes a source pixel, the same copy the general path makes) and
// then takes the separable path, whose kernel weights are computed once per output
// row and column. The cost is that of the unrotated picture plus the copy.

// quarterTolerance is how far from zero the placement's off-axis terms may be for
// a turn to count as exact: svg.Rotate(90) leaves cos = 6e-17, which moves a pixel
// of a 10^6 px picture by 10^-10 px.
const quarterTolerance = 1e-12

// orthogonalPlacement reports whether m maps the source axes onto the output axes
// (a quarter turn, a mirror or both) and is not already axis-aligned with positive
// scales. It returns the source's orientation for orientedRGBA (swap: source rows
// become output columns; flipX, flipY: mirror the source's x or y first) and the
// placement of that oriented copy, axis-aligned with positive scales.
func orthogonalPlacement(m Matrix, w, h float64) (swap, flipX, flipY bool, n Matrix, ok bool) {
	a, b, c, d, e, f := m[0], m[1], m[2], m[3], m[4], m[5]
	scale := math.Max(math.Max(math.Abs(a), math.Abs(b)), math.Max(math.Abs(c), math.Abs(d)))
	tiny := func(v float64) bool { return math.Abs(v) <= quarterTolerance*scale }
	switch {
	case tiny(b) && tiny(c) && a != 0 && d != 0 && (a < 0 || d < 0):
		// X = a x + e, Y = d y + f: mirror x when a < 0, y when d < 0.
		flipX, flipY = a < 0, d < 0
		if flipX {
			e += a * w
		}
		if flipY {
			f += d * h
		}
		return false, flipX, flipY, Matrix{math.Abs(a), 0, 0, math.Abs(d), e, f}, true
	case tiny(a) && tiny(d) && b != 0 && c != 0:
		// X = c y + e, Y = b x + f: source rows become output columns.
		flipX, flipY = b < 0, c < 0
		if flipY {
			e += c * h
		}
		if flipX {
			f += b * w
		}
		return true, flipX, flipY, Matrix{math.Abs(c), 0, 0, math.Abs(b), e, f}, true
	}
	return false, false, false, Matrix{}, false
}

// orientStrip is the number of source rows converted at a time by orientedRGBA: a
// turned strip writes 16 pixels (one 64-byte cache line) to each output row.
const orientStrip = 16

// orientedRGBA returns the part win of src (coordinates from src's top-left) as a
// premultiplied *image.RGBA at (0, 0), mirrored in x when flipX, in y when flipY
// (both about the window), then transposed when swap (pixel (i, j) of the result is
// then pixel (j, i) of the mirrored window). It converts the source a strip of rows
// at a time, so the only full-size allocation is the result (4 bytes a pixel).
func orientedRGBA(src image.Image, win image.Rectangle, swap, flipX, flipY bool) *image.RGBA {
	if !swap && !flipX && !flipY {
		return premultipliedRGBA(src, win)
	}
	ww, wh := win.Dx(), win.Dy()
	ow, oh := ww, wh
	if swap {
		ow, oh = wh, ww
	}
	out := image.NewRGBA(image.Rect(0, 0, ow, oh))
	strip := image.NewRGBA(image.Rect(0, 0, ww, orientStrip))
	sb := src.Bounds()
	for y0 := 0; y0 < wh; y0 += orientStrip {
		n := min(orientStrip, wh-y0)
		var rows *image.RGBA
		if m, ok := src.(*image.RGBA); ok {
			rows = premultipliedRGBA(m, image.Rect(win.Min.X, win.Min.Y+y0, win.Max.X, win.Min.Y+y0+n))
		} else {
			draw.Draw(strip, image.Rect(0, 0, ww, n), src, sb.Min.Add(win.Min).Add(image.Pt(0, y0)), draw.Src)
			rows = strip
		}
		for k := range n {
			y := y0 + k
			if flipY {
				y = wh - 1 - y
			}
			row := rows.Pix[k*rows.Stride:][:4*ww]
			if swap {
				// Source row y becomes output column y.
				for x := range ww {
					j := x
					if flipX {
						j = ww - 1 - x
					}
					o := j*out.Stride + 4*y
					q := out.Pix[o : o+4 : o+4]
					p := row[4*x : 4*x+4 : 4*x+4]
					q[0], q[1], q[2], q[3] = p[0], p[1], p[2], p[3]
				}
				continue
			}
			dr := out.Pix[y*out.Stride:][:4*ww]
			if !flipX {
				copy(dr, row)
				continue
			}
			for x := range ww {
				o := 4 * (ww - 1 - x)
				q := dr[o : o+4 : o+4]
				p := row[4*x : 4*x+4 : 4*x+4]
				q[0], q[1], q[2], q[3] = p[0], p[1], p[2], p[3]
			}
		}
	}
	return out
}
