package render

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"math"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"unicode"

	"github.com/printworker/printworker/internal/imgcheck"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/fonts"
	xbidi "golang.org/x/text/unicode/bidi"
)

// The shaping suite (docs/text.md): designs in many scripts rendered by printworker and
// compared with a golden image, with the same text drawn by headless Chromium on a
// canvas (testdata/browser/text.html) with the same fonts, and with pdftotext of the
// vector PDF.

type shapingCase struct {
	Name        string  `json:"name"`
	Text        string  `json:"text"`
	Font        string  `json:"font"`
	Size        float64 `json:"size"`
	Align       string  `json:"align"`
	CharSpacing float64 `json:"charSpacing"`
	LineHeight  float64 `json:"lineHeight"`
	Bold        bool    `json:"bold"`
	Italic      bool    `json:"italic"`
}

func (c shapingCase) style() fonts.Style { return fonts.StyleOf(c.Bold, c.Italic) }

// shapingFallback is the chain of the suite: the CJK face is the collection's first
// (JP) because a browser's @font-face reads the first face of a .ttc.
var shapingFallback = []string{"Noto Sans Arabic", "Noto Sans Hebrew", "Noto Sans Devanagari", "Noto Sans Thai", "Noto Sans CJK JP"}

const (
	shapingRow   = 90.0  // pt per case
	shapingWidth = 640.0 // pt
	shapingDPI   = 288   // 4 px per pt, compared at 2 px per pt (see TestShapingBrowser)
	notoSerif    = "/usr/share/fonts/truetype/noto/NotoSerif-Regular.ttf"
)

// needFile skips when a file of a Debian package is missing, except under CI=true.
func needFile(t testing.TB, what, path string) {
	t.Helper()
	_, err := os.Stat(path)
	if err == nil {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (%s) is required in CI: %v", what, path, err)
	}
	t.Skipf("%s not installed (%s): %v", what, path, err)
}

func loadShapingCases(t testing.TB) []shapingCase {
	t.Helper()
	b, err := os.ReadFile("testdata/shaping/cases.json")
	if err != nil {
		t.Fatal(err)
	}
	var cs []shapingCase
	if err := json.Unmarshal(b, &cs); err != nil {
		t.Fatal(err)
	}
	for i := range cs {
		if cs[i].Align == "" {
			cs[i].Align = "center"
		}
		if cs[i].LineHeight == 0 {
			cs[i].LineHeight = 1.16
		}
	}
	return cs
}

// shapingRenderer has the suite's fonts: the embedded ones, Noto Serif (a primary font
// with ligatures) and the Noto fallback chain.
func shapingRenderer(t testing.TB, strict bool) *Renderer {
	t.Helper()
	needFile(t, "Debian fonts-noto-core", notoSerif)
	needFile(t, "Debian fonts-noto-cjk", "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
	dir := t.TempDir()
	b, err := os.ReadFile(notoSerif)
	if err != nil {
		t.Fatal(err)
	}
	must(t, os.WriteFile(filepath.Join(dir, filepath.Base(notoSerif)), b, 0o644))
	return newRenderer(t, Options{FontDirs: []string{dir}, FontFallback: shapingFallback, Strict: strict})
}

// caseY is the vertical centre of case i: the middle of its row, moved by less than a
// pixel so that the first baseline falls on a whole output pixel. Browsers snap
// horizontal text's baseline to whole pixels; printworker draws where the maths says.
// Both are right, but a fractional baseline would make every edge differ by a
// fraction of a pixel and the comparison would measure that instead of the shaping.
func caseY(i int, c shapingCase) float64 {
	px := float64(shapingDPI) / 72
	n := float64(strings.Count(c.Text, "\n") + 1)
	h := fabricLineUnit * c.Size * (c.LineHeight*(n-1) + 1)
	y := shapingRow * (float64(i) + 0.5)
	base := (y - h/2 + fabricBaseline*c.Size) * px
	return y + (math.Round(base)-base)/px
}

// shapingDesign is one view with a row per case, each text centred in its row.
func shapingDesign(t testing.TB, cs []shapingCase, typ string) *model.DesignDetail {
	t.Helper()
	d := loadDesign(t, "text.json")
	v := &d.Views[0]
	v.Width, v.Height = shapingWidth, shapingRow*float64(len(cs))
	v.Export.DPI, v.Export.Type = shapingDPI, typ
	var els []model.Element
	for i, c := range cs {
		raw := map[string]any{
			"id": c.Name, "type": "text", "weight": i, "value": map[string]string{"en": c.Text},
			"fontsize": c.Size, "align": c.Align, "lineHeight": c.LineHeight, "charSpacing": c.CharSpacing,
			"positionX": shapingWidth / 2, "positionY": caseY(i, c),
			"defaultFont": c.Font, "bold": c.Bold, "italic": c.Italic, "colors": []map[string]any{{"name": map[string]string{"en": "black"}, "color": "#000000", "default": true}},
		}
		b, _ := json.Marshal(raw)
		var e model.Element
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatal(err)
		}
		els = append(els, e)
	}
	v.Elements = els
	return d
}

