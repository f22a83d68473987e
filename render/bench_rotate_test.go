package render

import (
	"fmt"
	"image"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/printworker/printworker/render/svg"
)

// BenchmarkPicture300dpi draws a 2000x2000 photo (a decoded JPEG: YCbCr 4:2:0) at 8 in
// square at 300 dpi (2400x2400 output pixels) into a 3400x3400 canvas, unrotated and
// rotated by 30°, 60° (pass 1 then runs along source columns) and 90° at the same
// scale, on every core (Options.Workers = GOMAXPROCS, so -cpu 1,2 compares one core
// with two). docs/benchmarks.md, "Rotated pictures". cpu-ms/op is the process's CPU
// time per draw, steadier than wall time on a shared machine.
func BenchmarkPicture300dpi(b *testing.B) {
	const n, out, canvas = 2000, 2400, 3400
	rng := rand.New(rand.NewPCG(5, 6))
	ycc := image.NewYCbCr(image.Rect(0, 0, n, n), image.YCbCrSubsampleRatio420)
	for i := range ycc.Y {
		ycc.Y[i] = uint8(i%n/8 + rng.IntN(20))
	}
	for i := range ycc.Cb {
		ycc.Cb[i], ycc.Cr[i] = uint8(100+rng.IntN(20)), uint8(140+rng.IntN(20))
	}
	dst := image.NewRGBA(image.Rect(0, 0, canvas, canvas))
	for _, deg := range []float64{0, 30, 60, 90} {
		b.Run(fmt.Sprintf("rot=%g", deg), func(b *testing.B) {
			r := newRenderer(b, Options{Workers: runtime.GOMAXPROCS(0)})
			m := svg.Translate(canvas/2, canvas/2).Mul(svg.Rotate(deg)).Mul(svg.Scale(out/float64(n), out/float64(n))).Mul(svg.Translate(-n/2, -n/2))
			l := pictureLayer(ycc, 1)
			start := cpuTime(b)
			for b.Loop() {
				r.drawPicture(dst, Rect{0, 0, canvas, canvas}, m, l)
			}
			b.ReportMetric(float64(cpuTime(b)-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
		})
	}
}
