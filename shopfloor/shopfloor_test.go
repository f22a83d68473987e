package shopfloor

import (
	"bytes"
	"fmt"
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
	"time"
)

func TestRelLink(t *testing.T) {
	for _, c := range []struct{ dir, key, want string }{
		{"s/2024-06-01/A-1", "s/2024-06-01/A-1/a.png", "a.png"},
		{"s/2024-06-01/A-1", "s/2024-06-01/A-1/sub/a b#?.png", "sub/a%20b%23%3F.png"},
		{"s/2024-06-01/A-1", "s/files/a.png", "../../files/a.png"},
		{".", "a.png", "a.png"},
		{".", "javascript:alert(1)", "./javascript:alert%281%29"},
	} {
		got := RelLink(c.dir, c.key)
		// PathEscape keeps ( and ); both spellings are inert, so compare unescaped.
		if strings.NewReplacer("%28", "(", "%29", ")").Replace(got) != strings.NewReplacer("%28", "(", "%29", ")").Replace(c.want) {
			t.Errorf("RelLink(%q, %q) = %q, want %q", c.dir, c.key, got, c.want)
		}
	}
}

// TestStaffPageEscapes: hostile order strings stay text, a file without a thumbnail
// gets a placeholder, and no link leaves the folder as a script.
func TestStaffPageEscapes(t *testing.T) {
	const evil = `<script>alert(1)</script>`
	o := Order{ID: evil, Store: "s", Status: `"><img src=x onerror=alert(2)>`,
		Rows: []Row{
			{DesignID: 7, DesignName: evil, ProductID: evil, Quantity: 3,
				File: File{Key: "s/o/" + evil + ".png", Filename: evil + ".png", Thumbnail: "s/o/" + evil + ".thumb.jpg", Type: "png", ViewID: evil}},
			{DesignID: 7, DesignName: evil, ProductID: evil, Quantity: 3, File: File{Key: "s/o/b.pdf", Filename: "b.pdf", Type: "pdf"}},
		},
		Ticket: "s/o/ticket.pdf",
	}
	page, err := StaffPage(o, "s/o/manifest.json", RelLinker("s/o"))
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
	for size, wantW := range map[string]string{TicketA4: "595.28", TicketLetter: "612.00", Ticket4x6: "288.00"} {
		for _, id := range []string{"A-1", "Bestellung-Ä✓"} {
			b, _, err := Ticket(Order{ID: id, Store: "s"}, TicketOptions{Size: size, Link: "https://example.com/x/index.html"})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(string(b), "%PDF-") || !strings.Contains(string(b), "/MediaBox [0 0 "+wantW) {
				t.Errorf("%s ticket of %q: not a %s pt wide PDF", size, id, wantW)
			}
		}
	}
}

// FuzzPreview: whatever a hub sends as an export, previewing it returns a bounded
// image or none, without panicking.
func FuzzPreview(f *testing.F) {
	var png bytes.Buffer
	if err := pngenc.Encode(&png, image.NewRGBA(image.Rect(0, 0, 3, 2))); err != nil {
		f.Fatal(err)
	}
	f.Add(png.Bytes())
	f.Add([]byte("%PDF-1.4\n"))
	f.Add([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x7f\xff\xff\xff\x7f\xff\xff\xff\x08\x06\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c := NewCapture(bytes.NewReader(data), MaxPreviewSource)
		if _, err := io.Copy(io.Discard, c); err != nil {
			t.Fatal(err)
		}
		if img := c.Preview(); img != nil {
			if b := img.Bounds(); b.Dx() > 512 || b.Dy() > 512 || b.Empty() {
				t.Fatalf("thumbnail %v", b)
			}
		}
	})
}

// TestCaptureOver: a stream longer than the capture's bound keeps nothing.
func TestCaptureOver(t *testing.T) {
	c := NewCapture(bytes.NewReader(make([]byte, 100)), 64)
	if n, err := io.Copy(io.Discard, c); err != nil || n != 100 {
		t.Fatal(n, err)
	}
	if !c.over || c.buf.Len() != 0 || c.Preview() != nil {
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
	names := []string{"Ζωή Παπαδοπούλου", "Олена Шевченко", "山田 花子", "דנה לוי", "فاطمة الزهراء"}
	for _, size := range []string{TicketA4, Ticket4x6} {
		for _, name := range names {
			o := Order{ID: "T-1", Store: "s", ShipTo: model.Address{FirstName: name, City: name},
				Rows: []Row{{DesignID: 7, DesignName: name, Quantity: 1, File: File{Key: "s/o/a.png", Filename: "a.png", Type: "png"}}}}
			b, _, err := Ticket(o, TicketOptions{Size: size, Link: "https://example.com/s/o/index.html", Text: rr})
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
// the day folder and counts rush orders.
func TestDayPageEscapes(t *testing.T) {
	const evil = `<script>alert(1)</script>`
	s := DayOrder{Manifest: "s/d/o/manifest.json", OrderID: evil, OrderStatus: "paid/" + evil + "/rush", Rush: true,
		Page: "s/d/o/index.html", Ticket: "s/d/o/ticket.pdf", Files: 11, Quantity: 5, NoPreview: 1,
		Warnings: []string{"0.png: low-dpi: " + evil}}
	for i := range MaxDayThumbs {
		s.Thumbs = append(s.Thumbs, fmt.Sprintf("s/d/o/%d-%s.thumb.jpg", i, evil))
	}
	page, err := DayPage("s/d", time.Date(2024, 6, 1, 12, 0, 0, 0, time.UTC), []DayOrder{s}, RelLinker("s/d"))
	if err != nil {
		t.Fatal(err)
	}
	p := string(page)
	if strings.Contains(p, "<script>") {
		t.Errorf("page contains a script:\n%s", p)
	}
	for _, want := range []string{"&lt;script&gt;alert(1)&lt;/script&gt;", `href="o/index.html"`, `href="o/ticket.pdf"`, `href="o/manifest.json"`,
		`src="o/0-%3Cscript%3Ealert%281%29%3C/script%3E.thumb.jpg"`, ">RUSH<", "1 without preview", "1 rush", "generated 2024-06-01T12:00:00Z"} {
		if !strings.Contains(p, want) {
			t.Errorf("page lacks %q:\n%s", want, p)
		}
	}
	if n := strings.Count(p, "<img "); n != MaxDayThumbs {
		t.Errorf("%d thumbnails shown, want %d", n, MaxDayThumbs)
	}
}
