package worker_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/tests3"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/storage"
	"github.com/printworker/printworker/worker"
)

// needShopTools skips without the Debian tools the shop floor checks use, except in
// CI where a missing tool fails.
func needShopTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is required in CI: %v", tool, err)
			}
			t.Skipf("%s not installed: %v", tool, err)
		}
	}
}

const chromium = "/usr/bin/chromium"

// hostile is a customer string that would inject script into an unescaped page.
const hostile = `<script>alert(1)</script>`

// TestShopFloorHotFolder runs an order into a hot folder and checks what the shop
// floor gets: thumbnails listed and stored, the ticket's text and codes, and the staff
// page in a real browser with every preview loaded and every link resolving.
func TestShopFloorHotFolder(t *testing.T) {
	needShopTools(t, "pdftotext", "pdftoppm", "zbarimg", chromium)
	root := t.TempDir()
	dir, err := storage.NewDir(root)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, func(_ *worker.Config, d *worker.Deps) { d.Storage = dir })
	e.start()
	ctx := context.Background()
	o := e.order("SF-1", 1002, 1003)
	o.ShippingDetails.FirstName = hostile
	o.ShippingDetails.Phone = "+1-555-0100"
	if _, err := e.enq.PushOrder(ctx, store, jobs.OpCreate, o); err != nil {
		t.Fatal(err)
	}
	if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
		t.Fatal(err)
	}
	folder := filepath.Join(root, store, "2024-06-01", storage.OrderFolderValue("SF-1", domain))
	m := waitHotManifest(t, filepath.Join(folder, "manifest.json"))

	// Thumbnails: the downloaded PNGs have one each, the downloaded PDF none.
	thumbs := 0
	for _, f := range m.Files {
		switch {
		case f.Type == "png" && f.Thumbnail == "":
			t.Errorf("png %s has no thumbnail", f.Key)
		case f.Type != "png" && f.Thumbnail != "":
			t.Errorf("downloaded %s %s has a thumbnail %s", f.Type, f.Key, f.Thumbnail)
		case f.Thumbnail != "":
			thumbs++
			if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(f.Thumbnail))); err != nil {
				t.Errorf("thumbnail listed but not stored: %v", err)
			}
		}
	}
	if thumbs != 2 {
		t.Fatalf("thumbnails: %d, want 2", thumbs)
	}
	if m.Ticket != orderDir("SF-1")+"/ticket.pdf" || m.StaffPage != orderDir("SF-1")+"/index.html" {
		t.Fatalf("manifest names ticket %q and page %q", m.Ticket, m.StaffPage)
	}

	ticket := filepath.Join(folder, "ticket.pdf")
	text := run(t, "pdftotext", "-layout", ticket, "-")
	for _, want := range []string{"Order SF-1", "Qty 2", "Qty 3", "Coffee Mug", "Greeting Card", "1 Main St", "Springfield", "Rush:", "Method:", "no preview", "Items (5 on 2 line(s))", "Ordered 1 Jun 2024, 09:30 UTC", hostile,
		// The courier's phone is on the ticket (docs/shop-floor.md), e-mail and tokens are not.
		"Phone +1-555-0100"} {
		if !strings.Contains(text, want) {
			t.Errorf("ticket text lacks %q:\n%s", want, text)
		}
	}
	for _, secret := range []string{"ann@example.com", o.LineItems[0].Token} {
		if strings.Contains(text, secret) {
			t.Errorf("ticket shows %q", secret)
		}
	}
	png := filepath.Join(t.TempDir(), "ticket")
	run(t, "pdftoppm", "-r", "200", "-png", "-f", "1", "-l", "1", "-singlefile", ticket, png)
	codes := run(t, "zbarimg", "-q", png+".png")
	// A hot folder's link is a file: path, which opens on no phone: the QR code holds
	// the order number.
	for _, want := range []string{"CODE-128:SF-1", "QR-Code:SF-1\n"} {
		if !strings.Contains(codes, want) {
			t.Errorf("zbarimg found %q, want %q", codes, want)
		}
	}
	if strings.Contains(codes, "file:") {
		t.Errorf("the QR code holds a file: link: %q", codes)
	}

	checkStaffPage(t, folder, thumbs)
}

