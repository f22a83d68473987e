package render

import (
	"fmt"
	"strings"

	gofpdf "codeberg.org/go-pdf/fpdf"
)

// Crop marks (docs/colour.md "Crop marks"): with Print.CropMarks on a PDF/X page, the
// MediaBox grows by a slug on every side (or Print.SlugPt's, when wider; a slug text
// goes in it too) and eight trim marks are drawn in it, each on
// the extension of a trim line, starting cropMarkOffsetPt outside the bleed so that no
// mark reaches into the bleed (where a slightly off cut would show it). The TrimBox and
// BleedBox keep their size and move with the content.
const (
	mmPt             = 72 / 25.4
	cropMarkOffsetPt = 2 * mmPt // gap between the bleed edge and a mark
	cropMarkLengthPt = 5 * mmPt
	cropMarkWidthPt  = 0.25
	// cropSlugPt: offset, mark and 1 mm of paper beyond it.
	cropSlugPt = cropMarkOffsetPt + cropMarkLengthPt + 1*mmPt
)

// slugPt is the margin around the bleed of PDF/X (CMYK) pages: the crop marks' slug
// when they are drawn, the configured slug when wider, the crop marks' size for a
// slug text given without a size; 0 for sRGB pages and without marks, slug or text.
func (r *Renderer) slugPt() float64 {
	if !r.print.CMYK() {
		return 0
	}
	m := r.print.SlugPt
	if r.print.CropMarks || (r.print.SlugText != "" && m == 0) {
		m = max(m, cropSlugPt)
	}
	return m
}

// beginPrintPage adds the scene's page, grown by the slug when there is one, with
// the content moved in by the slug, and returns the page height in points the
// content is drawn against (fpdf flips y about it).
func (r *Renderer) beginPrintPage(pdf *gofpdf.Fpdf, s *Scene) float64 {
	m := r.slugPt()
	pdf.AddPageFormat("P", gofpdf.SizeType{Wd: s.PageWidthPt + 2*m, Ht: s.PageHeightPt + 2*m})
	if m > 0 {
		pdf.TransformBegin()
		pdf.TransformTranslate(m, m)
	}
	return s.PageHeightPt + 2*m
}

// endPrintPage closes beginPrintPage's translation and draws the crop marks and the
// slug text.
func (r *Renderer) endPrintPage(pdf *gofpdf.Fpdf, s *Scene) {
	m := r.slugPt()
	if m == 0 {
		return
	}
	pdf.TransformEnd()
	if r.print.CropMarks {
		pdf.RawWriteStr(cropMarks(s.PageWidthPt, s.PageHeightPt, s.BleedPt, m))
	}
	if r.print.SlugText != "" {
		r.slugText(pdf, s, m)
	}
}

// Slug text: a line in the slug below the bleed, as presses print a job's
// description beside the sheet's marks.
const (
	slugTextSizePt    = 6 // the size it is written at when it fits
	slugTextMinSizePt = 3 // the smallest it shrinks to before it is cut
	slugTextGapPt     = 3 * mmPt
)

// slugText writes the slug text in the bottom slug: from the left trim line's mark
// (3 mm right of it) to 3 mm before the right one, centred in the slug's height,
// shrunk to fit the width down to 3 pt and cut with an ellipsis below that. It is
// real text in the embedded DejaVu Sans (pdftotext reads it) in registration black,
// all four inks, so every plate carries the job's name as the crop marks do. It
// never enters the BleedBox.
func (r *Renderer) slugText(pdf *gofpdf.Fpdf, s *Scene, m float64) {
	text := oneLine(r.print.SlugText)
	x0 := m + s.BleedPt + slugTextGapPt
	avail := s.PageWidthPt - 2*s.BleedPt - 2*slugTextGapPt
	size := min(slugTextSizePt, m/2)
	if avail <= 0 || size < slugTextMinSizePt {
		return
	}
	if w := r.MeasureLine(text, size, false, false); w > avail {
		size = max(slugTextMinSizePt, size*avail/w)
		for rs := []rune(text); len(rs) > 0 && r.MeasureLine(text, size, false, false) > avail; {
			rs = rs[:len(rs)-1]
			text = string(rs) + "…"
		}
	}
	// Baseline: the text's cap height centred in the slug (PDF y up), then in
	// fpdf's y-down page coordinates.
	base := (m - 0.7*size) / 2
	pageH := s.PageHeightPt + 2*m
	pdf.RawWriteStr("q\n1 1 1 1 k\n")
	r.PDFLine(pdf, x0, pageH-base, size, false, false, text)
	pdf.RawWriteStr("Q\n")
}

// cropMarks is the content stream of the eight marks in PDF coordinates (y up) for a
// bleed box of w x h points placed at (m, m), with the trim b inside it. The marks
// are registration black (100 % of all four inks, so they appear on every plate, as
// presses expect), hairline, butt caps, knocking out.
func cropMarks(w, h, b, m float64) string {
	var sb strings.Builder
	sb.WriteString("q\n1 1 1 1 K\n")
	fmt.Fprintf(&sb, "%.2f w 0 J [] 0 d\n", cropMarkWidthPt)
	line := func(x1, y1, x2, y2 float64) {
		fmt.Fprintf(&sb, "%.3f %.3f m %.3f %.3f l S\n", x1, y1, x2, y2)
	}
	near, far := m-cropMarkOffsetPt, m-cropMarkOffsetPt-cropMarkLengthPt // left or bottom
	for _, y := range []float64{m + b, m + h - b} {                      // horizontal trim lines
		line(far, y, near, y)
		line(m+w+cropMarkOffsetPt, y, m+w+cropMarkOffsetPt+cropMarkLengthPt, y)
	}
	for _, x := range []float64{m + b, m + w - b} { // vertical trim lines
		line(x, far, x, near)
		line(x, m+h+cropMarkOffsetPt, x, m+h+cropMarkOffsetPt+cropMarkLengthPt)
	}
	sb.WriteString("Q\n")
	return sb.String()
}
