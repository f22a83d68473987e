package resample

import (
	"image"
	"image/color"
	"image/draw"
	"math"
)

// Quarter turns and mirrors. A picture turned by a multiple of 90° or mirrored (by
// the element's rotation or the JPEG's EXIF orientation) maps source rows onto output
// rows or columns exactly, so instead of the general two-pass path it is redrawn as an
// unrotated picture of the source seen in the orientation the output shows, which
// takes the separable path, whose kernel weights are computed once per output row and
// column. A decoded 4:2:0 JPEG is read in place through that orientation
// (orientedView); other sources are copied once turned (orientedRGBA, 4 bytes a
// source pixel).

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

// orientedView is the part win of a decoded 4:2:0 picture (coordinates from its
// top-left) seen as orientedRGBA would copy it (mirrored, then transposed when swap),
// without the copy: the separable path's row fetcher (opaqueRowFetcher) and the span
// fetchers of the edge ring (opaqueSpanFetcher) read and convert the source pixels
// where the view puts them (gatherYCC420), on the band workers. The copy cost a
// quarter-turned 300-dpi photo as much as drawing it (callgrind: 400M of 730M
// instructions, serial, 16 MB); a turned row is now gathered down a source column,
// whose cache lines the band's next rows (the next columns) reuse.
type orientedView struct {
	src                *image.YCbCr
	win                image.Rectangle
	swap, flipX, flipY bool
	// isa is the draw's kernels.
	isa kernels
}

// newOrientedView returns the view of src's window win in the orientation given, or
// nil when src is not a picture gatherYCC420 reads (those take orientedRGBA's copy).
func (isa kernels) newOrientedView(src image.Image, win image.Rectangle, swap, flipX, flipY bool) image.Image {
	m, ok := src.(*image.YCbCr)
	if !ok || !gatherable420(m) || !win.In(image.Rect(0, 0, m.Rect.Dx(), m.Rect.Dy())) {
		return nil
	}
	return &orientedView{src: m, win: win, swap: swap, flipX: flipX, flipY: flipY, isa: isa}
}

func (v *orientedView) Bounds() image.Rectangle {
	w, h := v.win.Dx(), v.win.Dy()
	if v.swap {
		w, h = h, w
	}
	return image.Rect(0, 0, w, h)
}

func (v *orientedView) ColorModel() color.Model { return color.RGBAModel }

func (v *orientedView) At(x, y int) color.Color {
	if !(image.Point{x, y}.In(v.Bounds())) {
		return color.RGBA{}
	}
	return color.RGBAModel.Convert(v.src.At(v.point(x, y)))
}

// point is the source image point that the view shows at (x, y).
func (v *orientedView) point(x, y int) (int, int) {
	p, q := x, y
	if v.swap {
		p, q = y, x
	}
	if v.flipX {
		p = v.win.Dx() - 1 - p
	}
	if v.flipY {
		q = v.win.Dy() - 1 - q
	}
	return v.src.Rect.Min.X + v.win.Min.X + p, v.src.Rect.Min.Y + v.win.Min.Y + q
}

// step is the source step that a step (dx, dy) in the view makes.
func (v *orientedView) step(dx, dy int) (int, int) {
	if v.swap {
		dx, dy = dy, dx
	}
	if v.flipX {
		dx = -dx
	}
	if v.flipY {
		dy = -dy
	}
	return dx, dy
}

// run converts the n view pixels from (x, y) on, a step (dx, dy) apart, as RGB (ps
// 3, out holding 4 bytes more) or RGBA (ps 4) into out.
func (v *orientedView) run(out []uint8, ps, x, y, dx, dy, n int) {
	sx, sy := v.point(x, y)
	sdx, sdy := v.step(dx, dy)
	v.isa.gatherYCC420(out, ps, v.src, sx, sy, sdx, sdy, n)
}

// columnRows returns a row fetcher for one band worker of the separable path when
// the view is turned (swap: its rows are the window's columns, read downwards or,
// flipped, upwards): the sixteen columns around a requested one are copied whole
// into contiguous planes by 8x8 byte transposes (transpose8, chroma's eight columns
// too) and the next rows of the block (the band's next source rows) converted from
// there, as columnBlockFetcher does for the rotated path, instead of gathering each
// column down the picture (gatherYCC420). Columns outside whole blocks of the
// picture take fallback.
func (v *orientedView) columnRows(fallback func(y int, out []uint8)) func(y int, out []uint8) {
	m, r := v.src, v.src.Rect
	n := v.win.Dy()
	// The run of a row: source rows from rtop, a step s (±1) apart; pixel i's
	// chroma is the (i+ph)/2-th from ctop's, in the same direction.
	rtop, s := r.Min.Y+v.win.Min.Y, 1
	if v.flipY {
		rtop, s = rtop+n-1, -1
	}
	ph := rtop & 1
	if s < 0 {
		ph = (rtop + 1) & 1
	}
	nc := (ph + n + 1) / 2
	ls, lc := n+16, nc+8
	var yt, cbt, crt []uint8
	xb := -1
	return func(y int, out []uint8) {
		x, _ := v.point(0, y)
		if x&^15 != xb {
			xb = x &^ 15
			if xb < r.Min.X || xb+16 > r.Max.X || len(out) < 3*n+4 {
				xb = -1
				fallback(y, out)
				return
			}
			if yt == nil {
				yt, cbt, crt = make([]uint8, 16*ls), make([]uint8, 8*lc), make([]uint8, 8*lc)
			}
			at := m.YOffset(xb, rtop)
			v.isa.transpose8(yt, m.Y, at, s*m.YStride, n, ls)
			v.isa.transpose8(yt[8*ls:], m.Y, at+8, s*m.YStride, n, ls)
			ci := m.COffset(xb, rtop)
			// Chroma rows from rtop's: (ph + n + 1) / 2 of them cover the run.
			v.isa.transpose8(cbt, m.Cb, ci, s*m.CStride, nc, lc)
			v.isa.transpose8(crt, m.Cr, ci, s*m.CStride, nc, lc)
		}
		k := x - xb
		v.isa.yccRowHalf(out[:3*n+4], 3, yt[k*ls:k*ls+n], cbt[(k>>1)*lc:(k>>1)*lc+nc], crt[(k>>1)*lc:(k>>1)*lc+nc], ph)
	}
}
