package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/contour"
)

// stickerDesign: three opaque rectangles (art) on a transparent page, apart by more
// than twice the cut's offset, so three pieces.
const stickerDesign = `{"_id": "stk", "name": "Sticker", "productId": "sticker", "_created": "2024-03-01T10:00:00Z",
 "views": [{"id": "v", "name": {"en": "V"}, "width": 200, "height": 150,
  "areas": [{"id": "a", "x": 20, "y": 20, "width": 60, "height": 60}, {"id": "b", "x": 110, "y": 30, "width": 50, "height": 40}, {"id": "c", "x": 170, "y": 110, "width": 15, "height": 15}],
  "export": {"areaType": "template", "dpi": 144, "exportTemplate": false, "type": "pdf"},
  "elements": [
   {"id": "ra", "type": "background", "weight": 0, "area": "a", "colors": [{"color": "#cc2244", "default": true}]},
   {"id": "rb", "type": "background", "weight": 1, "area": "b", "colors": [{"color": "#2266cc", "default": true}]},
   {"id": "rc", "type": "background", "weight": 2, "area": "c", "colors": [{"color": "#ffffff", "default": true}]}
  ]}]}`

// stickerRects are the art's rectangles in points (the template's units, the point
// basis, no bleed).
var stickerRects = []Rect{{20, 20, 60, 60}, {110, 30, 50, 40}, {170, 110, 15, 15}}

func stickerDetail(t testing.TB, typ string) *model.DesignDetail {
	t.Helper()
	var d model.DesignDetail
	if err := json.Unmarshal([]byte(stickerDesign), &d); err != nil {
		t.Fatal(err)
	}
	d.Views[0].Export.Type = typ
	return &d
}

// tiffsepPlates rasterizes a PDF into its separations at dpi with Ghostscript and
// returns the plates by name.
func tiffsepPlates(t testing.TB, pdf []byte, dpi int, names ...string) map[string]*image.Gray {
	t.Helper()
	dir := t.TempDir()
	path := filepath.Join(dir, "in.pdf")
	must(t, os.WriteFile(path, pdf, 0o644))
	cmd := exec.Command("gs", "-q", "-dNOPAUSE", "-dBATCH", "-sDEVICE=tiffsep", "-sCompression=none",
		"-r"+strconv.Itoa(dpi), "-dOverprint=/enable", "-sOutputFile="+filepath.Join(dir, "p.tif"), path)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gs tiffsep: %v\n%s", err, out)
	}
	plates := map[string]*image.Gray{}
	for _, n := range names {
		f := filepath.Join(dir, "p("+n+").tif")
		if _, err := os.Stat(f); err != nil {
			ents, _ := os.ReadDir(dir)
			var have []string
			for _, e := range ents {
				have = append(have, e.Name())
			}
			t.Fatalf("no %s plate from tiffsep; files: %v", n, have)
		}
		plates[n] = readPlate(t, f)
	}
	if d := os.Getenv("PLATES_DIR"); d != "" {
		// Look at the plates: PLATES_DIR=/tmp/x go test -run TestCutContourSeparation.
		for n, g := range plates {
			var b bytes.Buffer
			must(t, png.Encode(&b, g))
			must(t, os.WriteFile(filepath.Join(d, strings.ReplaceAll(t.Name(), "/", "_")+"-"+n+".png"), b.Bytes(), 0o644))
		}
	}
	return plates
}

// components counts the 8-connected pieces of the pixels at or above thr.
func components(g *image.Gray, thr uint8) int {
	m := contour.NewMask(g.Rect.Dx(), g.Rect.Dy())
	for i, v := range g.Pix {
		if v >= thr {
			m.Pix[i] = 1
		}
	}
	tr, err := contour.Trace(context.Background(), m, false, contour.Limits{MaxPieces: 1 << 20, MaxPoints: 1 << 24})
	if err != nil {
		panic(err)
	}
	return len(tr.Paths)
}