func renderShaping(t testing.TB, r *Renderer, d *model.DesignDetail) ([]byte, *Result) {
	t.Helper()
	var buf bytes.Buffer
	res, err := r.RenderView(context.Background(), d, d.Views[0].ID, DirSource(mediaDir), &buf)
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), res
}

// TestShapingGolden renders every case and compares with the golden image, which was
// checked by eye against Chromium's rendering (testdata/shaping/chromium.png, written by
// TestShapingBrowser -update). Each non-Latin case must say which fallback font it used.
func TestShapingGolden(t *testing.T) {
	t.Parallel()
	cs := loadShapingCases(t)
	r := shapingRenderer(t, false)
	out, res := renderShaping(t, r, shapingDesign(t, cs, model.ExportPNG))
	img, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	golden := "testdata/shaping/printworker.png"
	if *update {
		must(t, os.WriteFile(golden, out, 0o644))
	}
	comparePixels(t, img, readPNG(t, golden), golden)
	fallback := map[string]string{}
	for _, w := range res.Warnings {
		switch w.Code {
		case WarnFontFallback:
			fallback[w.ElementID] = w.Message
		case WarnMissingGlyph, WarnTextInput:
			t.Errorf("warning %+v", w)
		}
	}
	for _, c := range cs {
		latin := c.Font != "Go"
		if _, ok := fallback[c.Name]; ok == latin {
			t.Errorf("%s: fallback warning %q (Latin case: %v)", c.Name, fallback[c.Name], latin)
		}
	}
}

// TestShapingBrowser compares each case, cropped to the ink of either rendering, with
// headless Chromium's canvas rendering of the same text in the same fonts: SSIM >= 0.97.
func TestShapingBrowser(t *testing.T) {
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Skip("starts Chromium; skipped with -short")
	}
	chromium := imgcheck.Tool(t, "chromium", "Debian chromium")
	needFabric(t)
	cs := loadShapingCases(t)
	r := shapingRenderer(t, false)
	d := shapingDesign(t, cs, model.ExportPNG)
	out, _ := renderShaping(t, r, d)
	ours, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	ref := chromiumRender(t, chromium, r, cs)
	if *update {
		var buf bytes.Buffer
		must(t, png.Encode(&buf, ref))
		must(t, os.WriteFile("testdata/shaping/chromium.png", buf.Bytes(), 0o644))
	}
	if ref.Bounds().Size() != ours.Bounds().Size() {
		t.Fatalf("chromium %v, printworker %v", ref.Bounds().Size(), ours.Bounds().Size())
	}
	// Both renderings are made at 4 px per pt and compared at 2 px per pt (2x2 pixel
	// averages): the browser snaps each glyph to a quarter pixel and its baseline to a
	// whole pixel, which at full resolution moves every edge by a fraction of a pixel
	// and would weigh more in the score than a wrong glyph does.
	a, b := halve(grayOnWhite(ours)), halve(grayOnWhite(ref))
	px := float64(shapingDPI) / 72 / 2
	for i, c := range cs {
		row := image.Rect(0, int(float64(i)*shapingRow*px), a.Rect.Dx(), int(float64(i+1)*shapingRow*px))
		box := inkBounds(a, row).Union(inkBounds(b, row)).Inset(-8).Intersect(row)
		if box.Empty() {
			t.Errorf("%s: nothing drawn", c.Name)
			continue
		}
		s := imgcheck.SSIM(a.SubImage(box), b.SubImage(box))
		t.Logf("%-24s SSIM %.4f over %v", c.Name, s, box.Size())
		if s < 0.97 {
			t.Errorf("%s: SSIM %.4f against Chromium, want >= 0.97", c.Name, s)
		}
	}
}

