package worker

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/printworker/printworker/internal/imgcheck"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render"
	"image"
	pngenc "image/png"
	"io"
	"strings"
	"testing"
)

func TestRelLink(t *testing.T) {
	for _, c := range []struct{ dir, key, want string }{
		{"s/2024-06-01/A-1", "s/2024-06-01/A-1/a.png", "a.png"},
		{"s/2024-06-01/A-1", "s/2024-06-01/A-1/sub/a b#?.png", "sub/a%20b%23%3F.png"},
		{"s/2024-06-01/A-1", "s/files/a.png", "../../files/a.png"},
		{".", "a.png", "a.png"},
		{".", "javascript:alert(1)", "./javascript:alert%281%29"},
	} {
		got := relLink(c.dir, c.key)
		// PathEscape keeps ( and ); both spellings are inert, so compare unescaped.
		if strings.NewReplacer("%28", "(", "%29", ")").Replace(got) != strings.NewReplacer("%28", "(", "%29", ")").Replace(c.want) {
			t.Errorf("relLink(%q, %q) = %q, want %q", c.dir, c.key, got, c.want)
		}
	}
}

// TestStaffPageEscapes: hostile order strings stay text, a file without a thumbnail
// gets a placeholder, and no link leaves the folder as a script.
func TestStaffPageEscapes(t *testing.T) {
	const evil = `<script>alert(1)</script>`
	m := &Manifest{OrderID: evil, Store: "s", OrderStatus: `"><img src=x onerror=alert(2)>`,
		LineItems: []ManifestLine{{DesignID: 7, DesignName: evil, ProductID: evil, Quantity: 3, Files: []string{"s/o/" + evil + ".png", "s/o/b.pdf"}}},
		Files: []FileRecord{
			{Key: "s/o/" + evil + ".png", Filename: evil + ".png", Thumbnail: "s/o/" + evil + ".thumb.jpg", Type: "png", ViewID: evil},
			{Key: "s/o/b.pdf", Filename: "b.pdf", Type: "pdf"},
		},
		Ticket: "s/o/ticket.pdf",
	}
	page, err := staffPage(m, "s/o", relLinker("s/o"))
	if err != nil {
		t.Fatal(err)
	}
	p := string(page)
	for _, bad := range []string{"<script>", "<img src=x", "javascript:"} {
		if strings.Contains(p, bad) {
			t.Errorf("page contains %q:\n%s", bad, p)
		}
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", "no preview", `href="ticket.pdf"`, `href="manifest.json"`, `href="b.pdf"`, `src="%3Cscript%3Ealert%281%29%3C/script%3E.thumb.jpg"`} {
		if !strings.Contains(p, want) {
			t.Errorf("page lacks %q:\n%s", want, p)
		}
	}
}

// TestTicketSizes: every size makes a PDF of the right page size, even with no files
// and an order number Code 128 cannot encode.
func TestTicketSizes(t *testing.T) {
	w := &Worker{log: slog.New(slog.DiscardHandler)}
	for size, wantW := range map[string]string{TicketA4: "595.28", TicketLetter: "612.00", Ticket4x6: "288.00"} {
		for _, id := range []string{"A-1", "Bestellung-Ä✓"} {
			b, err := w.ticketPDF(t.Context(), &Manifest{OrderID: id, Store: "s"}, size, "https://example.com/x/index.html")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(b), "%PDF-") || !strings.Contains(string(b), "/MediaBox [0 0 "+wantW) {
				t.Errorf("%s ticket of %q: not a %s pt wide PDF", size, id, wantW)
			}
		}
	}
}

// FuzzDownloadThumb: whatever a hub sends as an export, previewing it returns a
// bounded image or none, without panicking.
func FuzzDownloadThumb(f *testing.F) {
	var png bytes.Buffer
	if err := pngenc.Encode(&png, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		f.Fatal(err)
	}
	f.Add(png.Bytes())
	f.Add([]byte("%PDF-1.4\n"))
	f.Add([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x7f\xff\xff\xff\x7f\xff\xff\xff\x08\x06\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &capture{r: bytes.NewReader(data), max: maxThumbSource}
		if _, err := io.Copy(io.Discard, c); err != nil {
			t.Fatal(err)
		}
		if img := downloadThumb(c); img != nil {
			if b := img.Bounds(); b.Dx() > 512 || b.Dy() > 512 || b.Empty() {
				t.Fatalf("thumbnail %v", b)
			}
		}
	})
}

// TestCaptureOver: a stream longer than the capture's bound keeps nothing.
func TestCaptureOver(t *testing.T) {
	c := &capture{r: bytes.NewReader(make([]byte, 100)), max: 64}
	if n, err := io.Copy(io.Discard, c); err != nil || n != 100 {
		t.Fatal(n, err)
	}
	if !c.over || c.buf.Len() != 0 || downloadThumb(c) != nil {
		t.Fatalf("over %v, kept %d", c.over, c.buf.Len())
	}
}

