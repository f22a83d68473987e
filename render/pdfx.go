package render

import (
	"bytes"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	gofpdf "codeberg.org/go-pdf/fpdf"
	"github.com/printworker/printworker/model"
)

// PDF/X-4 (ISO 15930-7) for pdf and pdf-simple when a CMYK output profile is set
// (docs/colour.md "PDF/X-4 output"): the catalog's OutputIntent (GTS_PDFX) embeds the
// profile; the Info dictionary says GTS_PDFXVersion (PDF/X-4) and Trapped False, and
// so does the XMP metadata; the trailer has a document ID; every page has a TrimBox
// (the export box) inside a BleedBox (trim plus bleed) equal to the MediaBox.
//
// fpdf writes most of it through its API (page boxes, output intent, XMP). Four things
// it cannot say are patched in its output by pdfxWriter, each replacement the same
// length as what it replaces so every xref offset stays right (as subsetTagWriter
// does for font names):
//   - the output profile's stream: fpdf always declares "/N 3 /Alternate /DeviceRGB";
//   - the pages' transparency group, which fpdf blends in DeviceRGB: CMYK instead;
//   - the Info keys: the Producer is written as a placeholder the writer expands;
//   - overprint: fpdf only makes transparency graphics states, so the overprint state
//     is registered as an opaque "Multiply" state and the knockout state as an opaque
//     "Screen" state (blend modes the renderer never uses otherwise) and rewritten;
//   - the trailer /ID, which fpdf writes only for encrypted files: it is inserted
//     after the cross-reference table, where no offset points past it;
//   - the header: fpdf writes the lowest version its features need (%PDF-1.3 to
//     1.5) and has no way to set it, while PDF/X-4 is based on PDF 1.6 (its
//     transparency and optional content rules are 1.6's) and the file says so with
//     %PDF-1.6: the version digit is rewritten (pdfxHeader). Nothing fpdf writes
//     needs more than 1.6.

// pdfxVersion is the Info and XMP value of GTS_PDFXVersion.
const pdfxVersion = "PDF/X-4"

// Byte patches of pdfxWriter (see the file comment).
var (
	iccFrom = []byte("<< /N 3 /Alternate /DeviceRGB ")
	iccTo   = []byte("<</N 4 /Alternate /DeviceCMYK ")

	infoTo   = []byte("/Producer (printworker) /GTS_PDFXVersion (" + pdfxVersion + ") /Trapped /False")
	producer = producerMarker()

	groupFrom = []byte("/Group <</Type /Group /S /Transparency /CS /DeviceRGB>>")
	groupTo   = []byte("/Group <</Type/Group /S /Transparency /CS /DeviceCMYK>>")

	overprintFrom = []byte("/ca 1.000 /CA 1.000 /BM /Multiply")
	overprintTo   = pad("/OP true /op true /OPM 1", len(overprintFrom))
	knockoutFrom  = []byte("/ca 1.000 /CA 1.000 /BM /Screen")
	knockoutTo    = pad("/OP false /op false", len(knockoutFrom))
)

// producerMarker is the Producer value whose Info line "/Producer (marker)" is as
// long as infoTo.
func producerMarker() string {
	n := len(infoTo) - len("/Producer ()")
	return ("printworker-pdfx-marker" + strings.Repeat("0", n))[:n]
}

func pad(s string, n int) []byte { return []byte(s + strings.Repeat(" ", n-len(s))) }

// Blend modes standing for the overprint and knockout states (see the file comment).
const (
	blendOverprint = "Multiply"
	blendKnockout  = "Screen"
)

// setupPDFX declares the document PDF/X-4 with the profile as its output intent.
func setupPDFX(pdf *gofpdf.Fpdf, p *OutputProfile, title string, created time.Time) {
	pdf.SetProducer(producer, false)
	// Without a condition: not a registered characterization, "Custom" with the
	// profile's own name, as ISO 15930-7 asks when the profile is embedded.
	ident, info := "Custom", pdfLiteral(p.Name)
	if c := p.Condition; c.Identifier != "" {
		ident, info = pdfLiteral(c.Identifier), pdfLiteral(c.Info)
		if info == "" {
			info = pdfLiteral(p.Name)
		}
		if c.Registry != "" {
			// fpdf has no RegistryName field and writes Info as "/Info (%s) ":
			// the registry is written as a key of its own after the Info string
			// (both made safe by pdfLiteral, so nothing else can be closed).
			info += ") /RegistryName (" + pdfLiteral(c.Registry)
		}
	}
	pdf.AddOutputIntent(gofpdf.OutputIntentType{
		SubtypeIdent:              gofpdf.OutputIntent_GTS_PDFX,
		OutputConditionIdentifier: ident,
		Info:                      info,
		ICCProfile:                p.ICC,
	})
	pdf.SetXmpMetadata(pdfxXMP(title, created))
}

