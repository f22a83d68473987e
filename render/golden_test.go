package render

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/printworker/printworker/model"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

const mediaDir = "testdata/media"

func loadDesign(t testing.TB, name string) *model.DesignDetail {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/designs", name))
	if err != nil {
		t.Fatal(err)
	}
	var d model.DesignDetail
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return &d
}

func newRenderer(t testing.TB, o Options) *Renderer {
	t.Helper()
	r, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// goldenSummary is the part of a render compared exactly: sizes and warnings.
type goldenSummary struct {
	Type         string    `json:"type"`
	WidthPx      int       `json:"widthPx"`
	HeightPx     int       `json:"heightPx"`
	PageWidthPt  float64   `json:"pageWidthPt"`
	PageHeightPt float64   `json:"pageHeightPt"`
	DPI          float64   `json:"dpi"`
	PNGColorType string    `json:"pngColorType,omitempty"`
	Warnings     []Warning `json:"warnings"`
}

func str(s string) *string { return &s }

type goldenCase struct {
	name   string
	design string
	view   string
	opts   Options
	mutate func(d *model.DesignDetail)
	// pdfSimple also renders the view as pdf-simple and compares its rasterization
	// (pdftoppm) with the PNG.
	pdfSimple bool
}

func goldenCases() []goldenCase {
	front := func(f func(v *model.View)) func(d *model.DesignDetail) {
		return func(d *model.DesignDetail) { f(&d.Views[0]) }
	}
	return []goldenCase{
		{name: "basic", design: "basic.json", view: "front", pdfSimple: true},
		{name: "basic-lang-de", design: "basic.json", view: "front", opts: Options{Lang: "de"}},
		{name: "basic-area-144dpi", design: "basic.json", view: "front", pdfSimple: true,
			mutate: front(func(v *model.View) { v.Export.AreaType, v.Export.Area, v.Export.DPI = "area", str("print"), 144 })},
		{name: "basic-custom", design: "basic.json", view: "front",
			mutate: front(func(v *model.View) {
				v.Export.AreaType = "custom"
				v.Export.X, v.Export.Y, v.Export.Width, v.Export.Height = 60, 20, 100, 60
			})},
		{name: "basic-pixel-basis", design: "basic.json", view: "front", opts: Options{Basis: BasisPixel}, pdfSimple: true,
			mutate: front(func(v *model.View) { v.Export.DPI = 300 })},
		{name: "basic-no-template", design: "basic.json", view: "front",
			mutate: front(func(v *model.View) { v.Export.ExportTemplate = false })},
		{name: "pictures", design: "pictures.json", view: "main", pdfSimple: true},
		// A phone photo stored landscape with EXIF orientation 6 shows (and prints)
		// turned 90 degrees clockwise: portrait, red corner at the top right.
		{name: "basic-exif-orientation", design: "basic.json", view: "front",
			mutate: front(func(v *model.View) {
				v.Elements[3].Value = ptr(model.MediaValue(model.Media{ID: "photo-exif6", MimeType: "image/jpeg",
					Meta: model.MediaMeta{Width: 100, Height: 160}}))
			})},
		{name: "illustrations", design: "illustrations.json", view: "art", pdfSimple: true},
		{name: "text", design: "text.json", view: "words", pdfSimple: true},
		{name: "text-150dpi", design: "text.json", view: "words",
			mutate: front(func(v *model.View) { v.Export.DPI = 150 })},
	}
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			d := loadDesign(t, tc.design)
			if tc.mutate != nil {
				tc.mutate(d)
			}
			r := newRenderer(t, tc.opts)
			var buf bytes.Buffer
			res, err := r.RenderView(context.Background(), d, tc.view, DirSource(mediaDir), &buf)
			if err != nil {
				t.Fatal(err)
			}
			if res.Bytes != int64(buf.Len()) {
				t.Errorf("Result.Bytes = %d, wrote %d", res.Bytes, buf.Len())
			}
			img, err := png.Decode(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatal(err)
			}
			if got := img.Bounds().Size(); got != image.Pt(res.WidthPx, res.HeightPx) {
				t.Errorf("PNG is %v, Result says %dx%d", got, res.WidthPx, res.HeightPx)
			}
			checkPHYs(t, buf.Bytes(), res.DPI)
			sum := goldenSummary{
				Type: res.Type, WidthPx: res.WidthPx, HeightPx: res.HeightPx, DPI: res.DPI,
				PageWidthPt: res.PageWidthPt, PageHeightPt: res.PageHeightPt,
				PNGColorType: pngColorType(buf.Bytes()), Warnings: res.Warnings,
			}
			pngPath := filepath.Join("testdata/golden", tc.name+".png")
			jsonPath := filepath.Join("testdata/golden", tc.name+".json")
			gotJSON, _ := json.MarshalIndent(sum, "", "  ")
			gotJSON = append(gotJSON, '\n')
			if *update {
				must(t, os.WriteFile(pngPath, buf.Bytes(), 0o644))
				must(t, os.WriteFile(jsonPath, gotJSON, 0o644))
			}
			wantJSON, err := os.ReadFile(jsonPath)
			if err != nil {
				t.Fatalf("%v (run with -update to create)", err)
			}
			if !bytes.Equal(gotJSON, wantJSON) {
				t.Errorf("summary differs from %s:\ngot  %s\nwant %s", jsonPath, gotJSON, wantJSON)
			}
			want := readPNG(t, pngPath)
			comparePixels(t, img, want, pngPath)

			if tc.pdfSimple {
				checkPDFSimple(t, r, d, tc.view, img, res)
			}
		})
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func readPNG(t testing.TB, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create)", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