// chromiumRender draws the cases with testdata/browser/text.html, through fabric.js
// (testdata/browser/node_modules, `npm ci`). Fonts reach the page as @font-face rules
// from file URLs, each face with its own weight and style so that the browser
// synthesizes what a family lacks: the primary family's faces, the fallback chain's
// faces in order, then the faces printworker's coverage fallback took for the case.
func chromiumRender(t *testing.T, chromium string, r *Renderer, cs []shapingCase) *image.RGBA {
	t.Helper()
	dir := t.TempDir()
	type face struct{ Name, URL, Weight, Style string }
	var faces []face
	seen := map[string]bool{}
	addFace := func(alias string, f *fonts.Font) {
		key := alias + "\x00" + f.Name
		if seen[key] {
			return
		}
		seen[key] = true
		path := strings.SplitN(f.Name, "#", 2)[0]
		if !filepath.IsAbs(path) {
			// An embedded font: give the browser a copy.
			path = filepath.Join(dir, fmt.Sprintf("font%d.ttf", len(faces)))
			must(t, os.WriteFile(path, f.Data, 0o644))
		}
		weight, style := "400", "normal"
		if f.Style == fonts.Bold || f.Style == fonts.BoldItalic {
			weight = "700"
		}
		if f.Style == fonts.Italic || f.Style == fonts.BoldItalic {
			style = "italic"
		}
		faces = append(faces, face{alias, (&url.URL{Scheme: "file", Path: path}).String(), weight, style})
	}
	allStyles := []fonts.Style{fonts.Regular, fonts.Bold, fonts.Italic, fonts.BoldItalic}
	var chain []string
	inChain := map[*fonts.Font]bool{}
	for i := range r.Fonts().FallbackLen() {
		alias := fmt.Sprintf("fallback%d", i)
		for _, st := range allStyles {
			f, err := r.Fonts().FallbackFace(i, st)
			if err != nil || f == nil {
				t.Fatalf("fallback %d: %v", i, err)
			}
			if f.Style == st {
				addFace(alias, f)
				inChain[f] = true
			}
		}
		chain = append(chain, alias)
	}
	type element struct {
		Text        string   `json:"text"`
		Fonts       []string `json:"fonts"`
		Size        float64  `json:"size"`
		Bold        bool     `json:"bold"`
		Italic      bool     `json:"italic"`
		Align       string   `json:"align"`
		CharSpacing float64  `json:"charSpacing"`
		LineHeight  float64  `json:"lineHeight"`
		X           float64  `json:"x"`
		Y           float64  `json:"y"`
		Color       string   `json:"color"`
	}
	var els []element
	for i, c := range cs {
		prim, _ := r.Fonts().Lookup(c.Font, c.style())
		alias := "primary-" + strings.ReplaceAll(prim.Family, " ", "-")
		for _, st := range allStyles {
			if f, _ := r.Fonts().Lookup(c.Font, st); f.Style == st {
				addFace(alias, f)
			}
		}
		list := append([]string{alias}, chain...)
		for j, f := range coverageFaces(t, r, c, prim) {
			if inChain[f] {
				continue
			}
			a := fmt.Sprintf("cover%d-%d", i, j)
			addFace(a, f)
			list = append(list, a)
		}
		els = append(els, element{
			Text: c.Text, Fonts: list, Size: c.Size, Bold: c.Bold, Italic: c.Italic,
			Align: c.Align, CharSpacing: c.CharSpacing, LineHeight: c.LineHeight,
			X: shapingWidth / 2, Y: caseY(i, c), Color: "#000000",
		})
	}
	jfaces := make([]map[string]string, len(faces))
	for i, f := range faces {
		jfaces[i] = map[string]string{"name": f.Name, "url": f.URL, "weight": f.Weight, "style": f.Style}
	}
	spec, _ := json.Marshal(map[string]any{
		"width": shapingWidth, "height": shapingRow * float64(len(cs)), "scale": float64(shapingDPI) / 72,
		"faces": jfaces, "elements": els,
	})
	return chromiumPage(t, chromium, "text.html", spec, dir)
}