// pdfLiteral makes s safe inside a PDF literal string written without escaping:
// printable ASCII without parentheses or backslashes.
func pdfLiteral(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '(' || r == ')' || r == '\\':
			return '-'
		case r < 0x20 || r > 0x7e:
			return '?'
		}
		return r
	}, s)
}

// pdfxXMP is the XMP packet PDF/X-4 requires: version, dates, ids, title. The
// document id is derived from the title and date, so the same design gives the same
// bytes.
func pdfxXMP(title string, created time.Time) []byte {
	sum := sha256.Sum256([]byte(title + "\x00" + created.Format(time.RFC3339Nano)))
	h := hex.EncodeToString(sum[:16])
	uuid := h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
	date := created.UTC().Format("2006-01-02T15:04:05Z")
	var b bytes.Buffer
	b.WriteString("<?xpacket begin=\"\xef\xbb\xbf\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n")
	b.WriteString(`<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">` + "\n")
	b.WriteString(`<rdf:Description rdf:about="" xmlns:pdfxid="http://www.npes.org/pdfx/ns/id/" xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/" xmlns:dc="http://purl.org/dc/elements/1.1/">` + "\n")
	fmt.Fprintf(&b, "<pdfxid:GTS_PDFXVersion>%s</pdfxid:GTS_PDFXVersion>\n", pdfxVersion)
	fmt.Fprintf(&b, "<xmp:CreateDate>%s</xmp:CreateDate><xmp:ModifyDate>%s</xmp:ModifyDate><xmp:MetadataDate>%s</xmp:MetadataDate>\n", date, date, date)
	b.WriteString("<xmp:CreatorTool>printworker</xmp:CreatorTool><pdf:Producer>printworker</pdf:Producer><pdf:Trapped>False</pdf:Trapped>\n")
	fmt.Fprintf(&b, "<xmpMM:DocumentID>uuid:%s</xmpMM:DocumentID><xmpMM:InstanceID>uuid:%s</xmpMM:InstanceID><xmpMM:VersionID>1</xmpMM:VersionID><xmpMM:RenditionClass>default</xmpMM:RenditionClass>\n", uuid, uuid)
	b.WriteString("<dc:format>application/pdf</dc:format><dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\">")
	xmlEscape(&b, title)
	b.WriteString("</rdf:li></rdf:Alt></dc:title>\n</rdf:Description></rdf:RDF></x:xmpmeta>\n<?xpacket end=\"w\"?>")
	return b.Bytes()
}

func xmlEscape(b *bytes.Buffer, s string) {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;")
	b.WriteString(r.Replace(s))
}

// setPageBoxes gives the current page its TrimBox (the export box) and BleedBox (the
// whole page: trim plus bleed, equal to the MediaBox). fpdf writes boxes in PDF
// coordinates (y up); the bleed is the same on every side.
// m is the slug of crop marks around the bleed (0 without them).
func setPageBoxes(pdf *gofpdf.Fpdf, s *Scene, m float64) {
	b := s.BleedPt
	pdf.SetPageBox("trim", m+b, m+b, s.PageWidthPt-2*b, s.PageHeightPt-2*b)
	pdf.SetPageBox("bleed", m, m, s.PageWidthPt, s.PageHeightPt)
}

// pdfxWriter applies the byte patches of the file comment to fpdf's output and adds
// the trailer /ID: the first 16 bytes of the SHA-256 of everything before it (each
// spliced picture stream standing as its own SHA-256, see writeStream), so the same
// document gets the same id.
type pdfxWriter struct {
	w      io.Writer
	carry  []byte
	buf    []byte // reused: the carry and the next chunk of a write (see patchChunk)
	sum    hash.Hash
	err    error
	header bool // the %PDF-1.n header has been rewritten
}

// pdfxHeader is the file header of PDF/X-4 output (see the file comment).
const pdfxHeader = "%PDF-1.6"

func newPDFXWriter(w io.Writer) *pdfxWriter { return &pdfxWriter{w: w, sum: sha256.New()} }

