package worker

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"image/png"
	"io"
	"strconv"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render"
)

// A downloaded view is checked before it is stored (docs/pipeline.md, "Downloaded
// files are checked"): a hub, or whatever answers for it, can send a 200 with an
// HTML page, an empty body or a cut file, and storing it would mark the order done
// with a file no press can print.

// DownloadTries is how many attempts a view whose download is not a usable file
// gets: the first ones are retried (a hub mid-deploy, a cache serving an error
// page), the last fails for good with the reason.
const DownloadTries = 3

const (
	// checkHead is how much of a download is read before anything is stored: the
	// type, the header and, for a TIFF whose first directory is near the start, the
	// pixel size.
	checkHead = 64 << 10
	// checkTail is how much of the end is kept to check a PNG's IEND and a PDF's
	// trailer.
	checkTail = 1 << 10
)

// DownloadError is a downloaded file that is not what the view asked for. It is
// retryable until the task's DownloadTries-th attempt, permanent on that one.
type DownloadError struct {
	View    string
	Type    string // the file type expected (png, pdf, tiff, ...)
	Reason  string
	Attempt int // 1-based
}

func (e *DownloadError) Error() string {
	s := fmt.Sprintf("hub export of view %s is not a usable %s file: %s (attempt %d of %d)", e.View, e.Type, e.Reason, e.Attempt, DownloadTries)
	if !e.Retryable() {
		s += "; not stored, given up"
	} else {
		s += "; not stored, retried"
	}
	return s
}

// Retryable is true before the last of DownloadTries attempts.
func (e *DownloadError) Retryable() bool { return e.Attempt < DownloadTries }

// checkedDownload reads the head of body and checks it against typ (the file type
// the download is stored as) and the expected pixel size (0: unknown); the reader
// it returns yields the whole body and checks its end, failing at EOF instead of
// ending when the end is wrong, so storage never commits the file.
func checkedDownload(body io.Reader, typ string, wantW, wantH int, fail func(reason string) error) (io.Reader, error) {
	br := bufio.NewReaderSize(body, checkHead)
	head, err := br.Peek(checkHead)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
		return nil, err // the transport's error, classified as it is
	}
	if len(head) == 0 {
		return nil, fail("the body is empty")
	}
	if reason := checkHeadBytes(head, typ, wantW, wantH); reason != "" {
		return nil, fail(reason)
	}
	return &tailCheck{r: br, typ: typ, fail: fail}, nil
}

// checkHeadBytes says what is wrong with the start of a file of type typ, "" when
// nothing is.
func checkHeadBytes(head []byte, typ string, wantW, wantH int) string {
	got := sniff(head)
	if got != kindOfType(typ) {
		if got == hub.KindUnknown {
			return "its first bytes " + describeHead(head) + " are no known file type"
		}
		return "it is a " + got + " file"
	}
	var w, h int
	switch got {
	case hub.KindPNG:
		cfg, err := png.DecodeConfig(bytes.NewReader(head))
		if err != nil {
			return "its PNG header does not decode: " + err.Error()
		}
		w, h = cfg.Width, cfg.Height
	case render.ExportTIFF:
		var reason string
		if w, h, reason = tiffSize(head); reason != "" {
			return reason
		}
	}
	if w > 0 && wantW > 0 && (!near(w, wantW) || !near(h, wantH)) {
		return fmt.Sprintf("it is %dx%d pixels, the view exports %dx%d", w, h, wantW, wantH)
	}
	return ""
}

// near allows the hub its own rounding of the export size: 2 pixels or 0.5%.
func near(got, want int) bool {
	d := got - want
	if d < 0 {
		d = -d
	}
	return d <= max(2, want/200)
}

// sniff is the hub client's kind of the bytes, and TIFF, which the hub's kinds do
// not name.
func sniff(head []byte) string {
	if bytes.HasPrefix(head, []byte("II*\x00")) || bytes.HasPrefix(head, []byte("MM\x00*")) {
		return render.ExportTIFF
	}
	return hub.SniffKind(head)
}

// kindOfType is the kind of bytes a file of type typ holds.
func kindOfType(typ string) string {
	switch typ {
	case model.ExportPNG:
		return hub.KindPNG
	case model.ExportPDF, model.ExportPDFSimple:
		return hub.KindPDF
	}
	return typ // tiff, and the hub's kinds a download may follow (followKind)
}

// describeHead shows the first bytes of a file for an error: at most 16, printable
// ASCII, others as \xNN.
func describeHead(head []byte) string {
	return strconv.QuoteToASCII(string(head[:min(16, len(head))]))
}