// chromiumPage loads testdata/browser/<page> in headless Chromium with spec as the
// URL fragment and returns the PNG the page leaves in its body ("DATA:" + a data
// URL); dir holds the browser's profile.
func chromiumPage(t *testing.T, chromium, page string, spec []byte, dir string) *image.RGBA {
	t.Helper()
	page, err := filepath.Abs(filepath.Join("testdata", "browser", page))
	if err != nil {
		t.Fatal(err)
	}
	u := (&url.URL{Scheme: "file", Path: page}).String() + "#" + url.PathEscape(string(spec))
	ctx, cancel := context.WithTimeout(context.Background(), 2*60e9)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run",
		"--user-data-dir="+filepath.Join(dir, "profile"), "--allow-file-access-from-files",
		"--font-render-hinting=none", "--force-device-scale-factor=2", "--virtual-time-budget=20000", "--dump-dom", u)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	dom, err := cmd.Output()
	if err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	s := string(dom)
	if i := strings.Index(s, "<body>ERROR:"); i >= 0 {
		t.Fatalf("page: %s", s[i:min(len(s), i+500)])
	}
	i := strings.Index(s, "DATA:data:image/png;base64,")
	if i < 0 {
		t.Fatalf("page gave no image:\n%.2000s\n%s", s, stderr.String())
	}
	b64 := s[i+len("DATA:data:image/png;base64,"):]
	b64 = b64[:strings.IndexAny(b64, "<\n ")]
	raw, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	out := image.NewRGBA(img.Bounds())
	for y := out.Rect.Min.Y; y < out.Rect.Max.Y; y++ {
		for x := out.Rect.Min.X; x < out.Rect.Max.X; x++ {
			out.Set(x, y, img.At(x, y))
		}
	}
	return out
}

// coverageFaces are the faces printworker drew the case with besides its primary face.
func coverageFaces(t *testing.T, r *Renderer, c shapingCase, prim *fonts.Font) []*fonts.Font {
	t.Helper()
	tl, _, err := r.shapers.layoutText(c.Text, textRequest{primary: prim, style: c.style(), reg: r.Fonts(),
		size: c.Size, charSpacing: c.CharSpacing, lineHeight: c.LineHeight, align: c.Align})
	if err != nil {
		t.Fatal(err)
	}
	var out []*fonts.Font
	seen := map[*fonts.Font]bool{prim: true}
	for _, l := range tl.Lines {
		for _, g := range l.Glyphs {
			if !seen[g.Font] {
				seen[g.Font] = true
				out = append(out, g.Font)
			}
		}
	}
	return out
}

