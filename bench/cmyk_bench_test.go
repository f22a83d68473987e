package bench_test

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/printworker/printworker/bench/refdesign"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render"
)

// BenchmarkRenderCMYK: the reference T-shirt front as sRGB PDF and PNG, and with
// Ghostscript's CMYK profile and a 3 mm bleed as PDF/X-4, soft-proofed PNG and CMYK
// TIFF (docs/benchmarks.md "CMYK output"). The profile's lookup grids are built once
// per process (before the timer), as in a worker.
func BenchmarkRenderCMYK(b *testing.B) {
	const profile = "/usr/share/color/icc/ghostscript/default_cmyk.icc"
	if _, err := os.Stat(profile); err != nil {
		b.Skipf("%s: %v", profile, err)
	}
	set, err := render.PrintConfig{Default: render.PrintSettings{Profile: profile, Bleed: "3mm"}}.Load()
	if err != nil {
		b.Fatal(err)
	}
	tiff, err := render.PrintConfig{Default: render.PrintSettings{Profile: profile, Bleed: "3mm", Raster: "tiff"}}.Load()
	if err != nil {
		b.Fatal(err)
	}
	cases := []struct {
		bench, typ string
		print      *render.Print
	}{
		{"srgb/pdf", model.ExportPDF, nil},
		{"cmyk/pdf", model.ExportPDF, set.For("", "")},
		{"srgb/png", model.ExportPNG, nil},
		{"cmyk/png-proof", model.ExportPNG, set.For("", "")},
		{"cmyk/tiff", model.ExportPNG, tiff.For("", "")},
	}
	for _, c := range cases {
		b.Run(c.bench, func(b *testing.B) {
			r := newRenderer(b).WithPrint(c.print)
			d, media := loadDesign(b, refdesign.TShirtFront)
			for i := range d.Views {
				d.Views[i].Export.Type = c.typ
			}
			ctx := context.Background()
			var buf bytes.Buffer
			// Warm-up: builds the profile's grids once, as a worker's first job does.
			if _, err := r.RenderView(ctx, d, "front", media, &buf); err != nil {
				b.Fatal(err)
			}
			cpu := cpuMeter{tb: b}
			b.ReportAllocs()
			cpu.on()
			for b.Loop() {
				buf.Reset()
				if _, err := r.RenderView(ctx, d, "front", media, &buf); err != nil {
					b.Fatal(err)
				}
			}
			cpu.off()
			cpu.report(b)
			b.ReportMetric(float64(buf.Len()), "out-bytes")
		})
	}
}
