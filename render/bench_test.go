package render

import (
	"context"
	"io"
	"testing"
)

// BenchmarkRenderPrintSize renders the pictures design (every picture kind, rotation,
// fill and fit) at 600 dpi: a 2500x1667 px PNG.
func BenchmarkRenderPrintSize(b *testing.B) {
	d := loadDesign(b, "pictures.json")
	d.Views[0].Export.DPI = 600
	r := newRenderer(b, Options{})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := r.RenderView(context.Background(), d, "main", DirSource(mediaDir), io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRasterizePrintSize measures compositing alone (no PNG encoding).
func BenchmarkRasterizePrintSize(b *testing.B) {
	d := loadDesign(b, "pictures.json")
	d.Views[0].Export.DPI = 600
	r := newRenderer(b, Options{})
	b.ReportAllocs()
	for b.Loop() {
		s, err := r.BuildScene(context.Background(), d, "main", DirSource(mediaDir))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := r.Rasterize(context.Background(), s); err != nil {
			b.Fatal(err)
		}
	}
}
