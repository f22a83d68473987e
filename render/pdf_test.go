package render

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/printworker/printworker/model"
)

// TestVectorPDF renders every golden case as a vector PDF and checks it as a print shop
// would: qpdf finds no error, the page is the export box in points (pdfinfo), every font
// is embedded (pdffonts), every picture is embedded at its native pixel size, JPEGs as
// JPEG (pdfimages), and the page rasterized by poppler at the export dpi looks like the
// PNG render of the same view.
func TestVectorPDF(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"pdfinfo", "pdffonts", "pdfimages", "pdftoppm", "qpdf"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed (apt-get install poppler-utils qpdf)", tool)
		}
	}
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			d := loadDesign(t, tc.design)
			if tc.mutate != nil {
				tc.mutate(d)
			}
			v, ok := d.ViewByID(tc.view)
			if !ok {
				t.Fatalf("no view %s", tc.view)
			}
			r := newRenderer(t, tc.opts)
			v.Export.Type = model.ExportPNG
			var pngBuf bytes.Buffer
			pngRes, err := r.RenderView(context.Background(), d, tc.view, DirSource(mediaDir), &pngBuf)
			if err != nil {
				t.Fatal(err)
			}
			pngImg := readPNGBytes(t, pngBuf.Bytes())

			v.Export.Type = model.ExportPDF
			var pdfBuf bytes.Buffer
			res, err := r.RenderView(context.Background(), d, tc.view, DirSource(mediaDir), &pdfBuf)
			if err != nil {
				t.Fatal(err)
			}
			if res.ContentType != ContentTypePDF || res.Type != model.ExportPDF {
				t.Errorf("result type %s / %s", res.Type, res.ContentType)
			}
			dir := t.TempDir()
			pdfPath := filepath.Join(dir, "out.pdf")
			must(t, os.WriteFile(pdfPath, pdfBuf.Bytes(), 0o644))

			if out, err := exec.Command("qpdf", "--check", pdfPath).CombinedOutput(); err != nil {
				t.Errorf("qpdf --check: %v\n%s", err, out)
			}
			info := runTool(t, "pdfinfo", pdfPath)
			w, h := pdfPageSize(t, info)
			if math.Abs(w-pngRes.PageWidthPt) > 0.01 || math.Abs(h-pngRes.PageHeightPt) > 0.01 {
				t.Errorf("page %gx%g pt, want %gx%g (the export box)", w, h, pngRes.PageWidthPt, pngRes.PageHeightPt)
			}
			checkFontsEmbedded(t, runTool(t, "pdffonts", pdfPath), countTextLayers(t, r, d, tc.view) > 0)
			checkNativeImages(t, r, d, tc.view, runTool(t, "pdfimages", "-list", pdfPath))

			dpi := strconv.FormatFloat(pngRes.DPI, 'f', -1, 64)
			out := filepath.Join(dir, "page")
			if b, err := exec.Command("pdftoppm", "-r", dpi, "-png", "-singlefile", pdfPath, out).CombinedOutput(); err != nil {
				t.Fatalf("pdftoppm: %v\n%s", err, b)
			}
			got := readPNG(t, out+".png")
			if dir := os.Getenv("PRINTWORKER_KEEP_PDF"); dir != "" {
				// Keep the PDFs and their rasterizations to look at them.
				must(t, os.WriteFile(filepath.Join(dir, tc.name+".pdf"), pdfBuf.Bytes(), 0o644))
				must(t, os.WriteFile(filepath.Join(dir, tc.name+".pdf.png"), mustReadFile(t, out+".png"), 0o644))
			}
			compareLoose(t, got, onWhite(pngImg), "vector pdf rasterized by poppler vs png")
		})
	}
}

// compareLoose compares two renderers' output (poppler's and ours). Anti-aliasing and
// image interpolation differ along edges (poppler scales pictures without smoothing), so
// both images are averaged over 4x4-pixel cells first: that hides edge noise but not a
// misplaced, missing or miscoloured element. Upscaled low-resolution pictures (the
// goldens use small media on purpose, to exercise the preflight) still differ along
// every block edge, so at most 5% of cells may differ by more than 48 and the mean
// difference must stay under 8; a missing or misplaced element costs far more.
func compareLoose(t testing.TB, got, want image.Image, name string) {
	t.Helper()
	gb, wb := got.Bounds(), want.Bounds()
	// pdftoppm rounds the page size to whole pixels; allow one pixel of difference.
	if abs(gb.Dx()-wb.Dx()) > 1 || abs(gb.Dy()-wb.Dy()) > 1 {
		t.Fatalf("%s: size %v, want %v", name, gb.Size(), wb.Size())
	}
	const cell = 4
	w, h := min(gb.Dx(), wb.Dx())/cell, min(gb.Dy(), wb.Dy())/cell
	var off int
	var sum float64
	for cy := 0; cy < h; cy++ {
		for cx := 0; cx < w; cx++ {
			d := channelDiff(cellMean(got, gb.Min.X+cx*cell, gb.Min.Y+cy*cell, cell), cellMean(want, wb.Min.X+cx*cell, wb.Min.Y+cy*cell, cell))
			sum += float64(d)
			if d > 48 {
				off++
			}
		}
	}
	total := float64(w * h)
	if total == 0 {
		t.Fatalf("%s: image smaller than one cell", name)
	}
	if float64(off) > 0.05*total || sum/total > 8 {
		t.Errorf("%s: %d of %d cells differ by more than 48, mean difference %.2f", name, off, w*h, sum/total)
	}
}

