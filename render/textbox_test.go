package render

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/internal/imgcheck"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/fonts"
	"golang.org/x/image/font/gofont/gosmallcaps"
)

// fabric.js measures a line's box per grapheme: the first alone, each next one as the
// pair it forms with the one before less that one alone (Text._measureChar). A line
// whose shaping ligates ("office" in DejaVu Serif) or joins (Arabic) across graphemes
// gets a box other than its ink, is aligned by that box and drawn from its start.
func TestFabricLineBox(t *testing.T) {
	t.Parallel()
	r := shapingRenderer(t, false)
	serif, _ := r.Fonts().Lookup("DejaVu Serif", fonts.Regular)
	goFont, _ := r.Fonts().Lookup("Go", fonts.Regular)
	layout := func(f *fonts.Font, s, align, dir string) *TextLayer {
		tl, _, err := r.shapers.layoutText(s, textRequest{primary: f, reg: r.Fonts(), size: 40, lineHeight: 1.16, align: align, direction: dir})
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	// ink is the shaped width of s alone, as the browser's measureText gives it.
	ink := func(f *fonts.Font, s string) float64 { return layout(f, s, "left", TextDirectionLTR).Lines[0].Ink }
	tests := []struct {
		name      string
		font      *fonts.Font
		text      string
		graphemes []string
	}{
		// DejaVu Serif's ffi ligature is narrower than its ff and fi pairs say.
		{"ligatures", serif, "office", []string{"o", "f", "f", "i", "c", "e"}},
		// A joined Arabic letter is wider or narrower than the isolated one measured.
		{"arabic joined", goFont, "مرحبا", []string{"م", "ر", "ح", "ب", "ا"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			want := ink(tc.font, tc.graphemes[0])
			for i := 1; i < len(tc.graphemes); i++ {
				want += ink(tc.font, tc.graphemes[i-1]+tc.graphemes[i]) - ink(tc.font, tc.graphemes[i-1])
			}
			tl := layout(tc.font, tc.text+"\n"+tc.text+tc.text, "center", TextDirectionLTR)
			l := tl.Lines[0]
			if math.Abs(l.Width-want) > 1e-6 {
				t.Errorf("box %.4f, want fabric.js's %.4f (ink %.4f)", l.Width, want, l.Ink)
			}
			if math.Abs(l.Width-l.Ink) < 0.05 {
				t.Errorf("box %.4f = ink %.4f: the case does not tell the rules apart", l.Width, l.Ink)
			}
			// Centred by the box, drawn from the box's start.
			if x := (tl.Width - l.Width) / 2; math.Abs(l.X-x) > 1e-9 {
				t.Errorf("line at %.4f, want %.4f", l.X, x)
			}
			first := math.Inf(1)
			for _, g := range l.Glyphs {
				first = math.Min(first, g.X)
			}
			if math.Abs(first-l.X) > 0.5 {
				t.Errorf("ink starts at %.4f, want the box's start %.4f", first, l.X)
			}
		})
	}
}

// The paragraph direction is fabric.js's `direction` (default ltr): a line mixing
// Arabic and Latin reads in the order the designer showed; "auto" takes each line's
// first strong letter; "rtl" draws the shaped line from the box's right end.
func TestTextDirection(t *testing.T) {
	t.Parallel()
	r := shapingRenderer(t, false)
	goFont, _ := r.Fonts().Lookup("Go", fonts.Regular)
	const text = "مرحبا Hello عالم"
	leftmost := func(dir string) (*TextLayer, string) {
		tl, _, err := r.shapers.layoutText(text, textRequest{primary: goFont, reg: r.Fonts(), size: 40, lineHeight: 1.16, align: "center", direction: dir})
		if err != nil {
			t.Fatal(err)
		}
		g := tl.Lines[0].Glyphs[0]
		for _, h := range tl.Lines[0].Glyphs {
			if h.X < g.X {
				g = h
			}
		}
		return tl, g.Text
	}
	// Left to right: مرحبا first (its last letter leftmost); right to left: عالم first
	// from the right, so its last letter, م, is leftmost.
	if _, s := leftmost(TextDirectionLTR); s != "ا" {
		t.Errorf("ltr: leftmost %q, want the end of مرحبا", s)
	}
	if _, s := leftmost(TextDirectionAuto); s != "م" {
		t.Errorf("auto: leftmost %q, want the end of عالم", s)
	}
	tl, s := leftmost(TextDirectionRTL)
	if s != "م" {
		t.Errorf("rtl: leftmost %q, want the end of عالم", s)
	}
	l := tl.Lines[0]
	right := math.Inf(-1)
	for _, g := range l.Glyphs {
		right = math.Max(right, g.X+g.Advance)
	}
	if math.Abs(right-(l.X+l.Width)) > 0.5 {
		t.Errorf("rtl: ink ends at %.3f, want the box's right end %.3f", right, l.X+l.Width)
	}
	if err := (Options{TextDirection: "sideways"}).Validate(); err == nil {
		t.Error("Validate accepted text direction sideways")
	}
}

func TestSynthesisFor(t *testing.T) {
	t.Parallel()
	face := func(st fonts.Style) *fonts.Font { return &fonts.Font{Style: st} }
	tests := []struct {
		want fonts.Style
		have fonts.Style
		syn  synthesis
	}{
		{fonts.Regular, fonts.Regular, 0},
		{fonts.Bold, fonts.Bold, 0},
		{fonts.Bold, fonts.Regular, synthBold},
		{fonts.Italic, fonts.Regular, synthOblique},
		{fonts.Italic, fonts.Bold, synthOblique},
		{fonts.BoldItalic, fonts.Regular, synthBold | synthOblique},
		{fonts.BoldItalic, fonts.Bold, synthOblique},
		{fonts.BoldItalic, fonts.Italic, synthBold},
		{fonts.Regular, fonts.Bold, 0}, // a bold face for regular text is never thinned
	}
	for _, tc := range tests {
		if got := synthesisFor(tc.want, face(tc.have)); got != tc.syn {
			t.Errorf("%s with a %s face: %b, want %b", tc.want, tc.have, got, tc.syn)
		}
	}
	// Skia's fake-bold stroke width: size/24 up to 9, size/32 from 36, linear between.
	for _, tc := range []struct{ size, want float64 }{{6, 6.0 / 24}, {9, 9.0 / 24}, {22.5, 22.5 * (1.0/24 + 0.5*(1.0/32-1.0/24))}, {36, 36.0 / 32}, {100, 100.0 / 32}} {
		if got := fakeBoldWidth(tc.size); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("fakeBoldWidth(%g) = %g, want %g", tc.size, got, tc.want)
		}
	}
}

