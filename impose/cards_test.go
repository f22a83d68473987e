package impose

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	gofpdf "codeberg.org/go-pdf/fpdf"
	"github.com/printworker/printworker/internal/imgcheck"
	"github.com/printworker/printworker/internal/printcheck"
	"github.com/printworker/printworker/render"
)

// card writes a business card: trim tw x th mm with bleed b, a coloured background
// over the bleed, a frame on the trim and a label (front: "F<name>", back:
// "B<name>") on each page. icc, when set, makes it PDF/X-4 with that output profile.
func card(t testing.TB, name string, tw, th, b float64, back bool, icc []byte) []byte {
	t.Helper()
	pdf := gofpdf.NewCustom(&gofpdf.InitType{UnitStr: "mm", Size: gofpdf.SizeType{Wd: tw + 2*b, Ht: th + 2*b}})
	pdf.SetAutoPageBreak(false, 0)
	pdf.SetCreationDate(time.Unix(0, 0).UTC())
	pdf.SetModificationDate(time.Unix(0, 0).UTC())
	if icc != nil {
		render.DeclarePDFX(pdf, "test press", icc, name, time.Unix(0, 0).UTC())
	}
	pdf.AddUTF8FontFromBytes("pw-goregular", "", goregularTTF())
	pages := []string{"F" + name}
	if back {
		pages = append(pages, "B"+name)
	}
	for i, label := range pages {
		pdf.AddPage()
		// fpdf's boxes are in the document's unit, y up.
		pdf.SetPageBox("trim", b, b, tw, th)
		pdf.SetPageBox("bleed", 0, 0, tw+2*b, th+2*b)
		if icc != nil {
			// A PDF/X-4 item paints in its output intent's CMYK (a DeviceRGB fill
			// would fail the sheet's pdfx4 preflight, rightly).
			pdf.RawWriteStr(fmt.Sprintf("0.2 %.2f 0 0 k\n", 0.1+0.08*float64(i)))
			pdf.Rect(0, 0, tw+2*b, th+2*b, "F")
			pdf.RawWriteStr("0 0 0 1 k\n")
		} else {
			pdf.SetFillColor(200, 230-20*i, 255)
			pdf.Rect(0, 0, tw+2*b, th+2*b, "F")
		}
		pdf.SetDrawColor(0, 0, 0)
		pdf.Rect(b, b, tw, th, "D")
		pdf.SetFont("pw-goregular", "", 14)
		// Off centre, so that a back turned the wrong way lands elsewhere.
		pdf.Text(b+8, b+14, label)
	}
	var buf bytes.Buffer
	var err error
	if icc != nil {
		err = render.WritePDFX(pdf, &buf)
	} else {
		err = render.WritePDF(pdf, &buf)
	}
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// imposeSheets imposes in with tpl into dir/sheets.pdf, checked as a print shop
// would (qpdf, preflight), and returns the result and the file's path.
func imposeSheets(t *testing.T, dir string, tpl *Template, in []Input, o Options) (*Result, string) {
	t.Helper()
	var out bytes.Buffer
	res, err := Impose(context.Background(), &out, tpl, in, o)
	if err != nil {
		t.Fatal(err)
	}
	sheets := filepath.Join(dir, "sheets.pdf")
	if err := os.WriteFile(sheets, out.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	printcheck.PDF(t, "sheets.pdf", out.Bytes())
	return res, sheets
}

// word is a word pdftotext found: page (from 1), text, centre in mm from the page's
// lower-left corner.
type word struct {
	page int
	text string
	x, y float64
}

var (
	rePage = regexp.MustCompile(`<page width="([0-9.]+)" height="([0-9.]+)">`)
	reWord = regexp.MustCompile(`<word xMin="([0-9.]+)" yMin="([0-9.]+)" xMax="([0-9.]+)" yMax="([0-9.]+)">([^<]*)</word>`)
)

// words runs pdftotext -bbox on a PDF.
func words(t *testing.T, pdf string) []word {
	t.Helper()
	imgcheck.Tool(t, "pdftotext", "poppler-utils")
	out, err := exec.Command("pdftotext", "-bbox", pdf, "-").Output()
	if err != nil {
		t.Fatalf("pdftotext: %v", err)
	}
	var ws []word
	page, h := 0, 0.0
	for _, line := range strings.Split(string(out), "\n") {
		if m := rePage.FindStringSubmatch(line); m != nil {
			page++
			h, _ = strconv.ParseFloat(m[2], 64)
			continue
		}
		if m := reWord.FindStringSubmatch(line); m != nil {
			var v [4]float64
			for i := range v {
				v[i], _ = strconv.ParseFloat(m[i+1], 64)
			}
			ws = append(ws, word{page: page, text: m[5], x: (v[0] + v[2]) / 2 / ptPerMM, y: (h - (v[1]+v[3])/2) / ptPerMM})
		}
	}
	return ws
}

// bestGrid counts, independently of Layout, the most w x h items (or turned) with
// the gutter between them and the bleed inside the margins.
func bestGrid(sw, sh, margin, gutter, bleed, w, h float64) int {
	count := func(avail, cell float64) int {
		n := 0
		for float64(n+1)*cell+float64(n)*gutter+2*bleed <= avail+1e-9 {
			n++
		}
		return n
	}
	a := count(sw-2*margin, w) * count(sh-2*margin, h)
	b := count(sw-2*margin, h) * count(sh-2*margin, w)
	return max(a, b)
}

// TestBusinessCards is the showcase: 85 x 55 mm cards with 2 mm bleed, fronts
// and backs, on SRA3 with 10 mm margins and 4 mm gutters, work-and-turn, cut-and-stack.
func TestBusinessCards(t *testing.T) {
	t.Parallel()
	tpl, err := ParseTemplate(strings.NewReader(`{"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 10, "gutter_mm": 4,
		"duplex": "turn", "order": "cut-stack", "marks": true, "codes": "code128"}`))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	// 28 cards, the first listed 15 times: 42 copies, two full sheets.
	var in []Input
	labelAt := map[string][2]float64{} // label -> centre in trim mm, from the item itself
	for i := 1; i <= 28; i++ {
		name := fmt.Sprintf("card-%02d.pdf", i)
		data := card(t, fmt.Sprintf("%02d", i), 85, 55, 2, true, nil)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, w := range words(t, p) {
			labelAt[w.text] = [2]float64{w.x - 2, w.y - 2}
		}
		n := 1
		if i == 1 {
			n = 15
		}
		for range n {
			in = append(in, Input{Name: name, Data: data})
		}
	}
	res, sheets := imposeSheets(t, dir, tpl, in, Options{Batch: "B42", Created: time.Unix(1.7e9, 0).UTC()})

	capacity := bestGrid(320, 450, 10, 4, 2, 85, 55)
	if capacity != 21 {
		t.Fatalf("independent best grid: %d", capacity)
	}
	n := (len(in) + capacity - 1) / capacity
	if res.Sheets != n || len(res.Placements) != len(in) {
		t.Fatalf("%d sheets and %d placements, want %d and %d", res.Sheets, len(res.Placements), n, len(in))
	}
	perSheet := map[int]int{}
	for _, p := range res.Placements {
		perSheet[p.Sheet]++
	}
	for s := 1; s <= n; s++ {
		if perSheet[s] != capacity {
			t.Errorf("sheet %d holds %d copies, want the best grid's %d", s, perSheet[s], capacity)
		}
	}

	// Labels: the front of each copy within 1 mm of its placement, the back within
	// 1 mm of the mirrored position x' = W - x - w.
	ws := words(t, sheets)
	type key struct {
		page int
		text string
	}
	found := map[key][]word{}
	for _, w := range ws {
		found[key{w.page, w.text}] = append(found[key{w.page, w.text}], w)
	}
	near := func(ws []word, x, y float64) bool {
		for _, w := range ws {
			if math.Hypot(w.x-x, w.y-y) <= 1 {
				return true
			}
		}
		return false
	}
	for _, p := range res.Placements {
		num := strings.TrimSuffix(strings.TrimPrefix(p.Item, "card-"), ".pdf")
		f, b := labelAt["F"+num], labelAt["B"+num]
		if !near(found[key{2*p.Sheet - 1, "F" + num}], p.X+f[0], p.Y+f[1]) {
			t.Errorf("%s copy %d: front label not within 1 mm of (%.1f, %.1f) on sheet %d: %v", p.Item, p.Copy, p.X+f[0], p.Y+f[1], p.Sheet, found[key{2*p.Sheet - 1, "F" + num}])
		}
		bx := 320 - p.X - p.W
		if !near(found[key{2 * p.Sheet, "B" + num}], bx+b[0], p.Y+b[1]) {
			t.Errorf("%s copy %d: back label not within 1 mm of (%.1f, %.1f) on sheet %d's back: %v", p.Item, p.Copy, bx+b[0], p.Y+b[1], p.Sheet, found[key{2 * p.Sheet, "B" + num}])
		}
	}

	// Stack order: cut every sheet, stack position by position (sheet 1 on top),
	// take the stacks in row-major order from the top-left: the input order.
	idx := make([]int, len(res.Placements))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		pa, pb := res.Placements[idx[a]], res.Placements[idx[b]]
		if pa.Y != pb.Y {
			return pa.Y > pb.Y
		}
		if pa.X != pb.X {
			return pa.X < pb.X
		}
		return pa.Sheet < pb.Sheet
	})
	for i, j := range idx {
		if i != j {
			t.Fatalf("stack order: copy %d of the input comes %dth out of the stacks", j, i)
		}
	}

	// Each distinct page embedded once: 28 cards x 2 pages, however many copies.
	if q, err := exec.LookPath("qpdf"); err == nil {
		qdf, err := exec.Command(q, "--qdf", "--object-streams=disable", sheets, "-").Output()
		if err != nil {
			t.Fatal(err)
		}
		if got := bytes.Count(qdf, []byte("/Subtype /Form")); got != 56 {
			t.Errorf("%d form XObjects, want 56 (each item page once)", got)
		}
		if bytes.Contains(qdf, []byte("/Subtype /Image")) {
			t.Error("the sheets hold an image: the items' vectors were not kept")
		}
	}

	// Every code decodes with zbarimg at 300 dpi, on its sheet's front.
	imgcheck.Tool(t, "pdftoppm", "poppler-utils")
	imgcheck.Tool(t, "zbarimg", "zbar-tools")
	for s := 1; s <= res.Sheets; s++ {
		png := filepath.Join(dir, fmt.Sprintf("sheet%d", s))
		if out, err := exec.Command("pdftoppm", "-r", "300", "-png", "-singlefile", "-f", strconv.Itoa(2*s-1), "-l", strconv.Itoa(2*s-1), sheets, png).CombinedOutput(); err != nil {
			t.Fatalf("pdftoppm: %v\n%s", err, out)
		}
		out, _ := exec.Command("zbarimg", "-q", "--raw", png+".png").Output()
		got := map[string]bool{}
		for _, l := range strings.Fields(string(out)) {
			got[l] = true
		}
		for _, p := range res.Placements {
			if p.Sheet != s {
				continue
			}
			want := fmt.Sprintf("%s-%d", strings.TrimSuffix(p.Item, ".pdf"), p.Copy)
			if !got[want] {
				t.Errorf("sheet %d: code %q of %s copy %d not decoded (zbarimg read %d codes)", s, want, p.Item, p.Copy, len(got))
			}
		}
	}
}
