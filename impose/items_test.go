package impose

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"

	gofpdf "codeberg.org/go-pdf/fpdf"
	"github.com/printworker/printworker/internal/printcheck"
)

const a4Cards = `{"sheet": {"width_mm": 210, "height_mm": 297}, "margin_mm": 8, "gutter_mm": 6, "duplex": "turn"}`

// TestPDFXCarried: a sheet of PDF/X-4 items is PDF/X-4 with their output intent.
func TestPDFXCarried(t *testing.T) {
	t.Parallel()
	// A real press profile: the preflight every test PDF/X file passes reads it.
	icc := pressProfile(t)
	in := []Input{{Name: "a.pdf", Data: card(t, "A", 85, 55, 3, true, icc)}, {Name: "b.pdf", Data: card(t, "B", 85, 55, 3, true, icc)}}
	var out bytes.Buffer
	if _, err := Impose(context.Background(), &out, mustTemplate(t, a4Cards), in, Options{Batch: "x", Created: time.Unix(0, 0).UTC()}); err != nil {
		t.Fatal(err)
	}
	b := out.Bytes()
	printcheck.PDF(t, "sheets.pdf", b)
	for _, want := range []string{"%PDF-1.6", "/GTS_PDFXVersion (PDF/X-4)", "/S /GTS_PDFX", "/Info (test press)", "/TrimBox [0.00 0.00 595.28 841.89]", "<</N 4 /Alternate /DeviceCMYK "} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("sheet PDF lacks %q", want)
		}
	}
	oi, err := findOutputIntent(b)
	if err != nil || oi == nil || !bytes.Equal(oi.icc, icc) {
		t.Errorf("the sheet's output profile is not the items': %v", err)
	}
	// Items with another profile, or none, cannot share the sheet.
	mixed := append(in, Input{Name: "c.pdf", Data: card(t, "C", 85, 55, 3, true, nil)})
	if _, err := Plan(context.Background(), mustTemplate(t, a4Cards), mixed); err == nil || !strings.Contains(err.Error(), "output intent") {
		t.Errorf("mixed intents: err %v", err)
	}
}

// ghostscriptCMYK is Debian's generic CMYK press profile (libgs-common).
const ghostscriptCMYK = "/usr/share/color/icc/ghostscript/default_cmyk.icc"

// pressProfile reads ghostscriptCMYK; it skips where it is missing, except in CI.
func pressProfile(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile(ghostscriptCMYK)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing (apt-get install libgs-common)", ghostscriptCMYK)
		}
		t.Skipf("%s missing (apt-get install libgs-common)", ghostscriptCMYK)
	}
	return b
}

func TestBadItems(t *testing.T) {
	t.Parallel()
	good := card(t, "G", 85, 55, 3, true, nil)
	threePages := func() []byte {
		pdf := gofpdf.New("P", "mm", "A4", "")
		for range 3 {
			pdf.AddPage()
			pdf.SetPageBox("trim", 5, 5, 50, 50)
		}
		var b bytes.Buffer
		_ = pdf.Output(&b)
		return b.Bytes()
	}()
	noTrim := func() []byte {
		pdf := gofpdf.New("P", "mm", "A4", "")
		pdf.AddPage()
		var b bytes.Buffer
		_ = pdf.Output(&b)
		return b.Bytes()
	}()
	tests := []struct {
		name string
		tpl  string
		in   []Input
		want string
	}{
		{"garbage", a4Cards, []Input{{Name: "x.pdf", Data: []byte("%PDF-1.4\nnot really")}}, "x.pdf"},
		{"empty", a4Cards, []Input{{Name: "e.pdf"}}, "e.pdf"},
		{"three pages", a4Cards, []Input{{Name: "3.pdf", Data: threePages}}, "3 pages"},
		{"no trim box", a4Cards, []Input{{Name: "n.pdf", Data: noTrim}}, "TrimBox"},
		{"sizes differ", a4Cards, []Input{{Name: "g.pdf", Data: good}, {Name: "s.pdf", Data: card(t, "S", 50, 50, 3, true, nil)}}, "s.pdf: trim"},
		{"back without duplex", `{"sheet": {"width_mm": 210, "height_mm": 297}, "margin_mm": 8}`, []Input{{Name: "g.pdf", Data: good}}, "has a back"},
		{"code strip too shallow", `{"sheet": {"width_mm": 210, "height_mm": 297}, "margin_mm": 8, "gutter_mm": 1, "duplex": "turn"}`,
			[]Input{{Name: "z.pdf", Data: card(t, "Z", 85, 55, 0, true, nil)}}, "codes need"},
		{"nothing", a4Cards, nil, "no items"},
		{"code wider than the item", a4Cards, []Input{{Name: strings.Repeat("long-name-", 4) + ".pdf", Data: good}}, "wider than the item"},
		{"QR in a thin strip", `{"sheet": {"width_mm": 210, "height_mm": 297}, "margin_mm": 8, "gutter_mm": 6, "duplex": "turn", "codes": "qr"}`,
			[]Input{{Name: "g.pdf", Data: good}}, "QR code's modules"},
		{"rotated page", a4Cards, []Input{{Name: "r.pdf", Data: bytes.Replace(good, []byte("/Type /Page\n"), []byte("/Type /Page\n/Rotate 90\n"), 1)}}, "/Rotate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := Impose(context.Background(), &bytes.Buffer{}, mustTemplate(t, tt.tpl), tt.in, Options{})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err %v, want one saying %q", err, tt.want)
			}
		})
	}
}

// FuzzReadItem feeds the item reader (and the PDF parser under it) hostile bytes: an
// error or an item, never a panic or a hang.
func FuzzReadItem(f *testing.F) {
	f.Add(card(f, "F", 85, 55, 2, true, nil))
	f.Add(card(f, "X", 20, 20, 0, false, bytes.Repeat([]byte("icc "), 64)))
	f.Add([]byte("%PDF-1.4\nstartxref\n9\n%%EOF"))
	f.Fuzz(func(t *testing.T, data []byte) {
		it, err := readItem("f.pdf", data)
		if err == nil && (it.pages < 1 || it.pages > 2 || it.size.TrimW <= 0) {
			t.Fatalf("accepted %+v", it.size)
		}
	})
}