// needFabric skips when fabric.js is not installed in testdata/browser (npm ci), except
// under CI=true, where .ci/run installs it.
func needFabric(t *testing.T) {
	t.Helper()
	const dist = "testdata/browser/node_modules/fabric/dist/index.min.js"
	if _, err := os.Stat(dist); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("fabric.js is required in CI (npm ci --ignore-scripts --omit=optional in render/testdata/browser): %v", err)
		}
		t.Skipf("fabric.js not installed (run npm ci --ignore-scripts --omit=optional in render/testdata/browser): %v", err)
	}
}

// grayOnWhite flattens an image on white and keeps its luminance.
func grayOnWhite(img image.Image) *image.Gray {
	w := onWhite(img)
	g := image.NewGray(w.Rect)
	for y := w.Rect.Min.Y; y < w.Rect.Max.Y; y++ {
		for x := w.Rect.Min.X; x < w.Rect.Max.X; x++ {
			o := w.PixOffset(x, y)
			r, gg, b := float64(w.Pix[o]), float64(w.Pix[o+1]), float64(w.Pix[o+2])
			g.Pix[g.PixOffset(x, y)] = uint8(math.Round(0.299*r + 0.587*gg + 0.114*b))
		}
	}
	return g
}

// halve averages 2x2 pixel blocks.
func halve(g *image.Gray) *image.Gray {
	out := image.NewGray(image.Rect(0, 0, g.Rect.Dx()/2, g.Rect.Dy()/2))
	for y := range out.Rect.Dy() {
		for x := range out.Rect.Dx() {
			o := g.PixOffset(2*x, 2*y)
			v := int(g.Pix[o]) + int(g.Pix[o+1]) + int(g.Pix[o+g.Stride]) + int(g.Pix[o+g.Stride+1])
			out.Pix[out.PixOffset(x, y)] = uint8((v + 2) / 4)
		}
	}
	return out
}

// inkBounds is the bounding box of the non-white pixels of img inside r.
func inkBounds(img *image.Gray, r image.Rectangle) image.Rectangle {
	var b image.Rectangle
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if img.Pix[img.PixOffset(x, y)] < 250 {
				b = b.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	return b
}

// TestShapingPDF renders each case as a vector PDF of its own: pdftotext must give the
// case's text as typed (logical order), the fonts must be embedded subsets, and the
// page must look like the PNG. poppler marks right-to-left runs with U+202B ... U+202C
// and orders a line's runs by the page's main direction, so each case gets its own
// page and the marks are dropped before comparing.
func TestShapingPDF(t *testing.T) {
	t.Parallel()
	for _, tool := range []string{"pdftotext", "pdffonts", "pdftocairo"} {
		imgcheck.Tool(t, tool, "Debian poppler-utils")
	}
	r := shapingRenderer(t, false)
	dir := t.TempDir()
	if testing.Short() && os.Getenv("CI") != "true" {
		t.Log("-short: the page rasterization is not compared")
	} else {
		comparePDFPage(t, r, dir)
	}
	marks := strings.NewReplacer("\u202a", "", "\u202b", "", "\u202c", "", "\u202d", "", "\u202e", "")
	for _, c := range loadShapingCases(t) {
		out, _ := renderShaping(t, r, shapingDesign(t, []shapingCase{c}, model.ExportPDF))
		pdf := filepath.Join(dir, c.Name+".pdf")
		must(t, os.WriteFile(pdf, out, 0o644))
		txt, err := exec.Command("pdftotext", "-enc", "UTF-8", pdf, "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		got := strings.Join(strings.Fields(marks.Replace(string(txt))), " ")
		want := strings.Join(strings.Fields(c.Text), " ")
		if !mixedDirections(c.Text) {
			if got != want {
				t.Errorf("%s: pdftotext gives %q, want %q", c.Name, got, want)
			}
		} else if !sameCharacters(got, want) || !wordsInOrder(got, want) {
			// poppler orders the runs of a mixed line and places the spaces and
			// punctuation between them by its own rules (docs/text.md); every
			// character must still be there once and every word read as typed.
			t.Errorf("%s: pdftotext gives %q (raw %q), want the characters and words of %q", c.Name, got, txt, want)
		}
		fl, err := exec.Command("pdffonts", pdf).Output()
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(fl)), "\n")[2:] {
			if f := strings.Fields(line); !strings.Contains(f[0], "+") || !strings.Contains(line, " yes ") {
				t.Errorf("%s: pdffonts: not an embedded subset: %s", c.Name, line)
			}
		}
	}
}

