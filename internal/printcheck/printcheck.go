// Package printcheck verifies print files the way a print shop's preflight would, for
// the tests of every package that produces them: a PNG must decode, a PDF must pass
// `qpdf --check` (when qpdf is installed; otherwise its header and trailer are
// checked and the test log says the deeper check was skipped), every number in its
// objects and content streams must be one a reader takes (Numbers), and a PDF/X-4
// file must pass printworker's preflight with the pdfx4 profile (PDFX4).
package printcheck

import (
	"bytes"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/preflight"
)

// File checks b, the content of the file name of export type typ (png, pdf,
// pdf-simple, tiff), and reports problems on t.
func File(t testing.TB, name, typ string, b []byte) {
	t.Helper()
	switch typ {
	case model.ExportPNG:
		if _, err := png.Decode(bytes.NewReader(b)); err != nil {
			t.Errorf("%s: PNG does not decode: %v", name, err)
		}
	case model.ExportPDF, model.ExportPDFSimple:
		PDF(t, name, b)
	case "tiff":
		// The CMYK TIFF (render's tiff export): a little-endian TIFF header.
		if !bytes.HasPrefix(b, []byte("II*\x00")) {
			t.Errorf("%s: not a little-endian TIFF", name)
		}
	default:
		t.Errorf("%s: unexpected export type %q", name, typ)
	}
}

// PDF checks a PDF document's numbers (Numbers, to the reader limit) and runs
// qpdf --check on it.
func PDF(t testing.TB, name string, b []byte) {
	t.Helper()
	if !bytes.HasPrefix(b, []byte("%PDF-")) || !bytes.Contains(b[max(0, len(b)-1024):], []byte("%%EOF")) {
		t.Errorf("%s: not a complete PDF (header or trailer missing, %d bytes)", name, len(b))
		return
	}
	if err := Numbers(b, ReaderMaxReal); err != nil {
		t.Errorf("%s: %v", name, err)
	}
	PDFX4(t, name, b)
	if _, err := exec.LookPath("qpdf"); err != nil {
		t.Logf("%s: qpdf not installed, only the PDF's header and trailer were checked", name)
		return
	}
	p := filepath.Join(t.TempDir(), "check.pdf")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("qpdf", "--check", p).CombinedOutput(); err != nil {
		t.Errorf("%s: qpdf --check: %v\n%s", name, err, out)
	}
}

// PDFX4 checks a file that declares itself PDF/X-4 (GTS_PDFXVersion) with
// printworker's own preflight (docs/preflight.md): any error finding is a test
// error. Other PDFs are left alone.
func PDFX4(t testing.TB, name string, b []byte) {
	t.Helper()
	if !bytes.Contains(b, []byte("/GTS_PDFXVersion")) {
		return
	}
	fr := preflight.Check(name, b, preflight.PDFX4Rules(), preflight.DefaultLimits)
	for _, f := range fr.Findings {
		if f.Severity == preflight.Error {
			t.Errorf("%s: preflight --profile pdfx4: %s (page %d): %s", name, f.Code, f.Page, f.Message)
		}
	}
}
