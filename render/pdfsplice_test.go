package render

import (
	"bytes"
	"compress/zlib"
	"errors"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"testing"
	"time"

	gofpdf "codeberg.org/go-pdf/fpdf"
	"github.com/printworker/printworker/model"
)

// TestSplicedStreams: a PDF/X document whose picture streams are spliced in at output
// (splicedStreams) is the document fpdf writes when it holds the streams itself, but
// for fpdf's image resource names (the SHA-1 of what it was handed) and hence the
// trailer /ID; every cross-reference offset points at its object and startxref at the
// table, with several pictures, a soft mask and two pages.
func TestSplicedStreams(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
		return b
	}
	// Valid Flate streams, so that qpdf --check can decode them.
	stream := func(n int) []byte {
		var b bytes.Buffer
		zw := zlib.NewWriter(&b)
		zw.Write(random(n))
		zw.Close()
		return b.Bytes()
	}
	pics := []rawImage{
		{w: 40, h: 30, cs: "DeviceCMYK", data: stream(70000), dp: "/Predictor 15 /Colors 4 /BitsPerComponent 8 /Columns 40"},
		{w: 41, h: 7, cs: "DeviceCMYK", data: stream(3), smask: stream(123456), dp: "/Predictor 15 /Colors 4 /BitsPerComponent 8 /Columns 41"},
		{w: 900, h: 2, cs: "DeviceGray", data: stream(1 << 20)},
	}
	icc := random(5000)
	// later, with streams, hands the streams over through addLater (as cmykImage does
	// for a picture still being converted); fail makes the last one fail.
	var later, fail bool
	build := func(streams *splicedStreams) []byte {
		pdf := newPDF(&model.DesignDetail{Name: "splice", Created: "2026-01-02T03:04:05Z"})
		// fpdf writes its images and templates in map order unless told to sort them
		// (by width and by name), so a document with several pictures is otherwise
		// not the same twice, spliced or not.
		pdf.SetCatalogSort(true)
		// Page content uncompressed, so that the resource names can be blanked below.
		pdf.SetCompression(false)
		// fpdf embeds the profile as is: any bytes do for the document's structure.
		setupPDFX(pdf, &OutputProfile{Name: "test profile", ICC: icc}, "splice", time.Unix(0, 0))
		for page := range 2 {
			pdf.AddPageFormat("P", gofpdf.SizeType{Wd: 200, Ht: 100})
			pdf.SetFont("Helvetica", "", 12)
			pdf.Text(10, 10, "page "+strconv.Itoa(page))
			for i, im := range pics {
				name := "pic" + strconv.Itoa(i)
				if pdf.GetImageInfo(carriedName(name)) == nil {
					var err error
					if later && streams != nil {
						get := func(b []byte, fails bool) func() ([]byte, *[32]byte, error) {
							return func() ([]byte, *[32]byte, error) {
								if fails {
									return nil, nil, errors.New("picture failed")
								}
								return b, nil, nil
							}
						}
						data := streams.addLater(get(im.data, fail && i == len(pics)-1))
						var smask []byte
						if im.smask != nil {
							smask = streams.addLater(get(im.smask, false))
						}
						err = registerImageInfo(pdf, name, im, data, smask)
					} else {
						err = registerRawImage(pdf, streams, name, im)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
				pdf.ImageOptions(carriedName(name), float64(10*i), 20, 10, 10, false, gofpdf.ImageOptions{}, 0, "")
			}
		}
		var out bytes.Buffer
		if err := writePDFX(pdf, streams, &out); err != nil {
			if fail {
				return nil
			}
			t.Fatal(err)
		}
		if fail {
			t.Fatal("a stream's failure did not fail the document")
		}
		return out.Bytes()
	}
	whole := build(nil)
	spliced := build(&splicedStreams{})
	if again := build(&splicedStreams{}); !bytes.Equal(spliced, again) {
		t.Fatal("the same document spliced twice gives different bytes")
	}
	later = true
	if l := build(&splicedStreams{}); !bytes.Equal(spliced, l) {
		t.Fatal("streams handed over later give another document than streams at hand")
	}
	fail = true
	build(&splicedStreams{})
	later, fail = false, false
	if bytes.Contains(spliced, []byte(spliceTag)) {
		t.Error("a placeholder is left in the document")
	}
	for _, im := range pics {
		for _, s := range [][]byte{im.data, im.smask} {
			if s != nil && !bytes.Contains(spliced, append([]byte(strconv.Itoa(len(s))+">>\nstream\n"), s...)) {
				t.Errorf("stream of %d bytes not in the document under its /Length", len(s))
			}
		}
	}
	checkXref(t, spliced)
	checkXref(t, whole)
	names := regexp.MustCompile(`/I[0-9a-f]{40}|/ID \[<[0-9a-f]{32}> <[0-9a-f]{32}>\]`)
	// The names also order the page's XObject dictionary (fpdf sorts it by name):
	// compare the documents' lines as sorted multisets.
	blank := func(b []byte) [][]byte {
		lines := bytes.Split(names.ReplaceAll(bytes.Clone(b), []byte("X")), []byte("\n"))
		slices.SortFunc(lines, bytes.Compare)
		return lines
	}
	if len(spliced) != len(whole) || !slices.EqualFunc(blank(spliced), blank(whole), bytes.Equal) {
		t.Error("spliced document differs from fpdf's beyond the image names and /ID")
	}
	qpdf, err := exec.LookPath("qpdf")
	if err != nil {
		t.Skip("qpdf not installed")
	}
	f := filepath.Join(t.TempDir(), "spliced.pdf")
	if err := os.WriteFile(f, spliced, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(qpdf, "--check", f).CombinedOutput(); err != nil {
		t.Errorf("qpdf --check: %v\n%s", err, out)
	}
}

// checkXref checks that every in-use cross-reference entry points at "n 0 obj" and
// that startxref points at the table.
func checkXref(t *testing.T, doc []byte) {
	t.Helper()
	m := regexp.MustCompile(`startxref\n(\d+)\n%%EOF\n$`).FindSubmatch(doc)
	if m == nil {
		t.Fatal("no startxref at the end")
	}
	at, _ := strconv.Atoi(string(m[1]))
	if !bytes.HasPrefix(doc[at:], []byte("xref\n0 ")) {
		t.Fatalf("startxref %d does not point at the table", at)
	}
	entries := regexp.MustCompile(`(\d{10}) 00000 n \n`).FindAllSubmatch(doc[at:], -1)
	if len(entries) < 10 {
		t.Fatalf("%d cross-reference entries", len(entries))
	}
	for i, e := range entries {
		o, _ := strconv.Atoi(string(e[1]))
		if want := strconv.Itoa(i+1) + " 0 obj"; !bytes.HasPrefix(doc[o:], []byte(want)) {
			t.Errorf("object %d: offset %d points at %q", i+1, o, doc[o:min(len(doc), o+12)])
		}
	}
}