// comparePDFPage renders the whole suite as one vector PDF and compares its
// rasterization (pdftocairo) with the PNG rendering, case by case.
func comparePDFPage(t *testing.T, r *Renderer, dir string) {
	cs := loadShapingCases(t)
	out, _ := renderShaping(t, r, shapingDesign(t, cs, model.ExportPDF))
	pdf := filepath.Join(dir, "all.pdf")
	must(t, os.WriteFile(pdf, out, 0o644))
	if p := os.Getenv("SHAPING_PDF_OUT"); p != "" {
		must(t, os.WriteFile(p, out, 0o644))
	}
	if b, err := exec.Command("pdftocairo", "-r", fmt.Sprint(shapingDPI), "-png", "-singlefile", pdf, filepath.Join(dir, "all")).CombinedOutput(); err != nil {
		t.Fatalf("pdftocairo: %v\n%s", err, b)
	}
	png1, _ := renderShaping(t, r, shapingDesign(t, cs, model.ExportPNG))
	ours, err := png.Decode(bytes.NewReader(png1))
	if err != nil {
		t.Fatal(err)
	}
	a, b := halve(grayOnWhite(ours)), halve(grayOnWhite(readPNG(t, filepath.Join(dir, "all.png"))))
	px := float64(shapingDPI) / 72 / 2
	for i, c := range cs {
		row := image.Rect(0, int(float64(i)*shapingRow*px), a.Rect.Dx(), int(float64(i+1)*shapingRow*px)).Intersect(b.Rect)
		box := inkBounds(a, row).Union(inkBounds(b, row)).Inset(-8).Intersect(row)
		if s := imgcheck.SSIM(a.SubImage(box), b.SubImage(box)); s < 0.97 {
			t.Errorf("%s: PDF page vs PNG: SSIM %.4f, want >= 0.97", c.Name, s)
		}
	}
}

// mixedDirections reports whether s mixes right-to-left letters with left-to-right
// letters or digits.
func mixedDirections(s string) bool {
	var rtl, ltr bool
	for _, r := range s {
		p, _ := xbidi.LookupRune(r)
		switch p.Class() {
		case xbidi.R, xbidi.AL:
			rtl = true
		case xbidi.L, xbidi.EN, xbidi.AN:
			ltr = true
		}
	}
	return rtl && ltr
}

// sameCharacters reports whether a and b hold the same characters, spaces aside, in
// any order.
func sameCharacters(a, b string) bool {
	count := map[rune]int{}
	for _, r := range a {
		count[r]++
	}
	for _, r := range b {
		count[r]--
	}
	for r, n := range count {
		if n != 0 && !unicode.IsSpace(r) {
			return false
		}
	}
	return true
}

// wordsInOrder reports whether every word of want (letters and marks of one
// direction) appears in got as typed.
func wordsInOrder(got, want string) bool {
	have := map[string]bool{}
	for _, w := range bidiWords(got) {
		have[w] = true
	}
	for _, w := range bidiWords(want) {
		if !have[w] {
			return false
		}
	}
	return true
}

