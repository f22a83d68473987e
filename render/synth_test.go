package render

import (
	"math"
	"testing"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"github.com/printworker/printworker/render/svg"
)

// A square contour grows by half the stroke width on each side, in place; a slant
// moves a point at height h by h/4 to the right.
func TestGlyphPointsSynthesis(t *testing.T) {
	t.Parallel()
	// A 100-unit square, counter-clockwise in font units (y up), and its inner counter.
	sq := func(x0, y0, x1, y1 float32) []font.Segment {
		pt := func(x, y float32) [3]font.SegmentPoint { return [3]font.SegmentPoint{{X: x, Y: y}} }
		return []font.Segment{
			{Op: ot.SegmentOpMoveTo, Args: pt(x0, y0)}, {Op: ot.SegmentOpLineTo, Args: pt(x1, y0)},
			{Op: ot.SegmentOpLineTo, Args: pt(x1, y1)}, {Op: ot.SegmentOpLineTo, Args: pt(x0, y1)},
		}
	}
	segs := sq(0, 0, 100, 100)
	bounds := func(pts []svg.Point) (x0, y0, x1, y1 float64) {
		x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
		for _, p := range pts {
			x0, y0, x1, y1 = math.Min(x0, p.X), math.Min(y0, p.Y), math.Max(x1, p.X), math.Max(y1, p.Y)
		}
		return
	}
	size := 40.0 // k = 1: one local unit per font unit
	w := fakeBoldWidth(size)
	x0, y0, x1, y1 := bounds(glyphPoints(nil, segs, synthBold, 1, size))
	for _, c := range []struct{ got, want float64 }{{x0, -w / 2}, {x1, 100 + w/2}, {y0, -100 - w/2}, {y1, w / 2}} {
		if math.Abs(c.got-c.want) > 1e-9 {
			t.Errorf("bold square bounds %g %g %g %g, want it grown by %g on each side", x0, y0, x1, y1, w/2)
			break
		}
	}
	// The same with the contour reversed (the other orientation) and a counter.
	ring := append(sq(0, 0, 100, 100), sq(30, 70, 70, 30)...)
	pts := glyphPoints(nil, ring, synthBold, 1, size)
	ix0, _, ix1, _ := bounds(pts[4:])
	if math.Abs((ix1-ix0)-(40-w)) > 1e-9 {
		t.Errorf("counter %g wide, want %g: counters shrink", ix1-ix0, 40-w)
	}
	pts = glyphPoints(nil, segs, synthOblique, 1, size)
	if top := pts[2]; math.Abs(top.X-(100+25)) > 1e-9 || top.Y != -100 {
		t.Errorf("slanted top right corner %v, want (125, -100)", top)
	}
	if base := pts[1]; base.X != 100 || base.Y != 0 {
		t.Errorf("slanted baseline corner %v, want (100, 0)", base)
	}
}

// FuzzGlyphPoints: any outline (degenerate, self-reversing, huge, tiny) gives as many
// finite points as it has, each within the stroke of its synthesis of the input.
func FuzzGlyphPoints(f *testing.F) {
	f.Add([]byte{0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 2, 2}, uint8(3), 40.0)
	f.Add([]byte{0, 5, 5, 1, 5, 5, 1, 5, 5}, uint8(1), 12.0)           // one point repeated
	f.Add([]byte{0, 0, 0, 1, 9, 0, 1, 0, 0, 1, 9, 0}, uint8(1), 100.0) // back and forth
	f.Add([]byte{0, 255, 255, 2, 0, 0, 128, 128, 3, 1, 2, 3, 4, 5, 6}, uint8(3), 1e6)
	f.Fuzz(func(t *testing.T, b []byte, syn uint8, size float64) {
		if math.IsNaN(size) || math.IsInf(size, 0) || size <= 0 || size > 1e6 {
			return
		}
		var segs []font.Segment
		var in []svg.Point
		for i := 0; i < len(b); {
			op := ot.SegmentOp(b[i] % 4)
			n := segArgs(op)
			if i+1+2*n > len(b) {
				break
			}
			s := font.Segment{Op: op}
			for j := range n {
				x, y := float32(int8(b[i+1+2*j]))*50, float32(int8(b[i+2+2*j]))*50
				s.Args[j] = font.SegmentPoint{X: x, Y: y}
				in = append(in, svg.Point{X: float64(x), Y: -float64(y)})
			}
			segs = append(segs, s)
			i += 1 + 2*n
		}
		pts := glyphPoints(nil, segs, synthesis(syn%4), 1, size)
		if len(pts) != len(in) {
			t.Fatalf("%d points for %d", len(pts), len(in))
		}
		// Emboldening moves a point by at most half the width over FreeType's
		// sharpness limit; a slant by a quarter of its height.
		reach := fakeBoldWidth(size) / 2 * 2 / math.Sqrt(1+syntheticBoldSharpness) * 2
		for i, p := range pts {
			if math.IsNaN(p.X) || math.IsNaN(p.Y) || math.IsInf(p.X, 0) || math.IsInf(p.Y, 0) {
				t.Fatalf("point %d: %v", i, p)
			}
			q := in[i]
			if syn%4&uint8(synthOblique) != 0 {
				q.X -= syntheticSkew * q.Y
			}
			if d := math.Hypot(p.X-q.X, p.Y-q.Y); d > reach*(1+syntheticSkew)+1e-6 {
				t.Fatalf("point %d moved by %g (limit %g)", i, d, reach)
			}
		}
	})
}
