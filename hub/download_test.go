package hub_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

func TestDownloadMetadata(t *testing.T) {
	pdf := "%PDF-1.7\n" + strings.Repeat("x", 2000)
	png := "\x89PNG\r\n\x1a\n" + strings.Repeat("\x00", 700)
	zip := "PK\x03\x04" + strings.Repeat("z", 100)
	jpeg := "\xff\xd8\xff\xe0" + strings.Repeat("j", 100)
	svg := "\xef\xbb\xbf<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"/>"
	none := []string{} // no Content-Type header at all
	cases := []struct {
		name        string
		contentType []string
		disposition string
		body        string
		chunked     bool
		kind        string
		filename    string
	}{
		{"pdf by type", []string{"application/pdf"}, "attachment", pdf, false, "pdf", ""},
		{"png by type with params", []string{"image/png; charset=binary"}, `attachment; filename="1042-front.png"`, png, false, "png", "1042-front.png"},
		{"zip by type", []string{"application/zip"}, `attachment; filename=1042.zip`, zip, false, "zip", "1042.zip"},
		{"pdf by magic, octet-stream", []string{"application/octet-stream"}, "attachment", pdf, false, "pdf", ""},
		{"png by magic, no type", none, "attachment", png, true, "png", ""},
		{"zip by magic, no type", none, "", zip, false, "zip", ""},
		{"jpeg by magic", []string{"binary/octet-stream"}, "", jpeg, false, "jpeg", ""},
		{"svg by magic", none, "", svg, false, "svg", ""},
		{"svg by type", []string{"image/svg+xml; charset=utf-8"}, "", svg, false, "svg", ""},
		{"unknown", []string{"application/octet-stream"}, "", "hello", false, "bin", ""},
		{"empty body", none, "", "", false, "bin", ""},
		{"type wins over magic", []string{"image/png"}, "", pdf, false, "png", ""},
		{"bad type falls back to magic", []string{"%%%"}, "", pdf, false, "pdf", ""},
		{"RFC 5987 filename", []string{"image/png"}, `attachment; filename*=UTF-8''M%C3%BCller%20front.png`, png, false, "png", "Müller front.png"},
		{"path stripped", []string{"application/pdf"}, `attachment; filename="../../etc/passwd"`, pdf, false, "pdf", "passwd"},
		{"backslash path stripped", []string{"application/pdf"}, `attachment; filename="C:\\temp\\a.pdf"`, pdf, false, "pdf", "a.pdf"},
		{"dot name dropped", []string{"application/pdf"}, `attachment; filename=".."`, pdf, false, "pdf", ""},
		{"malformed disposition", []string{"application/pdf"}, `attachment; filename=`, pdf, false, "pdf", ""},
		{"inline with name", []string{"application/pdf"}, `inline; filename="x.pdf"`, pdf, false, "pdf", "x.pdf"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeHub(t)
			f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
				w.Header()["Content-Type"] = tc.contentType
				if tc.disposition != "" {
					w.Header().Set("Content-Disposition", tc.disposition)
				}
				if !tc.chunked {
					w.Header().Set("Content-Length", fmt.Sprint(len(tc.body)))
				}
				// Two writes with a flush between, so the body arrives in pieces.
				half := len(tc.body) / 2
				_, _ = io.WriteString(w, tc.body[:half])
				w.(http.Flusher).Flush()
				_, _ = io.WriteString(w, tc.body[half:])
			})
			d, err := f.client(t, hub.V2023).ExportView(context.Background(), testRef, "front")
			if err != nil {
				t.Fatal(err)
			}
			defer d.Body.Close()
			got, err := io.ReadAll(d.Body)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.body {
				t.Errorf("body: %d bytes, want %d (peeking must not lose bytes)", len(got), len(tc.body))
			}
			if d.Kind != tc.kind || d.Filename != tc.filename {
				t.Errorf("kind %q filename %q, want %q %q", d.Kind, d.Filename, tc.kind, tc.filename)
			}
			wantLen := int64(len(tc.body))
			if tc.chunked {
				wantLen = -1
			}
			if d.Length != wantLen {
				t.Errorf("length %d, want %d", d.Length, wantLen)
			}
			if len(tc.contentType) > 0 && d.ContentType != tc.contentType[0] {
				t.Errorf("content type %q", d.ContentType)
			}
		})
	}
}