// bidiWords splits s into maximal runs of letters and marks of one direction.
func bidiWords(s string) []string {
	var words []string
	var cur []rune
	curRTL := false
	for _, r := range s {
		if !unicode.IsLetter(r) && !unicode.Is(unicode.M, r) {
			if len(cur) > 0 {
				words, cur = append(words, string(cur)), nil
			}
			continue
		}
		p, _ := xbidi.LookupRune(r)
		rtl := p.Class() == xbidi.R || p.Class() == xbidi.AL
		if len(cur) > 0 && rtl != curRTL && !unicode.Is(unicode.M, r) {
			words, cur = append(words, string(cur)), nil
		}
		if len(cur) == 0 {
			curRTL = rtl
		}
		cur = append(cur, r)
	}
	if len(cur) > 0 {
		words = append(words, string(cur))
	}
	return words
}

// One renderer shapes for many goroutines at once (the worker renders views
// concurrently): shapers, faces and the lazily loaded fallback fonts must not race, and
// every render must come out the same.
func TestShapingConcurrent(t *testing.T) {
	cs := loadShapingCases(t)
	r := shapingRenderer(t, false) // fallback fonts not loaded yet: the goroutines race to load them
	d := shapingDesign(t, cs, model.ExportPNG)
	d.Views[0].Export.DPI = 72
	outs := make([][]byte, 4)
	var wg sync.WaitGroup
	for i := range outs {
		wg.Go(func() {
			var buf bytes.Buffer
			if _, err := r.RenderView(context.Background(), d, d.Views[0].ID, DirSource(mediaDir), &buf); err != nil {
				t.Error(err)
			}
			outs[i] = buf.Bytes()
		})
	}
	wg.Wait()
	for i := 1; i < len(outs); i++ {
		if !bytes.Equal(outs[i], outs[0]) {
			t.Errorf("render %d differs from render 0", i)
		}
	}
}

// Shaped text in a CMYK PDF/X-4 (the print settings of docs/colour.md): the outlines and
// the real text are painted in CMYK, and extraction still gives the text as typed.
func TestShapingPDFCMYK(t *testing.T) {
	imgcheck.Tool(t, "pdftotext", "Debian poppler-utils")
	imgcheck.Tool(t, "qpdf", "Debian qpdf")
	cs := loadShapingCases(t)
	var pick []shapingCase
	for _, c := range cs {
		if c.Name == "arabic" || c.Name == "latin-ligatures" || c.Name == "devanagari" {
			pick = append(pick, c)
		}
	}
	r := shapingRenderer(t, false).WithPrint(testPrint(t, 0))
	out, res := renderShaping(t, r, shapingDesign(t, pick, model.ExportPDF))
	if res.Colour.Space != "CMYK" {
		t.Fatalf("colour space %q, want CMYK", res.Colour.Space)
	}
	dir := t.TempDir()
	pdf := filepath.Join(dir, "cmyk.pdf")
	must(t, os.WriteFile(pdf, out, 0o644))
	// The content streams uncompressed: fills are CMYK ("k"), never RGB ("rg").
	qdf := filepath.Join(dir, "qdf.pdf")
	if b, err := exec.Command("qpdf", "--qdf", "--object-streams=disable", pdf, qdf).CombinedOutput(); err != nil {
		t.Fatalf("qpdf: %v\n%s", err, b)
	}
	content, err := os.ReadFile(qdf)
	if err != nil {
		t.Fatal(err)
	}
	if rgb := regexp.MustCompile(`(?m)[\d.]+ [\d.]+ [\d.]+ rg\b`).Find(content); rgb != nil {
		t.Errorf("an RGB fill in a CMYK PDF: %q", rgb)
	}
	if !regexp.MustCompile(`(?m)[\d.]+ [\d.]+ [\d.]+ [\d.]+ k\b`).Match(content) {
		t.Errorf("no CMYK fill in the PDF")
	}
	txt, err := exec.Command("pdftotext", "-enc", "UTF-8", pdf, "-").Output()
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(strings.Fields(strings.NewReplacer("\u202b", "", "\u202c", "").Replace(string(txt))), " ")
	for _, c := range pick {
		if !strings.Contains(got, c.Text) {
			t.Errorf("%s: pdftotext %q lacks %q", c.Name, got, c.Text)
		}
	}
}
