package resample

import (
	"bytes"
	"fmt"
	"image"
	"slices"
	"testing"

	"github.com/printworker/printworker/render/svg"
)

// The coverage mask with wholly covered rows left to the caller equals the one
// rasterized row by row, for rotated pictures cut by clips and bands anywhere
// (inside, across an edge, past a corner, outside): the rows it rasterizes are the
// same, the rows it reports wholly covered are 255 in the rasterized mask, and the
// shortcut does skip rows.
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
					var cov coverageScratch
					var mask []uint8
					in0, in1 := coverage(&cov, &mask, poly, band)
					want := make([]uint8, band.Dx()*band.Dy())
					coverageRows(&cov, want, poly, band)
					// The rows it left out are those it reports wholly covered: put
					// back as 255s between the rows above and below them, the mask
					// is the rasterized one.
					if in0 >= in1 && (in0 != band.Max.Y || in1 != band.Max.Y) {
						t.Fatalf("no rows wholly covered reported as [%d, %d), want [%d, %[3]d): pass 2 reads the mask rows above them", in0, in1, band.Max.Y)
					}
					got := mask
					if in0 < in1 {
						w := band.Dx()
						above := w * (in0 - band.Min.Y)
						got = slices.Concat(mask[:above], bytes.Repeat([]uint8{255}, w*(in1-in0)), mask[above:])
					}
					if !bytes.Equal(got, want) {
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

// coverageRowsDense is coverageRows as it was before it read only the cells the edges
// touched: every cell cleared, summed and converted in order.
func coverageRowsDense(pix []uint8, poly []svg.Point, band image.Rectangle) {
	w, h := band.Dx(), band.Dy()
	c := clipPolygon(poly, Rect{X: float64(band.Min.X), Y: float64(band.Min.Y), W: float64(w), H: float64(h)})
	if len(c) < 3 {
		clear(pix)
		return
	}
	a := make([]float64, w*h+2)
	spans := make([]int, 4*h)
	for i, p := range c {
		q := c[(i+1)%len(c)]
		accumulateLine(a, spans, w, h, p.X-float64(band.Min.X), p.Y-float64(band.Min.Y), q.X-float64(band.Min.X), q.Y-float64(band.Min.Y))
	}
	sum, last := 0.0, uint8(0)
	for i := range pix {
		if d := a[i]; d != 0 {
			sum += d
			last = coverageByte(sum)
		}
		pix[i] = last
	}
}

// coverageRows, which reads only the cells the edges touched and clears only those,
// gives the dense scan's mask to the bit, band after band through one scratch (so a
// cell left non-zero by one band would show in the next): polygons rotated at many
// angles, cut by clips, with edges on pixel boundaries, through the band's last
// column and last row, and wholly outside.
func TestCoverageRowsSparse(t *testing.T) {
	var cov coverageScratch
	bands := []image.Rectangle{
		image.Rect(0, 0, 128, 200), image.Rect(40, 20, 168, 90), image.Rect(90, 0, 218, 180),
		image.Rect(96, 60, 97, 120), image.Rect(0, 0, 10, 10), image.Rect(60, 85, 124, 95),
		image.Rect(300, 300, 400, 400),
	}
	polys := 0
	for _, deg := range []float64{0, 1, 7, 30, 45, 60, 89, 90, 135, 150, 200, 330} {
		for _, s := range []float64{0.3, 1, 1.7} {
			m := svg.Translate(100.3, 90.7).Mul(svg.Rotate(deg)).Mul(svg.Scale(s, s)).Mul(svg.Translate(-40, -30))
			for _, clip := range []Rect{{0, 0, 300, 300}, {60.5, 40.25, 70, 90.5}, {40, 20, 128, 70}, {0, 0, 168, 90}} {
				poly := clipPolygon(placedQuad(m, 80, 60), clip)
				if len(poly) < 3 {
					continue
				}
				polys++
				for _, band := range bands {
					got := make([]uint8, band.Dx()*band.Dy())
					for i := range got {
						got[i] = 0x5a // every pixel must be written
					}
					want := make([]uint8, len(got))
					coverageRows(&cov, got, poly, band)
					coverageRowsDense(want, poly, band)
					if !bytes.Equal(got, want) {
						t.Fatalf("%g° x%g clip %v band %v: sparse mask differs from the dense one", deg, s, clip, band)
					}
				}
			}
		}
	}
	if polys < 100 {
		t.Fatalf("only %d polygons: the table lost its cases", polys)
	}
	for i, v := range cov.acc {
		if v != 0 {
			t.Fatalf("cell %d left %g after the last band", i, v)
		}
	}
}
