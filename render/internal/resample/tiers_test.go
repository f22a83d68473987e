package resample

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"math/rand/v2"
	"testing"

	"github.com/printworker/printworker/render/svg"
)

// TestTiersMatchGo draws pictures of every kind the kernels read (4:2:0 and 4:2:2
// YCbCr, grey, opaque RGBA, NRGBA with transparency) through every path (unrotated
// enlarged and shrunk slightly and strongly, rotated before and past 45°, quarter
// turns and mirrors, partial opacity, a fractional clip) at each tier this machine
// runs, and checks each canvas byte for byte against TierGo's: the assembly computes
// the Go loops' arithmetic, so every tier draws the same bytes (the kernel tests,
// e.g. TestResampleRowRGBMatchesGo, are exact too).
func TestTiersMatchGo(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(31, 2))
	ycc420 := tierPhoto(rng, 301, 247, image.YCbCrSubsampleRatio420)
	ycc422 := tierPhoto(rng, 173, 121, image.YCbCrSubsampleRatio422)
	grey := image.NewGray(image.Rect(0, 0, 150, 110))
	rgba := image.NewRGBA(image.Rect(0, 0, 140, 100))
	nrgba := image.NewNRGBA(image.Rect(0, 0, 120, 90))
	for _, p := range [][]uint8{grey.Pix, rgba.Pix, nrgba.Pix} {
		for i := range p {
			p[i] = uint8(rng.IntN(256))
		}
	}
	for i := 3; i < len(rgba.Pix); i += 4 {
		rgba.Pix[i] = 255
	}
	// A sub-image: the fetchers' window offsets.
	sub := ycc420.SubImage(image.Rect(17, 9, 281, 230)).(*image.YCbCr)
	const canvas = 420
	placed := func(src image.Image, deg, sx, sy float64) Matrix {
		b := src.Bounds()
		return svg.Translate(canvas/2+0.3, canvas/2-0.2).Mul(svg.Rotate(deg)).Mul(svg.Scale(sx, sy)).Mul(svg.Translate(-float64(b.Dx())/2, -float64(b.Dy())/2))
	}
	full := Rect{0, 0, canvas, canvas}
	cases := []struct {
		name    string
		src     image.Image
		m       Matrix
		clip    Rect
		opacity float64
	}{
		{"420 enlarged", ycc420, placed(ycc420, 0, 1.37, 1.41), full, 1},
		{"420 shrunk slightly", ycc420, placed(ycc420, 0, 0.97, 0.96), full, 1},
		{"420 shrunk 4x", ycc420, placed(ycc420, 0, 0.26, 0.24), full, 1},
		{"420 window", sub, placed(sub, 0, 1.2, 0.9), Rect{20.5, 10.25, 300, 350.5}, 1},
		{"422 enlarged", ycc422, placed(ycc422, 0, 2.1, 2.3), full, 1},
		{"grey shrunk", grey, placed(grey, 0, 0.4, 0.45), full, 1},
		{"rgba enlarged", rgba, placed(rgba, 0, 2.5, 2.2), full, 1},
		{"nrgba enlarged", nrgba, placed(nrgba, 0, 2.9, 3.1), full, 1},
		{"420 rotated 30", ycc420, placed(ycc420, 30, 1.1, 1.1), full, 1},
		{"420 rotated 30 shrunk", ycc420, placed(ycc420, 30, 0.4, 0.4), full, 1},
		{"420 rotated 60", ycc420, placed(ycc420, 60, 1.2, 1.2), full, 1},
		{"420 rotated 200 opacity", ycc420, placed(ycc420, 200, 0.9, 0.9), full, 0.6},
		{"420 rotated 120 window", sub, placed(sub, 120, 1.3, 1.3), Rect{30.5, 0, 350, 400.75}, 1},
		{"422 rotated 75", ycc422, placed(ycc422, 75, 1.9, 1.9), full, 1},
		{"grey rotated 45", grey, placed(grey, 45, 2, 2), full, 1},
		{"nrgba rotated 30", nrgba, placed(nrgba, 30, 2.2, 2.2), full, 0.8},
		{"420 quarter turn", ycc420, placed(ycc420, 90, 1.25, 1.25), full, 1},
		{"420 three quarters shrunk", ycc420, placed(ycc420, 270, 0.5, 0.5), full, 1},
		{"420 mirrored", ycc420, placed(ycc420, 180, -1.3, 1.3), full, 1},
		{"rgba quarter turn", rgba, placed(rgba, 90, 2, 2), full, 1},
	}
	// One worker and several: the bands split differently.
	for _, workers := range []int{1, 3} {
		for _, tc := range cases {
			t.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(t *testing.T) {
				t.Parallel()
				draw := func(tier Tier) *image.RGBA {
					d := NewTier(workers, tier)
					if d.Tier() != tier {
						t.Fatalf("NewTier(%v) runs %v", tier, d.Tier())
					}
					dst := image.NewRGBA(image.Rect(0, 0, canvas, canvas))
					// A backdrop, so that compositing Over shows.
					for i := range dst.Pix {
						dst.Pix[i] = uint8(i * 7)
					}
					b := tc.src.Bounds()
					d.Draw(context.Background(), dst, tc.clip, tc.m, tc.src, b.Dx(), b.Dy(), tc.opacity)
					return dst
				}
				want := draw(TierGo)
				for _, tier := range Tiers[1:] {
					if !Supported(tier) {
						t.Logf("%v: this machine lacks it", tier)
						continue
					}
					if got := draw(tier); !bytes.Equal(got.Pix, want.Pix) {
						n, first := 0, -1
						for i := range got.Pix {
							if got.Pix[i] != want.Pix[i] {
								n++
								if first < 0 {
									first = i
								}
							}
						}
						t.Errorf("%v: %d bytes differ from TierGo's, the first at pixel %d byte %d (%d, want %d)", tier, n, first/4, first%4, got.Pix[first], want.Pix[first])
					}
				}
			})
		}
	}
}