func TestDownloadSizeCap(t *testing.T) {
	const limit = 4096
	cases := []struct {
		name      string
		size      int
		announce  bool
		failOpen  bool // the error comes from ExportDesign itself
		failRead  bool // the error comes from reading Body
		truncated bool // the server closes before Content-Length bytes
	}{
		{name: "under cap", size: limit - 1, announce: true},
		{name: "exactly cap", size: limit, announce: true},
		{name: "exactly cap, chunked", size: limit},
		{name: "over cap, announced", size: limit + 1, announce: true, failOpen: true},
		{name: "over cap, chunked", size: 3 * limit, failRead: true},
		{name: "truncated", size: limit / 2, announce: true, truncated: true, failRead: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			body := "%PDF-" + strings.Repeat("p", tc.size-5)
			f := newFakeHub(t)
			f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
				if tc.truncated {
					hijackWrite(w, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/pdf\r\nContent-Length: %d\r\n\r\n%s", 2*len(body), body))
					return
				}
				w.Header().Set("Content-Type", "application/pdf")
				if tc.announce {
					w.Header().Set("Content-Length", fmt.Sprint(len(body)))
				}
				for i := 0; i < len(body); i += 1000 {
					_, _ = io.WriteString(w, body[i:min(i+1000, len(body))])
					w.(http.Flusher).Flush()
				}
			})
			c := f.client(t, hub.V2023, func(cfg *hub.Config) { cfg.MaxExportBytes = limit })
			d, err := c.ExportDesign(context.Background(), testRef)
			if tc.failOpen {
				var he *hub.Error
				if !errors.As(err, &he) || !errors.Is(err, hub.ErrTooLarge) || he.Retryable() {
					t.Fatalf("err = %v, want permanent ErrTooLarge", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer d.Body.Close()
			n, err := io.Copy(io.Discard, d.Body)
			if !tc.failRead {
				if err != nil || n != int64(len(body)) {
					t.Fatalf("read %d bytes, %v; want %d", n, err, len(body))
				}
				return
			}
			var he *hub.Error
			if !errors.As(err, &he) || he.Op != hub.OpExportDesign {
				t.Fatalf("read error = %v, want *hub.Error", err)
			}
			if tc.truncated {
				if !he.Retryable() || !errors.Is(err, io.ErrUnexpectedEOF) {
					t.Errorf("truncated: %v retryable %v, want retryable unexpected EOF", err, he.Retryable())
				}
				return
			}
			if !errors.Is(err, hub.ErrTooLarge) || he.Retryable() || n != limit {
				t.Errorf("over cap: read %d, err %v", n, err)
			}
			// The error sticks.
			if _, err2 := d.Body.Read(make([]byte, 10)); !errors.Is(err2, hub.ErrTooLarge) {
				t.Errorf("second read: %v", err2)
			}
		})
	}
}

// TestExportStreams proves the body is handed over before the hub has finished
// sending: the hub holds back the second half until the caller has read the first.
func TestExportStreams(t *testing.T) {
	first := "%PDF-1.7\n" + strings.Repeat("a", 64<<10)
	second := strings.Repeat("b", 64<<10)
	readFirst := make(chan struct{})
	f := newFakeHub(t)
	f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
		w.Header().Set("Content-Type", "application/pdf")
		_, _ = io.WriteString(w, first)
		w.(http.Flusher).Flush()
		select {
		case <-readFirst:
		case <-r.Context().Done():
			return
		}
		_, _ = io.WriteString(w, second)
	})
	d, err := f.client(t, hub.V2023).ExportDesign(context.Background(), testRef)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Body.Close()
	buf := make([]byte, len(first))
	if _, err := io.ReadFull(d.Body, buf); err != nil || string(buf) != first {
		t.Fatalf("first half: %v", err)
	}
	close(readFirst)
	rest, err := io.ReadAll(d.Body)
	if err != nil || string(rest) != second {
		t.Fatalf("second half: %d bytes, %v", len(rest), err)
	}
}

func TestOpenMedia(t *testing.T) {
	m := model.Media{ID: "65a1f0c2e4b0a1d2c3f4a600", Token: "0b5c6d7e-8f90", OriginalName: "IMG 2041.JPG", Size: 20}
	ctx := context.Background()

	f := newFakeHub(t)
	c := f.client(t, hub.V2023)
	d, err := c.OpenMedia(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(d.Body)
	d.Body.Close()
	r := f.requests()[0]
	if r.Path != "/media/65a1f0c2e4b0a1d2c3f4a600/0b5c6d7e-8f90" || d.Kind != hub.KindPNG || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("default template: path %q kind %q", r.Path, d.Kind)
	}
	if r.Header.Get("X-Service-Api-Signature") != "" || r.Header.Get("X-Service-Api-Key") != "" {
		t.Error("media download is unsigned: no credentials may be sent")
	}

	// A custom template on another host.
	paths := make(chan string, 1)
	cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		paths <- r.URL.EscapedPath()
		_, _ = io.WriteString(w, "GIF89a")
	}))
	defer cdn.Close()
	c = f.client(t, hub.V2023, func(cfg *hub.Config) { cfg.MediaURL = cdn.URL + "/files/{token}/{_id}/{originalname}" })
	d, err = c.OpenMedia(ctx, m)
	if err != nil {
		t.Fatal(err)
	}
	d.Body.Close()
	if p := <-paths; p != "/files/0b5c6d7e-8f90/65a1f0c2e4b0a1d2c3f4a600/IMG%202041.JPG" || d.Kind != hub.KindGIF {
		t.Errorf("custom template path %q kind %q", p, d.Kind)
	}

	// Caps: the announced media size, then the stream.
	c = f.client(t, hub.V2023, func(cfg *hub.Config) { cfg.MaxMediaBytes = 10 })
	f.reset()
	if _, err := c.OpenMedia(ctx, m); !errors.Is(err, hub.ErrTooLarge) || len(f.requests()) != 0 {
		t.Errorf("media larger than cap by meta: %v, %d requests", err, len(f.requests()))
	}
	m.Size = 0
	d, err = c.OpenMedia(ctx, m)
	if err == nil {
		_, err = io.ReadAll(d.Body)
		d.Body.Close()
	}
	if !errors.Is(err, hub.ErrTooLarge) {
		t.Errorf("media stream over cap: %v", err)
	}
	if _, err := c.OpenMedia(ctx, model.Media{}); err == nil {
		t.Error("media without _id accepted")
	}
	f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) { http.NotFound(w, r) })
	if _, err := c.OpenMedia(ctx, m); !hub.IsStatus(err, 404) {
		t.Errorf("missing media: %v", err)
	}
}
