package render

import (
	"bytes"
	"context"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/internal/imgcheck"
	"github.com/printworker/printworker/model"
)

// TestSVGClipOutputs renders svg/testdata/clip.svg (clipPath in user space and
// bounding-box units, under transforms, nested, even-odd, through <use>) as PNG
// and as vector PDF (rasterized by pdftoppm) and compares both with rsvg-convert's
// render of the same SVG: SSIM >= 0.98 and no "clipPath" warning left. Unclipped,
// the drawing scores about 0.6.
func TestSVGClipOutputs(t *testing.T) {
	t.Parallel()
	rsvg := imgcheck.Tool(t, "rsvg-convert", "apt-get install librsvg2-bin")
	ppm := imgcheck.Tool(t, "pdftoppm", "apt-get install poppler-utils")
	svgSrc, err := os.ReadFile(filepath.Join("svg", "testdata", "clip.svg"))
	must(t, err)
	for _, typ := range []string{model.ExportPNG, model.ExportPDF} {
		t.Run(typ, func(t *testing.T) {
			dir := t.TempDir()
			must(t, os.WriteFile(filepath.Join(dir, "art.svg"), svgSrc, 0o644))
			var buf bytes.Buffer
			res, err := newRenderer(t, Options{}).RenderView(context.Background(), svgDesign(t, 200, 160, typ, 192), "v", DirSource(dir), &buf)
			must(t, err)
			for _, w := range res.Warnings {
				if strings.Contains(w.Message, "clipPath") {
					t.Errorf("warning left: %+v", w)
				}
			}
			pb := buf.Bytes()
			if typ == model.ExportPDF {
				pdfPath, out := filepath.Join(dir, "out.pdf"), filepath.Join(dir, "page")
				must(t, os.WriteFile(pdfPath, pb, 0o644))
				if b, err := exec.Command(ppm, "-r", "192", "-png", "-singlefile", pdfPath, out).CombinedOutput(); err != nil {
					t.Fatalf("pdftoppm: %v\n%s", err, b)
				}
				pb, err = os.ReadFile(out + ".png")
				must(t, err)
			}
			if d := os.Getenv("PRINTWORKER_KEEP_DIR"); d != "" {
				must(t, os.WriteFile(filepath.Join(d, "clip-"+typ+".png"), pb, 0o644))
			}
			page, err := png.Decode(bytes.NewReader(pb))
			must(t, err)
			want := rsvgPNG(t, rsvg, filepath.Join(dir, "art.svg"), page.Bounds().Dx(), page.Bounds().Dy())
			s := imgcheck.SSIM(onWhite(page), want)
			t.Logf("%s vs rsvg-convert: SSIM %.4f", typ, s)
			if s < 0.98 {
				t.Errorf("SSIM %.4f, want >= 0.98", s)
			}
		})
	}
}
