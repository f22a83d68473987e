package render

import (
	"bytes"
	"compress/zlib"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/image/tiff"

	"github.com/printworker/printworker/internal/printcheck"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/colour"

	"github.com/printworker/printworker/internal/imgcheck"
)

// ghostscriptCMYK is Debian's Ghostscript CMYK profile (libgs-common): free to use,
// not shipped by printworker.
const ghostscriptCMYK = "/usr/share/color/icc/ghostscript/default_cmyk.icc"

// needTools skips when a tool is missing, except in CI, where it fails: a print check
// must never be skipped silently there.
func needTools(t testing.TB, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		imgcheck.Tool(t, tool, "see .ci/run for the Debian package")
	}
}

// testPrint loads the Ghostscript CMYK profile with the relative colorimetric intent.
func testPrint(t testing.TB, bleedPt float64) *Print {
	t.Helper()
	if _, err := os.Stat(ghostscriptCMYK); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing (apt-get install libgs-common)", ghostscriptCMYK)
		}
		t.Skipf("%s missing (apt-get install libgs-common)", ghostscriptCMYK)
	}
	p, err := colour.LoadProfile(ghostscriptCMYK)
	if err != nil {
		t.Fatal(err)
	}
	op, err := NewOutputProfile(p, colour.RelativeColorimetric)
	if err != nil {
		t.Fatal(err)
	}
	return &Print{Profile: op, BleedPt: bleedPt}
}

// sepDesign: a red panel on the left, a blue panel on the right with black text on
// it, both running to the trim.
const sepDesign = `{"_id": "sep", "name": "Separations", "productId": "card", "_created": "2024-03-01T10:00:00Z",
 "views": [{"id": "v", "name": {"en": "V"}, "width": 200, "height": 150,
  "areas": [{"id": "left", "x": 0, "y": 0, "width": 100, "height": 150}, {"id": "right", "x": 100, "y": 0, "width": 100, "height": 150}],
  "export": {"areaType": "template", "dpi": 144, "exportTemplate": false, "type": "pdf"},
  "elements": [
   {"id": "red", "type": "background", "weight": 0, "area": "left", "colors": [{"color": "#ff0000", "default": true}]},
   {"id": "blue", "type": "background", "weight": 1, "area": "right", "colors": [{"color": "#3366cc", "default": true}]},
   {"id": "txt", "type": "text", "weight": 2, "value": {"en": "HH"}, "fontsize": 60, "bold": true, "positionX": 150, "positionY": 75, "colors": [{"color": "#000000", "default": true}]}
  ]}]}`

func sepDetail(t testing.TB, typ string) *model.DesignDetail {
	t.Helper()
	var d model.DesignDetail
	if err := json.Unmarshal([]byte(sepDesign), &d); err != nil {
		t.Fatal(err)
	}
	d.Views[0].Export.Type = typ
	return &d
}

func renderPrint(t testing.TB, p *Print, d *model.DesignDetail, view string) ([]byte, *Result) {
	t.Helper()
	r := newRenderer(t, Options{}).WithPrint(p)
	var buf bytes.Buffer
	res, err := r.RenderView(context.Background(), d, view, DirSource(mediaDir), &buf)
	if err != nil {
		t.Fatal(err)
	}
	// Every PDF/X-4 file the print tests write passes printworker's own preflight
	// (docs/preflight.md).
	printcheck.PDFX4(t, view, buf.Bytes())
	return buf.Bytes(), res
}

func writeTemp(t testing.TB, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	must(t, os.WriteFile(p, b, 0o644))
	return p
}

func TestParseLength(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
		bad  bool
	}{
		{"3mm", 3 * 72 / 25.4, false}, {"0.125in", 9, false}, {"9pt", 9, false}, {"0.3cm", 0.3 * 72 / 2.54, false},
		{"0", 0, false}, {"", 0, false}, {" 3 MM ", 3 * 72 / 25.4, false},
		{"3", 0, true}, {"-1mm", 0, true}, {"mm", 0, true}, {"3px", 0, true}, {"NaNmm", 0, true},
	} {
		got, err := ParseLength(tc.in)
		if (err != nil) != tc.bad || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("ParseLength(%q) = %v, %v; want %v (error %v)", tc.in, got, err, tc.want, tc.bad)
		}
	}
}

