package resample

import (
	"image"
	"runtime"
	"testing"

	"github.com/printworker/printworker/render/svg"
)

// The copy PeakBytes counts bounds what a rotated draw allocates: a picture with
// transparency is converted to one 4-byte-a-pixel copy (also past 45°, where pass 1
// reads it transposed: converted and transposed at once), plus band buffers; an
// opaque one (a decoded JPEG) is read span by span with no copy, so its draw
// allocates only the band buffers, under the copy PeakBytes counts for it. The band
// buffers depend on the output band and the shrink, not on the source: here (a 4x
// shrink) about 1.6 MB for the float ring of a transparent picture, 1.6 to 2.1 MB for
// an opaque one's wider integer ring.
func TestRotatedDrawAllocatesOneSourceCopy(t *testing.T) {
	const w, h = 1000, 800
	ycc := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	nrgba := image.NewNRGBA(image.Rect(0, 0, w, h)) // all transparent
	dst := image.NewRGBA(image.Rect(0, 0, 400, 400))
	copyBytes := uint64(4 * w * h)
	for _, tc := range []struct {
		name   string
		src    image.Image
		lo, hi uint64 // bounds of the bytes the draw allocates
	}{
		{"opaque YCbCr, no copy", ycc, 0, copyBytes * 3 / 4},
		{"transparent NRGBA, one copy", nrgba, copyBytes, copyBytes + 2<<20},
	} {
		// At every tier: the copy is the same whichever kernels read the spans.
		for _, tier := range Tiers {
			if !Supported(tier) {
				continue
			}
			for _, deg := range []float64{30, 60, 120} {
				m := svg.Translate(200, 200).Mul(svg.Rotate(deg)).Mul(svg.Scale(0.25, 0.25)).Mul(svg.Translate(-w/2, -h/2))
				poly := clipPolygon(placedQuad(m, w, h), Rect{0, 0, 400, 400})
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				kernelsFor(host, tier).drawTransformed(dst, dst.Rect, poly, tc.src, m, 1, 1, bandEnv{})
				runtime.ReadMemStats(&after)
				got := after.TotalAlloc - before.TotalAlloc
				t.Logf("%s %g° %v: %d bytes", tc.name, deg, tier, got)
				if got < tc.lo || got > tc.hi {
					t.Errorf("%s %g° %v: draw allocated %d bytes, want %d to %d (one source copy: %d)", tc.name, deg, tier, got, tc.lo, tc.hi, copyBytes)
				}
			}
		}
	}
}