// tiffSize reads the pixel size from a TIFF's first directory when it lies within
// head; a directory further on is not read (the file streams into storage), and the
// size goes unchecked.
func tiffSize(head []byte) (w, h int, reason string) {
	if len(head) < 8 {
		return 0, 0, "its TIFF header is cut short"
	}
	var bo binary.ByteOrder = binary.LittleEndian
	if head[0] == 'M' {
		bo = binary.BigEndian
	}
	off := int64(bo.Uint32(head[4:8]))
	if off < 8 {
		return 0, 0, "its TIFF header points to no directory"
	}
	if off+2 > int64(len(head)) {
		return 0, 0, ""
	}
	n := int64(bo.Uint16(head[off:]))
	for i := int64(0); i < n; i++ {
		e := off + 2 + 12*i
		if e+12 > int64(len(head)) {
			break
		}
		tag, typ := bo.Uint16(head[e:]), bo.Uint16(head[e+2:])
		var v int
		switch typ {
		case 3: // SHORT
			v = int(bo.Uint16(head[e+8:]))
		case 4: // LONG
			v = int(bo.Uint32(head[e+8:]))
		default:
			continue
		}
		switch tag {
		case 256:
			w = v
		case 257:
			h = v
		}
	}
	if w == 0 || h == 0 {
		return 0, 0, ""
	}
	return w, h, ""
}

// tailCheck passes a body through, keeping its last checkTail bytes, and at its end
// checks them: a PNG ends with its IEND chunk, a PDF with a trailer (startxref, an
// offset inside the file, %%EOF). A wrong end replaces io.EOF with the error.
type tailCheck struct {
	r    io.Reader
	typ  string
	fail func(string) error
	n    int64
	tail []byte
	done error
	// xref: a PDF's cross-reference table ("xref" at the start of a line) or stream
	// (/Type /XRef) was seen; carry holds the last bytes of the previous read, so a
	// keyword split between two reads is found.
	xref  bool
	carry []byte
}

func (t *tailCheck) Read(p []byte) (int, error) {
	if t.done != nil {
		return 0, t.done
	}
	n, err := t.r.Read(p)
	t.n += int64(n)
	if !t.xref && kindOfType(t.typ) == hub.KindPDF {
		t.findXref(p[:n])
	}
	t.tail = append(t.tail, p[:n]...)
	if len(t.tail) > 2*checkTail {
		t.tail = append(t.tail[:0], t.tail[len(t.tail)-checkTail:]...)
	}
	if errors.Is(err, io.EOF) {
		reason := checkTailBytes(t.tail, t.n, t.typ)
		if reason == "" && kindOfType(t.typ) == hub.KindPDF && !t.xref {
			reason = "it has no cross-reference table or stream"
		}
		if reason != "" {
			t.done = t.fail(reason)
			return n, t.done
		}
	}
	return n, err
}

var xrefMarks = [][]byte{[]byte("\nxref"), []byte("\rxref"), []byte("/XRef")}

// findXref looks for a cross-reference mark in b and where b joins the end of the
// previous read.
func (t *tailCheck) findXref(b []byte) {
	const keep = 4 // one byte less than the longest mark
	joint := append(t.carry, b[:min(len(b), keep)]...)
	for _, m := range xrefMarks {
		if bytes.Contains(joint, m) || bytes.Contains(b, m) {
			t.xref = true
			return
		}
	}
	if len(b) >= keep {
		joint = b
	}
	t.carry = append(t.carry[:0:0], joint[max(0, len(joint)-keep):]...)
}

var pngEnd = []byte("\x00\x00\x00\x00IEND\xae\x42\x60\x82")

// checkTailBytes says what is wrong with the end of a file of size bytes, "" when
// nothing is.
func checkTailBytes(tail []byte, size int64, typ string) string {
	switch kindOfType(typ) {
	case hub.KindPNG:
		if !bytes.HasSuffix(tail, pngEnd) {
			return fmt.Sprintf("it does not end with the PNG end chunk (cut short at %d bytes?)", size)
		}
	case hub.KindPDF:
		t := bytes.TrimRight(tail, "\r\n\t \x00")
		if !bytes.HasSuffix(t, []byte("%%EOF")) {
			return fmt.Sprintf("it does not end with %%%%EOF (cut short at %d bytes?)", size)
		}
		i := bytes.LastIndex(t, []byte("startxref"))
		if i < 0 {
			return "it has no startxref: no trailer to find its objects by"
		}
		f := bytes.Fields(t[i+len("startxref"):])
		if len(f) < 2 {
			return "its startxref names no offset"
		}
		off, err := strconv.ParseInt(string(f[0]), 10, 64)
		if err != nil || off <= 0 || off >= size {
			return fmt.Sprintf("its startxref offset %s is not inside the file", describeHead(f[0]))
		}
	}
	return ""
}
