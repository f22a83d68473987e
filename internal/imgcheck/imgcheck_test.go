package imgcheck

import (
	"image"
	"image/color"
	"testing"
)

func TestSSIM(t *testing.T) {
	mk := func(f func(x, y int) uint8) *image.Gray {
		g := image.NewGray(image.Rect(0, 0, 64, 64))
		for y := 0; y < 64; y++ {
			for x := 0; x < 64; x++ {
				g.SetGray(x, y, color.Gray{Y: f(x, y)})
			}
		}
		return g
	}
	ramp := mk(func(x, y int) uint8 { return uint8(4 * x) })
	noisy := mk(func(x, y int) uint8 { return uint8(4*x) ^ uint8(((x*7+y*13)%5)*8) })
	flat := mk(func(x, y int) uint8 { return 128 })
	for _, tc := range []struct {
		name   string
		a, b   image.Image
		lo, hi float64
	}{
		{"identical", ramp, ramp, 1, 1},
		{"noise", ramp, noisy, 0.3, 0.95},
		{"ramp vs flat", ramp, flat, 0, 0.5},
	} {
		if s := SSIM(tc.a, tc.b); s < tc.lo-1e-9 || s > tc.hi+1e-9 {
			t.Errorf("%s: SSIM %.4f, want in [%g, %g]", tc.name, s, tc.lo, tc.hi)
		}
	}
}
