// Package imgcheck compares rendered images with references drawn by other
// programs (rsvg-convert, poppler), for tests: a structural similarity index
// (SSIM) per colour channel, and a helper that finds the external tool or skips the
// test (fails it when CI=true, so CI never skips a print check silently).
package imgcheck

import (
	"image"
	"image/color"
	"math"
	"os"
	"os/exec"
	"testing"
)

// Tool returns the path of the named program. When it is missing the test is
// skipped with hint, or fails when the environment has CI=true.
func Tool(t testing.TB, name, hint string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s not installed (%s); CI=true forbids skipping", name, hint)
	}
	t.Skipf("%s not installed (%s)", name, hint)
	return ""
}

// Planes returns img composited over white as three 8-bit planes (R, G, B),
// row by row.
func Planes(img image.Image) (w, h int, planes [3][]float64) {
	b := img.Bounds()
	w, h = b.Dx(), b.Dy()
	for c := range planes {
		planes[c] = make([]float64, w*h)
	}
	for j := 0; j < h; j++ {
		for i := 0; i < w; i++ {
			c := color.NRGBA64Model.Convert(img.At(b.Min.X+i, b.Min.Y+j)).(color.NRGBA64)
			a := float64(c.A) / 0xffff
			for k, v := range [3]uint16{c.R, c.G, c.B} {
				planes[k][j*w+i] = float64(v)/0xffff*255*a + 255*(1-a)
			}
		}
	}
	return w, h, planes
}

// SSIM returns the structural similarity of a and b (same size) over white:
// the mean over the R, G and B planes of the mean SSIM of 8x8 windows moved
// by 4 pixels, with the constants of Wang et al. (2004). 1 means identical.
// Per channel rather than on luminance, so that a hue error counts.
func SSIM(a, b image.Image) float64 {
	if a.Bounds().Size() != b.Bounds().Size() {
		return 0
	}
	w, h, pa := Planes(a)
	_, _, pb := Planes(b)
	var sum float64
	for c := range pa {
		sum += planeSSIM(w, h, pa[c], pb[c])
	}
	return sum / 3
}

func planeSSIM(w, h int, ya, yb []float64) float64 {
	const win, step = 8, 4
	const c1, c2 = (0.01 * 255) * (0.01 * 255), (0.03 * 255) * (0.03 * 255)
	var sum float64
	n := 0
	for y0 := 0; y0+win <= h; y0 += step {
		for x0 := 0; x0+win <= w; x0 += step {
			var ma, mb float64
			for j := y0; j < y0+win; j++ {
				for i := x0; i < x0+win; i++ {
					ma += ya[j*w+i]
					mb += yb[j*w+i]
				}
			}
			const k = win * win
			ma, mb = ma/k, mb/k
			var va, vb, cov float64
			for j := y0; j < y0+win; j++ {
				for i := x0; i < x0+win; i++ {
					da, db := ya[j*w+i]-ma, yb[j*w+i]-mb
					va += da * da
					vb += db * db
					cov += da * db
				}
			}
			va, vb, cov = va/(k-1), vb/(k-1), cov/(k-1)
			sum += (2*ma*mb + c1) * (2*cov + c2) / ((ma*ma + mb*mb + c1) * (va + vb + c2))
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}