// TestPDFX checks the PDF/X-4 structure of a CMYK pdf and pdf-simple with a 3 mm
// bleed: qpdf finds no error; pdfinfo shows TrimBox = the export box inside BleedBox
// = MediaBox = trim plus bleed; the catalog's OutputIntent is GTS_PDFX with the
// profile embedded byte for byte (/N 4); the Info dictionary says PDF/X-4 and
// Trapped False; the trailer has an ID; every colour operator is CMYK or grey.
func TestPDFX(t *testing.T) {
	needTools(t, "qpdf", "pdfinfo")
	p := testPrint(t, 3*72/25.4)
	for _, typ := range []string{model.ExportPDF, model.ExportPDFSimple} {
		t.Run(typ, func(t *testing.T) {
			b, res := renderPrint(t, p, sepDetail(t, typ), "v")
			path := writeTemp(t, "x.pdf", b)
			if out, err := exec.Command("qpdf", "--check", path).CombinedOutput(); err != nil || bytes.Contains(out, []byte("WARNING")) {
				t.Fatalf("qpdf --check: %v\n%s", err, out)
			}
			// PDF/X-4 is based on PDF 1.6 and says so in the header.
			if !bytes.HasPrefix(b, []byte("%PDF-1.6\n")) {
				t.Errorf("header %q, want %%PDF-1.6", b[:min(len(b), 9)])
			}
			boxes := runTool(t, "pdfinfo", "-box", path)
			if !regexp.MustCompile(`(?m)^PDF version:\s+1\.6$`).MatchString(boxes) {
				t.Errorf("pdfinfo does not say PDF version 1.6:\n%s", boxes)
			}
			bl := 3 * 72 / 25.4
			want := map[string][4]float64{
				"MediaBox": {0, 0, 200 + 2*bl, 150 + 2*bl}, "BleedBox": {0, 0, 200 + 2*bl, 150 + 2*bl},
				"TrimBox": {bl, bl, 200 + bl, 150 + bl},
			}
			checkBoxes(t, boxes, want)
			if res.Colour.Space != "CMYK" || res.Colour.TrimWidthPt != 200 || math.Abs(res.Colour.BleedPt-bl) > 1e-9 || res.Colour.SHA256 != p.Profile.SHA256 {
				t.Errorf("result colour %+v", res.Colour)
			}
			checkOutputIntent(t, path, p.Profile.ICC)
			checkNoRGB(t, path)
		})
	}
}

// checkBoxes compares pdfinfo -box output with the wanted boxes, to 0.01 pt.
func checkBoxes(t *testing.T, info string, want map[string][4]float64) {
	t.Helper()
	for name, w := range want {
		got := pdfBox(t, info, name)
		for i := range w {
			if math.Abs(got[i]-w[i]) > 0.01 {
				t.Errorf("%s = %v, want %v", name, got, w)
				break
			}
		}
	}
}

// pdfBox reads a box line of pdfinfo -box.
func pdfBox(t testing.TB, info, name string) [4]float64 {
	t.Helper()
	m := regexp.MustCompile(name + `:\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)`).FindStringSubmatch(info)
	if m == nil {
		t.Fatalf("no %s in pdfinfo output:\n%s", name, info)
	}
	var v [4]float64
	for i := range v {
		v[i], _ = strconv.ParseFloat(m[i+1], 64)
	}
	return v
}

