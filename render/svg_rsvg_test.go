package render

import (
	"bytes"
	"context"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/printworker/printworker/internal/imgcheck"
	"github.com/printworker/printworker/model"
)

// TestSVGOutputsAgainstRSVG renders SVG cases as PNG and as vector PDF
// (rasterized by pdftoppm) and compares both with rsvg-convert's render of the
// same SVG: SSIM >= 0.98 and no "clipPath" or "text" warning left. clip.svg: clipPath in
// user space and bounding-box units, under transforms, nested, even-odd, through
// <use> (unclipped, it scores about 0.6). stroke-scale.svg: strokes under
// non-uniform scales and a skew (a round pen scores about 0.83). text.svg: text runs
// in DejaVu, which rsvg-convert finds through fontconfig too (sizes, bold serif,
// text-anchor middle and end, a coloured tspan, dy shifts, a stroke, a non-uniform
// scale); without its text it scores 0.854.
func TestSVGOutputsAgainstRSVG(t *testing.T) {
	t.Parallel()
	rsvg := imgcheck.Tool(t, "rsvg-convert", "apt-get install librsvg2-bin")
	ppm := imgcheck.Tool(t, "pdftoppm", "apt-get install poppler-utils")
	for _, tc := range []struct {
		name string
		w, h float64
		typ  string
	}{
		{"clip", 200, 160, model.ExportPNG},
		{"clip", 200, 160, model.ExportPDF},
		{"stroke-scale", 240, 240, model.ExportPNG},
		{"stroke-scale", 240, 240, model.ExportPDF},
		{"text", 320, 200, model.ExportPNG},
		{"text", 320, 200, model.ExportPDF},
	} {
		typ := tc.typ
		t.Run(tc.name+"-"+typ, func(t *testing.T) {
			svgSrc, err := os.ReadFile(filepath.Join("svg", "testdata", tc.name+".svg"))
			must(t, err)
			dir := t.TempDir()
			must(t, os.WriteFile(filepath.Join(dir, "art.svg"), svgSrc, 0o644))
			var buf bytes.Buffer
			res, err := newRenderer(t, Options{}).RenderView(context.Background(), svgDesign(t, tc.w, tc.h, typ, 192), "v", DirSource(dir), &buf)
			must(t, err)
			for _, w := range res.Warnings {
				if strings.Contains(w.Message, "clipPath") || strings.Contains(w.Message, "text") {
					t.Errorf("warning left: %+v", w)
				}
			}
			pb := buf.Bytes()
			if typ == model.ExportPDF {
				pb = pdfPagePNG(t, ppm, pb, dir)
			}
			if d := os.Getenv("PRINTWORKER_KEEP_DIR"); d != "" {
				must(t, os.WriteFile(filepath.Join(d, tc.name+"-"+typ+".png"), pb, 0o644))
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

// pdfPagePNG rasterizes a one-page PDF at 192 dpi with pdftoppm, in dir.
func pdfPagePNG(t *testing.T, ppm string, pdf []byte, dir string) []byte {
	t.Helper()
	pdfPath, out := filepath.Join(dir, "out.pdf"), filepath.Join(dir, "page")
	must(t, os.WriteFile(pdfPath, pdf, 0o644))
	if b, err := exec.Command(ppm, "-r", "192", "-png", "-singlefile", pdfPath, out).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, b)
	}
	pb, err := os.ReadFile(out + ".png")
	must(t, err)
	return pb
}

// TestPDFStretchedPen: a pen stretched beyond the numbers a PDF holds (scale(1e-6
// 1e6): its space's coordinates and its cm's translation would reach 1e8) is written
// as the stroke's filled outline; the content holds no number beyond pdfMaxCoord. A
// moderate pen is written in pen space under a cm.
func TestPDFStretchedPen(t *testing.T) {
	t.Parallel()
	qpdf := imgcheck.Tool(t, "qpdf", "apt-get install qpdf")
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "art.svg"), []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">
<g transform="translate(10 50) scale(1e-6 1e6)"><path d="M0 0 L8e7 0" stroke="red" stroke-width="4e-6" fill="none"/></g>
<g transform="translate(10 10) scale(2 0.5)"><path d="M0 0 L40 0" stroke="blue" stroke-width="8" fill="none"/></g></svg>`), 0o644))
	var buf bytes.Buffer
	_, err := newRenderer(t, Options{}).RenderView(context.Background(), svgDesign(t, 100, 100, model.ExportPDF, 72), "v", DirSource(dir), &buf)
	must(t, err)
	pdfPath := filepath.Join(dir, "out.pdf")
	must(t, os.WriteFile(pdfPath, buf.Bytes(), 0o644))
	qdf, err := exec.Command(qpdf, "--qdf", "--object-streams=disable", pdfPath, "-").Output()
	must(t, err)
	// The operands of the content's path, width and matrix operators.
	ops := regexp.MustCompile(`(?m)^.* (m|l|c|cm|w)$`)
	num := regexp.MustCompile(`-?\d+(\.\d+)?(e[+-]?\d+)?`)
	for _, line := range ops.FindAll(qdf, -1) {
		for _, f := range num.FindAll(line, -1) {
			if v, err := strconv.ParseFloat(string(f), 64); err == nil && math.Abs(v) > pdfMaxCoord {
				t.Fatalf("%s: number %s beyond %g", line, f, float64(pdfMaxCoord))
			}
		}
	}
	if !bytes.Contains(qdf, []byte(" cm")) {
		t.Error("no cm: the moderate pen was not written in pen space")
	}
}
