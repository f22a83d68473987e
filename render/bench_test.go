package render

import (
	"context"
	"io"
	"testing"

	"github.com/printworker/printworker/internal/testcpu"
	"github.com/printworker/printworker/render/internal/resample"
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

// BenchmarkRenderTiers renders the pictures design at 600 dpi as a PNG with the
// picture kernels capped at each tier this machine runs (render/internal/resample):
// what each tier's assembly buys a whole render. cpu-ms/op is the process's CPU time
// per render.
func BenchmarkRenderTiers(b *testing.B) {
	d := loadDesign(b, "pictures.json")
	d.Views[0].Export.DPI = 600
	for _, tier := range resample.Tiers {
		b.Run("tier="+tier.String(), func(b *testing.B) {
			if !resample.Supported(tier) {
				b.Skipf("this machine lacks %v", tier)
			}
			r := newRenderer(b, Options{})
			r.pictures = resample.NewTier(r.opts.Workers, tier)
			start := testcpu.Time(b)
			for b.Loop() {
				if _, err := r.RenderView(context.Background(), d, "main", DirSource(mediaDir), io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			testcpu.PerOp(b, start)
		})
	}
}