// TestTicketScripts: names in Greek, Cyrillic, CJK, Hebrew and Arabic come out of the
// ticket as their text (pdftotext), in fonts embedded in the PDF (pdffonts), not as
// the "?" of the core fonts. Arabic is shaped (joined forms, drawn as outlines with
// the characters laid over them invisibly), so its extracted text is compared in
// poppler's logical order.
func TestTicketScripts(t *testing.T) {
	pdftotext := imgcheck.Tool(t, "pdftotext", "Debian poppler-utils")
	pdffonts := imgcheck.Tool(t, "pdffonts", "Debian poppler-utils")
	rr, err := render.New(render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := &Worker{log: slog.New(slog.DiscardHandler), deps: Deps{Renderer: rr}}
	names := []string{"Ζωή Παπαδοπούλου", "Олена Шевченко", "山田 花子", "דנה לוי", "فاطمة الزهراء"}
	for _, size := range []string{TicketA4, Ticket4x6} {
		for _, name := range names {
			m := &Manifest{OrderID: "T-1", Store: "s", Shipping: model.Address{FirstName: name, City: name},
				LineItems: []ManifestLine{{DesignID: 7, DesignName: name, Quantity: 1, Files: []string{"s/o/a.png"}}},
				Files:     []FileRecord{{Key: "s/o/a.png", Filename: "a.png", Type: "png"}}}
			b, err := w.ticketPDF(t.Context(), m, size, "https://example.com/s/o/index.html")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "ticket.pdf")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(pdftotext, path, "-").Output()
			if err != nil {
				t.Fatal(err)
			}
			text := string(out)
			if !strings.Contains(text, name) {
				t.Errorf("%s ticket for %q: pdftotext gives\n%s", size, name, text)
			}
			if strings.Contains(text, "?") {
				t.Errorf("%s ticket for %q shows '?':\n%s", size, name, text)
			}
			fl, err := exec.Command(pdffonts, path).Output()
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.ToLower(string(fl)), "dejavusans") || strings.Contains(string(fl), "Helvetica") {
				t.Errorf("%s ticket for %q: fonts\n%s", size, name, fl)
			}
			for _, l := range strings.Split(string(fl), "\n")[2:] {
				if f := strings.Fields(l); len(f) >= 5 && f[len(f)-5] != "yes" {
					t.Errorf("font not embedded: %s", l)
				}
			}
		}
	}
}

// TestDayPageEscapes: the day page escapes every order string, links relatively from
// the day folder, caps the thumbnail strip and counts rush orders.
func TestDayPageEscapes(t *testing.T) {
	const evil = `<script>alert(1)</script>`
	m := &Manifest{OrderID: evil, OrderStatus: "paid/" + evil + "/rush", StaffPage: "s/d/o/index.html", Ticket: "s/d/o/ticket.pdf",
		LineItems: []ManifestLine{{Quantity: 2}, {Quantity: 3}}}
	for i := range 10 {
		m.Files = append(m.Files, FileRecord{Key: fmt.Sprintf("s/d/o/%d.png", i), Thumbnail: fmt.Sprintf("s/d/o/%d-%s.thumb.jpg", i, evil)})
	}
	m.Files = append(m.Files, FileRecord{Key: "s/d/o/x.pdf"})
	m.Warnings = []ManifestWarning{{Key: "s/d/o/0.png", Warning: render.Warning{Code: "low-dpi", Message: evil}}}
	s := summarize(m, "s/d/o/manifest.json")
	if !s.Rush || s.Files != 11 || s.Quantity != 5 || len(s.Thumbs) != maxDayThumbs || s.NoPreview != 1 {
		t.Fatalf("summary %+v", s)
	}
	page, err := (&Worker{}).dayPage(t.Context(), "s/d", []daySummary{s})
	if err != nil {
		t.Fatal(err)
	}
	p := string(page)
	if strings.Contains(p, "<script>") {
		t.Errorf("page contains a script:\n%s", p)
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `href="o/index.html"`, `href="o/ticket.pdf"`, `href="o/manifest.json"`,
		`src="o/0-%3Cscript%3Ealert%281%29%3C/script%3E.thumb.jpg"`, ">RUSH<", "1 without preview", "1 rush"} {
		if !strings.Contains(p, want) {
			t.Errorf("page lacks %q:\n%s", want, p)
		}
	}
	if n := strings.Count(p, "<img "); n != maxDayThumbs {
		t.Errorf("%d thumbnails shown, want %d", n, maxDayThumbs)
	}
}