// A family without bold or italic faces prints bold and italic text synthesized, in
// the raster and in the vector PDF: more ink for bold, the same outline slanted by
// 1/4 for italic.
func TestSyntheticStyles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "smallcaps.ttf"), gosmallcaps.TTF, 0o644))
	r := newRenderer(t, Options{FontDirs: []string{dir}, FontFallback: []string{}})
	render := func(bold, italic bool, typ string) []byte {
		d := loadDesign(t, "text.json")
		v := &d.Views[0]
		v.Export.DPI, v.Export.Type = 288, typ
		e := &v.Elements[0]
		txt := model.TextValue(model.NewTranslations("en", "HIH"))
		e.Value, e.Bold, e.Italic = &txt, &bold, &italic
		e.DefaultFontRaw = []byte(`"Go Smallcaps"`)
		v.Elements = v.Elements[:1]
		var buf bytes.Buffer
		if _, err := r.RenderView(context.Background(), d, v.ID, DirSource(mediaDir), &buf); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	inkOf := func(b []byte) (float64, image.Rectangle) {
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		g := grayOnWhite(img)
		sum := 0.0
		var box image.Rectangle
		for y := g.Rect.Min.Y; y < g.Rect.Max.Y; y++ {
			for x := g.Rect.Min.X; x < g.Rect.Max.X; x++ {
				if v := 255 - float64(g.Pix[g.PixOffset(x, y)]); v > 0 {
					sum += v
					if v > 5 {
						box = box.Union(image.Rect(x, y, x+1, y+1))
					}
				}
			}
		}
		return sum, box
	}
	reg, regBox := inkOf(render(false, false, model.ExportPNG))
	bold, boldBox := inkOf(render(true, false, model.ExportPNG))
	_, itBox := inkOf(render(false, true, model.ExportPNG))
	if bold < reg*1.1 {
		t.Errorf("bold ink %.0f, regular %.0f: not emboldened", bold, reg)
	}
	if boldBox.Dy() <= regBox.Dy() {
		t.Errorf("bold ink %v, regular %v: emboldening grows the outline on every side", boldBox, regBox)
	}
	// The slant moves the top right by a quarter of the cap height.
	if shift := itBox.Dx() - regBox.Dx(); float64(shift) < 0.2*float64(regBox.Dy()) || float64(shift) > 0.3*float64(regBox.Dy()) {
		t.Errorf("italic ink %v, regular %v: widened by %d px, want about a quarter of %d", itBox, regBox, shift, regBox.Dy())
	}
	// The vector PDF draws the same synthesized outlines.
	t.Run("pdf", func(t *testing.T) {
		imgcheck.Tool(t, "pdftocairo", "Debian poppler-utils")
		dir := t.TempDir()
		pdf := filepath.Join(dir, "s.pdf")
		must(t, os.WriteFile(pdf, render(true, true, model.ExportPDF), 0o644))
		if b, err := exec.Command("pdftocairo", "-r", "288", "-png", "-singlefile", pdf, filepath.Join(dir, "s")).CombinedOutput(); err != nil {
			t.Fatalf("pdftocairo: %v\n%s", err, b)
		}
		want, err := png.Decode(bytes.NewReader(render(true, true, model.ExportPNG)))
		if err != nil {
			t.Fatal(err)
		}
		a, b := grayOnWhite(readPNG(t, filepath.Join(dir, "s.png"))), grayOnWhite(want)
		box := inkBounds(a, a.Rect).Union(inkBounds(b, b.Rect)).Inset(-4).Intersect(a.Rect).Intersect(b.Rect)
		if s := imgcheck.SSIM(a.SubImage(box), b.SubImage(box)); s < 0.97 {
			t.Errorf("synthesized bold italic: PDF page vs PNG SSIM %.4f, want >= 0.97", s)
		}
	})
}

