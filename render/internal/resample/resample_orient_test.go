package resample

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"testing"

	"github.com/printworker/printworker/render/svg"
)

// orientedRGBA copies each pixel where its definition puts it, for all eight
// orientations, from an RGBA source (viewed) and a YCbCr one (converted in strips,
// with more rows than one strip and a window not at the origin).
func TestOrientedRGBA(t *testing.T) {
	const w, h = 7, 37
	rgba := image.NewRGBA(image.Rect(3, 5, 3+w+2, 5+h+3))
	ycc := image.NewYCbCr(rgba.Rect, image.YCbCrSubsampleRatio444)
	for y := rgba.Rect.Min.Y; y < rgba.Rect.Max.Y; y++ {
		for x := rgba.Rect.Min.X; x < rgba.Rect.Max.X; x++ {
			rgba.SetRGBA(x, y, color.RGBA{uint8(x * 20), uint8(y * 5), uint8(x + y), 255})
			ycc.Y[ycc.YOffset(x, y)], ycc.Cb[ycc.COffset(x, y)], ycc.Cr[ycc.COffset(x, y)] = uint8(x*20), uint8(y*5), uint8(x+y)
		}
	}
	win := image.Rect(1, 2, 1+w, 2+h)
	for _, src := range []image.Image{rgba, ycc} {
		for o := range 8 {
			swap, flipX, flipY := o&4 != 0, o&2 != 0, o&1 != 0
			t.Run(fmt.Sprintf("%T/swap=%v,flipX=%v,flipY=%v", src, swap, flipX, flipY), func(t *testing.T) {
				got := orientedRGBA(src, win, swap, flipX, flipY)
				ow, oh := w, h
				if swap {
					ow, oh = h, w
				}
				if got.Rect != image.Rect(0, 0, ow, oh) {
					t.Fatalf("bounds %v, want %dx%d at 0,0", got.Rect, ow, oh)
				}
				for j := range oh {
					for i := range ow {
						x, y := i, j
						if swap {
							x, y = j, i
						}
						if flipX {
							x = w - 1 - x
						}
						if flipY {
							y = h - 1 - y
						}
						sb := src.Bounds().Min.Add(win.Min)
						want := color.RGBAModel.Convert(src.At(sb.X+x, sb.Y+y)).(color.RGBA)
						if c := got.RGBAAt(i, j); c != want {
							t.Fatalf("pixel (%d, %d) = %v, want source (%d, %d) = %v", i, j, c, x, y, want)
						}
					}
				}
			})
		}
	}
}

// Quarter turns and mirrors take the oriented copy and the separable path; they
// draw what the general two-pass path draws for the same placement (the same kernel
// at the same positions, up to fixed-point rounding), edges included.
func TestQuarterTurnMatchesGeneralPath(t *testing.T) {
	src := smoothSource(80, 60)
	for _, tc := range []struct {
		name string
		m    Matrix
	}{
		{"90°", svg.Rotate(90)},
		{"180°", svg.Rotate(180)},
		{"270°", svg.Rotate(270)},
		{"-90°", svg.Rotate(-90)},
		{"mirror x", svg.Scale(-1, 1)},
		{"mirror y", svg.Scale(1, -1)},
		{"90° mirrored", svg.Rotate(90).Mul(svg.Scale(-1, 1))},
	} {
		for _, scale := range []float64{1.7, 0.6} {
			t.Run(fmt.Sprintf("%s x%g", tc.name, scale), func(t *testing.T) {
				m := svg.Translate(100.3, 90.6).Mul(tc.m).Mul(svg.Scale(scale, scale)).Mul(svg.Translate(-40, -30))
				if _, _, _, _, ok := orthogonalPlacement(m, 80, 60); !ok {
					t.Fatalf("%v not recognised as a quarter turn or mirror", m)
				}
				clip := Rect{0, 0, 200, 180}
				got := image.NewRGBA(image.Rect(0, 0, 200, 180))
				want := image.NewRGBA(got.Rect)
				r := New(3)
				r.drawPicture(context.Background(), got, clip, m, pictureLayer(src, 1))
				hostISA.drawTransformed(want, want.Rect, clipPolygon(placedQuad(m, 80, 60), clip), src, m, 1, 3, bandEnv{})
				worst, drawn := 0, 0
				for i := range got.Pix {
					d := int(got.Pix[i]) - int(want.Pix[i])
					worst = max(worst, d, -d)
					if got.Pix[i] != 0 {
						drawn++
					}
				}
				if drawn < 1000 {
					t.Fatalf("only %d channel values drawn", drawn)
				}
				if worst > 2 {
					t.Errorf("differs from the general path by up to %d of 255", worst)
				}
			})
		}
	}
}