// tierPhoto is a w x h YCbCr picture with full-range noise over a ramp and sharp
// edges, so that Catmull-Rom overshoots and clamps.
func tierPhoto(rng *rand.Rand, w, h int, ratio image.YCbCrSubsampleRatio) *image.YCbCr {
	m := image.NewYCbCr(image.Rect(0, 0, w, h), ratio)
	for y := range h {
		for x := range w {
			v := x*255/w + rng.IntN(60) - 30
			if (x/13+y/11)%5 == 0 {
				v = 255 * (x / 7 % 2)
			}
			m.Y[y*m.YStride+x] = uint8(min(255, max(0, v)))
		}
	}
	for i := range m.Cb {
		m.Cb[i], m.Cr[i] = uint8(rng.IntN(256)), uint8(rng.IntN(256))
	}
	return m
}

// TestKernelsForCapsTier: a tier turns on its kernels and those below, never those
// above, and none where the CPU lacks them; TierGo runs no assembly at all.
func TestKernelsForCapsTier(t *testing.T) {
	t.Parallel()
	all := cpuFeatures{ssse3: true, sse41: true, avx: true, avx2: true, bmi1: true, bmi2: true, prefetchW: true}
	for _, tc := range []struct {
		f    cpuFeatures
		tier Tier
		want kernels
	}{
		{all, TierGo, kernels{tier: TierGo}},
		{all, TierSSE, kernels{tier: TierSSE, sse: true, prefetch: hasPrefetch, prefetchW: hasPrefetch}},
		{all, TierAVX, kernels{tier: TierAVX, sse: true, vex: true, prefetch: hasPrefetch, prefetchW: hasPrefetch}},
		{all, TierAVX2, kernels{tier: TierAVX2, sse: true, vex: true, avx2: true, avx2Cols: true, avx2Rows: true, prefetch: hasPrefetch, prefetchW: hasPrefetch}},
		// A CPU without AVX2 asked for it runs AVX.
		{cpuFeatures{ssse3: true, sse41: true, avx: true, bmi1: true}, TierAVX2, kernels{tier: TierAVX, sse: true, vex: true, prefetch: hasPrefetch}},
		// AVX2 without BMI2: all but rowRunBlocksAVX2.
		{cpuFeatures{ssse3: true, sse41: true, avx: true, avx2: true, bmi1: true}, TierAVX2, kernels{tier: TierAVX2, sse: true, vex: true, avx2: true, avx2Cols: true, prefetch: hasPrefetch}},
		// No SSE4.1: the Go loops, prefetch hints alone.
		{cpuFeatures{ssse3: true}, TierAVX2, kernels{tier: TierGo, prefetch: hasPrefetch}},
		{cpuFeatures{}, TierGo, kernels{tier: TierGo}},
	} {
		if got := kernelsFor(tc.f, tc.tier); got != tc.want {
			t.Errorf("kernelsFor(%+v, %v) = %+v, want %+v", tc.f, tc.tier, got, tc.want)
		}
	}
}