// TestCutContourSeparation: Ghostscript's tiffsep of a sticker PDF has a CutContour
// plate; its stroke runs around each art rectangle at the offset (within 0.5 mm)
// in as many closed loops as there are pieces, and no ink of the four process
// plates lies outside the loops. The same for the vector page and the raster page,
// in CMYK (PDF/X-4) and in sRGB.
func TestCutContourSeparation(t *testing.T) {
	t.Parallel()
	needTools(t, "gs", "qpdf")
	const dpi = 144
	const offset = 1.5 * mmPt
	for _, tc := range []struct {
		name  string
		typ   string
		cmyk  bool
		marks bool // 3 mm bleed and crop marks: the art moves by both
	}{
		{"pdf-cmyk", model.ExportPDF, true, false},
		{"pdf-simple-cmyk", model.ExportPDFSimple, true, false},
		{"pdf-srgb", model.ExportPDF, false, false},
		{"pdf-simple-srgb", model.ExportPDFSimple, false, false},
		{"pdf-cmyk-bleed-marks", model.ExportPDF, true, true},
		{"pdf-simple-cmyk-bleed-marks", model.ExportPDFSimple, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &Print{}
			shift := 0.0
			if tc.cmyk {
				p = testPrint(t, 0)
			}
			if tc.marks {
				p.BleedPt, p.CropMarks = 3*mmPt, true
				shift = 3*mmPt + cropSlugPt
			}
			p.Cut = &CutContour{OffsetPt: offset}
			b, res := renderPrint(t, p, stickerDetail(t, tc.typ), "v")
			for _, w := range res.Warnings {
				if w.Code == WarnCutContour {
					t.Errorf("warning %v", w)
				}
			}
			path := writeTemp(t, "cut.pdf", b)
			if out, err := exec.Command("qpdf", "--check", path).CombinedOutput(); err != nil || bytes.Contains(out, []byte("WARNING")) {
				t.Fatalf("qpdf --check: %v\n%s", err, out)
			}
			if tc.cmyk {
				checkOutputIntent(t, path, p.Profile.ICC)
				checkNoRGB(t, path)
				if !bytes.HasPrefix(b, []byte("%PDF-1.6\n")) {
					t.Errorf("header %q, want %%PDF-1.6", b[:9])
				}
			}
			// The optional content configuration has the /Name PDF/X-4 asks for.
			if !bytes.Contains(b, []byte("/D <</Name(D)/Order [")) {
				t.Error("optional content configuration without a /Name")
			}
			for _, want := range []string{"/Separation /CutContour", "/OCProperties", "/Type /OCG", "/OP true /op true /OPM 1"} {
				if !bytes.Contains(b, []byte(want)) {
					t.Errorf("no %q in the PDF", want)
				}
			}
			plates := tiffsepPlates(t, b, dpi, "CutContour", "Cyan", "Magenta", "Yellow", "Black")
			cut := plates["CutContour"]
			px := func(pt float64) int { return int(math.Floor((pt + shift) * dpi / 72)) }
			if n := components(cut, 64); n != len(stickerRects) {
				t.Errorf("cut plate has %d loops, want %d (one per piece)", n, len(stickerRects))
			}
			// From the middle of each rectangle's edges outward, the first stroke
			// pixel is at the offset, within 0.5 mm.
			for i, r := range stickerRects {
				probes := []struct{ x, y, dx, dy float64 }{
					{r.X + r.W/2, r.Y, 0, -1}, {r.X + r.W/2, r.Y + r.H, 0, 1},
					{r.X, r.Y + r.H/2, -1, 0}, {r.X + r.W, r.Y + r.H/2, 1, 0},
				}
				for _, pr := range probes {
					found := -1.0
					for d := 0.0; d < 4*offset; d += 72.0 / dpi / 2 {
						x, y := px(pr.x+pr.dx*d), px(pr.y+pr.dy*d)
						if cut.GrayAt(x, y).Y >= 128 {
							found = d
							break
						}
					}
					if found < 0 || math.Abs(found-offset) > 0.5*mmPt {
						t.Errorf("rect %d, probe %v: stroke at %.2f pt, want %.2f pt ± 0.5 mm", i, pr, found, offset)
					}
				}
			}
			// Outside the loops (reached from the page's edge without crossing the
			// stroke) no process plate has ink.
			w, h := cut.Rect.Dx(), cut.Rect.Dy()
			wall := contour.NewMask(w, h)
			for i, v := range cut.Pix {
				if v >= 16 {
					wall.Pix[i] = 1
				}
			}
			inside := *wall
			inside.Pix = append([]byte(nil), wall.Pix...)
			must(t, contour.FillHoles(context.Background(), &inside))
			// The crop marks are registration black on every plate, in the slug.
			slug := cut.Rect
			if tc.marks {
				m := int(math.Ceil(cropSlugPt*dpi/72)) + 1
				slug = image.Rect(m, m, w-m, h-m)
			}
			for _, ink := range []string{"Cyan", "Magenta", "Yellow", "Black"} {
				for i, v := range plates[ink].Pix {
					if v > 2 && inside.Pix[i] == 0 && image.Pt(i%w, i/w).In(slug) {
						t.Fatalf("%s ink %d at (%d, %d), outside the cut", ink, v, i%w, i/w)
					}
				}
			}
			// And the art is there, inside.
			if plates["Magenta"].GrayAt(px(50), px(50)).Y < 100 {
				t.Error("no magenta in the first rectangle")
			}
		})
	}
}