// checkOutputIntent finds the catalog's output intent with qpdf --json and compares
// the embedded profile's bytes with the configured file.
func checkOutputIntent(t *testing.T, path string, icc []byte) {
	t.Helper()
	out, err := exec.Command("qpdf", "--json", "--json-key=qpdf", path).Output()
	if err != nil {
		t.Fatalf("qpdf --json: %v", err)
	}
	var j struct {
		QPDF []json.RawMessage `json:"qpdf"`
	}
	var objects map[string]map[string]any
	if err := json.Unmarshal(out, &j); err != nil || len(j.QPDF) < 2 {
		t.Fatalf("qpdf --json: %v", err)
	}
	if err := json.Unmarshal(j.QPDF[1], &objects); err != nil {
		t.Fatalf("qpdf --json objects: %v", err)
	}
	obj := func(ref any) map[string]any {
		v, _ := objects["obj:"+fmt.Sprint(ref)]["value"].(map[string]any)
		return v
	}
	trailer, _ := objects["trailer"]["value"].(map[string]any)
	if ids, _ := trailer["/ID"].([]any); len(ids) != 2 {
		t.Errorf("trailer /ID = %v, want two ids", trailer["/ID"])
	}
	info := obj(trailer["/Info"])
	if v := fmt.Sprint(info["/GTS_PDFXVersion"]); v != "u:PDF/X-4" {
		t.Errorf("Info /GTS_PDFXVersion = %q", v)
	}
	if v := fmt.Sprint(info["/Trapped"]); v != "/False" {
		t.Errorf("Info /Trapped = %q", v)
	}
	cat := obj(trailer["/Root"])
	intents, _ := cat["/OutputIntents"].([]any)
	if len(intents) != 1 {
		t.Fatalf("catalog /OutputIntents = %v", cat["/OutputIntents"])
	}
	oi, _ := intents[0].(map[string]any)
	if oi["/S"] != "/GTS_PDFX" || oi["/Type"] != "/OutputIntent" {
		t.Errorf("output intent %v", oi)
	}
	ref := fmt.Sprint(oi["/DestOutputProfile"])
	d, _ := objects["obj:"+ref]["stream"].(map[string]any)["dict"].(map[string]any)
	if fmt.Sprint(d["/N"]) != "4" || d["/Alternate"] != "/DeviceCMYK" {
		t.Errorf("profile stream dictionary %v", d)
	}
	num := strings.Fields(ref)[0]
	data, err := exec.Command("qpdf", "--show-object="+num, "--filtered-stream-data", path).Output()
	if err != nil {
		t.Fatalf("qpdf --show-object=%s: %v", num, err)
	}
	got, want := sha256.Sum256(data), sha256.Sum256(icc)
	if got != want {
		t.Errorf("embedded profile sha256 %s, the configured file's %s", hex.EncodeToString(got[:]), hex.EncodeToString(want[:]))
	}
}

// checkNoRGB fails when a page content stream sets an RGB colour (PDF/X-4 with a CMYK
// output intent has no place for DeviceRGB).
func checkNoRGB(t *testing.T, path string) {
	t.Helper()
	out, err := exec.Command("qpdf", "--qdf", "--object-streams=disable", path, "-").Output()
	if err != nil {
		t.Fatalf("qpdf --qdf: %v", err)
	}
	if m := regexp.MustCompile(`(?m)^[\d. ]+ (rg|RG)$|/DeviceRGB`).Find(out); m != nil {
		t.Errorf("RGB colour in the PDF: %q", m)
	}
}

