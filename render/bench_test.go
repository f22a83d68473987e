package render

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/printworker/printworker/internal/testcpu"
	"github.com/printworker/printworker/model"
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

// BenchmarkRenderTiers renders the reference T-shirt front (testdata/bench at the
// module's root: its 2000x2000 photo enlarged, an SVG badge, three texts; a 4167x5000
// PNG, docs/benchmarks.md "Reference designs") with the picture kernels capped at each
// tier this machine runs (render/internal/resample): what each tier's assembly buys a
// whole render. cpu-ms/op is the process's CPU time per render.
func BenchmarkRenderTiers(b *testing.B) {
	ref := filepath.Join("..", "testdata", "bench")
	data, err := os.ReadFile(filepath.Join(ref, "designs", "tshirt-front.json"))
	if err != nil {
		b.Fatal(err)
	}
	var d model.DesignDetail
	if err := json.Unmarshal(data, &d); err != nil {
		b.Fatal(err)
	}
	for _, tier := range resample.Tiers {
		b.Run("tier="+tier.String(), func(b *testing.B) {
			if !resample.Supported(tier) {
				b.Skipf("this machine lacks %v", tier)
			}
			r := newRenderer(b, Options{})
			r.pictures = resample.NewTier(r.opts.Workers, tier)
			start := testcpu.Time(b)
			for b.Loop() {
				if _, err := r.RenderView(context.Background(), &d, d.Views[0].ID, DirSource(filepath.Join(ref, "media")), io.Discard); err != nil {
					b.Fatal(err)
				}
			}
			testcpu.PerOp(b, start)
		})
	}
}
