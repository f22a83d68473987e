package render

import (
	"math"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"github.com/printworker/printworker/render/fonts"
	"github.com/printworker/printworker/render/svg"
)

// Synthetic oblique and bold (docs/text.md "Synthetic styles"): where the face a
// character is drawn with lacks the element's italic or bold, the browser that drew the
// customer's preview slants or emboldens the regular outline (CSS font-synthesis,
// on by default), and so does printworker, in the PNG/TIFF rasters and in the vector
// PDF alike (the PDF draws such glyphs as their synthesized outlines).
//
// The constants are Chromium's (Skia):
//   - oblique: Blink's FontPlatformData sets SkFont::setSkewX(-SK_Scalar1/4) for a
//     synthetic italic: x' = x - y/4 in Skia's y-down space, a slant of atan(1/4) ≈ 14°
//     around the glyph's origin on the baseline.
//   - bold: Skia's fake bold (SkScalerContext, kEmbolden_Flag) strokes the outline and
//     fills stroke and inside, with a stroke width of size x SkScalarInterpFunc(size,
//     kStdFakeBoldInterpKeys {9, 36}, kStdFakeBoldInterpValues {1/24, 1/32})
//     (src/core/SkTextFormatParams.h): the outline grows by half that width on every
//     side, around the glyph where it is, and the advance is unchanged. Here the
//     outline's points are moved outwards (embolden), which is the same for the
//     straight and gently curved edges of type. Checked against Chromium: a
//     synthesized Noto Serif bold at 44 px has the same ink bounding box and ink
//     amount within 0.01 % (TestShapingBrowser, case serif-bold-synthetic);
//     FreeType's FT_Outline_Embolden strength (ppem/24) came out 10 % heavier.
const (
	syntheticSkew          = 0.25
	syntheticBoldSharpness = -0.9375 // no shift at corners sharper than this cosine (FreeType's limit)

	fakeBoldSmallSize = 9.0
	fakeBoldLargeSize = 36.0
	fakeBoldSmall     = 1.0 / 24
	fakeBoldLarge     = 1.0 / 32
)

// synthesis is what a glyph's face lacks of the requested style.
type synthesis uint8

const (
	synthBold synthesis = 1 << iota
	synthOblique
)

// synthesisFor returns the synthesis needed to draw style want with face f.
func synthesisFor(want fonts.Style, f *fonts.Font) synthesis {
	var s synthesis
	wantBold := want == fonts.Bold || want == fonts.BoldItalic
	wantItalic := want == fonts.Italic || want == fonts.BoldItalic
	if wantBold && f.Style != fonts.Bold && f.Style != fonts.BoldItalic {
		s |= synthBold
	}
	if wantItalic && f.Style != fonts.Italic && f.Style != fonts.BoldItalic {
		s |= synthOblique
	}
	return s
}

// glyphPoints appends the points of a glyph's outline segments (in segment order,
// segArgs per segment) to dst, in the text layer's local units relative to the glyph's
// origin on the baseline (x right, y down), with the glyph's synthesis applied. k is
// local units per font unit, size the font size.
func glyphPoints(dst []svg.Point, segs []font.Segment, syn synthesis, k, size float64) []svg.Point {
	start := len(dst)
	for _, sg := range segs {
		for _, a := range sg.Args[:segArgs(sg.Op)] {
			dst = append(dst, svg.Point{X: float64(a.X) * k, Y: -float64(a.Y) * k})
		}
	}
	pts := dst[start:]
	if syn&synthBold != 0 {
		embolden(pts, segs, fakeBoldWidth(size))
	}
	if syn&synthOblique != 0 {
		for i := range pts {
			pts[i].X -= syntheticSkew * pts[i].Y
		}
	}
	return dst
}

