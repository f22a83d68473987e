package render

import (
	"bytes"
	"context"
	"regexp"
	"slices"
	"testing"

	"github.com/printworker/printworker/model"
)

// pdfStructure is the order in which a PDF writes its fonts, images and page boxes:
// each font's /BaseFont, each image's size and each box's name, as they come in the
// file.
var pdfStructure = regexp.MustCompile(`/BaseFont /\S+|/Subtype /Image\s*/Width \d+\s*/Height \d+|\d+ 0 obj|/(?:Trim|Bleed)Box`)

// TestPDFStructureReproducible: the same design writes its fonts and images in the
// same order, with the same object numbers, every time (sRGB and PDF/X): fpdf writes
// them in map order unless its catalog sort is on (newPDF), and several fonts on a
// page came out in a different order on each run. Likewise a PDF/X page's TrimBox and
// BleedBox (trimBeforeBleed). The bytes are not compared: fpdf's
// font subsetter still picks among code points sharing a glyph in map order, which
// changes a few bytes of an embedded subset (docs/rendering.md, "Output formats").
func TestPDFStructureReproducible(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, design, view string
		cmyk               bool
	}{
		{"text/srgb", "text.json", "", false},
		{"text/cmyk", "text.json", "", true},
		{"pictures/srgb", "pictures.json", "main", false},
		{"pictures/cmyk", "pictures.json", "main", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := loadDesign(t, c.design)
			view := c.view
			if view == "" {
				view = d.Views[0].ID
			}
			for i := range d.Views {
				d.Views[i].Export.Type = model.ExportPDF
			}
			r := newRenderer(t, Options{})
			if c.cmyk {
				r = r.WithPrint(testPrint(t, 0))
			}
			var first []string
			// Map order differs from run to run; a few runs show a dependence on it.
			for i := range 6 {
				var buf bytes.Buffer
				if _, err := r.RenderView(context.Background(), d, view, DirSource(mediaDir), &buf); err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, m := range pdfStructure.FindAll(buf.Bytes(), -1) {
					got = append(got, string(m))
				}
				if i == 0 {
					first = got
					if !slices.ContainsFunc(got, func(s string) bool { return s[0] == '/' }) {
						t.Fatalf("no font or image found in the PDF")
					}
					continue
				}
				if !slices.Equal(got, first) {
					t.Fatalf("render %d writes its fonts and images in another order:\n%q\nfirst:\n%q", i+1, got, first)
				}
			}
		})
	}
}