// A rotation off a quarter turn by more than rounding keeps the general path.
func TestOrthogonalPlacementNeedsExactTurn(t *testing.T) {
	for _, deg := range []float64{0, 0.001, 89.999, 45, 30} {
		m := svg.Rotate(deg).Mul(svg.Scale(2, 2))
		if _, _, _, _, ok := orthogonalPlacement(m, 10, 10); ok {
			t.Errorf("rotation %g° taken as a quarter turn or mirror", deg)
		}
	}
}

// ycc420Source is a 4:2:0 picture w x h at origin (ox, oy) with varied samples.
func ycc420Source(ox, oy, w, h int) *image.YCbCr {
	m := image.NewYCbCr(image.Rect(ox, oy, ox+w, oy+h), image.YCbCrSubsampleRatio420)
	for i := range m.Y {
		m.Y[i] = uint8(i*37 + i/7)
	}
	for i := range m.Cb {
		m.Cb[i], m.Cr[i] = uint8(i*53+11), uint8(i*29+200)
	}
	return m
}

// orientedView reads the pixels orientedRGBA copies, for all eight orientations,
// through the separable path's row fetcher (RGB) and the general path's span
// fetchers (RGBA, rows and transposed rows, at odd offsets), from windows at even
// and odd origins of 4:2:0 pictures at even and odd origins, with runs longer than
// a gather block (64 pixels) and shorter.
func TestOrientedViewMatchesCopy(t *testing.T) {
	for _, tc := range []struct {
		org image.Point
		w   int
		h   int
		win image.Rectangle
	}{
		{image.Pt(0, 0), 9, 7, image.Rect(0, 0, 9, 7)},
		{image.Pt(1, 1), 4, 5, image.Rect(1, 1, 3, 4)},
		{image.Pt(3, 5), 150, 83, image.Rect(1, 2, 140, 81)},
		{image.Pt(2, 0), 71, 130, image.Rect(2, 1, 69, 130)},
	} {
		src := ycc420Source(tc.org.X, tc.org.Y, tc.w, tc.h)
		for o := range 8 {
			swap, flipX, flipY := o&4 != 0, o&2 != 0, o&1 != 0
			t.Run(fmt.Sprintf("%v/swap=%v,flipX=%v,flipY=%v", tc.win, swap, flipX, flipY), func(t *testing.T) {
				want := orientedRGBA(src, tc.win, swap, flipX, flipY)
				v := hostISA.newOrientedView(src, tc.win, swap, flipX, flipY)
				if v == nil {
					t.Fatal("no view of a 4:2:0 picture")
				}
				if v.Bounds() != want.Rect {
					t.Fatalf("bounds %v, want %v", v.Bounds(), want.Rect)
				}
				ow, oh := want.Rect.Dx(), want.Rect.Dy()
				fetch := hostISA.opaqueRowFetcher(v)
				row := make([]uint8, 3*ow+rowPad)
				for y := range oh {
					fetch(y, row)
					for x := range ow {
						p, q := want.Pix[want.PixOffset(x, y):][:3], row[3*x:3*x+3]
						if string(p) != string(q) {
							t.Fatalf("row %d pixel %d: RGB %v, want %v", y, x, q, p)
						}
						if c := v.At(x, y); c != want.At(x, y) {
							t.Fatalf("At(%d, %d) = %v, want %v", x, y, c, want.At(x, y))
						}
					}
				}
				sub := image.Rect(1, 1, ow, oh)
				for _, tr := range []bool{false, true} {
					got, ref := hostISA.opaqueSpanFetcher(v, sub, tr), hostISA.opaqueSpanFetcher(want, sub, tr)
					n, m := sub.Dy(), sub.Dx()
					if tr {
						n, m = m, n
					}
					buf, rbuf := make([]uint8, 4*m), make([]uint8, 4*m)
					for y := range n {
						for _, x0 := range []int{0, 1} {
							if g, r := got(y, x0, m, buf), ref(y, x0, m, rbuf); string(g) != string(r) {
								t.Fatalf("transposed=%v span row %d from %d: %v, want %v", tr, y, x0, g, r)
							}
						}
					}
				}
			})
		}
	}
}

