package render

import (
	gofpdf "codeberg.org/go-pdf/fpdf"

	"github.com/printworker/printworker/render/fonts"
)

// PDFLine draws one line of s on pdf with its left end at x and its baseline at
// baseline (gofpdf page coordinates, points), size points high, the way a design's
// text is drawn in a vector PDF (pdftext.go): shaped (Arabic joining, bidi, marks) with
// the default family (DejaVu Sans) and the renderer's fallback chain, real text in
// embedded subset fonts where a glyph is its character's, outlines with invisible
// text over them otherwise (CJK from a CFF collection, Arabic contextual forms), so
// pdftotext reads every character. The fill colour in force is the text's colour.
//
// It exists for documents printworker draws besides designs (the job ticket), which
// would otherwise be limited to the core fonts' Windows-1252. It returns the line's
// width and the characters no font covers (drawn as the font's .notdef box).
func (r *Renderer) PDFLine(pdf *gofpdf.Fpdf, x, baseline, size float64, bold, italic bool, s string) (float64, []rune) {
	tl, missing := r.shapeLine(s, size, bold, italic)
	if tl == nil || len(tl.Lines) == 0 {
		return 0, missing
	}
	line := tl.Lines[0]
	v := &vectorPage{pdf: pdf, alpha: 1, shapers: r.shapers}
	v.textFallback, _ = r.fonts.Lookup(fonts.DefaultFamily, fonts.Regular)
	sh := r.shapers.get()
	defer r.shapers.put(sh)
	pt := pdfText{v: v, size: size, sh: sh}
	pdf.TransformBegin()
	pdf.TransformTranslate(x, baseline-line.Baseline)
	pt.line(line)
	pdf.TransformEnd()
	return line.Width, missing
}

// MeasureLine is the width PDFLine would give s.
func (r *Renderer) MeasureLine(s string, size float64, bold, italic bool) float64 {
	tl, _ := r.shapeLine(s, size, bold, italic)
	if tl == nil || len(tl.Lines) == 0 {
		return 0
	}
	return tl.Lines[0].Width
}

// shapeLine lays out s (newlines become spaces: one line) in the default family.
func (r *Renderer) shapeLine(s string, size float64, bold, italic bool) (*TextLayer, []rune) {
	st := fonts.StyleOf(bold, italic)
	primary, _ := r.fonts.Lookup(fonts.DefaultFamily, st)
	if primary == nil {
		return nil, nil
	}
	s = oneLine(s)
	tl, rep, err := r.shapers.layoutText(s, textRequest{primary: primary, style: st, reg: r.fonts, size: size, lineHeight: 1, align: "left"})
	if err != nil {
		return nil, nil
	}
	return tl, rep.missing
}

// oneLine turns line breaks and other control characters into spaces.
func oneLine(s string) string {
	b := []rune(s)
	for i, c := range b {
		if c < 0x20 || c == 0x7f || c == 0x2028 || c == 0x2029 {
			b[i] = ' '
		}
	}
	return string(b)
}