// TestSeparations rasterizes the CMYK PDF into its four plates with Ghostscript's
// tiffsep: the black text is on the K plate only (the C, M and Y plates under it are
// the blue panel's, unbroken: overprint, no white halo), and the red panel's plate
// values are LittleCMS's answer (transicc) for #ff0000 with the same profile and
// intent, within 1 %.
func TestSeparations(t *testing.T) {
	needTools(t, "gs", "transicc")
	p := testPrint(t, 0)
	b, _ := renderPrint(t, p, sepDetail(t, model.ExportPDF), "v")
	dir := t.TempDir()
	pdf := filepath.Join(dir, "sep.pdf")
	must(t, os.WriteFile(pdf, b, 0o644))
	cmd := exec.Command("gs", "-q", "-dNOPAUSE", "-dBATCH", "-sDEVICE=tiffsep", "-sCompression=none", "-r144",
		"-sOutputFile="+filepath.Join(dir, "p.tif"), pdf)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gs tiffsep: %v\n%s", err, out)
	}
	plates := map[string]*image.Gray{}
	for _, ink := range []string{"Cyan", "Magenta", "Yellow", "Black"} {
		plates[ink] = readPlate(t, filepath.Join(dir, "p("+ink+").tif"))
	}
	// Page 200x150 pt at 144 dpi: 400x300 px. Red panel x < 200, blue x >= 200.
	want := transicc(t, ghostscriptCMYK, 1, "255 0 0")
	for i, ink := range []string{"Cyan", "Magenta", "Yellow", "Black"} {
		got := 100 * float64(plates[ink].GrayAt(100, 150).Y) / 255
		if math.Abs(got-want[i]) > 1 {
			t.Errorf("red panel %s plate %.1f %%, transicc says %.1f %%", ink, got, want[i])
		}
	}
	// The text covers the blue panel's centre: the K plate has solid ink there, the
	// others are as flat as the panel.
	area := image.Rect(210, 20, 390, 280)
	kFull := 0
	for y := area.Min.Y; y < area.Max.Y; y++ {
		for x := area.Min.X; x < area.Max.X; x++ {
			if plates["Black"].GrayAt(x, y).Y >= 250 {
				kFull++
			}
		}
	}
	if kFull < 500 {
		t.Errorf("K plate: %d pixels of solid black where the text is, want the glyphs", kFull)
	}
	for _, ink := range []string{"Cyan", "Magenta", "Yellow"} {
		lo, hi := uint8(255), uint8(0)
		for y := area.Min.Y; y < area.Max.Y; y++ {
			for x := area.Min.X; x < area.Max.X; x++ {
				v := plates[ink].GrayAt(x, y).Y
				lo, hi = min(lo, v), max(hi, v)
			}
		}
		if hi-lo > 1 {
			t.Errorf("%s plate varies %d..%d under the black text: the text knocks out (or is rich black)", ink, lo, hi)
		}
	}
}

// readPlate decodes one tiffsep plate as ink amounts (0 none, 255 solid).
func readPlate(t testing.TB, path string) *image.Gray {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := tiff.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	g, ok := img.(*image.Gray)
	if !ok {
		t.Fatalf("%s: %T, want 8-bit grey", path, img)
	}
	// tiffsep writes each separation as min-is-white: ink 255 reads as black (0).
	out := image.NewGray(g.Rect)
	for i, v := range g.Pix {
		out.Pix[i] = 255 - v
	}
	return out
}

