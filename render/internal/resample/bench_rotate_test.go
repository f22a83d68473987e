package resample

import (
	"context"
	"fmt"
	"image"
	"runtime"
	"testing"

	"github.com/printworker/printworker/internal/testcpu"
	"github.com/printworker/printworker/render/svg"
)

// BenchmarkPicture300dpi draws a 2000x2000 photo (a decoded JPEG: YCbCr 4:2:0) at 8 in
// square at 300 dpi (2400x2400 output pixels) into a 3400x3400 canvas, unrotated and
// rotated by 30°, 60° (pass 1 then runs along source columns) and 90° at the same
// scale, on every core (New(GOMAXPROCS)). To compare one core with two,
// run the binary twice with GOMAXPROCS=1 and GOMAXPROCS=2 in the environment: a b.Loop
// benchmark takes its first -cpu entry at the default GOMAXPROCS (docs/benchmarks.md,
// "How to read these figures"), so -cpu 1,2 measures two procs twice. Figures and
// command: docs/benchmarks.md, "Rotated pictures". cpu-ms/op is the process's CPU time per draw, steadier than wall
// time on a shared machine.
func BenchmarkPicture300dpi(b *testing.B) {
	const n, out, canvas = 2000, 2400, 3400
	ycc := benchPhoto(n, n, 5)
	dst := image.NewRGBA(image.Rect(0, 0, canvas, canvas))
	for _, deg := range []float64{0, 30, 60, 90} {
		b.Run(fmt.Sprintf("rot=%g", deg), func(b *testing.B) {
			r := New(runtime.GOMAXPROCS(0))
			m := svg.Translate(canvas/2, canvas/2).Mul(svg.Rotate(deg)).Mul(svg.Scale(out/float64(n), out/float64(n))).Mul(svg.Translate(-n/2, -n/2))
			l := pictureLayer(ycc, 1)
			start := testcpu.Time(b)
			for b.Loop() {
				r.drawPicture(context.Background(), dst, Rect{0, 0, canvas, canvas}, m, l)
			}
			testcpu.PerOp(b, start)
		})
	}
}