// With the default settings every script with an installed Noto font draws: Bengali,
// Telugu, Tamil and Khmer are in no family of the default chain and come from the
// coverage fallback, named in the font-fallback warning, with no missing glyph.
func TestCoverageFallbackRender(t *testing.T) {
	t.Parallel()
	needFile(t, "Debian fonts-noto-core", "/usr/share/fonts/truetype/noto/NotoSansBengali-Regular.ttf")
	r := newRenderer(t, Options{})
	for _, tc := range []struct{ text, family string }{
		{"আমার সোনার বাংলা", "Noto Sans Bengali"},
		{"తెలుగు", "Noto Sans Telugu"},
		{"தமிழ்", "Noto Sans Tamil"},
		{"ភាសាខ្មែរ", "Noto Sans Khmer"},
	} {
		res, err := renderText(t, r, tc.text)
		if err != nil {
			t.Fatal(err)
		}
		var fallback bool
		for _, w := range res.Warnings {
			if w.Code == WarnMissingGlyph {
				t.Errorf("%s: %s", tc.text, w.Message)
			}
			fallback = fallback || w.Code == WarnFontFallback && strings.Contains(w.Message, tc.family)
		}
		if !fallback {
			t.Errorf("%s: no font-fallback warning naming %s in %+v", tc.text, tc.family, res.Warnings)
		}
	}
}
