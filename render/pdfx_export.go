package render

import (
	"io"
	"time"

	gofpdf "codeberg.org/go-pdf/fpdf"
)

// DeclarePDFX declares an fpdf document PDF/X-4 with the CMYK profile icc (described by
// name) as its output intent, as the renderer's own PDF/X-4 exports are (file comment
// of pdfx.go). Other writers of print PDFs (package impose: press sheets of PDF/X-4
// items) use it with WritePDFX so that one place knows what PDF/X-4 takes.
func DeclarePDFX(pdf *gofpdf.Fpdf, name string, icc []byte, title string, created time.Time) {
	setupPDFX(pdf, &OutputProfile{Name: name, ICC: icc}, title, created)
}

// WritePDFX writes a document declared with DeclarePDFX: fpdf's output with the
// patches PDF/X-4 needs, the pages' boxes in a fixed order and a trailer /ID.
func WritePDFX(pdf *gofpdf.Fpdf, w io.Writer) error { return writePDFX(pdf, nil, w) }

// WritePDF writes a plain fpdf document, its embedded font subsets tagged.
func WritePDF(pdf *gofpdf.Fpdf, w io.Writer) error { return writePDF(pdf, w) }
