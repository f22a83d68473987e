package render

import (
	"fmt"
	"strings"

	gofpdf "codeberg.org/go-pdf/fpdf"
)

// Crop marks (docs/colour.md "Crop marks"): with Print.CropMarks on a PDF/X page, the
// MediaBox grows by a slug on every side and eight trim marks are drawn in it, each on
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

// slugPt is the margin around the bleed that crop marks need (0 without them). Marks
// are drawn on PDF/X (CMYK) pages only.
func (r *Renderer) slugPt() float64 {
	if r.print.CMYK() && r.print.CropMarks {
		return cropSlugPt
	}
	return 0
}

// beginPrintPage adds the scene's page, grown by the slug when there are crop marks,
// with the content moved in by the slug, and returns the page height in points the
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

// endPrintPage closes beginPrintPage's translation and draws the crop marks.
func (r *Renderer) endPrintPage(pdf *gofpdf.Fpdf, s *Scene) {
	m := r.slugPt()
	if m == 0 {
		return
	}
	pdf.TransformEnd()
	pdf.RawWriteStr(cropMarks(s.PageWidthPt, s.PageHeightPt, s.BleedPt, m))
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