// TestCutContourPaths: the renderer's cut has one closed path per piece, the box
// source one rounded rectangle along the trim, and a design of 10,000 separate
// dots over the piece cap one rectangle with a warning.
func TestCutContourPaths(t *testing.T) {
	t.Parallel()
	r := newRenderer(t, Options{})
	d := stickerDetail(t, model.ExportPNG)
	s, err := r.BuildScene(context.Background(), d, "v", DirSource(mediaDir))
	if err != nil {
		t.Fatal(err)
	}
	canvas, err := r.Rasterize(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		cut   CutContour
		paths int
		warn  bool
	}{
		{"alpha", CutContour{OffsetPt: DefaultCutOffsetPt}, 3, false},
		{"alpha merged", CutContour{OffsetPt: 20 * mmPt}, 1, false},
		{"box", CutContour{Source: CutSourceBox, CornerRadiusPt: 10}, 1, false},
		{"area", CutContour{Source: CutSourceArea, Area: "b", CornerRadiusPt: 3}, 1, false},
		{"piece cap", CutContour{OffsetPt: 1, MaxPieces: 2}, 1, true},
	} {
		rr := r.WithPrint(&Print{Cut: &tc.cut})
		sc := *s
		sc.Warnings = nil
		pl, err := rr.makePlates(context.Background(), &sc, canvas)
		if err != nil {
			t.Fatal(err)
		}
		if len(pl.cut) != tc.paths {
			t.Errorf("%s: %d paths, want %d", tc.name, len(pl.cut), tc.paths)
		}
		warned := len(sc.Warnings) > 0 && sc.Warnings[0].Code == WarnCutContour
		if warned != tc.warn {
			t.Errorf("%s: warnings %v", tc.name, sc.Warnings)
		}
	}
}

