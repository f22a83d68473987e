package resample

import (
	"fmt"
	"image"
	"sync/atomic"
	"testing"

	"github.com/printworker/printworker/internal/testctx"
)

// TestForEachBandStops: once the render's context ends, the band workers of a picture
// draw take no more bands: each band is taken after a check of the context, so exactly
// the bands whose checks came before the end are drawn, whatever the workers.
func TestForEachBandStops(t *testing.T) {
	t.Parallel()
	for _, workers := range []int{1, 2, 4} {
		for _, inRuns := range []bool{false, true} {
			t.Run(fmt.Sprintf("workers=%d/runs=%v", workers, inRuns), func(t *testing.T) {
				t.Parallel()
				const after = 10
				ctx := testctx.CancelAt(after)
				var drawn atomic.Int64
				area := image.Rect(0, 0, 40, 64*100) // 100 bands of 64 rows
				forEachBand(area, 1, 1, workers, inRuns, func(int) (int, int) { return 0, 1 }, bandEnv{ctx: ctx}, func(*bandBuffers) func(by0, by1, r0, r1 int) {
					return func(by0, by1, r0, r1 int) { drawn.Add(1) }
				})
				if n := drawn.Load(); n != after-1 {
					t.Errorf("%d bands drawn, want the %d taken before the context ended", n, after-1)
				}
			})
		}
	}
}
