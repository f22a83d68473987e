package render

import (
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
				r := newRenderer(t, Options{Workers: 3})
				r.drawPicture(got, clip, m, pictureLayer(src, 1))
				drawTransformed(want, want.Rect, clipPolygon(placedQuad(m, 80, 60), clip), src, m, 1, 3)
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
