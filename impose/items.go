package impose

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"regexp"
	"strconv"
	"strings"

	"github.com/phpdave11/gofpdi"
)

// ptPerMM converts millimetres to PDF points.
const ptPerMM = 72 / 25.4

// Bounds on the input: an item is a card or a label, a few pages of vectors and
// pictures; the bounds keep hostile input cheap.
const (
	maxItemBytes = 64 << 20
	maxCopies    = 100000
)

// Input is one copy of an item: a PDF of one page (front) or two (front, back), each
// with a TrimBox and a BleedBox (no BleedBox: no bleed).
type Input struct {
	// Name is the item as the caller names it (the file name as given); copies of
	// the same item share it.
	Name string
	Data []byte
	// Order and Line, when known, make the code "order-line-copy"; without an order
	// it is "name-copy" (Name's base without its extension).
	Order string
	Line  int
}

// box is a page box in points, lower-left and upper-right.
type box struct{ llx, lly, urx, ury float64 }

// item is a distinct item file: its pages' boxes and, once imported, its templates.
type item struct {
	data  []byte
	pages int
	trim  box // the front's
	bleed box
	size  ItemSize
	tpl   [2]string // form XObject names of the front and back
	// intent is its PDF/X output intent (nil for none).
	intent *outputIntent
}

// safely runs f, turning a panic of the PDF parser (gofpdi panics on some malformed
// files) into an error naming the item.
func safely(name string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("item %s: not a readable PDF: %v", name, r)
		}
	}()
	return f()
}

// readItem parses an item's page boxes.
func readItem(name string, data []byte) (*item, error) {
	if len(data) > maxItemBytes {
		return nil, fmt.Errorf("item %s: %d bytes, more than the %d an item may have", name, len(data), maxItemBytes)
	}
	if err := looksLikePDF(data); err != nil {
		return nil, fmt.Errorf("item %s: %w", name, err)
	}
	// The writer places a page by its boxes as they are; a page turned by /Rotate
	// would land turned and off its cell.
	if reRotate.Match(data) {
		return nil, fmt.Errorf("item %s: a page is turned by /Rotate; export it upright", name)
	}
	it := &item{data: data}
	err := safely(name, func() error {
		imp := gofpdi.NewImporter()
		var rs io.ReadSeeker = newGuard(data)
		imp.SetSourceStream(&rs)
		sizes := imp.GetPageSizes()
		it.pages = len(sizes)
		if it.pages < 1 || it.pages > 2 {
			return fmt.Errorf("item %s: %d pages; an item is a front and at most a back", name, it.pages)
		}
		for p := 1; p <= it.pages; p++ {
			trim, ok := pageBox(sizes[p], "/TrimBox")
			if !ok {
				return fmt.Errorf("item %s: page %d has no TrimBox", name, p)
			}
			bleed, ok := pageBox(sizes[p], "/BleedBox")
			if !ok {
				bleed = trim
			}
			if bleed.llx > trim.llx+0.01 || bleed.lly > trim.lly+0.01 || bleed.urx < trim.urx-0.01 || bleed.ury < trim.ury-0.01 {
				return fmt.Errorf("item %s: page %d's BleedBox does not contain its TrimBox", name, p)
			}
			if p == 1 {
				it.trim, it.bleed = trim, bleed
				continue
			}
			// The importer places every page by the first page's boxes, and a
			// sheet's back sits behind its front: both must be the same.
			if !sameBox(trim, it.trim) || !sameBox(bleed, it.bleed) {
				return fmt.Errorf("item %s: the back's TrimBox and BleedBox differ from the front's", name)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	t, b := it.trim, it.bleed
	it.size = ItemSize{
		TrimW: (t.urx - t.llx) / ptPerMM,
		TrimH: (t.ury - t.lly) / ptPerMM,
		// The bleed all round is its narrowest side: the form is clipped there.
		Bleed: max(0, min(t.llx-b.llx, t.lly-b.lly, b.urx-t.urx, b.ury-t.ury)/ptPerMM),
	}
	if !(it.size.TrimW > 0.1 && it.size.TrimH > 0.1) {
		return nil, fmt.Errorf("item %s: an empty TrimBox", name)
	}
	it.intent, err = findOutputIntent(data)
	if err != nil {
		return nil, fmt.Errorf("item %s: %w", name, err)
	}
	return it, nil
}

var reRotate = regexp.MustCompile(`/Rotate\s+-?[1-9]`)

// guard is an item's bytes as the PDF parser reads them. gofpdi takes the end of the
// file for an empty token and loops on it in places; guard panics (caught by safely)
// once the parser has hit the end many times or read the file many times over, so a
// malformed file costs bounded CPU.
type guard struct {
	*bytes.Reader
	eofs, read, limit int64
}

const guardEOFs = 10000

func newGuard(data []byte) *guard {
	return &guard{Reader: bytes.NewReader(data), limit: 64*int64(len(data)) + 16<<20}
}

func (g *guard) Read(p []byte) (int, error) {
	n, err := g.Reader.Read(p)
	g.read += int64(n)
	if err == io.EOF {
		g.eofs++
	}
	if g.eofs > guardEOFs || g.read > g.limit {
		panic("the parser keeps reading past the file's end or over it: a malformed file")
	}
	return n, err
}

// looksLikePDF checks what the PDF parser (gofpdi) takes for granted and loops
// forever without: a header, and a startxref in the last 1500 bytes (where it looks)
// pointing inside the file.
func looksLikePDF(data []byte) error {
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		return errors.New("not a PDF (no %PDF- header)")
	}
	tail := data[max(0, len(data)-1500):]
	i := bytes.LastIndex(tail, []byte("startxref"))
	if i < 0 {
		return errors.New("not a complete PDF (no startxref at its end)")
	}
	f := bytes.Fields(tail[i+len("startxref"):])
	if len(f) == 0 {
		return errors.New("not a complete PDF (startxref without an offset)")
	}
	off, err := strconv.Atoi(string(f[0]))
	if err != nil || off <= 0 || off >= len(data) {
		return fmt.Errorf("not a complete PDF (startxref %q is not an offset in the file)", f[0])
	}
	return nil
}

func pageBox(m map[string]map[string]float64, name string) (box, bool) {
	b, ok := m[name]
	if !ok {
		return box{}, false
	}
	v := box{min(b["llx"], b["urx"]), min(b["lly"], b["ury"]), max(b["llx"], b["urx"]), max(b["lly"], b["ury"])}
	for _, f := range []float64{v.llx, v.lly, v.urx, v.ury} {
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e6 {
			return box{}, false
		}
	}
	return v, true
}

func sameBox(a, b box) bool {
	const eps = 0.01
	return math.Abs(a.llx-b.llx) < eps && math.Abs(a.lly-b.lly) < eps && math.Abs(a.urx-b.urx) < eps && math.Abs(a.ury-b.ury) < eps
}

// code is the text of a copy's code: order-line-copy, or name-copy without an order,
// printable ASCII only (Code 128 and every scanner's keyboard output).
func (in *Input) code(copy int) string {
	var s string
	if in.Order != "" {
		s = fmt.Sprintf("%s-%d-%d", in.Order, in.Line, copy)
	} else {
		base := path.Base(strings.ReplaceAll(in.Name, "\\", "/"))
		s = fmt.Sprintf("%s-%d", strings.TrimSuffix(base, path.Ext(base)), copy)
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '_'
		}
		return r
	}, s)
}

// key identifies an item's content: copies listed under two names are embedded once.
func key(data []byte) [32]byte { return sha256.Sum256(data) }