// TestWhitePlate: the White plate (tiffsep of the PDF, and the png's sidecar) is
// every ink pixel choked by exactly N px and nothing where the art is transparent;
// pure white art is left out when asked.
func TestWhitePlate(t *testing.T) {
	t.Parallel()
	const dpi = 144
	px := func(pt float64) int { return int(math.Round(pt * dpi / 72)) }
	// want is the plate the rectangles make at dpi, choked by n pixels.
	want := func(w, h, n int, skipWhite bool) *image.Gray {
		g := image.NewGray(image.Rect(0, 0, w, h))
		for i, r := range stickerRects {
			if skipWhite && i == 2 {
				continue
			}
			for y := px(r.Y) + n; y < px(r.Y+r.H)-n; y++ {
				for x := px(r.X) + n; x < px(r.X+r.W)-n; x++ {
					g.Pix[y*w+x] = 255
				}
			}
		}
		return g
	}
	compare := func(t *testing.T, got, want *image.Gray) {
		t.Helper()
		if got.Rect != want.Rect {
			t.Fatalf("plate %v, want %v", got.Rect, want.Rect)
		}
		bad := 0
		for i := range got.Pix {
			if (got.Pix[i] >= 128) != (want.Pix[i] >= 128) {
				if bad < 5 {
					t.Errorf("pixel (%d, %d): plate %d, want %d", i%got.Rect.Dx(), i/got.Rect.Dx(), got.Pix[i], want.Pix[i])
				}
				bad++
			}
		}
		if bad > 0 {
			t.Errorf("%d pixels differ", bad)
		}
	}
	for _, n := range []int{1, 3} {
		for _, skip := range []bool{false, true} {
			wp := &WhitePlate{ChokePx: n, SkipPureWhite: skip, PlateDPI: dpi}
			name := "choke" + strconv.Itoa(n)
			if skip {
				name += "-skip-white"
			}
			t.Run(name+"/png", func(t *testing.T) {
				t.Parallel()
				_, res := renderPrint(t, &Print{White: wp}, stickerDetail(t, model.ExportPNG), "v")
				if len(res.Sidecars) != 1 || res.Sidecars[0].Suffix != SidecarWhite {
					t.Fatalf("sidecars %v", res.Sidecars)
				}
				img, err := png.Decode(bytes.NewReader(res.Sidecars[0].Data))
				if err != nil {
					t.Fatal(err)
				}
				g, ok := img.(*image.Gray)
				if !ok {
					t.Fatalf("%T, want grey", img)
				}
				compare(t, g, want(g.Rect.Dx(), g.Rect.Dy(), n, skip))
			})
			for _, typ := range []string{model.ExportPDF, model.ExportPDFSimple} {
				for _, cmyk := range []bool{false, true} {
					sub := name + "/" + typ
					if cmyk {
						sub += "-cmyk"
					}
					t.Run(sub, func(t *testing.T) {
						needTools(t, "gs", "qpdf")
						p := &Print{}
						if cmyk {
							p = testPrint(t, 0)
						}
						p.White = wp
						b, _ := renderPrint(t, p, stickerDetail(t, typ), "v")
						path := writeTemp(t, "white.pdf", b)
						if out, err := exec.Command("qpdf", "--check", path).CombinedOutput(); err != nil || bytes.Contains(out, []byte("WARNING")) {
							t.Fatalf("qpdf --check: %v\n%s", err, out)
						}
						plates := tiffsepPlates(t, b, dpi, "White", "Magenta")
						g := plates["White"]
						compare(t, g, want(g.Rect.Dx(), g.Rect.Dy(), n, skip))
						// Overprint: the art's magenta is still under the white.
						if plates["Magenta"].GrayAt(px(50), px(50)).Y < 100 {
							t.Error("the white plate knocked out the art")
						}
					})
				}
			}
		}
	}
}

// TestPlatesReproducible: with both plates (two spot colours, which fpdf writes in
// map order) the same design gives the same bytes every time.
func TestPlatesReproducible(t *testing.T) {
	t.Parallel()
	for _, cmyk := range []bool{false, true} {
		p := &Print{}
		if cmyk {
			p = testPrint(t, 0)
		}
		p.Cut = &CutContour{OffsetPt: DefaultCutOffsetPt}
		p.White = &WhitePlate{Spot: "Spot 1"}
		first, _ := renderPrint(t, p, stickerDetail(t, model.ExportPDF), "v")
		for i := 0; i < 8; i++ {
			b, _ := renderPrint(t, p, stickerDetail(t, model.ExportPDF), "v")
			if !bytes.Equal(b, first) {
				t.Fatalf("cmyk %v: render %d differs", cmyk, i+1)
			}
		}
		// /CS1 is the cut, /CS2 the white, each pointing at its own object.
		re := regexp.MustCompile(`(\d+) 0 obj\n\[/Separation /([A-Za-z#0-9]+)`)
		objs := map[string]string{}
		for _, m := range re.FindAllSubmatch(first, -1) {
			objs[string(m[2])] = string(m[1])
		}
		for id, name := range map[string]string{"1": "CutContour", "2": "Spot#201"} {
			if !bytes.Contains(first, []byte("/CS"+id+" "+objs[name]+" 0 R")) {
				t.Errorf("cmyk %v: /CS%s does not point at %s (objects %v)", cmyk, id, name, objs)
			}
		}
	}
}