// pdfxHold is the tail held back between writes: enough for any patch to be seen
// whole, and for the trailer to be in hand at the end.
const pdfxHold = 4096

var pdfxPatches = [][2][]byte{
	{iccFrom, iccTo},
	{[]byte("/Producer (" + producer + ")"), infoTo},
	{groupFrom, groupTo},
	{overprintFrom, overprintTo},
	{knockoutFrom, knockoutTo},
}

func (x *pdfxWriter) Write(p []byte) (int, error) {
	if x.err != nil {
		return 0, x.err
	}
	return chunked(p, x.write)
}

func (x *pdfxWriter) write(p []byte) error {
	buf := append(append(x.buf[:0], x.carry...), p...)
	x.buf = buf
	if !x.header && len(buf) >= len(pdfxHeader) {
		if !bytes.HasPrefix(buf, []byte(pdfxHeader[:len(pdfxHeader)-1])) || buf[len(pdfxHeader)-1] < '0' || buf[len(pdfxHeader)-1] > '6' {
			x.err = fmt.Errorf("pdf/x: fpdf's header %q is not %%PDF-1.0 to 1.6", buf[:len(pdfxHeader)])
			return x.err
		}
		copy(buf, pdfxHeader)
		x.header = true
	}
	for _, pt := range pdfxPatches {
		// Only the patterns fpdf writes in uncompressed dictionaries; a match cannot
		// straddle the held-back tail because the tail is longer than any pattern
		// and is searched again with the next write.
		for i := 0; ; {
			j := bytes.Index(buf[i:], pt[0])
			if j < 0 {
				break
			}
			copy(buf[i+j:], pt[1])
			i += j + len(pt[1])
		}
	}
	keep := min(len(buf), pdfxHold)
	out := buf[:len(buf)-keep]
	x.sum.Write(out)
	if _, err := x.w.Write(out); err != nil {
		x.err = err
		return err
	}
	x.carry = append(x.carry[:0], buf[len(buf)-keep:]...)
	return nil
}

// flush writes the tail with the /ID inserted into the trailer dictionary.
func (x *pdfxWriter) flush() error {
	if x.err != nil {
		return x.err
	}
	tail := x.carry
	marker := []byte("\ntrailer\n<<\n")
	at := bytes.LastIndex(tail, marker)
	if at < 0 {
		return fmt.Errorf("pdf/x: no trailer in the document's tail")
	}
	at += len(marker)
	x.sum.Write(tail[:at])
	id := hex.EncodeToString(x.sum.Sum(nil)[:16])
	rest, err := fixInfoRef(tail[at:])
	if err != nil {
		return err
	}
	out := make([]byte, 0, len(tail)+80)
	out = append(out, tail[:at]...)
	out = append(out, fmt.Sprintf("/ID [<%s> <%s>]\n", id, id)...)
	out = append(out, rest...)
	_, err = x.w.Write(out)
	x.carry = nil
	return err
}

// writeStream writes a spliced picture stream (splicedStreams), neither patched nor
// searched, since the patterns are in dictionaries. The /ID hash takes the stream's
// own SHA-256, sum, in its place: already computed (the picture's name), it commits
// to the stream as well as the bytes would, without hashing megabytes once more. What
// is held back goes out first; a pattern cannot continue into the stream, so nothing
// held is left unpatched.
func (x *pdfxWriter) writeStream(p []byte, sum *[sha256.Size]byte) error {
	if x.err != nil {
		return x.err
	}
	if !x.header {
		x.err = fmt.Errorf("pdf/x: a stream before the header")
		return x.err
	}
	x.sum.Write(x.carry)
	x.sum.Write(sum[:])
	for _, b := range [][]byte{x.carry, p} {
		if _, err := x.w.Write(b); err != nil {
			x.err = err
			return err
		}
	}
	x.carry = x.carry[:0]
	return nil
}

// imageCarrier puts an image fpdf cannot parse (raw CMYK, with a soft mask) into a
// document: fpdf's Template interface is the one public way to hand it a ready
// ImageInfoType (built with GobDecode), which UseTemplate registers under a name
// ImageOptions then draws. The template itself is an empty form.
type imageCarrier struct {
	id     string
	images map[string]*gofpdf.ImageInfoType
}

