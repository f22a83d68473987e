package render

import (
	"fmt"
	"image"
	"image/color"
	"math/rand/v2"
	"testing"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/math/f64"
)

// The separable fast path draws what golang.org/x/image/draw's Catmull-Rom transform
// draws, for enlarging, shrinking, fractional offsets, clips, alpha and hard edges.
func TestScaleAxisAlignedMatchesTransform(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	// A smooth source (photographs are), with an alpha ramp and a few hard edges.
	src := image.NewNRGBA(image.Rect(0, 0, 60, 40))
	for y := 0; y < 40; y++ {
		for x := 0; x < 60; x++ {
			c := color.NRGBA{uint8(x * 4), uint8(y * 6), uint8(128 + rng.IntN(8)), uint8(155 + x + y)}
			if x > 30 && y > 20 {
				c = color.NRGBA{250, 20, 20, 255}
			}
			src.Set(x, y, c)
		}
	}
	tests := []struct{ a, e, d, f float64 }{
		{1, 0, 1, 0},
		{2.5, 3.3, 2.5, 1.7},
		{0.37, 5.2, 0.41, 2.9},
		{3, -20, 1.5, -10},
		{0.1, 0, 0.1, 0},
	}
	// A JPEG-like source: YCbCr 4:2:0.
	ycc := image.NewYCbCr(image.Rect(0, 0, 60, 40), image.YCbCrSubsampleRatio420)
	for y := 0; y < 40; y++ {
		for x := 0; x < 60; x++ {
			ycc.Y[ycc.YOffset(x, y)] = uint8(x*3 + y)
			ycc.Cb[ycc.COffset(x, y)] = uint8(100 + x)
			ycc.Cr[ycc.COffset(x, y)] = uint8(150 - y)
		}
	}
	// Opaque sources take the fixed-point path: the same pictures without alpha, as
	// NRGBA, RGBA and grey.
	opaque := image.NewNRGBA(src.Rect)
	premulOpaque := image.NewRGBA(src.Rect)
	gray := image.NewGray(src.Rect)
	for y := 0; y < 40; y++ {
		for x := 0; x < 60; x++ {
			c := src.NRGBAAt(x, y)
			c.A = 255
			opaque.SetNRGBA(x, y, c)
			premulOpaque.Set(x, y, c)
			gray.Set(x, y, c)
		}
	}
	for _, src := range []image.Image{src, ycc, opaque, premulOpaque, gray} {
		for _, tc := range tests {
			testScaleAxisAligned(t, src, tc.a, tc.e, tc.d, tc.f)
		}
	}
}

func testScaleAxisAligned(t *testing.T, src image.Image, a, e, d, f float64) {
	t.Run(fmt.Sprintf("%T/%g,%g", src, a, d), func(t *testing.T) {
		bg := color.RGBA{10, 60, 10, 255}
		want := image.NewRGBA(image.Rect(0, 0, 120, 90))
		got := image.NewRGBA(want.Rect)
		for i := 0; i < len(want.Pix); i += 4 {
			copy(want.Pix[i:], []uint8{bg.R, bg.G, bg.B, bg.A})
			copy(got.Pix[i:], []uint8{bg.R, bg.G, bg.B, bg.A})
		}
		clip := image.Rect(5, 4, 110, 80)
		xdraw.CatmullRom.Transform(want.SubImage(clip).(*image.RGBA), f64.Aff3{a, 0, e, 0, d, f}, src, src.Bounds(), xdraw.Over, nil)
		scaleAxisAligned(got, clip, src, a, e, d, f, 3)
		// Same arithmetic up to float32 rounding: at most 2 levels apart.
		for i := range got.Pix {
			if diff := int(got.Pix[i]) - int(want.Pix[i]); diff > 2 || diff < -2 {
				x, y := (i/4)%got.Rect.Dx(), (i/4)/got.Rect.Dx()
				t.Fatalf("pixel (%d,%d) channel %d: %d, transform gives %d", x, y, i%4, got.Pix[i], want.Pix[i])
			}
		}
	})
}
