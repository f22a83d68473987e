package gang

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/klauspost/compress/zlib"
)

// pdfMaxUnits is the largest page side readers accept in user units (PDF 1.7 annex C).
// Longer rolls scale the user unit (/UserUnit, PDF 1.6) instead.
const pdfMaxUnits = 14400

// RenderPDF writes sheet i of l as a one-page PDF: each design embedded once as an
// image at its native resolution (the trimmed box, RGB with its alpha as a soft mask),
// drawn for each copy, turned copies by the page matrix, labels in Helvetica and cut
// marks as filled rectangles. One design is in memory at a time, compressed.
func RenderPDF(ctx context.Context, w io.Writer, l *Layout, i int, ld Loader) error {
	if i < 0 || i >= len(l.Sheets) {
		return &InputError{Reason: fmt.Sprintf("sheet %d of %d", i+1, len(l.Sheets))}
	}
	s := &l.Sheets[i]
	c := l.Config
	pt := 72 / c.DPI
	unit := math.Max(1, math.Ceil(math.Max(float64(s.Width), float64(s.Length))*pt/pdfMaxUnits))
	sc := pt / unit // user units per sheet pixel

	// Designs in order of first use; objects 1-5 are fixed, then image and mask per design.
	var keys []string
	index := map[string]int{}
	for _, p := range s.Placements {
		k := l.Designs[p.Design].Key
		if _, ok := index[k]; !ok {
			index[k] = len(keys)
			keys = append(keys, k)
		}
	}
	pw := &pdfWriter{w: bufio.NewWriterSize(w, 1<<16)}
	pw.printf("%%PDF-1.6\n%%\xe2\xe3\xcf\xd3\n")
	pw.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	pw.obj(2, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>")
	var xobj strings.Builder
	for k := range keys {
		fmt.Fprintf(&xobj, " /Im%d %d 0 R", k, 6+2*k)
	}
	page := fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %s %s] /Resources << /XObject <<%s >> /Font << /F1 5 0 R >> >> /Contents 4 0 R",
		num(float64(s.Width)*sc), num(float64(s.Length)*sc), xobj.String())
	if unit > 1 {
		page += " /UserUnit " + num(unit)
	}
	pw.obj(3, page+" >>")
	pw.stream(4, "", pdfContent(l, s, index, sc))
	pw.obj(5, "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	cache := &designCache{ld: ld, designs: map[string]Design{}}
	for _, d := range l.Designs {
		cache.designs[d.Key] = d
	}
	for k, key := range keys {
		if err := ctx.Err(); err != nil {
			return err
		}
		img, err := cache.load(ctx, key)
		if err != nil {
			return err
		}
		t := cache.designs[key].Trim
		var rgb, alpha bytes.Buffer
		zr, za := zlib.NewWriter(&rgb), zlib.NewWriter(&alpha)
		line := make([]byte, 3*t.Dx())
		aline := make([]byte, t.Dx())
		for y := t.Min.Y; y < t.Max.Y; y++ {
			row := img.Pix[img.PixOffset(t.Min.X, y):][:4*t.Dx()]
			for x := 0; x < t.Dx(); x++ {
				copy(line[3*x:3*x+3], row[4*x:4*x+3])
				aline[x] = row[4*x+3]
			}
			zr.Write(line)
			za.Write(aline)
		}
		if err := zr.Close(); err != nil {
			return err
		}
		if err := za.Close(); err != nil {
			return err
		}
		pw.stream(6+2*k, fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /FlateDecode /SMask %d 0 R", t.Dx(), t.Dy(), 7+2*k), rgb.Bytes())
		pw.stream(7+2*k, fmt.Sprintf("/Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /FlateDecode", t.Dx(), t.Dy()), alpha.Bytes())
	}
	pw.trailer(6 + 2*len(keys))
	return pw.err()
}

// pdfContent is the page's drawing: every copy, label and cut mark. PDF's y axis
// points up, the sheet's down.
func pdfContent(l *Layout, s *Sheet, index map[string]int, sc float64) []byte {
	var b bytes.Buffer
	top := func(y int) float64 { return float64(s.Length-y) * sc }
	for k := range s.Placements {
		p := &s.Placements[k]
		im := index[l.Designs[p.Design].Key]
		x0 := float64(p.X) * sc
		if p.Rotation == 0 {
			fmt.Fprintf(&b, "q %s 0 0 %s %s %s cm /Im%d Do Q\n", num(float64(p.W)*sc), num(float64(p.H)*sc), num(x0), num(top(p.Y+p.H)), im)
		} else {
			// Image space (ix, iy) to the sheet: u = iy*srcH, v = ix*srcW (see drawArtRow).
			fmt.Fprintf(&b, "q 0 %s %s 0 %s %s cm /Im%d Do Q\n", num(-float64(p.Src.Dx())*sc), num(float64(p.Src.Dy())*sc), num(x0), num(top(p.Y)), im)
		}
	}
	c := l.Config
	r := &sheetRenderer{}
	b.WriteString("0 0 0 rg\n")
	for k := range s.Placements {
		p := &s.Placements[k]
		if c.Label > 0 {
			e := r.label(c, l.Designs[p.Design], p)
			size := float64(e.r.Dy()) * sc
			fmt.Fprintf(&b, "BT /F1 %s Tf %s %s Td (%s) Tj ET\n", num(size), num(float64(e.r.Min.X)*sc), num(top(e.r.Max.Y)+size*0.2), pdfEscape(e.text))
		}
		if c.Code > 0 {
			if e, ok := code(c, l.Designs[p.Design], p); ok {
				for _, run := range e.runs {
					fmt.Fprintf(&b, "%s %s %s %s re f\n", num(float64(run[0])*sc), num(top(e.r.Max.Y)), num(float64(run[1]-run[0])*sc), num(float64(e.r.Dy())*sc))
				}
			}
		}
		if c.CutMarks {
			for _, m := range cutMarks(c, p, s.Width, s.Length) {
				fmt.Fprintf(&b, "%s %s %s %s re f\n", num(float64(m.r.Min.X)*sc), num(top(m.r.Max.Y)), num(float64(m.r.Dx())*sc), num(float64(m.r.Dy())*sc))
			}
		}
	}
	return b.Bytes()
}

func pdfEscape(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`)
	var clean strings.Builder
	for _, ch := range s {
		if ch < 32 || ch > 126 {
			ch = '?'
		}
		clean.WriteRune(ch)
	}
	return r.Replace(clean.String())
}

// num formats a PDF number: fixed point, no exponent, trailing zeros trimmed.
func num(v float64) string {
	s := fmt.Sprintf("%.4f", v)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" || s == "" {
		return "0"
	}
	return s
}

// pdfWriter writes numbered objects and remembers their offsets for the xref table.
type pdfWriter struct {
	w       *bufio.Writer
	n       int64
	offsets map[int]int64
	werr    error
}

func (p *pdfWriter) printf(format string, a ...any) {
	if p.werr != nil {
		return
	}
	k, err := fmt.Fprintf(p.w, format, a...)
	p.n += int64(k)
	p.werr = err
}

func (p *pdfWriter) write(b []byte) {
	if p.werr != nil {
		return
	}
	k, err := p.w.Write(b)
	p.n += int64(k)
	p.werr = err
}

func (p *pdfWriter) mark(id int) {
	if p.offsets == nil {
		p.offsets = map[int]int64{}
	}
	p.offsets[id] = p.n
}

func (p *pdfWriter) obj(id int, body string) {
	p.mark(id)
	p.printf("%d 0 obj\n%s\nendobj\n", id, body)
}

func (p *pdfWriter) stream(id int, dict string, data []byte) {
	p.mark(id)
	p.printf("%d 0 obj\n<< %s /Length %d >>\nstream\n", id, dict, len(data))
	p.write(data)
	p.printf("\nendstream\nendobj\n")
}

// trailer writes the xref table for objects 1..n-1 and the trailer.
func (p *pdfWriter) trailer(n int) {
	start := p.n
	p.printf("xref\n0 %d\n0000000000 65535 f \n", n)
	for id := 1; id < n; id++ {
		p.printf("%010d 00000 n \n", p.offsets[id])
	}
	p.printf("trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", n, start)
	if p.werr == nil {
		p.werr = p.w.Flush()
	}
}

func (p *pdfWriter) err() error {
	if p.werr != nil {
		return fmt.Errorf("gang: write pdf: %w", p.werr)
	}
	return nil
}