func (c *imageCarrier) ID() string { return c.id }
func (c *imageCarrier) Size() (gofpdf.PointType, gofpdf.SizeType) {
	return gofpdf.PointType{}, gofpdf.SizeType{Wd: 1, Ht: 1}
}
func (c *imageCarrier) Bytes() []byte                            { return nil }
func (c *imageCarrier) Images() map[string]*gofpdf.ImageInfoType { return c.images }
func (c *imageCarrier) Templates() []gofpdf.Template             { return nil }
func (c *imageCarrier) NumPages() int                            { return 1 }
func (c *imageCarrier) FromPage(int) (gofpdf.Template, error)    { return c, nil }
func (c *imageCarrier) FromPages() []gofpdf.Template             { return []gofpdf.Template{c} }
func (c *imageCarrier) Serialize() ([]byte, error)               { return nil, fmt.Errorf("not serializable") }
func (c *imageCarrier) GobDecode([]byte) error                   { return fmt.Errorf("not serializable") }
func (c *imageCarrier) GobEncode() ([]byte, error)               { return nil, fmt.Errorf("not serializable") }

// rawImage describes a ready image stream for registerRawImage.
type rawImage struct {
	w, h int
	// cs is the PDF colour space: DeviceCMYK (fpdf then declares Decode [1 0 1 0 1 0
	// 1 0], so the samples are stored inverted, as Adobe CMYK JPEGs are) or DeviceGray.
	cs string
	// data is the stream: zlib (FlateDecode) samples; with dp set, rows led by PNG
	// filter bytes.
	data []byte
	// dp is the stream's /DecodeParms content ("" for none).
	dp string
	// smask, when set, is the zlib soft mask: each row a PNG filter byte and w alpha
	// bytes (fpdf declares the PNG predictor for soft masks).
	smask []byte
	// sum, when set, is the SHA-256 of data (see splicedStreams.add).
	sum *[sha256.Size]byte
	// bpc is the bits per sample (8 when 0).
	bpc int
	// wFrac is added to the width fpdf sorts its images by (catalog sort) but
	// writes as an integer: images of equal width otherwise go in map order.
	wFrac float64
}

// registerRawImage makes a raw image drawable by name with ImageOptions. The
// ImageInfoType is assembled through its GobDecode, whose field order is fpdf's
// (def.go: data, smask, n, w, h, cs, pal, bpc, f, dp, trns, scale, dpi). With
// streams set, fpdf is handed placeholders for the stream and mask, and the real
// bytes are spliced in when the document is written (splicedStreams).
func registerRawImage(pdf *gofpdf.Fpdf, streams *splicedStreams, name string, im rawImage) error {
	data, smask := im.data, im.smask
	if streams != nil {
		data = streams.add(im.data, im.sum)
		if smask != nil {
			smask = streams.add(im.smask, nil)
		}
	}
	return registerImageInfo(pdf, name, im, data, smask)
}

// registerImageInfo is registerRawImage with the stream and soft mask fpdf is handed
// (the image's own or placeholders); im's data and smask are not read.
func registerImageInfo(pdf *gofpdf.Fpdf, name string, im rawImage, data, smask []byte) error {
	var buf bytes.Buffer
	// Room for the streams up front: a megabytes-long picture stream would otherwise
	// grow the buffer by doubling, copying and clearing each time.
	buf.Grow(len(data) + len(smask) + 1024)
	enc := gob.NewEncoder(&buf)
	bpc := im.bpc
	if bpc == 0 {
		bpc = 8
	}
	fields := []any{data, smask, 0, float64(im.w) + im.wFrac, float64(im.h), im.cs,
		[]byte{}, bpc, "FlateDecode", im.dp, []int{}, 1.0, 72.0}
	for _, f := range fields {
		if err := enc.Encode(f); err != nil {
			return fmt.Errorf("pdf image %s: %w", name, err)
		}
	}
	info := new(gofpdf.ImageInfoType)
	if err := info.GobDecode(buf.Bytes()); err != nil {
		return fmt.Errorf("pdf image %s: %w", name, err)
	}
	c := &imageCarrier{id: "c" + name, images: map[string]*gofpdf.ImageInfoType{name: info}}
	// The carrier registers the image as "t<id>-<name>"; drawing its empty form at
	// zero size leaves no mark.
	pdf.UseTemplateScaled(c, gofpdf.PointType{}, gofpdf.SizeType{Wd: 0, Ht: 0})
	return pdf.Error()
}

// carriedName is the name registerRawImage's image is drawn by.
func carriedName(name string) string { return "tc" + name + "-" + name }

