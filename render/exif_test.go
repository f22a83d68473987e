package render

import (
	"os"
	"testing"

	"github.com/printworker/printworker/render/svg"
)

func TestJPEGOrientation(t *testing.T) {
	for name, want := range map[string]int{"photo.jpg": 1, "photo-exif6.jpg": 6, "rgba.png": 1} {
		b, err := os.ReadFile("testdata/media/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if got := jpegOrientation(b); got != want {
			t.Errorf("%s: orientation %d, want %d", name, got, want)
		}
	}
}

// Each orientation maps the stored picture onto the displayed rectangle exactly.
func TestOrientationMatrices(t *testing.T) {
	const w, h = 160.0, 100.0
	for o := 1; o <= 8; o++ {
		m, dw, dh := orientation(o, w, h)
		b := bounds(m, Rect{0, 0, w, h})
		if b != (Rect{0, 0, dw, dh}) {
			t.Errorf("orientation %d: stored picture lands on %+v, want 0,0 %gx%g", o, b, dw, dh)
		}
	}
	// 6: turned 90 degrees clockwise, the stored top-left goes to the top-right.
	m, _, _ := orientation(6, w, h)
	if p := m.Apply(svg.Point{}); p != (svg.Point{X: h, Y: 0}) {
		t.Errorf("orientation 6 maps (0,0) to %v", p)
	}
}

// Any bytes: never a panic, always 1..8.
func FuzzJPEGOrientation(f *testing.F) {
	for _, name := range []string{"photo.jpg", "photo-exif6.jpg"} {
		b, err := os.ReadFile("testdata/media/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b[:min(len(b), 200)])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if o := jpegOrientation(b); o < 1 || o > 8 {
			t.Fatalf("orientation %d", o)
		}
	})
}
