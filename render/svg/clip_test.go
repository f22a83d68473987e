package svg

import (
	"context"
	"image"
	"testing"

	"github.com/printworker/printworker/internal/imgcheck"
)

// TestClipAgainstRSVG draws testdata/clip.svg (user-space and bounding-box
// clips, a clip of two rects under its own transform, an even-odd clip-rule,
// nested clips, a clip through <use>) and requires SSIM >= 0.98 against
// rsvg-convert; the same drawing with its clips dropped (what was drawn
// before clipPath was supported) must score below that.
func TestClipAgainstRSVG(t *testing.T) {
	againstRSVG(t, "clip", "unclipped", func(s *Shape) { s.Clips = nil })
}

// againstRSVG draws testdata/<name>.svg at scale 2 and requires SSIM >= 0.98
// against rsvg-convert's render; the drawing without the feature (edit takes it
// off every shape) must score below, or the threshold proves nothing.
func againstRSVG(t *testing.T, name, without string, edit func(*Shape)) {
	t.Helper()
	bin := imgcheck.Tool(t, "rsvg-convert", "apt-get install librsvg2-bin")
	src := readSVG(name)
	const scale = 2
	got := renderGolden(t, src, scale)
	want := rsvgRender(t, bin, src, got.Bounds().Dx(), got.Bounds().Dy())
	s := imgcheck.SSIM(got, want)
	t.Logf("SSIM %.4f against rsvg-convert", s)
	if s < 0.98 {
		t.Errorf("SSIM %.4f against rsvg-convert, want >= 0.98", s)
	}
	su := imgcheck.SSIM(renderEdited(t, src, scale, edit), want)
	t.Logf("%s: SSIM %.4f", without, su)
	if su >= 0.98 {
		t.Errorf("%s drawing scores SSIM %.4f: the threshold proves nothing", without, su)
	}
}

// TestClipModel checks what the parser builds: units, nesting, empty clips
// and references that name no clipPath.
func TestClipModel(t *testing.T) {
	d := parse(t, `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">
<clipPath id="c"><rect x="10" y="10" width="20" height="20"/></clipPath>
<clipPath id="b" clipPathUnits="objectBoundingBox"><rect width=".5" height="1"/></clipPath>
<clipPath id="empty"/>
<g clip-path="url(#c)" transform="scale(2)"><rect width="50" height="50" clip-path="url(#b)"/></g>
<rect width="10" height="10" clip-path="url(#empty)"/>
<rect x="80" y="80" width="10" height="10" clip-path="url(#missing)"/>
</svg>`)
	if len(d.Shapes) != 3 {
		t.Fatalf("%d shapes", len(d.Shapes))
	}
	s := d.Shapes[0]
	if len(s.Clips) != 2 {
		t.Fatalf("%d clips on the nested shape, want 2", len(s.Clips))
	}
	// The bounding-box clip (inner element's box 0..50 in user space, scale 2): 0..50 x 0..100.
	x0, y0, x1, y1, _ := s.Clips[0].bounds()
	if x0 != 0 || y0 != 0 || x1 != 50 || y1 != 100 {
		t.Errorf("bbox clip bounds %v %v %v %v, want 0 0 50 100", x0, y0, x1, y1)
	}
	x0, y0, x1, y1, _ = s.Clips[1].bounds()
	if x0 != 20 || y0 != 20 || x1 != 60 || y1 != 60 {
		t.Errorf("user-space clip bounds %v %v %v %v, want 20 20 60 60", x0, y0, x1, y1)
	}
	if bx0, by0, bx1, by1 := d.Bounds(); bx0 != 20 || by0 != 20 || bx1 != 90 || by1 != 90 {
		t.Errorf("doc bounds %v %v %v %v, want 20 20 90 90 (the clips cut the first two)", bx0, by0, bx1, by1)
	}
	if len(d.Shapes[1].Clips) != 1 || len(d.Shapes[1].Clips[0].Parts) != 0 {
		t.Errorf("empty clipPath: clips %v", d.Shapes[1].Clips)
	}
	if len(d.Shapes[2].Clips) != 0 {
		t.Errorf("missing clipPath: clips %v", d.Shapes[2].Clips)
	}
	img := image.NewRGBA(image.Rect(0, 0, 100, 100))
	if err := Draw(context.Background(), img, d, Identity, img.Bounds(), 1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		x, y int
		a    uint8
	}{{30, 30, 255}, {55, 30, 0}, {5, 5, 0}, {45, 55, 255}, {15, 15, 0}, {85, 85, 255}} {
		if got := img.RGBAAt(tc.x, tc.y).A; got != tc.a {
			t.Errorf("alpha at %d,%d = %d, want %d", tc.x, tc.y, got, tc.a)
		}
	}
}