// newPrintPDF starts a document: newPDF, declared PDF/X-4 when the output is CMYK,
// whose picture streams are then kept in the returned splicedStreams (nil for sRGB).
func (r *Renderer) newPrintPDF(d *model.DesignDetail) (*gofpdf.Fpdf, *splicedStreams) {
	pdf := newPDF(d)
	r.declarePlates(pdf)
	if !r.print.CMYK() {
		return pdf, nil
	}
	setupPDFX(pdf, r.print.Profile, d.Name, designTime(d))
	return pdf, &splicedStreams{}
}

// writePrintPDF writes the document, through pdfxWriter when it is PDF/X.
func (r *Renderer) writePrintPDF(pdf *gofpdf.Fpdf, streams *splicedStreams, w io.Writer) error {
	switch {
	case r.print.CMYK():
		return writePDFX(pdf, streams, w)
	case r.hasPlates():
		return r.writePlainPDF(pdf, w)
	}
	return writePDF(pdf, w)
}

// writePDFX writes a PDF/X document through pdfxWriter with the picture streams
// spliced in (streams may be nil when fpdf holds them itself) and its pages' boxes
// in a fixed order.
func writePDFX(pdf *gofpdf.Fpdf, streams *splicedStreams, w io.Writer) error {
	x := newPDFXWriter(w)
	if streams == nil {
		streams = &splicedStreams{}
	}
	// Without the pictures fpdf's document is small (fonts, page content, the
	// profile): held whole, so that the splices and the offsets they move are known
	// before any of it is written.
	var doc bytes.Buffer
	if err := writePDF(pdf, &doc); err != nil {
		return err
	}
	trimBeforeBleed(doc.Bytes())
	fixPlates(doc.Bytes())
	if err := streams.splice(doc.Bytes(), x); err != nil {
		return err
	}
	return x.flush()
}

// trimBeforeBleed puts each page's /TrimBox line before its /BleedBox line in an
// fpdf document. fpdf writes a page's boxes in Go map order (putpages ranges over
// pageBoxes[n]), so a PDF/X page came out as one of two byte sequences at random,
// and the trailer /ID that hashes the document with it. Swapping two lines of a page
// dictionary moves no offset.
func trimBeforeBleed(doc []byte) {
	bleed, trim := []byte("\n/BleedBox ["), []byte("\n/TrimBox [")
	for i := 0; ; {
		j := bytes.Index(doc[i:], bleed)
		if j < 0 {
			return
		}
		j += i + 1 // the BleedBox line's start
		k := bytes.IndexByte(doc[j:], '\n')
		if k < 0 {
			return
		}
		k += j // the newline ending it
		if !bytes.HasPrefix(doc[k:], trim) {
			i = k
			continue
		}
		l := bytes.IndexByte(doc[k+1:], '\n')
		if l < 0 {
			return
		}
		l += k + 1 // the newline ending the TrimBox line
		swapped := make([]byte, 0, l-j)
		swapped = append(append(append(swapped, doc[k+1:l]...), '\n'), doc[j:k]...)
		copy(doc[j:l], swapped)
		i = l
	}
}

// splicedStreams keeps a CMYK document's picture streams out of fpdf. fpdf would copy
// a megabytes-long stream some six times (the gob round trip that registers it, its
// SHA-1 image id, putstream's string conversion, its output buffer growing by
// doubling, and the two patching writers' chunks; together 19 % of the CMYK T-shirt
// PDF's CPU and half its allocation, 108.6 against 51.0 MiB).
// It gets a short placeholder stream instead, and splice writes the real bytes in
// its place, correcting the stream's /Length, the cross-reference offsets and
// startxref: the document fpdf would have written with the stream itself, but for
// its image resource names (/I and the SHA-1 of what it was handed: now of the
// placeholder) and the trailer /ID, which hashes each spliced stream's SHA-256
// instead of its bytes (pdfxWriter.writeStream).
type splicedStreams struct {
	data [][]byte
	sums [][sha256.Size]byte // of data, for the /ID (pdfxWriter.writeStream)
	// later delivers, by index, the streams added with addLater (nil for the others):
	// their data and sums are filled in by resolve.
	later []func() ([]byte, *[sha256.Size]byte, error)
	// resolved are called, in order, once resolve has every stream.
	resolved []func()
}

// whenResolved has resolve call f once it has every stream.
func (s *splicedStreams) whenResolved(f func()) { s.resolved = append(s.resolved, f) }