// TestPlatesOffByDefault: without plates nothing of them is written.
func TestPlatesOffByDefault(t *testing.T) {
	t.Parallel()
	b, res := renderPrint(t, nil, stickerDetail(t, model.ExportPDF), "v")
	for _, s := range []string{"/Separation", "/OCProperties", "/OP true"} {
		if bytes.Contains(b, []byte(s)) {
			t.Errorf("%q in a PDF without plates", s)
		}
	}
	if len(res.Sidecars) != 0 {
		t.Errorf("sidecars %v", res.Sidecars)
	}
}

func TestPlateSettingsValidate(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		p    Print
		want string
	}{
		{Print{Cut: &CutContour{Source: "svg"}}, "source"},
		{Print{Cut: &CutContour{Source: CutSourceArea}}, "without an area id"},
		{Print{Cut: &CutContour{OffsetPt: -1}}, "offset"},
		{Print{Cut: &CutContour{OffsetPt: math.NaN()}}, "offset"},
		{Print{Cut: &CutContour{Spot: "Cut/Contour"}}, "spot colour name"},
		{Print{White: &WhitePlate{ChokePx: 1000}}, "choke"},
		{Print{White: &WhitePlate{PlateDPI: 5000}}, "dpi"},
		{Print{White: &WhitePlate{Spot: " White"}}, "space"},
		{Print{Cut: &CutContour{Spot: "White"}, White: &WhitePlate{}}, "both use"},
	} {
		err := tc.p.Validate()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want an error about %s", tc.p, err, tc.want)
		}
	}
	ok := Print{Cut: &CutContour{Spot: "PerfCutContour", OffsetPt: 3}, White: &WhitePlate{Spot: "Spot 1", ChokePx: 2}}
	if err := ok.Validate(); err != nil {
		t.Error(err)
	}
}

