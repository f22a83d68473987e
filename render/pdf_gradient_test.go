package render

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/imgcheck"
	"github.com/printworker/printworker/model"
)

// svgDesign is a one-view design whose only element is the SVG media "art" of
// natural size w x h, filling the view, exported as typ at dpi.
func svgDesign(t *testing.T, w, h float64, typ string, dpi int) *model.DesignDetail {
	t.Helper()
	src := `{"_id":"g1","name":"Gradients","_created":"2024-03-01T10:00:00.000Z","views":[{"id":"v","name":{"en":"v"},"active":true,
	"width":` + num(w) + `,"height":` + num(h) + `,"export":{"areaType":"template","dpi":` + num(float64(dpi)) + `,"type":"` + typ + `","filename":"[id]"},
	"elements":[{"id":"art","type":"illustration","weight":0,"positionX":` + num(w/2) + `,"positionY":` + num(h/2) + `,
	"value":{"_id":"art","originalname":"art.svg","mimetype":"image/svg+xml","meta":{"width":` + num(w) + `,"height":` + num(h) + `}}}]}]}`
	var d model.DesignDetail
	if err := json.Unmarshal([]byte(src), &d); err != nil {
		t.Fatal(err)
	}
	return &d
}

func num(v float64) string { b, _ := json.Marshal(v); return string(b) }

// TestPDFGradientShadings renders the SVG gradient cases as vector PDFs and checks
// them as a print shop would: qpdf finds no error, the gradients are real shadings
// (/ShadingType 2 and 3 objects, a /SMask where stop opacity varies) and no
// "gradient" warning is left, and poppler's rasterization matches rsvg-convert's
// render of the same SVG (SSIM >= 0.98).
func TestPDFGradientShadings(t *testing.T) {
	t.Parallel()
	rsvg := imgcheck.Tool(t, "rsvg-convert", "apt-get install librsvg2-bin")
	ppm := imgcheck.Tool(t, "pdftoppm", "apt-get install poppler-utils")
	qpdf := imgcheck.Tool(t, "qpdf", "apt-get install qpdf")
	for _, tc := range []struct {
		name  string
		types []string // shading types that must appear
		smask bool
	}{
		{"gradient-linear", []string{"2"}, true},
		{"gradient-radial", []string{"3"}, false},
		{"gradient-href", []string{"2", "3"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svgSrc, err := os.ReadFile(filepath.Join("svg", "testdata", tc.name+".svg"))
			must(t, err)
			dir := t.TempDir()
			must(t, os.WriteFile(filepath.Join(dir, "art.svg"), svgSrc, 0o644))
			d := svgDesign(t, 200, 120, model.ExportPDF, 144)
			var buf bytes.Buffer
			res, err := newRenderer(t, Options{}).RenderView(context.Background(), d, "v", DirSource(dir), &buf)
			must(t, err)
			for _, w := range res.Warnings {
				if strings.Contains(w.Message, "gradient") {
					t.Errorf("warning left: %+v", w)
				}
			}
			pdfPath := filepath.Join(dir, "out.pdf")
			must(t, os.WriteFile(pdfPath, buf.Bytes(), 0o644))
			if out, err := exec.Command(qpdf, "--check", pdfPath).CombinedOutput(); err != nil {
				t.Fatalf("qpdf --check: %v\n%s", err, out)
			}
			qdf, err := exec.Command(qpdf, "--qdf", "--object-streams=disable", pdfPath, "-").Output()
			must(t, err)
			for _, typ := range tc.types {
				if !regexp.MustCompile(`/ShadingType ` + typ + `\b`).Match(qdf) {
					t.Errorf("no /ShadingType %s in the PDF", typ)
				}
			}
			if !bytes.Contains(qdf, []byte("/FunctionType 3")) {
				t.Error("no stitching function (/FunctionType 3) for the multi-stop gradients")
			}
			if got := bytes.Contains(qdf, []byte("/SMask")); got != tc.smask {
				t.Errorf("/SMask present %v, want %v", got, tc.smask)
			}
			out := filepath.Join(dir, "page")
			if b, err := exec.Command(ppm, "-r", "288", "-png", "-singlefile", pdfPath, out).CombinedOutput(); err != nil {
				t.Fatalf("pdftoppm: %v\n%s", err, b)
			}
			pb, err := os.ReadFile(out + ".png")
			must(t, err)
			// PRINTWORKER_KEEP_DIR=DIR keeps the PDF and its rasterization for a look.
			if d := os.Getenv("PRINTWORKER_KEEP_DIR"); d != "" {
				must(t, os.WriteFile(filepath.Join(d, tc.name+"-pdf.png"), pb, 0o644))
				must(t, os.WriteFile(filepath.Join(d, tc.name+".pdf"), buf.Bytes(), 0o644))
			}
			page, err := png.Decode(bytes.NewReader(pb))
			must(t, err)
			want := rsvgPNG(t, rsvg, filepath.Join(dir, "art.svg"), page.Bounds().Dx(), page.Bounds().Dy())
			s := imgcheck.SSIM(page, want)
			t.Logf("pdftoppm page vs rsvg-convert: SSIM %.4f", s)
			if s < 0.98 {
				t.Errorf("SSIM %.4f, want >= 0.98", s)
			}
		})
	}
}

