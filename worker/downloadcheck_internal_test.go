package worker

import (
	"bytes"
	"encoding/binary"
	"errors"
	"image"
	"image/png"
	"io"
	"strings"
	"testing"
)

// tiffHead is a little-endian TIFF header with its first directory right after it,
// naming w x h (SHORT width, LONG height).
func tiffHead(w, h int) []byte {
	b := []byte("II*\x00\x08\x00\x00\x00")
	b = binary.LittleEndian.AppendUint16(b, 2)
	entry := func(tag, typ uint16, v uint32) {
		b = binary.LittleEndian.AppendUint16(b, tag)
		b = binary.LittleEndian.AppendUint16(b, typ)
		b = binary.LittleEndian.AppendUint32(b, 1)
		b = binary.LittleEndian.AppendUint32(b, v)
	}
	entry(256, 3, uint32(w))
	entry(257, 4, uint32(h))
	return append(b, 0, 0, 0, 0)
}

func readChecked(body []byte, typ string, w, h int) error {
	fail := func(reason string) error { return errors.New(reason) }
	r, err := checkedDownload(bytes.NewReader(body), typ, w, h, fail)
	if err != nil {
		return err
	}
	_, err = io.Copy(io.Discard, r)
	return err
}

func TestCheckedDownload(t *testing.T) {
	t.Parallel()
	var pb bytes.Buffer
	if err := png.Encode(&pb, image.NewGray(image.Rect(0, 0, 300, 200))); err != nil {
		t.Fatal(err)
	}
	good := pb.Bytes()
	pdf := []byte("%PDF-1.7\n1 0 obj<<>>endobj\nxref\n0 1\n0000000000 65535 f \ntrailer<<>>\nstartxref\n27\n%%EOF\n")
	cases := []struct {
		name, typ string
		body      []byte
		w, h      int
		want      string // "" for a usable file
	}{
		{"png", "png", good, 300, 200, ""},
		{"png size unknown", "png", good, 0, 0, ""},
		{"png rounded", "png", good, 301, 199, ""},
		{"png other size", "png", good, 600, 400, "300x200 pixels, the view exports 600x400"},
		{"png cut", "png", good[:len(good)-3], 300, 200, "PNG end chunk"},
		{"png header broken", "png", append([]byte("\x89PNG\r\n\x1a\n"), 0, 0, 0, 1, 'X'), 300, 200, "PNG header"},
		{"empty", "png", nil, 0, 0, "empty"},
		{"html", "png", []byte("<!doctype html>"), 0, 0, "no known file type"},
		{"jpeg for png", "png", []byte("\xff\xd8\xff\xe0"), 0, 0, "it is a jpeg file"},
		{"pdf", "pdf", pdf, 0, 0, ""},
		{"pdf-simple", "pdf-simple", pdf, 0, 0, ""},
		{"pdf no eof", "pdf", pdf[:len(pdf)-7], 0, 0, "%%EOF"},
		{"pdf offset outside", "pdf", bytes.Replace(pdf, []byte("\n27\n"), []byte("\n9999\n"), 1), 0, 0, "not inside the file"},
		{"pdf no offset", "pdf", []byte("%PDF-1.4\nstartxref\n%%EOF"), 0, 0, "names no offset"},
		{"pdf no xref", "pdf", []byte("%PDF-1.4\n1 0 obj<<>>endobj\nstartxref\n9\n%%EOF"), 0, 0, "no cross-reference"},
		{"pdf xref stream", "pdf", []byte("%PDF-1.5\n1 0 obj<</Type/XRef>>endobj\nstartxref\n9\n%%EOF"), 0, 0, ""},
		{"tiff", "tiff", tiffHead(300, 200), 300, 200, ""},
		{"tiff other size", "tiff", tiffHead(30, 20), 300, 200, "30x20 pixels"},
		{"tiff big endian dir far", "tiff", []byte("MM\x00*\x7f\x00\x00\x00"), 300, 200, ""},
		{"tiff no directory", "tiff", []byte("II*\x00\x00\x00\x00\x00"), 300, 200, "no directory"},
		{"png for tiff", "tiff", good, 300, 200, "it is a png file"},
	}
	for _, c := range cases {
		err := readChecked(c.body, c.typ, c.w, c.h)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	e := &DownloadError{View: "front", Type: "png", Reason: "x", Attempt: 1}
	if !e.Retryable() || !strings.Contains(e.Error(), "attempt 1 of 3") {
		t.Errorf("first attempt: %v retryable %v", e, e.Retryable())
	}
	e.Attempt = DownloadTries
	if e.Retryable() || !strings.Contains(e.Error(), "given up") {
		t.Errorf("last attempt: %v retryable %v", e, e.Retryable())
	}
}

// TestCheckedDownloadXrefAcrossReads: a cross-reference mark split between two reads
// is found.
func TestCheckedDownloadXrefAcrossReads(t *testing.T) {
	t.Parallel()
	pdf := []byte("%PDF-1.5\n1 0 obj<</Type/XRef>>endobj\nstartxref\n9\n%%EOF")
	for cut := 1; cut < len(pdf); cut++ {
		fail := func(reason string) error { return errors.New(reason) }
		r, err := checkedDownload(io.MultiReader(bytes.NewReader(pdf[:cut]), bytes.NewReader(pdf[cut:])), "pdf", 0, 0, fail)
		if err != nil {
			t.Fatal(err)
		}
		// Read in small pieces so each read is one side of the cut or less.
		tc := r.(*tailCheck)
		tc.r = io.MultiReader(bytes.NewReader(pdf[:cut]), bytes.NewReader(pdf[cut:]))
		buf := make([]byte, 7)
		for {
			_, err = tc.Read(buf)
			if err != nil {
				break
			}
		}
		if !errors.Is(err, io.EOF) {
			t.Errorf("cut at %d: %v", cut, err)
		}
	}
}

// FuzzCheckedDownload: whatever a hub sends, the check ends without a panic, and a
// body it passes is passed through whole.
func FuzzCheckedDownload(f *testing.F) {
	f.Add([]byte("\x89PNG\r\n\x1a\n"), "png", 10, 10)
	f.Add(tiffHead(3, 2), "tiff", 3, 2)
	f.Add([]byte("%PDF-1.4\nstartxref\n9\n%%EOF"), "pdf", 0, 0)
	f.Add([]byte("MM\x00*\x00\x00\x00\x08\xff\xff"), "tiff", 1, 1)
	f.Fuzz(func(t *testing.T, b []byte, typ string, w, h int) {
		fail := func(reason string) error { return errors.New(reason) }
		r, err := checkedDownload(bytes.NewReader(b), typ, w, h, fail)
		if err != nil {
			return
		}
		got, err := io.ReadAll(r)
		if err == nil && !bytes.Equal(got, b) {
			t.Fatalf("passed %d bytes of %d", len(got), len(b))
		}
	})
}