// comparePixels compares two images as straight-alpha 8-bit pixels: every channel within
// 48, and at most 0.5% of pixels off by more than 8 (resampling and anti-aliasing may
// differ in the last bits between platforms; a misplaced element differs far more).
func comparePixels(t testing.TB, got, want image.Image, name string) {
	t.Helper()
	if got.Bounds().Size() != want.Bounds().Size() {
		t.Fatalf("%s: size %v, want %v", name, got.Bounds().Size(), want.Bounds().Size())
	}
	gb, wb := got.Bounds(), want.Bounds()
	var off, worst int
	var worstAt image.Point
	for y := 0; y < gb.Dy(); y++ {
		for x := 0; x < gb.Dx(); x++ {
			g := color.NRGBAModel.Convert(got.At(gb.Min.X+x, gb.Min.Y+y)).(color.NRGBA)
			w := color.NRGBAModel.Convert(want.At(wb.Min.X+x, wb.Min.Y+y)).(color.NRGBA)
			d := channelDiff(g, w)
			if d > 8 {
				off++
			}
			if d > worst {
				worst, worstAt = d, image.Pt(x, y)
			}
		}
	}
	total := gb.Dx() * gb.Dy()
	if worst > 48 || float64(off) > 0.005*float64(total) {
		t.Errorf("%s: %d of %d pixels differ by more than 8; worst %d at %v", name, off, total, worst, worstAt)
	}
}

func channelDiff(a, b color.NRGBA) int {
	if a.A == 0 && b.A == 0 {
		return 0
	}
	d := 0
	for _, p := range [][2]uint8{{a.R, b.R}, {a.G, b.G}, {a.B, b.B}, {a.A, b.A}} {
		d = max(d, int(math.Abs(float64(p[0])-float64(p[1]))))
	}
	// Colour of nearly transparent pixels hardly shows: weigh by coverage.
	if a.A < 255 || b.A < 255 {
		cov := float64(max(a.A, b.A)) / 255
		d = max(int(math.Abs(float64(a.A)-float64(b.A))), int(float64(d)*cov))
	}
	return d
}

// pngColorType names the IHDR colour type of a PNG.
func pngColorType(b []byte) string {
	if len(b) < 26 {
		return "?"
	}
	switch b[25] {
	case 2:
		return fmt.Sprintf("RGB %d-bit", b[24])
	case 6:
		return fmt.Sprintf("RGBA %d-bit", b[24])
	}
	return fmt.Sprintf("type %d %d-bit", b[25], b[24])
}