// A placeholder is spliceTag and the stream's index in eight decimal digits.
const (
	spliceTag    = "pw-spliced-stream-"
	spliceDigits = 8
)

// add keeps a stream and returns the placeholder fpdf is to write for it. sum is the
// stream's SHA-256 when the caller has it, else nil.
func (s *splicedStreams) add(data []byte, sum *[sha256.Size]byte) []byte {
	if sum == nil {
		h := sha256.Sum256(data)
		sum = &h
	}
	s.data = append(s.data, data)
	s.sums = append(s.sums, *sum)
	s.later = append(s.later, nil)
	return fmt.Appendf(nil, "%s%0*d", spliceTag, spliceDigits, len(s.data)-1)
}

// addLater is add for a stream still being made: get waits for it and returns it,
// with its SHA-256 or nil. splice calls get before writing anything.
func (s *splicedStreams) addLater(get func() ([]byte, *[sha256.Size]byte, error)) []byte {
	s.data = append(s.data, nil)
	s.sums = append(s.sums, [sha256.Size]byte{})
	s.later = append(s.later, get)
	return fmt.Appendf(nil, "%s%0*d", spliceTag, spliceDigits, len(s.data)-1)
}

// resolve waits for the streams added with addLater and fills in their data and sums.
func (s *splicedStreams) resolve() error {
	for i, get := range s.later {
		if get == nil {
			continue
		}
		data, sum, err := get()
		if err != nil {
			return err
		}
		if sum == nil {
			h := sha256.Sum256(data)
			sum = &h
		}
		s.data[i], s.sums[i], s.later[i] = data, *sum, nil
	}
	for _, f := range s.resolved {
		f()
	}
	s.resolved = nil
	return nil
}

// spliceEdit replaces doc[at:end] by with; with sum set, with is a picture stream of
// that SHA-256 (pdfxWriter.writeStream).
type spliceEdit struct {
	at, end int
	with    []byte
	sum     *[sha256.Size]byte
}

// splice writes doc, fpdf's document with placeholders, to x with the streams in
// their places. fpdf writes each as "/Length n>>\nstream\n<placeholder>\nendstream"
// (putimage, putstream) and ends the document with its cross-reference table (one
// "%010d 00000 n \n" line per object), the trailer, and "startxref\n<offset>".
func (s *splicedStreams) splice(doc []byte, x *pdfxWriter) error {
	const (
		lengthKey = "/Length "
		before    = ">>\nstream\n"
		after     = "\nendstream"
	)
	if err := s.resolve(); err != nil {
		return err
	}
	var edits []spliceEdit
	used := make([]bool, len(s.data))
	pattern := []byte(before + spliceTag)
	for i := 0; ; {
		j := bytes.Index(doc[i:], pattern)
		if j < 0 {
			break
		}
		at := i + j + len(before)
		end := at + len(spliceTag) + spliceDigits
		if end+len(after) > len(doc) || string(doc[end:end+len(after)]) != after {
			return fmt.Errorf("pdf/x: placeholder at %d not followed by endstream", at)
		}
		n, err := strconv.Atoi(string(doc[at+len(spliceTag) : end]))
		if err != nil || n < 0 || n >= len(s.data) || used[n] {
			return fmt.Errorf("pdf/x: placeholder %q", doc[at:end])
		}
		used[n] = true
		// The /Length value just before: it must be the placeholder's length.
		l1 := at - len(before)
		l0 := bytes.LastIndex(doc[max(0, l1-32):l1], []byte(lengthKey))
		if l0 < 0 {
			return fmt.Errorf("pdf/x: no /Length before the placeholder at %d", at)
		}
		l0 += max(0, l1-32) + len(lengthKey)
		if string(doc[l0:l1]) != strconv.Itoa(end-at) {
			return fmt.Errorf("pdf/x: /Length %q before the placeholder at %d", doc[l0:l1], at)
		}
		edits = append(edits,
			spliceEdit{at: l0, end: l1, with: strconv.AppendInt(nil, int64(len(s.data[n])), 10)},
			spliceEdit{at: at, end: end, with: s.data[n], sum: &s.sums[n]})
		i = end
	}
	for n, u := range used {
		if !u {
			return fmt.Errorf("pdf/x: stream %d has no placeholder in the document", n)
		}
	}
	// shift is where a byte at offset o of doc lands in the output.
	shift := func(o int) int {
		d := 0
		for _, e := range edits {
			if e.at >= o {
				break
			}
			d += len(e.with) - (e.end - e.at)
		}
		return o + d
	}
	tail, err := spliceXref(doc, shift)
	if err != nil {
		return err
	}
	edits = append(edits, tail)
	pos := 0
	for _, e := range edits {
		if _, err := x.Write(doc[pos:e.at]); err != nil {
			return err
		}
		if e.sum != nil {
			err = x.writeStream(e.with, e.sum)
		} else {
			_, err = x.Write(e.with)
		}
		if err != nil {
			return err
		}
		pos = e.end
	}
	_, err = x.Write(doc[pos:])
	return err
}