// transicc asks LittleCMS for the CMYK percentages of an sRGB colour.
func transicc(t testing.TB, profile string, intent int, rgb string) [4]float64 {
	t.Helper()
	cmd := exec.Command("transicc", "-i", "*sRGB", "-o", profile, "-t", strconv.Itoa(intent), "-b", "-n")
	cmd.Stdin = strings.NewReader(rgb + "\n")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("transicc: %v\n%s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	f := strings.Fields(lines[len(lines)-1])
	var v [4]float64
	for i := range v {
		v[i], err = strconv.ParseFloat(f[i], 64)
		if err != nil {
			t.Fatalf("transicc output %q", out)
		}
	}
	return v
}

// TestTIFF decodes the CMYK TIFF (with its own small reader: golang.org/x/image/tiff
// reads no CMYK, tiffinfo is not on every machine) and checks its
// tags: CMYK pixels equal to the profile's answer, pure black as K only, the dpi, and
// the embedded profile.
func TestTIFF(t *testing.T) {
	p := testPrint(t, 9)
	d := sepDetail(t, ExportTIFF)
	b, res := renderPrint(t, p, d, "v")
	if res.ContentType != ContentTypeTIFF || res.WidthPx != 400+2*18 || res.HeightPx != 300+2*18 {
		t.Fatalf("result %s %dx%d", res.ContentType, res.WidthPx, res.HeightPx)
	}
	c := decodeCMYKTIFF(t, b)
	if c.Rect.Dx() != res.WidthPx || c.Rect.Dy() != res.HeightPx {
		t.Fatalf("size %v", c.Rect)
	}
	cc, mm, yy, kk := p.Profile.ToCMYK.CMYK(255, 0, 0)
	// The red panel runs to the trim, so it fills the bleed too: corner pixel (2, 2).
	for _, pt := range []image.Point{{2, 2}, {100, 150}} {
		if got := c.CMYKAt(pt.X, pt.Y); got.C != cc || got.M != mm || got.Y != yy || got.K != kk {
			t.Errorf("red at %v = %v, want %d %d %d %d", pt, got, cc, mm, yy, kk)
		}
	}
	if !bytes.Contains(b, p.Profile.ICC) {
		t.Error("the profile is not embedded")
	}
	tags := tiffTags(t, b)
	for tag, want := range map[uint16]uint32{tagPhotometric: photometricSep, tagCompression: compressionDeflate, tagSamplesPerPixel: 4, tagInkSet: 1, tagResolutionUnit: 2} {
		if tags[tag] != want {
			t.Errorf("tag %d = %d, want %d", tag, tags[tag], want)
		}
	}
	// Black text pixels are K only.
	kOnly := 0
	for y := 0; y < c.Rect.Dy(); y++ {
		for x := c.Rect.Dx() / 2; x < c.Rect.Dx(); x++ {
			if v := c.CMYKAt(x, y); v.K == 255 && v.C == 0 && v.M == 0 && v.Y == 0 {
				kOnly++
			}
		}
	}
	if kOnly < 500 {
		t.Errorf("%d K-only pixels, want the text's", kOnly)
	}
}

// tiffTags reads the first IFD's short and long values.
func tiffTags(t testing.TB, b []byte) map[uint16]uint32 {
	t.Helper()
	if string(b[:4]) != "II*\x00" {
		t.Fatalf("header %q", b[:4])
	}
	le := func(p []byte) uint32 {
		var v uint32
		for i := len(p) - 1; i >= 0; i-- {
			v = v<<8 | uint32(p[i])
		}
		return v
	}
	off := le(b[4:8])
	n := int(le(b[off : off+2]))
	tags := map[uint16]uint32{}
	for i := range n {
		e := b[int(off)+2+12*i:]
		tag, typ := uint16(le(e[0:2])), le(e[2:4])
		switch typ {
		case tiffShort:
			tags[tag] = le(e[8:10])
		default:
			tags[tag] = le(e[8:12])
		}
	}
	return tags
}

// TestSoftProof compares the CMYK job's PNG (the soft proof) with Ghostscript's
// rendering of the CMYK PDF through the same profile: SSIM >= 0.98.
func TestSoftProof(t *testing.T) {
	needTools(t, "gs")
	p := testPrint(t, 0)
	for _, design := range []struct{ file, view string }{{"pictures.json", "main"}, {"illustrations.json", "art"}} {
		t.Run(design.file, func(t *testing.T) {
			d := loadDesign(t, design.file)
			v, _ := d.ViewByID(design.view)
			v.Export.Type = model.ExportPNG
			pngBytes, res := renderPrint(t, p, d, design.view)
			if !bytes.Contains(pngBytes[:64], []byte("sRGB")) {
				t.Error("no sRGB chunk after IHDR")
			}
			proof, err := png.Decode(bytes.NewReader(pngBytes))
			if err != nil {
				t.Fatal(err)
			}
			v.Export.Type = model.ExportPDFSimple
			pdfBytes, _ := renderPrint(t, p, d, design.view)
			gsImg := gsRenderCMYK(t, pdfBytes, res.DPI)
			if s := ssim(flattenWhite(proof), flattenWhite(gsImg)); s < 0.98 {
				t.Errorf("SSIM(soft proof, gs of the CMYK PDF) = %.4f, want >= 0.98", s)
			} else {
				t.Logf("SSIM %.4f", s)
			}
		})
	}
}

// flattenWhite returns the image's luma over white paper.
func flattenWhite(img image.Image) *image.Gray {
	b := img.Bounds()
	g := image.NewGray(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, gg, bb, a := img.At(x, y).RGBA()
			w := 0xffff - a
			l := (299*float64(r+w) + 587*float64(gg+w) + 114*float64(bb+w)) / 1000
			g.Pix[(y-b.Min.Y)*g.Stride+x-b.Min.X] = uint8(l / 257)
		}
	}
	return g
}

