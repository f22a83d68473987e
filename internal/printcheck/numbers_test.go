package printcheck

import (
	"bytes"
	"strings"
	"testing"

	gofpdf "codeberg.org/go-pdf/fpdf"
)

// pdfWith returns a gofpdf document (compressed or not) whose page holds raw content.
func pdfWith(t testing.TB, compress bool, raw string) []byte {
	t.Helper()
	pdf := gofpdf.New("P", "pt", "A4", "")
	pdf.SetCompression(compress)
	pdf.AddPage()
	pdf.SetFont("Helvetica", "", 12)
	pdf.Text(10, 20, "Hello (world) \\ <x>")
	pdf.Rect(10, 10, 100, 50, "D")
	pdf.RawWriteStr(raw)
	var b bytes.Buffer
	if err := pdf.Output(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestNumbers(t *testing.T) {
	t.Parallel()
	huge := strings.Repeat("9", 300) + ".00"
	cases := []struct {
		name, raw string
		limit     float64
		want      string // "" for no problem
	}{
		{"plain", "1 0 0 1 10.5 -20 cm", ReaderMaxReal, ""},
		{"inf", "+Inf 0 0 1 0 0 cm", ReaderMaxReal, "malformed number"},
		{"bare inf", "Inf 0 0 1 0 0 cm", ReaderMaxReal, "unknown operator"},
		{"nan", "NaN 0 0 1 0 0 cm", ReaderMaxReal, "unknown operator"},
		{"exponent", "1e5 0 0 1 0 0 cm", ReaderMaxReal, "malformed number"},
		{"300 digits", huge + " 0 0 1 0 0 cm", ReaderMaxReal, "out of range"},
		{"over limit", "2e7", 1e7, "malformed number"},
		{"over the render limit", "10000001 0 m", 1e7, "out of range"},
		{"at the limit", "10000000 -10000000 m", 1e7, ""},
		{"two dots", "1.2.3 w", ReaderMaxReal, "malformed number"},
		{"unknown operator", "1 0 0 1 0 0 foo", ReaderMaxReal, "unknown operator"},
	}
	for _, c := range cases {
		for _, compress := range []bool{false, true} {
			b := pdfWith(t, compress, c.raw)
			err := Numbers(b, c.limit)
			switch {
			case c.want == "" && err != nil:
				t.Errorf("%s (compressed %v): %v", c.name, compress, err)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("%s (compressed %v): err %v, want %q", c.name, compress, err, c.want)
			}
		}
	}
}

// The checker reads hostile bytes: never a panic, bounded work.
func FuzzNumbers(f *testing.F) {
	f.Add(pdfWith(f, false, "1 0 0 1 0 0 cm"))
	f.Add(pdfWith(f, true, "+Inf 0 0 1 0 0 cm"))
	f.Add([]byte("1 0 obj << /Length 999999 >> stream\nabc"))
	f.Add([]byte("1 0 obj << /Contents 2 0 R >> endobj 2 0 obj << /Filter /FlateDecode /Length 3 >> stream\nxyz endstream endobj"))
	f.Add([]byte("1 0 obj (unterminated <"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_ = Numbers(b, 1e7)
	})
}