// spliceXref is the edit that rewrites doc's last cross-reference table and
// startxref with every offset moved by shift.
func spliceXref(doc []byte, shift func(int) int) (spliceEdit, error) {
	const entry = 20 // "%010d 00000 n \n"
	x := bytes.LastIndex(doc, []byte("\nxref\n"))
	if x < 0 {
		return spliceEdit{}, fmt.Errorf("pdf/x: no cross-reference table")
	}
	x++
	p := x + len("xref\n")
	nl := bytes.IndexByte(doc[p:], '\n')
	var first, count int
	if nl < 0 {
		return spliceEdit{}, fmt.Errorf("pdf/x: cross-reference table without a subsection")
	}
	if _, err := fmt.Sscanf(string(doc[p:p+nl]), "%d %d", &first, &count); err != nil || first != 0 || count < 1 {
		return spliceEdit{}, fmt.Errorf("pdf/x: cross-reference subsection %q", doc[p:p+nl])
	}
	p += nl + 1
	if p+count*entry > len(doc) {
		return spliceEdit{}, fmt.Errorf("pdf/x: cross-reference table cut short")
	}
	out := make([]byte, 0, len(doc)-x+16)
	out = append(out, doc[x:p]...)
	for i := range count {
		e := doc[p+i*entry : p+(i+1)*entry]
		if i == 0 || e[17] != 'n' {
			out = append(out, e...)
			continue
		}
		o, err := strconv.Atoi(string(e[:10]))
		if err != nil || e[10] != ' ' {
			return spliceEdit{}, fmt.Errorf("pdf/x: cross-reference entry %q", e)
		}
		out = fmt.Appendf(out, "%010d", shift(o))
		out = append(out, e[10:]...)
	}
	p += count * entry
	const sx = "startxref\n"
	s := bytes.LastIndex(doc, []byte(sx))
	if s < p {
		return spliceEdit{}, fmt.Errorf("pdf/x: no startxref after the cross-reference table")
	}
	s += len(sx)
	nl = bytes.IndexByte(doc[s:], '\n')
	if nl < 0 {
		return spliceEdit{}, fmt.Errorf("pdf/x: startxref without an offset")
	}
	if o, err := strconv.Atoi(string(doc[s : s+nl])); err != nil || o != x {
		return spliceEdit{}, fmt.Errorf("pdf/x: startxref %q, the table is at %d", doc[s:s+nl], x)
	}
	out = append(out, doc[p:s]...)
	out = strconv.AppendInt(out, int64(shift(x)), 10)
	out = append(out, doc[s+nl:]...)
	return spliceEdit{at: x, end: len(doc), with: out}, nil
}

// trailerRefs reads fpdf's trailer lines "/Root n 0 R" and "/Info m 0 R".
var trailerRefs = regexp.MustCompile(`/Root (\d+) 0 R\n/Info (\d+) 0 R`)

// fixInfoRef corrects fpdf's trailer /Info reference. fpdf writes the Info
// dictionary, then the output intent's profile stream, then the catalog, and points
// /Info at the object before the catalog: the profile. The Info dictionary is the
// object before that one.
func fixInfoRef(trailer []byte) ([]byte, error) {
	m := trailerRefs.FindSubmatchIndex(trailer)
	if m == nil {
		return nil, fmt.Errorf("pdf/x: trailer without /Root and /Info")
	}
	root, err := strconv.Atoi(string(trailer[m[2]:m[3]]))
	if err != nil || root < 3 {
		return nil, fmt.Errorf("pdf/x: trailer /Root %q", trailer[m[2]:m[3]])
	}
	out := append([]byte{}, trailer[:m[4]]...)
	out = strconv.AppendInt(out, int64(root-2), 10)
	return append(out, trailer[m[5]:]...), nil
}