// waitHotManifest waits for a hot folder manifest.
func waitHotManifest(t *testing.T, path string) worker.Manifest {
	t.Helper()
	deadline := time.Now().Add(waitBound)
	for {
		b, err := os.ReadFile(path)
		if err == nil {
			var m worker.Manifest
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("no manifest %s: %v", path, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func run(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return string(out)
}

var hrefRE = regexp.MustCompile(`href="([^"]+)"`)

// checkStaffPage opens the page in headless Chromium: a copy with a probe script next
// to it reports each image's naturalWidth after load; every link must be a relative
// path to a file that exists.
func checkStaffPage(t *testing.T, folder string, thumbs int) {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(folder, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(page), "555-0100") || strings.Contains(string(page), "ann@example.com") {
		t.Error("staff page shows contact data")
	}
	links := hrefRE.FindAllStringSubmatch(string(page), -1)
	if len(links) < 2+2 {
		t.Fatalf("page has %d links", len(links))
	}
	checkRelativeLinks(t, folder, links)
	probePath := filepath.Join(folder, "probe.html")
	if err := os.WriteFile(probePath, probePage(page), 0o644); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(probePath)
	widths, dom := browserImages(t, "file://"+probePath)
	if len(widths) != thumbs {
		t.Fatalf("page shows %d images, want %d thumbnails", len(widths), thumbs)
	}
	for i, w := range widths {
		if w <= 0 {
			t.Errorf("image %d did not load", i)
		}
	}
	if !strings.Contains(dom, "no preview") {
		t.Error("the file without a thumbnail shows no placeholder")
	}
}

// checkRelativeLinks: every link (hrefRE matches) is a relative path to a file that
// exists from folder.
func checkRelativeLinks(t *testing.T, folder string, links [][]string) {
	t.Helper()
	for _, l := range links {
		u, err := url.Parse(strings.ReplaceAll(l[1], "&amp;", "&"))
		if err != nil || u.Scheme != "" || u.Host != "" || strings.HasPrefix(u.Path, "/") {
			t.Errorf("link %q is not relative", l[1])
			continue
		}
		if _, err := os.Stat(filepath.Join(folder, filepath.FromSlash(u.Path))); err != nil {
			t.Errorf("link %q does not resolve: %v", l[1], err)
		}
	}
}

// probePage is a copy of page with a script that records each image's naturalWidth
// once everything has loaded.
func probePage(page []byte) []byte {
	return []byte(strings.Replace(string(page), "</body>", `<script>
window.addEventListener("load", () => {
  document.body.setAttribute("data-probe", JSON.stringify([...document.images].map(i => i.naturalWidth)));
});
</script></body>`, 1))
}

// browserImages opens a probe page (probePage) in headless Chromium and returns the
// widths of its images as loaded, and the DOM.
func browserImages(t *testing.T, pageURL string) ([]int, string) {
	t.Helper()
	// Bounded only so that a page the browser would not show (say, served as a
	// download) fails the test instead of hanging it.
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+t.TempDir(),
		"--allow-file-access-from-files", "--dump-dom", pageURL).Output()
	if err != nil {
		t.Fatalf("chromium %s: %v", pageURL, err)
	}
	dom := string(out)
	mm := regexp.MustCompile(`data-probe="([^"]*)"`).FindStringSubmatch(dom)
	if mm == nil {
		t.Fatalf("probe did not run:\n%s", dom)
	}
	var widths []int
	if err := json.Unmarshal([]byte(strings.ReplaceAll(mm[1], "&quot;", `"`)), &widths); err != nil {
		t.Fatalf("probe %q: %v", mm[1], err)
	}
	return widths, dom
}

// TestTicketQRPresigned: in a private bucket the ticket's QR code holds a presigned
// link to the order's staff page, which a phone (an anonymous GET) opens; the ticket
// shows the ship-to name and address as the store sent them.
func TestTicketQRPresigned(t *testing.T) {
	needShopTools(t, "pdftotext", "pdftoppm", "zbarimg")
	e := newEnv(t, func(*worker.Config, *worker.Deps) {})
	e.s3.SetPrivate(true)
	e.start()
	ctx := context.Background()
	o := e.order("QR-1", 1002)
	if _, err := e.enq.PushOrder(ctx, store, jobs.OpCreate, o); err != nil {
		t.Fatal(err)
	}
	if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("QR-1", 0)
	dir := t.TempDir()
	ticket := filepath.Join(dir, "ticket.pdf")
	if err := os.WriteFile(ticket, e.object(m.Ticket), 0o644); err != nil {
		t.Fatal(err)
	}
	text := run(t, "pdftotext", "-layout", ticket, "-")
	s := o.ShippingDetails
	for _, want := range []string{s.FirstName + " " + s.LastName, s.Address1, s.City} {
		if want == "" || !strings.Contains(text, want) {
			t.Errorf("ticket text lacks ship-to %q:\n%s", want, text)
		}
	}
	run(t, "pdftoppm", "-png", "-r", "100", "-f", "1", "-l", "1", "-singlefile", ticket, filepath.Join(dir, "ticket"))
	codes := run(t, "zbarimg", "-q", filepath.Join(dir, "ticket.png"))
	link := regexp.MustCompile(`QR-Code:(\S+)`).FindStringSubmatch(codes)
	if link == nil {
		t.Fatalf("no QR code read: %q", codes)
	}
	u, err := url.Parse(link[1])
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !strings.Contains(u.RawQuery, "X-Amz-Signature=") {
		t.Fatalf("QR holds %q, want a presigned http(s) link", link[1])
	}
	if code, b := tests3.GetAnon(t, link[1]); code != http.StatusOK || !bytes.Equal(b, e.object(m.StaffPage)) {
		t.Errorf("anonymous GET of the QR link: %d, %d bytes; want the staff page", code, len(b))
	}
}
