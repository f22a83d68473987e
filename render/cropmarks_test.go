package render

import (
	"bytes"
	"image"
	"image/draw"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/printworker/printworker/model"
)

// TestCropMarks: with crop marks the MediaBox grows by the slug around an unchanged
// BleedBox and TrimBox; rasterized, the slug is dark exactly on the trim lines'
// extensions (and paper elsewhere), and the bleed and trim area is what the page
// without marks shows there.
func TestCropMarks(t *testing.T) {
	needTools(t, "qpdf", "pdfinfo", "pdftoppm")
	bl := 3 * 72 / 25.4
	const w, h = 200.0, 150.0
	const dpi = 144.0
	m := cropSlugPt
	for _, typ := range []string{model.ExportPDF, model.ExportPDFSimple} {
		t.Run(typ, func(t *testing.T) {
			plain := testPrint(t, bl)
			marked := *plain
			marked.CropMarks = true
			b, _ := renderPrint(t, &marked, sepDetail(t, typ), "v")
			path := writeTemp(t, "marks.pdf", b)
			if out, err := exec.Command("qpdf", "--check", path).CombinedOutput(); err != nil || bytes.Contains(out, []byte("WARNING")) {
				t.Fatalf("qpdf --check: %v\n%s", err, out)
			}
			boxes := runTool(t, "pdfinfo", "-box", path)
			want := map[string][4]float64{
				"MediaBox": {0, 0, w + 2*bl + 2*m, h + 2*bl + 2*m},
				"BleedBox": {m, m, m + w + 2*bl, m + h + 2*bl},
				"TrimBox":  {m + bl, m + bl, m + bl + w, m + bl + h},
			}
			checkBoxes(t, boxes, want)
			ref, _ := renderPrint(t, plain, sepDetail(t, typ), "v")
			img := rasterGray(t, path, dpi)
			base := rasterGray(t, writeTemp(t, "plain.pdf", ref), dpi)
			px := func(pt float64) int { return int(math.Floor(pt * dpi / 72)) }
			// img's y axis points down: PDF y -> image row at (height - y).
			mediaH := h + 2*bl + 2*m
			at := func(im *image.Gray, x, y float64) uint8 { return im.GrayAt(px(x), px(mediaH-y)).Y }
			mid := m - cropMarkOffsetPt - cropMarkLengthPt/2 // middle of a mark, left/bottom
			midHi := m + cropMarkOffsetPt + cropMarkLengthPt/2
			trimX := []float64{m + bl, m + bl + w}
			trimY := []float64{m + bl, m + bl + h}
			// The eight marks: dark on the trim line, paper 1 mm beside it.
			for _, y := range trimY {
				for _, x := range []float64{mid, midHi + w + 2*bl} {
					if g := at(img, x, y); g > 128 {
						t.Errorf("no horizontal mark at (%.1f, %.1f) pt: gray %d", x, y, g)
					}
					if g := at(img, x, y+mmPt); g < 250 {
						t.Errorf("slug not paper at (%.1f, %.1f) pt: gray %d", x, y+mmPt, g)
					}
				}
			}
			for _, x := range trimX {
				for _, y := range []float64{mid, midHi + h + 2*bl} {
					if g := at(img, x, y); g > 128 {
						t.Errorf("no vertical mark at (%.1f, %.1f) pt: gray %d", x, y, g)
					}
					if g := at(img, x+mmPt, y); g < 250 {
						t.Errorf("slug not paper at (%.1f, %.1f) pt: gray %d", x+mmPt, y, g)
					}
				}
			}
			// Corners of the slug (no trim line there) stay paper.
			if g := at(img, m/2, m/2); g < 250 {
				t.Errorf("slug corner gray %d, want paper", g)
			}
			// Inside the bleed box: the same as without marks, sampled every 2 pt
			// (a mark reaching in would be a dark line on the trim extensions).
			for y := 1.0; y < h+2*bl-1; y += 2 {
				for x := 1.0; x < w+2*bl-1; x += 2 {
					// The slug is not a whole number of pixels, so edges fall on other
					// pixels: compare with the range of the neighbourhood.
					got := int(img.GrayAt(px(m+x), px(mediaH-m-y)).Y)
					lo, hi := 255, 0
					for dy := -1; dy <= 1; dy++ {
						for dx := -1; dx <= 1; dx++ {
							g := int(base.GrayAt(px(x)+dx, px(h+2*bl-y)+dy).Y)
							lo, hi = min(lo, g), max(hi, g)
						}
					}
					if got < lo-24 || got > hi+24 {
						t.Fatalf("bleed/trim area differs at (%.0f, %.0f) pt: gray %d, without marks %d..%d", x, y, got, lo, hi)
					}
				}
			}
		})
	}
}

func rasterGray(t testing.TB, pdf string, dpi float64) *image.Gray {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r")
	if b, err := exec.Command("pdftoppm", "-r", formatDPI(dpi), "-gray", "-png", "-singlefile", pdf, out).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, b)
	}
	f, err := os.Open(out + ".png")
	must(t, err)
	defer f.Close()
	img, err := png.Decode(f)
	must(t, err)
	if g, ok := img.(*image.Gray); ok {
		return g
	}
	g := image.NewGray(img.Bounds())
	draw.Draw(g, g.Rect, img, img.Bounds().Min, draw.Src)
	return g
}

func formatDPI(dpi float64) string { return strconv.Itoa(int(dpi)) }

// TestCropMarksConfig: "cropMarks" is read from the colour config file and inherits
// like the other settings (store, then a store's product turning it off again).
func TestCropMarksConfig(t *testing.T) {
	if _, err := os.Stat(ghostscriptCMYK); err != nil {
		t.Skip(err)
	}
	path := writeTemp(t, "colour.json", []byte(`{"default": {"profile": "`+ghostscriptCMYK+`"},
		"products": {"poster": {"cropMarks": true}},
		"stores": {"s1": {"cropMarks": true, "products": {"mug": {"cropMarks": false}}}}}`))
	cfg := PrintConfig{}
	must(t, ReadPrintConfig(path, &cfg))
	set, err := cfg.Load()
	must(t, err)
	for _, tc := range []struct {
		store, product string
		want           bool
	}{
		{"other", "shirt", false},
		{"other", "poster", true},
		{"s1", "shirt", true},
		{"s1", "mug", false},
	} {
		if got := set.For(tc.store, tc.product).CropMarks; got != tc.want {
			t.Errorf("%s/%s: crop marks %v, want %v", tc.store, tc.product, got, tc.want)
		}
	}
}