func rsvgPNG(t *testing.T, bin, svgPath string, w, h int) image.Image {
	t.Helper()
	out := svgPath + ".png"
	cmd := exec.Command(bin, "-w", strconv.Itoa(w), "-h", strconv.Itoa(h), "-b", "white", "-o", out, svgPath)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rsvg-convert: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	must(t, err)
	img, err := png.Decode(bytes.NewReader(b))
	must(t, err)
	return img
}

// TestPDFHostileGradients: gradients built to blow up the PDF (many stops times many
// periods, out-of-range transforms, singular ones) give a valid PDF of bounded size
// in bounded time.
func TestPDFHostileGradients(t *testing.T) {
	t.Parallel()
	qpdf := imgcheck.Tool(t, "qpdf", "apt-get install qpdf")
	var many strings.Builder
	for i := range 5000 {
		many.WriteString(`<stop offset="` + strconv.Itoa(i%100) + `%" stop-color="#` + []string{"f00", "0f0", "00f"}[i%3] + `"/>`)
	}
	cases := map[string]string{
		"many stops, many periods": `<linearGradient id="g" x2=".00001" spreadMethod="reflect">` + many.String() + `</linearGradient>`,
		"radial, many periods":     `<radialGradient id="g" r=".00001" spreadMethod="repeat">` + many.String() + `</radialGradient>`,
		"huge transform":           `<radialGradient id="g" gradientTransform="matrix(1e300 0 0 1e-300 1e308 -1e308)" spreadMethod="reflect"><stop stop-color="red"/><stop offset="1" stop-color="blue" stop-opacity=".5"/></radialGradient>`,
		"singular transform":       `<linearGradient id="g" gradientTransform="matrix(1 1 1 1 0 0)"><stop stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient>`,
		"zero vector":              `<linearGradient id="g" x2="0"><stop stop-color="red"/><stop offset="1" stop-color="blue" stop-opacity="0"/></linearGradient>`,
	}
	for name, defs := range cases {
		t.Run(name, func(t *testing.T) {
			src := `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">` + defs +
				`<rect width="100" height="100" fill="url(#g)" stroke="url(#g)" stroke-width="5"/></svg>`
			dir := t.TempDir()
			must(t, os.WriteFile(filepath.Join(dir, "art.svg"), []byte(src), 0o644))
			start := time.Now()
			var buf bytes.Buffer
			_, err := newRenderer(t, Options{}).RenderView(context.Background(), svgDesign(t, 100, 100, model.ExportPDF, 72), "v", DirSource(dir), &buf)
			must(t, err)
			if el := time.Since(start); el > 10*time.Second {
				t.Errorf("took %v", el)
			}
			if buf.Len() > 8<<20 {
				t.Errorf("PDF of %d bytes", buf.Len())
			}
			p := filepath.Join(dir, "out.pdf")
			must(t, os.WriteFile(p, buf.Bytes(), 0o644))
			if out, err := exec.Command(qpdf, "--check", p).CombinedOutput(); err != nil {
				t.Errorf("qpdf --check: %v\n%s", err, out)
			}
		})
	}
}

// TestPDFGradientShadingsCMYK: with a CMYK output profile an SVG gradient is still a
// real shading, now in DeviceCMYK with stops converted through the profile, and the
// PDF/X-4 file carries no RGB colour at all.
func TestPDFGradientShadingsCMYK(t *testing.T) {
	needTools(t, "qpdf")
	p := testPrint(t, 0)
	for _, name := range []string{"gradient-linear", "gradient-radial", "gradient-href"} {
		t.Run(name, func(t *testing.T) {
			svgSrc, err := os.ReadFile(filepath.Join("svg", "testdata", name+".svg"))
			must(t, err)
			dir := t.TempDir()
			must(t, os.WriteFile(filepath.Join(dir, "art.svg"), svgSrc, 0o644))
			d := svgDesign(t, 200, 120, model.ExportPDF, 144)
			var buf bytes.Buffer
			_, err = newRenderer(t, Options{}).WithPrint(p).RenderView(context.Background(), d, "v", DirSource(dir), &buf)
			must(t, err)
			pdfPath := filepath.Join(dir, "out.pdf")
			must(t, os.WriteFile(pdfPath, buf.Bytes(), 0o644))
			if out, err := exec.Command("qpdf", "--check", pdfPath).CombinedOutput(); err != nil {
				t.Fatalf("qpdf --check: %v\n%s", err, out)
			}
			qdf, err := exec.Command("qpdf", "--qdf", "--object-streams=disable", pdfPath, "-").Output()
			must(t, err)
			if !regexp.MustCompile(`/ShadingType [23]\b`).Match(qdf) || !bytes.Contains(qdf, []byte("/ColorSpace /DeviceCMYK")) {
				t.Error("no DeviceCMYK shading in the CMYK PDF")
			}
			checkNoRGB(t, pdfPath)
		})
	}
}