// ssim is the mean structural similarity of two grey images over 8x8 windows.
func ssim(a, b *image.Gray) float64 {
	const c1, c2 = 6.5025, 58.5225 // (0.01*255)^2, (0.03*255)^2
	w, h := min(a.Rect.Dx(), b.Rect.Dx()), min(a.Rect.Dy(), b.Rect.Dy())
	var sum float64
	n := 0
	for y := 0; y+8 <= h; y += 4 {
		for x := 0; x+8 <= w; x += 4 {
			var ma, mb, va, vb, cov float64
			for j := range 8 {
				for i := range 8 {
					pa, pb := float64(a.GrayAt(x+i, y+j).Y), float64(b.GrayAt(x+i, y+j).Y)
					ma, mb = ma+pa, mb+pb
					va, vb, cov = va+pa*pa, vb+pb*pb, cov+pa*pb
				}
			}
			ma, mb = ma/64, mb/64
			va, vb, cov = va/64-ma*ma, vb/64-mb*mb, cov/64-ma*mb
			sum += (2*ma*mb + c1) * (2*cov + c2) / ((ma*ma + mb*mb + c1) * (va + vb + c2))
			n++
		}
	}
	return sum / float64(n)
}

// TestBlackAndInk: pure black goes to K only unless RichBlack; the ink limit caps the
// total coverage, keeping K, and the result reports the maximum found.
func TestBlackAndInk(t *testing.T) {
	p := testPrint(t, 0)
	m := &inkMeter{p: p}
	if px, kOnly := m.vector(colourOf(0, 0, 0)); !kOnly || px != [4]uint8{0, 0, 0, 255} {
		t.Errorf("black = %v kOnly %v, want K only", px, kOnly)
	}
	rich := *p
	rich.RichBlack = true
	if px, kOnly := (&inkMeter{p: &rich}).vector(colourOf(0, 0, 0)); kOnly || px[0] == 0 {
		t.Errorf("rich black = %v, want four colours", px)
	}
	limited := *p
	limited.InkLimit = 240
	lm := &inkMeter{p: &limited}
	px, _ := lm.vector(colourOf(20, 10, 15))
	total := int(px[0]) + int(px[1]) + int(px[2]) + int(px[3])
	c, mm, y, k := p.Profile.ToCMYK.CMYK(20, 10, 15)
	if int(c)+int(mm)+int(y)+int(k) <= 612 {
		t.Fatalf("test colour's own coverage %d is under the limit", int(c)+int(mm)+int(y)+int(k))
	}
	if float64(total) > 2.4*255+0.5 || px[3] != k {
		t.Errorf("limited %v (total %d, K %d), want <= 240 %% with K kept at %d", px, total, px[3], k)
	}
	if got := lm.percent(); got > 240 || got < 235 {
		t.Errorf("reported max ink %.1f %%, want just under 240", got)
	}
}

func colourOf(r, g, b uint8) color.NRGBA { return color.NRGBA{R: r, G: g, B: b, A: 255} }

// decodeCMYKTIFF reads a chunky 8-bit CMYK TIFF with Deflate strips and the
// horizontal predictor, the subset the tiff export writes, checking every tag it
// relies on.
func decodeCMYKTIFF(t testing.TB, b []byte) *image.CMYK {
	t.Helper()
	pix, w, h, spp := decodeTIFFRaw(t, b)
	if spp != 4 {
		t.Fatalf("%d samples per pixel, want 4", spp)
	}
	img := image.NewCMYK(image.Rect(0, 0, w, h))
	copy(img.Pix, pix)
	return img
}

