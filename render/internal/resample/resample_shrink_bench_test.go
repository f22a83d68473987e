package resample

import (
	"context"
	"image"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/printworker/printworker/internal/testcpu"
	"github.com/printworker/printworker/render/svg"
)

// BenchmarkPictureShrink300dpi draws a 12-MP phone photo (4000x3000, a decoded JPEG:
// YCbCr 4:2:0) at a quarter of its size (1000x750, about 3.3 x 2.5 in at 300 dpi) into
// a 300-dpi canvas of 8 x 10 in, on every core: the horizontal pass then has 16 taps a
// column, the vertical one 16 rows a pixel. docs/benchmarks.md, "Shrinking pictures
// and thumbnails".
func BenchmarkPictureShrink300dpi(b *testing.B) {
	const w, h, canvasW, canvasH = 4000, 3000, 2400, 3000
	ycc := benchPhoto(w, h, 7)
	dst := image.NewRGBA(image.Rect(0, 0, canvasW, canvasH))
	r := New(runtime.GOMAXPROCS(0))
	m := svg.Translate(300, 450).Mul(svg.Scale(0.25, 0.25))
	l := pictureLayer(ycc, 1)
	start := testcpu.Time(b)
	for b.Loop() {
		r.drawPicture(context.Background(), dst, Rect{0, 0, canvasW, canvasH}, m, l)
	}
	testcpu.PerOp(b, start)
}

// benchPhoto is a decoded photo for the benchmarks, w x h YCbCr 4:2:0: a horizontal
// ramp with noise in luma, noisy chroma, from the random seed.
func benchPhoto(w, h int, seed uint64) *image.YCbCr {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	ycc := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	for i := range ycc.Y {
		ycc.Y[i] = uint8(i%w/8 + rng.IntN(20))
	}
	for i := range ycc.Cb {
		ycc.Cb[i], ycc.Cr[i] = uint8(100+rng.IntN(20)), uint8(140+rng.IntN(20))
	}
	return ycc
}