// checkPHYs finds the pHYs chunk before IDAT and checks it states dpi.
func checkPHYs(t testing.TB, b []byte, dpi float64) {
	t.Helper()
	for i := 8; i+8 <= len(b); {
		n := int(binary.BigEndian.Uint32(b[i:]))
		typ := string(b[i+4 : i+8])
		switch typ {
		case "pHYs":
			ppm := binary.BigEndian.Uint32(b[i+8:])
			if got := float64(ppm) * 0.0254; math.Abs(got-dpi) > 0.05 || b[i+16] != 1 {
				t.Errorf("pHYs says %.2f dpi (unit %d), want %g", got, b[i+16], dpi)
			}
			return
		case "IDAT":
			t.Errorf("no pHYs chunk before IDAT")
			return
		}
		i += 12 + n
	}
	t.Errorf("no pHYs chunk")
}

// checkPDFSimple renders the view as pdf-simple and checks the page size (pdfinfo), the
// file (qpdf --check) and that its rasterization at the export dpi matches the PNG
// flattened on white. pdftocairo rasterizes: pdftoppm's Splash smooths images even at
// 1:1 (11% of the pixels of basic off by more than 8), which would hide nothing but
// forces a loose tolerance; both come with poppler.
func checkPDFSimple(t *testing.T, r *Renderer, d *model.DesignDetail, viewID string, pngImg image.Image, pngRes *Result) {
	t.Helper()
	for _, tool := range []string{"pdfinfo", "pdftocairo", "qpdf"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	v, _ := d.ViewByID(viewID)
	v.Export.Type = model.ExportPDFSimple
	var buf bytes.Buffer
	res, err := r.RenderView(context.Background(), d, viewID, DirSource(mediaDir), &buf)
	if err != nil {
		t.Fatal(err)
	}
	if res.ContentType != ContentTypePDF || res.WidthPx != pngRes.WidthPx {
		t.Errorf("pdf-simple result %+v", res)
	}
	dir := t.TempDir()
	pdfPath := filepath.Join(dir, "out.pdf")
	must(t, os.WriteFile(pdfPath, buf.Bytes(), 0o644))
	if out, err := exec.Command("qpdf", "--check", pdfPath).CombinedOutput(); err != nil {
		t.Errorf("qpdf --check: %v\n%s", err, out)
	}
	info, err := exec.Command("pdfinfo", pdfPath).Output()
	if err != nil {
		t.Fatal(err)
	}
	w, h := pdfPageSize(t, string(info))
	if math.Abs(w-pngRes.PageWidthPt) > 0.01 || math.Abs(h-pngRes.PageHeightPt) > 0.01 {
		t.Errorf("pdf page %gx%g pt, want %gx%g", w, h, pngRes.PageWidthPt, pngRes.PageHeightPt)
	}
	dpi := strconv.FormatFloat(pngRes.DPI, 'f', -1, 64)
	out := filepath.Join(dir, "page")
	if b, err := exec.Command("pdftocairo", "-r", dpi, "-png", "-singlefile", pdfPath, out).CombinedOutput(); err != nil {
		t.Fatalf("pdftocairo: %v\n%s", err, b)
	}
	got := readPNG(t, out+".png")
	comparePixels(t, got, onWhite(pngImg), "pdf-simple rasterized vs png")
}

func pdfPageSize(t testing.TB, info string) (w, h float64) {
	t.Helper()
	for _, line := range strings.Split(info, "\n") {
		if strings.HasPrefix(line, "Page size:") {
			if _, err := fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(line, "Page size:")), "%g x %g", &w, &h); err != nil {
				t.Fatalf("pdfinfo page size %q: %v", line, err)
			}
			return w, h
		}
	}
	t.Fatalf("pdfinfo: no page size in\n%s", info)
	return 0, 0
}

func onWhite(img image.Image) *image.RGBA {
	out := image.NewRGBA(img.Bounds())
	for y := out.Rect.Min.Y; y < out.Rect.Max.Y; y++ {
		for x := out.Rect.Min.X; x < out.Rect.Max.X; x++ {
			r, g, b, a := img.At(x, y).RGBA()
			w := 0xffff - a
			out.Set(x, y, color.RGBA64{uint16(r + w), uint16(g + w), uint16(b + w), 0xffff})
		}
	}
	return out
}