// decodeTIFFRaw decodes a chunky 8-bit Deflate separated TIFF into its interleaved
// samples, spp a pixel.
func decodeTIFFRaw(t testing.TB, b []byte) (pix []byte, w, h, spp int) {
	t.Helper()
	tags := tiffArrays(t, b)
	one := func(tag uint16) int {
		v := tags[tag]
		if len(v) != 1 {
			t.Fatalf("tag %d = %v", tag, v)
		}
		return int(v[0])
	}
	spp = one(tagSamplesPerPixel)
	if bps := tags[tagBitsPerSample]; len(bps) != spp || bps[0] != 8 || bps[spp-1] != 8 {
		t.Fatalf("BitsPerSample %v", bps)
	}
	if one(tagPhotometric) != 5 || spp < 4 || one(tagCompression) != 8 || one(tagPlanarConfig) != 1 {
		t.Fatalf("not chunky Deflate CMYK: %v", tags)
	}
	w, h = one(tagImageWidth), one(tagImageLength)
	rows := one(tagRowsPerStrip)
	pix = make([]byte, spp*w*h)
	offs, counts := tags[tagStripOffsets], tags[tagStripByteCounts]
	if len(offs) != (h+rows-1)/rows || len(counts) != len(offs) {
		t.Fatalf("%d strips for %d rows of %d", len(offs), h, rows)
	}
	pred := one(tagPredictor)
	for i := range offs {
		zr, err := zlib.NewReader(bytes.NewReader(b[offs[i] : offs[i]+counts[i]]))
		if err != nil {
			t.Fatalf("strip %d: %v", i, err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatalf("strip %d: %v", i, err)
		}
		n := min(rows, h-i*rows)
		if len(raw) != n*spp*w {
			t.Fatalf("strip %d: %d bytes, want %d", i, len(raw), n*spp*w)
		}
		for r := range n {
			row := raw[r*spp*w : (r+1)*spp*w]
			if pred == 2 {
				for x := spp; x < len(row); x++ {
					row[x] += row[x-spp]
				}
			}
			copy(pix[(i*rows+r)*spp*w:], row)
		}
	}
	return pix, w, h, spp
}

// tiffArrays reads the first IFD's SHORT and LONG values, arrays included.
func tiffArrays(t testing.TB, b []byte) map[uint16][]uint32 {
	t.Helper()
	le := binary.LittleEndian
	if string(b[:4]) != "II*\x00" {
		t.Fatalf("header %q", b[:4])
	}
	off := le.Uint32(b[4:8])
	n := int(le.Uint16(b[off:]))
	out := map[uint16][]uint32{}
	for i := range n {
		e := b[int(off)+2+12*i:]
		tag, typ, count := le.Uint16(e[0:]), le.Uint16(e[2:]), int(le.Uint32(e[4:]))
		size := map[uint16]int{tiffShort: 2, tiffLong: 4}[typ]
		if size == 0 {
			continue
		}
		data := e[8:12]
		if size*count > 4 {
			at := le.Uint32(e[8:])
			data = b[at : int(at)+size*count]
		}
		for j := range count {
			if size == 2 {
				out[tag] = append(out[tag], uint32(le.Uint16(data[2*j:])))
			} else {
				out[tag] = append(out[tag], le.Uint32(data[4*j:]))
			}
		}
	}
	return out
}

// gsRenderCMYK rasterizes a CMYK PDF with Ghostscript through the test profile
// (relative colorimetric) at dpi.
func gsRenderCMYK(t *testing.T, pdfBytes []byte, dpi float64) image.Image {
	t.Helper()
	dir := t.TempDir()
	pdf := filepath.Join(dir, "x.pdf")
	must(t, os.WriteFile(pdf, pdfBytes, 0o644))
	out := filepath.Join(dir, "gs.png")
	cmd := exec.Command("gs", "-q", "-dNOPAUSE", "-dBATCH", "-sDEVICE=png16m", "-r"+strconv.FormatFloat(dpi, 'f', -1, 64),
		"-sDefaultCMYKProfile="+ghostscriptCMYK, "-dRenderIntent=1", "-sOutputFile="+out, pdf)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gs: %v\n%s", err, b)
	}
	return readPNG(t, out)
}

