package resample

import (
	"fmt"
	"image"
	"image/color"
	"math"
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
	// JPEG-like sources: YCbCr 4:2:0 (the common layout, also at an odd width) and
	// 4:2:2.
	var yccs []image.Image
	for _, c := range []struct {
		w     int
		ratio image.YCbCrSubsampleRatio
	}{{60, image.YCbCrSubsampleRatio420}, {59, image.YCbCrSubsampleRatio420}, {60, image.YCbCrSubsampleRatio422}} {
		ycc := image.NewYCbCr(image.Rect(0, 0, c.w, 40), c.ratio)
		for y := 0; y < 40; y++ {
			for x := 0; x < c.w; x++ {
				ycc.Y[ycc.YOffset(x, y)] = uint8(x*3 + y)
				ycc.Cb[ycc.COffset(x, y)] = uint8(100 + x)
				ycc.Cr[ycc.COffset(x, y)] = uint8(150 - y)
			}
		}
		yccs = append(yccs, ycc)
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
	for _, src := range append(yccs, src, opaque, premulOpaque, gray) {
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
		hostISA.scaleAxisAligned(got, clip, src, a, e, d, f, 3, bandEnv{})
		// Same arithmetic up to float32 rounding: at most 2 levels apart.
		for i := range got.Pix {
			if diff := int(got.Pix[i]) - int(want.Pix[i]); diff > 2 || diff < -2 {
				x, y := (i/4)%got.Rect.Dx(), (i/4)/got.Rect.Dx()
				t.Fatalf("pixel (%d,%d) channel %d: %d, transform gives %d", x, y, i%4, got.Pix[i], want.Pix[i])
			}
		}
	})
}

// BenchmarkScaleAxisAligned enlarges a 2000x2000 photo-sized source 1.58x into a
// 3167x2167 box, as the reference T-shirt does at 300 dpi: a decoded JPEG (YCbCr 4:2:0,
// the opaque fixed-point path), the same pixels as opaque NRGBA (also fixed point)
// and as NRGBA with one translucent pixel (the float path).
func BenchmarkScaleAxisAligned(b *testing.B) {
	const n = 2000
	ycc := benchPhoto(n, n, 3)
	opaque := image.NewNRGBA(ycc.Rect)
	xdraw.Draw(opaque, opaque.Rect, ycc, image.Point{}, xdraw.Src)
	alpha := image.NewNRGBA(ycc.Rect)
	copy(alpha.Pix, opaque.Pix)
	alpha.Pix[3] = 254
	dst := image.NewRGBA(image.Rect(0, 0, 3167, 2167))
	for _, c := range []struct {
		name string
		src  image.Image
	}{{"ycbcr420", ycc}, {"nrgba-opaque", opaque}, {"nrgba-alpha", alpha}} {
		b.Run("src="+c.name, func(b *testing.B) {
			for b.Loop() {
				hostISA.scaleAxisAligned(dst, dst.Rect, c.src, 1.5835, 0, 1.5835, -500, 1, bandEnv{})
			}
		})
	}
}

// Fixed-point weights keep every pixel's sum at exactly one, so flat areas stay flat
// whatever the scale, offset or edge.
func TestFixedWeightsSumToOne(t *testing.T) {
	for _, tc := range []struct{ scale, off float64 }{{1, 0}, {1.5835, -500}, {2.5, 3.3}, {0.37, 5.2}, {0.1, 0}, {7, -0.4}} {
		n := 97
		o1 := int(math.Ceil(tc.off + tc.scale*float64(n) - 0.5))
		o0 := int(math.Ceil(tc.off - 0.5))
		for _, bits := range []int{hBits, vBits} {
			for i, fw := range fixedWeights(kernelWeights(o0, o1, tc.scale, tc.off, n), bits) {
				var sum int32
				for _, w := range fw.w {
					sum += w
				}
				if sum != 1<<bits {
					t.Fatalf("scale %g offset %g: output %d weights sum to %d, want %d", tc.scale, tc.off, o0+i, sum, 1<<bits)
				}
			}
		}
	}
}

// notFast hides an image's concrete type, so that scaleAxisAligned takes its generic
// float path (through At) for pixels the fixed-point path also draws.
type notFast struct{ image.Image }

// The fixed-point path and the float path agree to one level on opaque photo-like
// pixels (noise over gradients, so the kernel's overshoot and rounding both occur).
func TestScaleOpaqueMatchesFloatPath(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	src := image.NewRGBA(image.Rect(0, 0, 97, 61))
	for i := range src.Pix {
		if i%4 == 3 {
			src.Pix[i] = 255
			continue
		}
		src.Pix[i] = uint8(min(255, i%388/2+rng.IntN(60)))
	}
	for _, tc := range []struct{ a, e, d, f float64 }{{1.5835, 0.2, 1.5835, -7}, {1, 0, 1, 0}, {0.33, 1, 0.41, 2}, {3.7, -9, 2.2, 0.5}} {
		got := image.NewRGBA(image.Rect(0, 0, 150, 110))
		want := image.NewRGBA(got.Rect)
		hostISA.scaleAxisAligned(got, got.Rect, src, tc.a, tc.e, tc.d, tc.f, 2, bandEnv{})
		hostISA.scaleAxisAligned(want, want.Rect, notFast{src}, tc.a, tc.e, tc.d, tc.f, 2, bandEnv{})
		for i := range got.Pix {
			if diff := int(got.Pix[i]) - int(want.Pix[i]); diff > 1 || diff < -1 {
				t.Fatalf("scale %g,%g: byte %d (pixel %d,%d): fixed point %d, float %d", tc.a, tc.d, i, (i/4)%150, (i/4)/150, got.Pix[i], want.Pix[i])
			}
		}
	}
}