// cellMean averages the straight-alpha pixels of a cell x cell square.
func cellMean(img image.Image, x0, y0, cell int) color.NRGBA {
	var r, g, b, a int
	for y := y0; y < y0+cell; y++ {
		for x := x0; x < x0+cell; x++ {
			c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
			r, g, b, a = r+int(c.R), g+int(c.G), b+int(c.B), a+int(c.A)
		}
	}
	n := cell * cell
	return color.NRGBA{uint8(r / n), uint8(g / n), uint8(b / n), uint8(a / n)}
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

func runTool(t testing.TB, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

func mustReadFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func readPNGBytes(t testing.TB, b []byte) image.Image {
	t.Helper()
	img, _, err := image.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// checkFontsEmbedded reads pdffonts' table: every font must be embedded as a subset; a
// page with text must carry at least one font (text stays text, not outlines or pixels).
func checkFontsEmbedded(t testing.TB, table string, wantText bool) {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(table), "\n")
	fontsSeen := 0
	for _, l := range lines[min(2, len(lines)):] {
		f := strings.Fields(l)
		if len(f) < 7 {
			continue
		}
		fontsSeen++
		// name type... emb sub uni object ID: emb is the 5th field from the end.
		if emb := f[len(f)-5]; emb != "yes" {
			t.Errorf("font not embedded: %s", l)
		}
		if sub := f[len(f)-4]; sub != "yes" {
			t.Errorf("font not marked as a subset: %s", l)
		}
	}
	if wantText && fontsSeen == 0 {
		t.Errorf("page has text layers but no font:\n%s", table)
	}
}

// countTextLayers counts the scene's text layers.
func countTextLayers(t testing.TB, r *Renderer, d *model.DesignDetail, viewID string) int {
	t.Helper()
	s := buildTestScene(t, r, d, viewID)
	n := 0
	for _, l := range s.Layers {
		if l.Kind == LayerText {
			n++
		}
	}
	return n
}

// checkNativeImages matches pdfimages' list against the scene's image layers: each
// picture at its native pixel size (never resampled to the page), JPEG sources as JPEG.
func checkNativeImages(t testing.TB, r *Renderer, d *model.DesignDetail, viewID, list string) {
	t.Helper()
	type img struct {
		w, h int
		enc  string
	}
	var got []img
	lines := strings.Split(strings.TrimSpace(list), "\n")
	for _, l := range lines[min(2, len(lines)):] {
		f := strings.Fields(l)
		if len(f) < 10 || f[2] != "image" {
			continue // smask rows describe an image's alpha, not another picture
		}
		w, _ := strconv.Atoi(f[3])
		h, _ := strconv.Atoi(f[4])
		got = append(got, img{w, h, f[8]})
	}
	s := buildTestScene(t, r, d, viewID)
	var want []img
	for _, l := range s.Layers {
		if l.Kind != LayerImage || bounds(s.ToPage(), l.Clip).Empty() {
			continue
		}
		enc := "image"
		if l.Image.Data != nil && l.Image.MimeType == "image/jpeg" {
			enc = "jpeg"
		}
		want = append(want, img{l.Image.Width, l.Image.Height, enc})
	}
	if len(got) != len(want) {
		t.Fatalf("pdfimages lists %d images, scene has %d image layers:\n%s", len(got), len(want), list)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("image %d: pdf has %dx%d %s, want native %dx%d %s", i, got[i].w, got[i].h, got[i].enc, want[i].w, want[i].h, want[i].enc)
		}
	}
}

func buildTestScene(t testing.TB, r *Renderer, d *model.DesignDetail, viewID string) *Scene {
	t.Helper()
	s, err := r.BuildScene(context.Background(), d, viewID, DirSource(mediaDir))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSubsetTagWriter checks the renaming is the same however the PDF is cut into
// writes, keeps the length (xref offsets), and touches nothing else.
func TestSubsetTagWriter(t *testing.T) {
	doc := []byte("1 0 obj <</BaseFont /utf8pw-dejavusans-bold/Encoding /Identity-H>>\n" +
		"2 0 obj <</FontName /utf8pw-dejavusans-bold>> 3 0 obj <</BaseFont /utf8pw-go-regular\n>> /utf8other")
	var whole bytes.Buffer
	w := &subsetTagWriter{w: &whole}
	if _, err := w.Write(doc); err != nil {
		t.Fatal(err)
	}
	if err := w.flush(); err != nil {
		t.Fatal(err)
	}
	got := whole.String()
	if len(got) != len(doc) {
		t.Fatalf("length changed: %d -> %d", len(doc), len(got))
	}
	tag := subsetTag([]byte("dejavusans-bold"))
	for _, want := range []string{"/BaseFont /" + tag + "+dejavusans-bold/", "/FontName /" + tag + "+dejavusans-bold>>", "/utf8other"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "utf8pw-") {
		t.Errorf("untagged font left:\n%s", got)
	}
	for _, size := range []int{1, 3, 7, 64} {
		var bits bytes.Buffer
		w := &subsetTagWriter{w: &bits}
		for i := 0; i < len(doc); i += size {
			if _, err := w.Write(doc[i:min(i+size, len(doc))]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.flush(); err != nil {
			t.Fatal(err)
		}
		if bits.String() != got {
			t.Errorf("writes of %d bytes give\n%s\nwant\n%s", size, bits.String(), got)
		}
	}
}