// TestCMYKPictureCropped: in a CMYK vector PDF a picture is converted only where its
// clip lets it show (visiblePixels). On the pictures test design the photo filling
// area "b" (160 x 100 px, scaled to 128 x 80 in a 90 x 80 area) is embedded as its
// visible 113 to 116 columns at full height; and Ghostscript renders the page the same
// as the PDF with every picture whole, so nothing that shows was cut.
func TestCMYKPictureCropped(t *testing.T) {
	needTools(t, "gs", "pdfimages")
	p := testPrint(t, 3*72/25.4)
	d := loadDesign(t, "pictures.json")
	v, _ := d.ViewByID("main")
	v.Export.Type = model.ExportPDF
	r := newRenderer(t, Options{}).WithPrint(p)
	var cropped, whole bytes.Buffer
	res, err := r.RenderView(context.Background(), d, "main", DirSource(mediaDir), &cropped)
	if err != nil {
		t.Fatal(err)
	}
	r.wholePictures = true
	if _, err := r.RenderView(context.Background(), d, "main", DirSource(mediaDir), &whole); err != nil {
		t.Fatal(err)
	}
	list := runTool(t, "pdfimages", "-list", writeTemp(t, "x.pdf", cropped.Bytes()))
	var sizes [][2]int
	for _, line := range strings.Split(list, "\n")[2:] {
		f := strings.Fields(line)
		if len(f) > 5 && f[2] == "image" && f[5] == "cmyk" {
			w, _ := strconv.Atoi(f[3])
			h, _ := strconv.Atoi(f[4])
			sizes = append(sizes, [2]int{w, h})
		}
	}
	found := false
	for _, s := range sizes {
		found = found || (s[1] == 100 && s[0] >= 113 && s[0] <= 116)
	}
	if !found {
		t.Errorf("no CMYK image of the filled photo's visible part (113..116 x 100); images %v\n%s", sizes, list)
	}
	a, b := gsRenderCMYK(t, cropped.Bytes(), res.DPI), gsRenderCMYK(t, whole.Bytes(), res.DPI)
	if a.Bounds() != b.Bounds() {
		t.Fatalf("page sizes %v and %v", a.Bounds(), b.Bounds())
	}
	worst, differing := 0, 0
	for y := a.Bounds().Min.Y; y < a.Bounds().Max.Y; y++ {
		for x := a.Bounds().Min.X; x < a.Bounds().Max.X; x++ {
			c1, c2 := color.NRGBAModel.Convert(a.At(x, y)).(color.NRGBA), color.NRGBAModel.Convert(b.At(x, y)).(color.NRGBA)
			d := max(absDiff(c1.R, c2.R), absDiff(c1.G, c2.G), absDiff(c1.B, c2.B))
			worst = max(worst, d)
			if d > 2 {
				differing++
			}
		}
	}
	// Ghostscript samples an image without interpolation, nearest source pixel: a
	// cropped picture starts at another phase of the device grid, so along sharp
	// edges inside the photo (its red/green boundary, the white diagonal) single
	// pixels may take the neighbouring source pixel's colour (measured: 389 of the
	// 68,800 pixels at 72 dpi). The pages must still be structurally the same.
	s := ssim(flattenWhite(a), flattenWhite(b))
	if s < 0.99 || differing > a.Bounds().Dx()*a.Bounds().Dy()/100 {
		t.Errorf("cropped and whole pictures render differently: SSIM %.4f, max %d levels, %d pixels above 2", s, worst, differing)
	}
	t.Logf("CMYK images %v; cropped vs whole: SSIM %.4f, max %d levels, %d pixels above 2", sizes, s, worst, differing)
}

func absDiff(a, b uint8) int { return max(int(a)-int(b), int(b)-int(a)) }
