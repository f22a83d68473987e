package shopfloor

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/printworker/printworker/render"
)

// TestTicketBounded: an order whose first file carries 60,000 warnings (a design of
// 60,000 low-resolution pictures, before they are summarised) and which has 1,000
// files draws a ticket of a bounded number of pages, with MaxListedWarnings warnings
// of the file and a line counting the rest, and a staff page listing as many. The
// amount drawn, not the time, is what is checked: before the bound the ticket drew
// about 860 pages.
func TestTicketBounded(t *testing.T) {
	t.Parallel()
	rr, err := render.New(render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := sampleOrder(t)
	for i := range 60000 {
		o.Rows[0].Warnings = append(o.Rows[0].Warnings, fmt.Sprintf("low-resolution: element p%d: effective resolution 7 dpi is below the export 72 dpi", i))
	}
	o.Warnings = 60000
	for i := range 1000 {
		o.Rows = append(o.Rows, Row{Quantity: 1, DesignID: int64(100 + i), DesignName: "Tile", File: File{Key: fmt.Sprintf("s/o/tile-%d.png", i), Filename: fmt.Sprintf("tile-%d.png", i), Type: "png"}})
	}
	pdf, _, err := Ticket(o, TicketOptions{Text: rr})
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`/Type /Pages\s*/Kids \[[^\]]*\]\s*/Count (\d+)`).FindSubmatch(pdf)
	if m == nil {
		t.Fatal("no page count in the ticket")
	}
	pages, _ := strconv.Atoi(string(m[1]))
	t.Logf("ticket: %d pages, %d bytes", pages, len(pdf))
	// A4 holds about nine file rows a page: MaxTicketRows rows and the head fit in
	// MaxTicketRows/9 + 3 pages.
	if limit := MaxTicketRows/9 + 3; pages == 0 || pages > limit {
		t.Errorf("ticket of %d pages, want 1..%d", pages, limit)
	}
	if pdftotext, err := exec.LookPath("pdftotext"); err == nil {
		path := filepath.Join(t.TempDir(), "ticket.pdf")
		if err := os.WriteFile(path, pdf, 0o644); err != nil {
			t.Fatal(err)
		}
		txt := runTool(t, pdftotext, path, "-")
		if n := strings.Count(txt, "low-resolution: element"); n != MaxListedWarnings {
			t.Errorf("ticket lists %d warnings, want %d", n, MaxListedWarnings)
		}
		for _, want := range []string{"and 59992 more warning(s): see the manifest", "and 902 more file(s)"} {
			if !strings.Contains(txt, want) {
				t.Errorf("ticket lacks %q", want)
			}
		}
	}
	page, err := StaffPage(o, "s/o/manifest.json", RelLinker("s/o"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(page)
	if n := strings.Count(html, "<li>low-resolution"); n != MaxListedWarnings {
		t.Errorf("staff page lists %d warnings, want %d", n, MaxListedWarnings)
	}
	if !strings.Contains(html, fmt.Sprintf("and %d more: see the manifest", 60000-MaxListedWarnings)) {
		t.Error("staff page does not count the warnings it leaves out")
	}
}