// A quarter-turned or mirrored 4:2:0 picture drawn through orientedView is byte for
// byte the picture drawn from orientedRGBA's copy, edges and opacity included.
func TestOrientedViewDrawsAsCopy(t *testing.T) {
	const w, h = 90, 67
	src := ycc420Source(0, 0, w, h)
	for _, rot := range []Matrix{svg.Rotate(90), svg.Rotate(180), svg.Rotate(270), svg.Scale(-1, 1), svg.Rotate(90).Mul(svg.Scale(-1, 1))} {
		for _, opacity := range []float64{1, 0.5} {
			m := svg.Translate(100.3, 90.6).Mul(rot).Mul(svg.Scale(1.7, 1.7)).Mul(svg.Translate(-w/2, -h/2))
			swap, flipX, flipY, n, ok := orthogonalPlacement(m, w, h)
			if !ok {
				t.Fatalf("%v not a quarter turn or mirror", m)
			}
			clip := Rect{10.5, 3, 180, 170.25}
			got := image.NewRGBA(image.Rect(0, 0, 200, 180))
			want := image.NewRGBA(got.Rect)
			for i := range got.Pix {
				got.Pix[i], want.Pix[i] = uint8(i), uint8(i)
			}
			r := New(3)
			r.drawPicture(context.Background(), got, clip, m, pictureLayer(src, opacity))
			r.drawPicture(context.Background(), want, clip, n, pictureLayer(orientedRGBA(src, image.Rect(0, 0, w, h), swap, flipX, flipY), opacity))
			if string(got.Pix) != string(want.Pix) {
				t.Errorf("%v opacity %g: drawn through the view differs from the copy", rot, opacity)
			}
		}
	}
}

// A turned view's rows read sixteen columns at a time (columnRows, one fetcher
// reused down the rows as a band worker uses it, forwards and in jumps) are the rows
// the gather reads, byte for byte, for the four turned orientations, windows at odd
// origins and columns outside whole blocks (which fall back).
func TestOrientedViewColumnRowsMatchGather(t *testing.T) {
	for _, tc := range []struct {
		org  image.Point
		w, h int
		win  image.Rectangle
	}{
		{image.Pt(3, 5), 150, 83, image.Rect(1, 2, 140, 81)},
		{image.Pt(2, 0), 71, 130, image.Rect(2, 1, 69, 130)},
		{image.Pt(0, 0), 40, 17, image.Rect(0, 0, 40, 17)},
	} {
		src := ycc420Source(tc.org.X, tc.org.Y, tc.w, tc.h)
		for o := 4; o < 8; o++ {
			flipX, flipY := o&2 != 0, o&1 != 0
			v := hostISA.newOrientedView(src, tc.win, true, flipX, flipY).(*orientedView)
			ref := hostISA.opaqueRowFetcher(v)
			fallbacks := 0
			rows := v.columnRows(func(y int, out []uint8) { fallbacks++; ref(y, out) })
			ow, oh := v.Bounds().Dx(), v.Bounds().Dy()
			got, want := make([]uint8, 3*ow+rowPad), make([]uint8, 3*ow+rowPad)
			order := make([]int, 0, 2*oh)
			for y := range oh {
				order = append(order, y)
			}
			for y := range oh {
				order = append(order, (y*37)%oh)
			}
			for _, y := range order {
				rows(y, got)
				ref(y, want)
				if !bytes.Equal(got[:3*ow], want[:3*ow]) {
					t.Fatalf("%v flipX=%v flipY=%v: row %d differs from the gather", tc.win, flipX, flipY, y)
				}
			}
			if hostISA.avx2 && fallbacks == len(order) {
				t.Errorf("%v flipX=%v flipY=%v: every row fell back", tc.win, flipX, flipY)
			}
		}
	}
}
