package render

import (
	"bytes"
	"fmt"
	"image"
	"testing"

	"github.com/printworker/printworker/render/svg"
)

// The coverage mask with wholly covered rows filled directly equals the one
// rasterized row by row, for rotated pictures cut by clips and bands anywhere
// (inside, across an edge, past a corner, outside), and the shortcut does skip rows.
func TestCoverageCoveredRowsShortcut(t *testing.T) {
	skipped := 0
	for _, deg := range []float64{0, 7, 30, 45, 90, 150} {
		m := svg.Translate(100.3, 90.7).Mul(svg.Rotate(deg)).Mul(svg.Scale(1.3, 1.3)).Mul(svg.Translate(-40, -30))
		for _, clip := range []Rect{{0, 0, 200, 180}, {60.5, 40.25, 70, 90.5}} {
			poly := clipPolygon(placedQuad(m, 80, 60), clip)
			for _, band := range []image.Rectangle{
				image.Rect(90, 0, 154, 180), image.Rect(20, 10, 84, 170), image.Rect(150, 30, 214, 160),
				image.Rect(96, 60, 97, 120), image.Rect(0, 0, 10, 10), image.Rect(60, 85, 124, 95),
			} {
				t.Run(fmt.Sprintf("%g°/clip %v/band %v", deg, clip, band), func(t *testing.T) {
					var acc []float64
					var got image.Alpha
					in0, in1 := coverage(&acc, &got, poly, band)
					want := make([]uint8, band.Dx()*band.Dy())
					coverageRows(&acc, want, poly, band)
					if !bytes.Equal(got.Pix, want) {
						t.Fatalf("mask differs from the rasterized one")
					}
					// The rows it reports wholly covered are.
					for y := in0; y < in1; y++ {
						for x := range band.Dx() {
							if v := want[(y-band.Min.Y)*band.Dx()+x]; v != 255 {
								t.Fatalf("row %d reported wholly covered, pixel %d has %d", y, x, v)
							}
						}
					}
					if y0, y1 := coveredRows(poly, band); y1 > y0 {
						skipped += y1 - y0
					}
				})
			}
		}
	}
	if skipped == 0 {
		t.Error("no band had wholly covered rows: the shortcut was never taken")
	}
}

func TestFill255(t *testing.T) {
	for _, n := range []int{0, 1, 2, 3, 64, 1000} {
		b := make([]uint8, n+1)
		fill255(b[:n])
		if !bytes.Equal(b[:n], bytes.Repeat([]uint8{255}, n)) || b[n] != 0 {
			t.Errorf("fill255 of %d bytes: %v", n, b)
		}
	}
}