// embolden grows an outline by strength/2 on each side (as a stroke of width strength
// filled with the inside does), the way FreeType's FT_Outline_Embolden moves points:
// every point of every contour (control points too) moves along the bisector of its
// two edges so that both edges move outwards by strength/2; the outward side follows
// the whole outline's orientation, so counters shrink as the strokes around them
// thicken.
func embolden(pts []svg.Point, segs []font.Segment, strength float64) {
	// The outline's orientation: the sign of its signed area (y down).
	area := 0.0
	forContours(pts, segs, func(c []svg.Point) {
		for i := range c {
			p, q := c[i], c[(i+1)%len(c)]
			area += p.X*q.Y - q.X*p.Y
		}
	})
	if area == 0 {
		return
	}
	side := 1.0
	if area < 0 {
		side = -1
	}
	half := strength / 2
	var orig []svg.Point
	forContours(pts, segs, func(c []svg.Point) {
		n := len(c)
		if n < 3 {
			return
		}
		orig = append(orig[:0], c...)
		for i := range n {
			cur := orig[i]
			prev := otherPoint(orig, i, -1)
			next := otherPoint(orig, i, 1)
			in, ok1 := unit(cur.X-prev.X, cur.Y-prev.Y)
			out, ok2 := unit(next.X-cur.X, next.Y-cur.Y)
			if !ok1 || !ok2 {
				continue
			}
			d := in.X*out.X + in.Y*out.Y
			if d <= syntheticBoldSharpness {
				continue
			}
			// Outward normals of the two edges (y down: a clockwise-on-screen contour,
			// positive area, has its outside on the left of its direction).
			nin := svg.Point{X: in.Y * side, Y: -in.X * side}
			nout := svg.Point{X: out.Y * side, Y: -out.X * side}
			// FreeType caps the shift by the turn's sine so that short edges at a
			// sharp turn do not overshoot.
			q := math.Abs(out.X*in.Y - out.Y*in.X)
			f := half / math.Max(1+d, q)
			c[i].X = cur.X + (nin.X+nout.X)*f
			c[i].Y = cur.Y + (nin.Y+nout.Y)*f
		}
	})
}

// otherPoint is the nearest point of the closed contour c before (dir -1) or after
// (dir 1) point i that differs from it.
func otherPoint(c []svg.Point, i, dir int) svg.Point {
	n := len(c)
	for j := 1; j < n; j++ {
		p := c[((i+dir*j)%n+n)%n]
		if p != c[i] {
			return p
		}
	}
	return c[i]
}

func unit(x, y float64) (svg.Point, bool) {
	l := math.Hypot(x, y)
	if l < 1e-12 {
		return svg.Point{}, false
	}
	return svg.Point{X: x / l, Y: y / l}, true
}

// forContours calls fn with each contour's points (a slice of pts: changes stick).
// A contour's last point equal to its first (an explicit closing line) is left out and
// then set to the first point as fn left it.
func forContours(pts []svg.Point, segs []font.Segment, fn func([]svg.Point)) {
	i, start := 0, 0
	flush := func() {
		c := pts[start:i]
		closed := len(c) > 1 && c[len(c)-1] == c[0]
		if closed {
			c = c[:len(c)-1]
		}
		if len(c) > 0 {
			fn(c)
		}
		if closed {
			pts[i-1] = c[0]
		}
	}
	for _, sg := range segs {
		if sg.Op == ot.SegmentOpMoveTo && i > start {
			flush()
			start = i
		}
		i += segArgs(sg.Op)
	}
	if i > start {
		flush()
	}
}

// fakeBoldWidth is Skia's fake-bold stroke width for a font size: size x
// SkScalarInterpFunc(size, kStdFakeBoldInterpKeys, kStdFakeBoldInterpValues), the
// fraction going linearly from 1/24 at size 9 and below to 1/32 at 36 and above.
func fakeBoldWidth(size float64) float64 {
	f := fakeBoldSmall
	switch {
	case size >= fakeBoldLargeSize:
		f = fakeBoldLarge
	case size > fakeBoldSmallSize:
		f = fakeBoldSmall + (size-fakeBoldSmallSize)/(fakeBoldLargeSize-fakeBoldSmallSize)*(fakeBoldLarge-fakeBoldSmall)
	}
	return size * f
}
