package svg

import (
	"context"
	"image"
	"testing"
)

// TestStrokeNonUniformScale: a 13-wide stroke under scale(1 3) is 13 px wide on
// the rect's vertical sides and 39 px on its horizontal ones, as browsers draw
// it (a round pen of the mean scale drew about 22.5 on both).
func TestStrokeNonUniformScale(t *testing.T) {
	d := parse(t, `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="300">
<g transform="scale(1 3)"><rect x="40" y="30" width="100" height="50" fill="none" stroke="#000" stroke-width="13"/></g></svg>`)
	img := image.NewRGBA(image.Rect(0, 0, 200, 300))
	if err := Draw(context.Background(), img, d, Identity, img.Bounds(), 1); err != nil {
		t.Fatal(err)
	}
	// run sums the coverage along a line of pixels: the ink's width in px.
	run := func(x0, y0, dx, dy int) int {
		n := 0
		for x, y := x0, y0; image.Pt(x, y).In(img.Bounds()); x, y = x+dx, y+dy {
			n += int(img.RGBAAt(x, y).A)
		}
		return (n + 127) / 255
	}
	// Along row 150 the two vertical sides; along column 90 the two horizontal ones.
	if got := run(0, 150, 1, 0); got != 2*13 {
		t.Errorf("vertical sides: %d px of ink across, want 26", got)
	}
	if got := run(90, 0, 0, 1); got != 2*39 {
		t.Errorf("horizontal sides: %d px of ink down, want 78", got)
	}
}

// TestStrokeScaleAgainstRSVG draws testdata/stroke-scale.svg (strokes under
// scale(1 3), a dashed one under scale(2.5 0.8), one under skewX) against
// rsvg-convert: SSIM >= 0.98; the round-pen drawing of before scores below.
func TestStrokeScaleAgainstRSVG(t *testing.T) {
	againstRSVG(t, "stroke-scale", "round pen", func(s *Shape) { s.Pen = Matrix{} })
}
