package render

import (
	"bytes"
	"testing"
)

// TestPatchWritersAcrossChunks: fpdf hands the whole document to the patching
// writers in one Write, which they work through in patchChunk pieces; a pattern cut
// by a piece's end must be patched exactly as when the same bytes arrive in small
// writes (each pattern is placed straddling a boundary at a different offset).
func TestPatchWritersAcrossChunks(t *testing.T) {
	var doc bytes.Buffer
	doc.WriteString("%PDF-1.4\n")
	patterns := []string{
		"/utf8pw-dejavusans-bold ",
		"/ca 1.000 /CA 1.000 /BM /Multiply",
		"/ca 1.000 /CA 1.000 /BM /Screen",
		"/Producer (" + producer + ")",
		string(groupFrom),
		string(iccFrom),
	}
	for i, p := range patterns {
		// Straddle boundary i+1 with the split point moving through the pattern.
		at := (i+1)*patchChunk - (i*5)%len(p) - 1
		doc.Write(bytes.Repeat([]byte{'x'}, at-doc.Len()))
		doc.WriteString(p)
	}
	doc.WriteString("\nxref\n0 1\n\ntrailer\n<<\n/Size 6\n/Root 5 0 R\n/Info 4 0 R\n>>\nstartxref\n0\n%%EOF\n")

	write := func(chunks int) []byte {
		var out bytes.Buffer
		x := newPDFXWriter(&out)
		tw := &subsetTagWriter{w: x}
		b := doc.Bytes()
		step := (len(b) + chunks - 1) / chunks
		for i := 0; i < len(b); i += step {
			if _, err := tw.Write(b[i:min(i+step, len(b))]); err != nil {
				t.Fatal(err)
			}
		}
		if err := tw.flush(); err != nil {
			t.Fatal(err)
		}
		if err := x.flush(); err != nil {
			t.Fatal(err)
		}
		return out.Bytes()
	}
	whole := write(1)
	if len(whole) != doc.Len()+len("/ID [<> <>]\n")+64 {
		t.Errorf("length %d, want the input's %d plus the /ID line", len(whole), doc.Len())
	}
	if small := write(doc.Len() / 1000); !bytes.Equal(whole, small) {
		t.Fatal("one Write and 1000-byte writes give different documents")
	}
	for _, left := range [][]byte{[]byte("utf8pw-"), []byte("/BM /Multiply"), []byte("/BM /Screen"), groupFrom, iccFrom, []byte(producer)} {
		if bytes.Contains(whole, left) {
			t.Errorf("%q left unpatched", left)
		}
	}
	for _, want := range [][]byte{overprintTo, knockoutTo, groupTo, iccTo, infoTo, []byte("%PDF-1.6")} {
		if !bytes.Contains(whole, want) {
			t.Errorf("output lacks %q", want)
		}
	}
}

// trimBeforeBleed gives one byte sequence whichever order fpdf wrote a page's boxes
// in, moving nothing else.
func TestTrimBeforeBleed(t *testing.T) {
	const trim, bleed = "/TrimBox [9.00 9.00 283.46 283.46]", "/BleedBox [0.00 0.00 301.46 301.46]"
	page := func(a, b string) string {
		return "3 0 obj\n<</Type /Page\n/Parent 1 0 R\n/MediaBox [0 0 301.46 301.46]\n" + a + "\n" + b + "\n/Resources 2 0 R\n>>\nendobj\n"
	}
	want := page(trim, bleed) + "stream\n/BleedBox [x]\n/Other\nendstream\n" + page(trim, bleed)
	for _, in := range []string{
		page(trim, bleed) + "stream\n/BleedBox [x]\n/Other\nendstream\n" + page(trim, bleed),
		page(bleed, trim) + "stream\n/BleedBox [x]\n/Other\nendstream\n" + page(trim, bleed),
		page(bleed, trim) + "stream\n/BleedBox [x]\n/Other\nendstream\n" + page(bleed, trim),
	} {
		doc := []byte(in)
		trimBeforeBleed(doc)
		if string(doc) != want {
			t.Errorf("trimBeforeBleed(%q) =\n%q, want\n%q", in, doc, want)
		}
	}
	// A document ending inside the lines is left alone.
	for _, in := range []string{"\n/BleedBox [1]", "\n/BleedBox [1]\n/TrimBox [2]"} {
		doc := []byte(in)
		trimBeforeBleed(doc)
		if string(doc) != in {
			t.Errorf("trimBeforeBleed(%q) = %q", in, doc)
		}
	}
}
