package resample

import (
	"context"
	"image"
	"runtime"
	"testing"

	"github.com/printworker/printworker/internal/testcpu"
	"github.com/printworker/printworker/render/svg"
)

// BenchmarkDrawTiers draws a decoded photo (YCbCr 4:2:0) through each path with the
// kernels capped at each tier this machine runs: the difference between neighbouring
// tiers is what that tier's assembly buys the draw (doc.go). The paths: the T-shirt's
// enlargement (2000x2000 at 1.58x, unrotated), the same turned 30° and 60° (pass 1
// along the source's rows, then its columns) and 90° (a quarter turn: the separable
// path over a turned view), and a 12-MP photo shrunk 4x. cpu-ms/op is the process's
// CPU time per draw. Set GOMAXPROCS=1 in the environment for one core.
func BenchmarkDrawTiers(b *testing.B) {
	const n, out = 2000, 3167
	photo := benchPhoto(n, n, 5)
	big := benchPhoto(4000, 3000, 7)
	dst := image.NewRGBA(image.Rect(0, 0, 3400, 3400))
	turned := func(deg float64) Matrix {
		return svg.Translate(1700, 1700).Mul(svg.Rotate(deg)).Mul(svg.Scale(out/float64(n), out/float64(n))).Mul(svg.Translate(-n/2, -n/2))
	}
	for _, w := range []struct {
		name string
		src  *image.YCbCr
		m    Matrix
	}{
		{"enlarge", photo, svg.Translate(116.5, 116.5).Mul(svg.Scale(out/float64(n), out/float64(n)))},
		{"rot=30", photo, turned(30)},
		{"rot=60", photo, turned(60)},
		{"rot=90", photo, turned(90)},
		{"shrink4x", big, svg.Translate(300, 450).Mul(svg.Scale(0.25, 0.25))},
	} {
		for _, tier := range Tiers {
			b.Run(w.name+"/tier="+tier.String(), func(b *testing.B) {
				if !Supported(tier) {
					b.Skipf("this machine lacks %v", tier)
				}
				d := NewTier(runtime.GOMAXPROCS(0), tier)
				clip := Rect{0, 0, 3400, 3400}
				start := testcpu.Time(b)
				for b.Loop() {
					d.Draw(context.Background(), dst, clip, w.m, w.src, w.src.Rect.Dx(), w.src.Rect.Dy(), 1)
				}
				testcpu.PerOp(b, start)
			})
		}
	}
}