func TestSidecarName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"12 front.png": "12 front-white.png", "x.tar.png": "x.tar-white.png", "noext": "noext-white.png"} {
		if got := SidecarName(in, Sidecar{Suffix: SidecarWhite}); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// TestPlanPlateBytes: a plan counts the plates' memory when there are plates.
func TestPlanPlateBytes(t *testing.T) {
	t.Parallel()
	r := newRenderer(t, Options{})
	for _, typ := range []string{model.ExportPNG, model.ExportPDF, model.ExportPDFSimple} {
		d := stickerDetail(t, typ)
		plain, err := r.Plan(d, "v")
		if err != nil {
			t.Fatal(err)
		}
		pl, err := r.WithPrint(&Print{White: &WhitePlate{}}).Plan(d, "v")
		if err != nil {
			t.Fatal(err)
		}
		if plain.PlateBytes != 0 || pl.PlateBytes == 0 || pl.PeakBytes() != plain.PeakBytes()+pl.PlateBytes {
			t.Errorf("%s: plate bytes %d -> %d, peak %d -> %d", typ, plain.PlateBytes, pl.PlateBytes, plain.PeakBytes(), pl.PeakBytes())
		}
	}
}

// TestPlatesLeaveArtAlone: on a design with pictures, text and a template image,
// the plates overprint: every process plate of the PDF is what it is without them,
// for the vector page (whose pictures the plates' raster reads too) and the raster
// page.
func TestPlatesLeaveArtAlone(t *testing.T) {
	t.Parallel()
	needTools(t, "gs")
	for _, name := range []string{"basic", "pictures"} {
		for _, typ := range []string{model.ExportPDF, model.ExportPDFSimple} {
			t.Run(name+"/"+typ, func(t *testing.T) {
				b, err := os.ReadFile(filepath.Join("testdata/designs", name+".json"))
				must(t, err)
				var d model.DesignDetail
				must(t, json.Unmarshal(b, &d))
				view := d.Views[0].ID
				for i := range d.Views {
					d.Views[i].Export.Type = typ
				}
				plain := testPrint(t, 0)
				with := *plain
				with.Cut = &CutContour{OffsetPt: DefaultCutOffsetPt}
				with.White = &WhitePlate{}
				ref, _ := renderPrint(t, plain, &d, view)
				got, _ := renderPrint(t, &with, &d, view)
				inks := []string{"Cyan", "Magenta", "Yellow", "Black"}
				a := tiffsepPlates(t, ref, 72, inks...)
				p := tiffsepPlates(t, got, 72, append(inks, "White", "CutContour")...)
				for _, ink := range inks {
					if !bytes.Equal(a[ink].Pix, p[ink].Pix) {
						t.Errorf("%s plate changed by the plates", ink)
					}
				}
				if components(p["White"], 128) == 0 {
					t.Error("empty White plate")
				}
				if components(p["CutContour"], 64) == 0 {
					t.Error("empty CutContour plate")
				}
			})
		}
	}
}

// TestTIFFSpotChannel: the tiff output carries the white plate as a fifth, named
// spot channel and the cut as a -cut.pdf sidecar. The channel is the png's white
// plate pixel for pixel, the four process channels are the plain tiff's, the tags
// name the ink (InkNames, NumberOfInks, ExtraSamples unspecified, Photoshop's
// channel name and spot DisplayInfo), and libtiff's tiffinfo reads it when installed.
func TestTIFFSpotChannel(t *testing.T) {
	t.Parallel()
	base := testPrint(t, 0)
	base.RasterTIFF = true
	p := *base
	p.White, p.Cut = &WhitePlate{Spot: "RDG_WHITE"}, &CutContour{Source: CutSourceAlpha, OffsetPt: 4.25, HairlinePt: 0.25}
	b, res := renderPrint(t, &p, stickerDetail(t, ExportTIFF), "v")
	for _, w := range res.Warnings {
		if w.Code == WarnUnsupported {
			t.Errorf("warning %v: the tiff carries its plates", w)
		}
	}
	if len(res.Sidecars) != 1 || res.Sidecars[0].Suffix != SidecarCut || !bytes.Contains(res.Sidecars[0].Data, []byte("/CutContour")) {
		t.Errorf("sidecars %+v, want the cut as a PDF", res.Sidecars)
	}
	pix, w, h, spp := decodeTIFFRaw(t, b)
	if spp != 5 {
		t.Fatalf("%d samples per pixel, want CMYK and the spot", spp)
	}
	plain, _ := renderPrint(t, base, stickerDetail(t, ExportTIFF), "v")
	cmyk := decodeCMYKTIFF(t, plain)
	pngPrint := &Print{White: p.White}
	_, pres := renderPrint(t, pngPrint, stickerDetail(t, model.ExportPNG), "v")
	img, err := png.Decode(bytes.NewReader(pres.Sidecars[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	white := img.(*image.Gray)
	if white.Rect.Dx() != w || white.Rect.Dy() != h || cmyk.Rect.Dx() != w || cmyk.Rect.Dy() != h {
		t.Fatalf("tiff %dx%d, png plate %v, plain tiff %v", w, h, white.Rect, cmyk.Rect)
	}
	badInk, badWhite, inked := 0, 0, 0
	for i := range w * h {
		if !bytes.Equal(pix[5*i:5*i+4], cmyk.Pix[4*i:4*i+4]) {
			badInk++
		}
		if pix[5*i+4] != white.Pix[i] {
			badWhite++
		}
		if pix[5*i+4] == 255 {
			inked++
		}
	}
	if badInk > 0 || badWhite > 0 || inked == 0 {
		t.Errorf("%d pixels' CMYK differ from the plain tiff, %d white samples from the png plate; %d white pixels", badInk, badWhite, inked)
	}
	tags := tiffArrays(t, b)
	if es := tags[tagExtraSamples]; len(es) != 1 || es[0] != 0 {
		t.Errorf("ExtraSamples %v, want [0] (unspecified: not alpha)", es)
	}
	if n := tags[tagNumberOfInks]; len(n) != 1 || n[0] != 5 {
		t.Errorf("NumberOfInks %v", n)
	}
	if !bytes.Contains(b, []byte("Cyan\x00Magenta\x00Yellow\x00Black\x00RDG_WHITE\x00")) {
		t.Error("no InkNames naming the five inks")
	}
	ps := photoshopSpot("RDG_WHITE")
	if !bytes.Contains(b, ps) || !bytes.Contains(ps, []byte("8BIM\x03\xee\x00\x00\x00\x00\x00\x0a\x09RDG_WHITE")) {
		t.Error("no Photoshop alpha name resource for the channel")
	}
	if _, err := exec.LookPath("tiffinfo"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tiffinfo missing (.ci/run installs libtiff-tools)")
		}
		return
	}
	out, err := exec.Command("tiffinfo", writeTemp(t, "spot.tif", b)).CombinedOutput()
	if err != nil {
		t.Fatalf("tiffinfo: %v\n%s", err, out)
	}
	for _, want := range []string{"Samples/Pixel: 5", "Extra Samples: 1<unspecified>", "Ink Names: Cyan, Magenta, Yellow, Black, RDG_WHITE", "Photoshop Data: <present>"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("tiffinfo lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(strings.ToLower(string(out)), "warning") {
		t.Errorf("tiffinfo warns:\n%s", out)
	}
}

// FuzzPlateSettings renders the sticker with fuzzed cut and white plate settings:
// settings either fail Validate or render without a panic, a refusal is an
// InputError, and a vector PDF written holds only numbers a reader takes.
func FuzzPlateSettings(f *testing.F) {
	f.Add("alpha", 4.25, 0.0, 0.25, "CutContour", "White", 1, uint8(26), uint8(0), false)
	f.Add("box", 0.0, 720.0, 10.0, "PerfCutContour", "RDG_WHITE", 100, uint8(255), uint8(1), true)
	f.Add("alpha", 72.0, 0.0, 0.0, "", "Spot 1", -5, uint8(0), uint8(2), true)
	f.Add("svg", math.NaN(), math.Inf(1), -1.0, "Cut/Contour", "W#1", 1<<30, uint8(1), uint8(0), false)
	f.Add("alpha", 1e-9, 1e-300, 1e-300, "\t", "", 0, uint8(128), uint8(1), false)
	// One name for both plates (refused: fpdf cannot declare a spot twice).
	f.Add("alpha", 4.25, 0.0, 0.25, "PerfCutContour", "PerfCutContour", 1, uint8(26), uint8(1), false)
	r := newRenderer(f, Options{})
	f.Fuzz(func(t *testing.T, source string, offset, radius, hairline float64, spot, whiteSpot string, choke int, thr, typ uint8, skip bool) {
		p := &Print{
			Cut:   &CutContour{Source: source, OffsetPt: offset, CornerRadiusPt: radius, HairlinePt: hairline, Spot: spot, AlphaThreshold: thr},
			White: &WhitePlate{Spot: whiteSpot, ChokePx: choke, Threshold: thr, SkipPureWhite: skip, PlateDPI: 72},
		}
		if p.Validate() != nil {
			return
		}
		types := []string{model.ExportPDF, model.ExportPDFSimple, model.ExportPNG}
		et := types[int(typ)%len(types)]
		var buf bytes.Buffer
		_, err := r.WithPrint(p).RenderView(context.Background(), stickerDetail(t, et), "v", DirSource(mediaDir), &buf)
		checkOutcome(t, et, buf.Bytes(), err)
	})
}

// TestPlatesRenderAll: a multi-page PDF with plates declares each spot and layer
// once, draws them on every page, is the same bytes every time, and poppler renders
// it without a complaint.
func TestPlatesRenderAll(t *testing.T) {
	needTools(t, "qpdf", "pdftoppm")
	d := stickerDetail(t, model.ExportPDF)
	back := d.Views[0]
	back.ID, back.Weight = "back", 1
	back.Export.Type = model.ExportPDFSimple
	d.Views = append(d.Views, back)
	p := testPrint(t, 3*mmPt)
	p.Cut = &CutContour{OffsetPt: DefaultCutOffsetPt}
	p.White = &WhitePlate{Spot: "W1"}
	r := newRenderer(t, Options{}).WithPrint(p)
	var first []byte
	for i := 0; i < 4; i++ {
		var buf bytes.Buffer
		if _, err := r.RenderAll(context.Background(), d, DirSource(mediaDir), &buf); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = buf.Bytes()
			continue
		}
		if !bytes.Equal(buf.Bytes(), first) {
			t.Fatalf("render %d differs", i+1)
		}
	}
	path := writeTemp(t, "all.pdf", first)
	if out, err := exec.Command("qpdf", "--check", path).CombinedOutput(); err != nil || bytes.Contains(out, []byte("WARNING")) {
		t.Fatalf("qpdf --check: %v\n%s", err, out)
	}
	out, err := exec.Command("pdftoppm", "-r", "36", "-png", path, filepath.Join(t.TempDir(), "p")).CombinedOutput()
	if err != nil || len(out) > 0 {
		t.Errorf("pdftoppm: %v\n%s", err, out)
	}
	for s, n := range map[string]int{"[/Separation /CutContour": 1, "[/Separation /W1": 1, "/Type /OCG": 2, "/ImageMask true": 2} {
		if got := bytes.Count(first, []byte(s)); got != n {
			t.Errorf("%q %d times, want %d", s, got, n)
		}
	}
}

// TestCutContourArea: an area cut follows the area's rectangle (on the page, in
// points), and an area the view lacks is refused as bad input before rendering.
func TestCutContourArea(t *testing.T) {
	t.Parallel()
	r := newRenderer(t, Options{}).WithPrint(&Print{Cut: &CutContour{Source: CutSourceArea, Area: "b"}})
	d := stickerDetail(t, model.ExportPDF)
	s, err := r.BuildScene(context.Background(), d, "v", DirSource(mediaDir))
	if err != nil {
		t.Fatal(err)
	}
	pl, err := r.vectorPlates(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if len(pl.cut) != 1 || len(pl.cut[0]) != 4 {
		t.Fatalf("cut %v", pl.cut)
	}
	want := stickerRects[1]
	for _, p := range pl.cut[0] {
		if !(math.Abs(p.X-want.X) < 1e-9 || math.Abs(p.X-want.X-want.W) < 1e-9) || !(math.Abs(p.Y-want.Y) < 1e-9 || math.Abs(p.Y-want.Y-want.H) < 1e-9) {
			t.Errorf("corner %v not on area %v", p, want)
		}
	}
	bad := r.WithPrint(&Print{Cut: &CutContour{Source: CutSourceArea, Area: "nope"}})
	var ie *InputError
	if _, err := bad.Plan(d, "v"); !errors.As(err, &ie) || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("plan: %v, want an InputError naming the area", err)
	}
	var buf bytes.Buffer
	if _, err := bad.RenderView(context.Background(), d, "v", DirSource(mediaDir), &buf); !errors.As(err, &ie) {
		t.Errorf("render: %v, want an InputError", err)
	}
}
