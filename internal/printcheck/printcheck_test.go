package printcheck

import (
	"bytes"
	"image"
	"image/png"
	"testing"

	gofpdf "codeberg.org/go-pdf/fpdf"
)

// recorder is a testing.TB that records failures instead of failing the test.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Errorf(string, ...any) { r.failed = true }
func (r *recorder) Helper()               {}

func TestFile(t *testing.T) {
	var pngBuf bytes.Buffer
	if err := png.Encode(&pngBuf, image.NewRGBA(image.Rect(0, 0, 4, 4))); err != nil {
		t.Fatal(err)
	}
	pdf := gofpdf.New("P", "pt", "A4", "")
	pdf.AddPage()
	var pdfBuf bytes.Buffer
	if err := pdf.Output(&pdfBuf); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, typ string
		b         []byte
		ok        bool
	}{
		{"good.png", "png", pngBuf.Bytes(), true},
		{"cut.png", "png", pngBuf.Bytes()[:pngBuf.Len()/2], false},
		{"good.pdf", "pdf", pdfBuf.Bytes(), true},
		{"simple.pdf", "pdf-simple", pdfBuf.Bytes(), true},
		{"cut.pdf", "pdf", pdfBuf.Bytes()[:pdfBuf.Len()/2], false},
		{"text.pdf", "pdf", []byte("hello"), false},
		{"x.gif", "gif", pngBuf.Bytes(), false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &recorder{TB: t}
			File(r, c.name, c.typ, c.b)
			if r.failed == c.ok {
				t.Errorf("failed = %v, want %v", r.failed, !c.ok)
			}
		})
	}
}
