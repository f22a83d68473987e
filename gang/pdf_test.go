package gang

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/printworker/printworker/internal/imgcheck"
)

// needTool skips when an external checker is missing, except in CI, where a print
// check must never be skipped silently (internal/imgcheck.Tool).
func needTool(t *testing.T, name string) {
	t.Helper()
	imgcheck.Tool(t, name, "Debian poppler-utils / qpdf")
}

// TestRenderPDF: the PDF sheet is valid (qpdf --check), embeds each design once at
// its trimmed native size (pdfimages -list), and rasterised by poppler at the sheet
// dpi over white shows each copy's opaque pixels, turned copies included.
func TestRenderPDF(t *testing.T) {
	for _, tool := range []string{"qpdf", "pdfimages", "pdftoppm"} {
		needTool(t, tool)
	}
	ds := synthSet{name: "p", seed: 11, designs: 6, minIn: 0.4, maxIn: 1.2, minQty: 1, maxQty: 3}.build(100)
	l, err := Plan(ds, Config{DPI: 100, Width: 300, MaxLength: 600, Gap: 10, Margin: 6, Rotate: true, Label: 15, CutMarks: true})
	if err != nil {
		t.Fatal(err)
	}
	s := l.Sheets[0]
	dir := t.TempDir()
	pdf := filepath.Join(dir, "sheet.pdf")
	var buf bytes.Buffer
	if err := RenderPDF(context.Background(), &buf, l, 0, newSynthLoader(ds)); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pdf, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("qpdf", "--check", pdf).CombinedOutput(); err != nil {
		t.Fatalf("qpdf --check: %v\n%s", err, out)
	}
	out, err := exec.Command("pdfimages", "-list", pdf).CombinedOutput()
	if err != nil {
		t.Fatalf("pdfimages: %v\n%s", err, out)
	}
	used := map[int]bool{}
	rotated := 0
	for _, p := range s.Placements {
		used[p.Design] = true
		if p.Rotation != 0 {
			rotated++
		}
	}
	if rotated == 0 {
		t.Fatal("no turned copy: the rotated matrix went untested")
	}
	// pdfimages lists every drawing of an image: one per copy, each design's object
	// shared by its copies, each at 100 ppi (the sheet's, i.e. native resolution).
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")[2:]
	if len(lines) != 2*len(s.Placements) {
		t.Fatalf("%d image uses listed, want %d (image and mask per copy):\n%s", len(lines), 2*len(s.Placements), out)
	}
	objects := map[string]string{}
	for _, ln := range lines {
		f := strings.Fields(ln)
		if f[2] == "image" { // a mask line names its image's object
			objects[f[10]] = f[3] + "x" + f[4]
		}
		if f[12] != "100" || f[13] != "100" {
			t.Fatalf("image drawn at %s x %s ppi, not the native 100: %s", f[12], f[13], ln)
		}
	}
	if len(objects) != len(used) {
		t.Fatalf("%d image objects, want %d (each design once)", len(objects), len(used))
	}
	sizes := map[string]int{}
	for _, v := range objects {
		sizes[v]++
	}
	for d := range used {
		tr := ds[d].Trim
		if key := strconv.Itoa(tr.Dx()) + "x" + strconv.Itoa(tr.Dy()); sizes[key] < 1 {
			t.Fatalf("design %s trimmed %s not embedded at its size: %v", ds[d].Key, key, sizes)
		}
	}
	if b, err := exec.Command("pdftoppm", "-r", "100", "-png", "-singlefile", pdf, filepath.Join(dir, "r")).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, b)
	}
	f, err := os.Open(filepath.Join(dir, "r.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds() != image.Rect(0, 0, s.Width, s.Length) {
		t.Fatalf("raster %v, sheet %dx%d", img.Bounds(), s.Width, s.Length)
	}
	bad, n := 0, 0
	for _, p := range s.Placements {
		src := synthImage(ds[p.Design])
		for y := p.Y + 1; y < p.Y+p.H-1; y += 3 {
			for x := p.X + 1; x < p.X+p.W-1; x += 3 {
				sp := srcPixel(p, x, y)
				if !opaqueAround(src, sp) {
					continue
				}
				r, g, b, _ := img.At(x, y).RGBA()
				n++
				if !nearSource(src, sp, [3]uint32{r >> 8, g >> 8, b >> 8}) {
					if bad < 5 {
						t.Logf("rot %d (%d,%d) got %d %d %d want about %v", p.Rotation, x, y, r>>8, g>>8, b>>8, src.NRGBAAt(sp.X, sp.Y))
					}
					bad++
				}
			}
		}
	}
	if n == 0 || bad > n/100 {
		t.Fatalf("%d of %d sampled opaque pixels differ from the designs", bad, n)
	}
}

// nearSource reports whether an RGB value lies, per channel, within the range of the
// design's 3x3 neighbourhood around sp (plus 3 levels): poppler resamples even at 1:1,
// blending neighbours; a misplaced or wrongly turned copy lands far outside.
func nearSource(src *image.NRGBA, sp image.Point, got [3]uint32) bool {
	for ch := 0; ch < 3; ch++ {
		lo, hi := uint32(255), uint32(0)
		for dy := -1; dy <= 1; dy++ {
			for dx := -1; dx <= 1; dx++ {
				q := image.Pt(sp.X+dx, sp.Y+dy)
				if !q.In(src.Rect) {
					continue
				}
				v := uint32(src.Pix[src.PixOffset(q.X, q.Y)+ch])
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		if got[ch]+3 < lo || got[ch] > hi+3 {
			return false
		}
	}
	return true
}

// opaqueAround: sp and its 8 neighbours are opaque (a translucent one shows the white
// page through the resampling blend).
func opaqueAround(src *image.NRGBA, sp image.Point) bool {
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			if q := image.Pt(sp.X+dx, sp.Y+dy); q.In(src.Rect) && src.NRGBAAt(q.X, q.Y).A != 0xff {
				return false
			}
		}
	}
	return true
}

// TestRenderPDFLongRoll: a roll longer than 200 in keeps every page number within the
// 14400 unit limit by scaling the user unit.
func TestRenderPDFLongRoll(t *testing.T) {
	needTool(t, "qpdf")
	d := Design{Key: "a.png", Quantity: 40, Width: 50, Height: 700, Trim: image.Rect(0, 0, 50, 700)}
	// 10 dpi, one copy per row: 40 x 710 px = 2840 in = 204480 pt.
	l, err := Plan([]Design{d}, Config{DPI: 10, Width: 60, MaxLength: 40000, Gap: 10})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := RenderPDF(context.Background(), &buf, l, 0, newSynthLoader([]Design{d})); err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(buf.Bytes(), []byte("/UserUnit 15 ")) {
		t.Fatalf("no /UserUnit 15 for a %d px (%.0f pt) page", l.Sheets[0].Length, float64(l.Sheets[0].Length)*7.2)
	}
	pdf := filepath.Join(t.TempDir(), "long.pdf")
	if err := os.WriteFile(pdf, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("qpdf", "--check", pdf).CombinedOutput(); err != nil {
		t.Fatalf("qpdf --check: %v\n%s", err, out)
	}
}
