package render

import (
	"testing"

	"github.com/printworker/printworker/render/svg"
)

// BenchmarkCheckLayerNumbers measures the number check of an SVG layer of 100,000
// line segments (the check runs at the scene build and again in the PDF writer).
func BenchmarkCheckLayerNumbers(b *testing.B) {
	path := make(svg.Path, 0, 100_000)
	path = append(path, svg.Segment{Op: svg.MoveTo})
	for i := 1; i < 100_000; i++ {
		path = append(path, svg.Segment{Op: svg.LineTo, Pts: [3]svg.Point{{X: float64(i % 500), Y: float64(i % 377)}}})
	}
	doc := &svg.Doc{Width: 500, Height: 500, Shapes: []svg.Shape{{Path: path, Fill: &svg.Paint{A: 1}, Opacity: 1}}}
	l := &Layer{Kind: LayerSVG, Transform: svg.Identity, Clip: Rect{0, 0, 500, 500}, SVG: &SVGLayer{Doc: doc}}
	b.ReportAllocs()
	for b.Loop() {
		if err := checkLayerNumbers("v", svg.Identity, 500, l); err != nil {
			b.Fatal(err)
		}
	}
}
