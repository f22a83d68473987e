package render

import (
	"bytes"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/printworker/printworker/model"
)

// TestSlugText: a slug text is written in the slug below the bleed: the MediaBox
// grows by the slug around the unchanged BleedBox and TrimBox, pdftotext reads the
// line, every word of it lies inside the MediaBox and outside the BleedBox, and the
// file passes qpdf --check; with crop marks, without them and with a wider slug, on
// vector and raster pages. A text too long for the page is shrunk and cut, never
// written into the bleed.
func TestSlugText(t *testing.T) {
	t.Parallel()
	needTools(t, "qpdf", "pdfinfo", "pdftotext")
	bl := 3 * 72 / 25.4
	const w, h = 200.0, 150.0
	const job = "1001 line 2 Front press-pdfx4 2024-03-14"
	long := strings.Repeat("Ünïcode order 1001 ", 20)
	for _, tc := range []struct {
		name  string
		typ   string
		marks bool
		slug  float64
		text  string
		m     float64 // the slug the page gets
	}{
		{"vector marks", model.ExportPDF, true, 0, job, cropSlugPt},
		{"raster marks", model.ExportPDFSimple, true, 0, job, cropSlugPt},
		{"vector text only", model.ExportPDF, false, 0, job, cropSlugPt},
		{"wide slug", model.ExportPDF, true, 12 * mmPt, job, 12 * mmPt},
		{"long text", model.ExportPDF, false, 5 * mmPt, long, 5 * mmPt},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := testPrint(t, bl)
			p.CropMarks, p.SlugPt, p.SlugText = tc.marks, tc.slug, tc.text
			b, res := renderPrint(t, p, sepDetail(t, tc.typ), "v")
			m := tc.m
			mw, mh := w+2*bl+2*m, h+2*bl+2*m
			if res.PageWidthPt != mw || res.PageHeightPt != mh {
				t.Errorf("result page %gx%g, want %gx%g", res.PageWidthPt, res.PageHeightPt, mw, mh)
			}
			path := writeTemp(t, "slug.pdf", b)
			if out, err := exec.Command("qpdf", "--check", path).CombinedOutput(); err != nil || bytes.Contains(out, []byte("WARNING")) {
				t.Fatalf("qpdf --check: %v\n%s", err, out)
			}
			checkBoxes(t, runTool(t, "pdfinfo", "-box", path), map[string][4]float64{
				"MediaBox": {0, 0, mw, mh},
				"BleedBox": {m, m, m + w + 2*bl, m + h + 2*bl},
				"TrimBox":  {m + bl, m + bl, m + bl + w, m + bl + h},
			})
			text := runTool(t, "pdftotext", "-layout", path, "-")
			want := tc.text
			if tc.name == "long text" {
				want = "Ünïcode order 1001 Ünïcode" // its start; the rest is cut
				if !strings.Contains(text, "…") {
					t.Errorf("long slug text not cut with an ellipsis: %q", text)
				}
			}
			if !strings.Contains(strings.Join(strings.Fields(text), " "), want) {
				t.Errorf("pdftotext lacks %q:\n%s", want, text)
			}
			// Every word's box (y down from the page's top) in the bottom slug.
			bbox := runTool(t, "pdftotext", "-bbox", path, "-")
			re := regexp.MustCompile(`<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>`)
			words := 0
			for _, mt := range re.FindAllStringSubmatch(bbox, -1) {
				if !strings.Contains(tc.text, mt[5]) && mt[5] != "…" && !strings.HasSuffix(mt[5], "…") {
					continue // the design's own text
				}
				words++
				var v [4]float64
				for i := range v {
					v[i], _ = strconv.ParseFloat(mt[i+1], 64)
				}
				if v[0] < 0 || v[2] > mw || v[3] > mh || v[1] < mh-m {
					t.Errorf("word %q at x %.1f..%.1f y %.1f..%.1f: want inside the %gx%g MediaBox below the BleedBox (y > %.1f)", mt[5], v[0], v[2], v[1], v[3], mw, mh, mh-m)
				}
			}
			if words == 0 {
				t.Errorf("no slug words in the bbox output:\n%s", bbox)
			}
		})
	}
}

// TestSlugNeedsCMYK: an sRGB page has no slug (no PDF/X boxes to put it outside of).
func TestSlugNeedsCMYK(t *testing.T) {
	t.Parallel()
	_, res := renderPrint(t, &Print{SlugText: "job", SlugPt: 10 * mmPt}, sepDetail(t, model.ExportPDF), "v")
	if res.PageWidthPt != 200 || res.PageHeightPt != 150 {
		t.Errorf("sRGB page %gx%g, want the view's 200x150", res.PageWidthPt, res.PageHeightPt)
	}
	if err := (&Print{SlugPt: 100}).Validate(); err == nil {
		t.Error("a slug over 1in validated")
	}
}
