package shopfloor

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/imgcheck"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render"
)

// sampleOrder is an order with a full ship-to address, two lines and a preview.
func sampleOrder(t testing.TB) Order {
	img := image.NewRGBA(image.Rect(0, 0, 64, 48))
	for i := range img.Pix {
		img.Pix[i] = 0x40
	}
	var jb bytes.Buffer
	if err := jpeg.Encode(&jb, img, nil); err != nil {
		t.Fatal(err)
	}
	return Order{ID: "A-1001", Store: "s", Domain: "shop.example.com", Revision: 1, Status: "paid",
		Created: "2024-03-14T13:26:00.000Z", GeneratedAt: "2024-03-14T14:00:00Z",
		ShipTo: model.Address{FirstName: "Ana", LastName: "Lima", CompanyName: "Lima Prints Lda", Address1: "Rua Augusta 12",
			Address2: "3 Esq", Zip: "1100-053", City: "Lisboa", Country: "Portugal", CountryCode: "PT"},
		Lines: []Line{{Quantity: 3, DesignID: 7, DesignName: "Cat", ProductID: "tee"}, {Quantity: 2, DesignID: 8, DesignName: "Dog", ProductID: "mug"}},
		Rows: []Row{
			{Quantity: 3, DesignID: 7, DesignName: "Cat", ProductID: "tee", File: File{Key: "s/o/cat.png", Filename: "cat.png", Type: "png", Preview: jb.Bytes(), WidthPx: 64, HeightPx: 48}},
			{Quantity: 2, DesignID: 8, DesignName: "Dog", ProductID: "mug", File: File{Key: "s/o/dog.pdf", Filename: "dog.pdf", Type: "pdf"}},
		}}
}

func writeTicket(t *testing.T, o Order, opt TicketOptions) string {
	t.Helper()
	b, _, err := Ticket(o, opt)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "ticket.pdf")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func runTool(t *testing.T, tool string, args ...string) string {
	t.Helper()
	out, err := exec.Command(tool, args...).Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", tool, args, err, out)
	}
	return string(out)
}

// TestTicketShipTo: the ticket shows the ship-to name, company and address as the
// store sent them, only the name, or nothing, as set; the order's lines with their
// quantities; the order date in the store's time zone; REPRINT when reprinted.
func TestTicketShipTo(t *testing.T) {
	t.Parallel()
	pdftotext := imgcheck.Tool(t, "pdftotext", "Debian poppler-utils")
	rr, err := render.New(render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	address := []string{"Lima Prints Lda", "Rua Augusta 12", "3 Esq", "1100-053 Lisboa", "Portugal PT"}
	for _, c := range []struct {
		shipTo        string
		want, notWant []string
	}{
		{"", append([]string{"Ship to", "Ana Lima"}, address...), nil},
		{ShipToFull, append([]string{"Ship to", "Ana Lima"}, address...), nil},
		{ShipToName, []string{"Ship to", "Ana Lima"}, address},
		{ShipToNone, nil, append([]string{"Ship to", "Ana Lima", "Method:"}, address...)},
	} {
		for _, text := range []LineDrawer{nil, rr} {
			o := sampleOrder(t)
			o.Reprint = c.shipTo == ShipToName
			out := runTool(t, pdftotext, "-layout", writeTicket(t, o, TicketOptions{Size: TicketA4, Link: "https://example.com/o", ShipTo: c.shipTo, Location: berlin, Text: text}), "-")
			want := append([]string{"Items (5 on 2 line(s))", "3 x Cat (design 7) - product tee", "2 x Dog (design 8) - product mug",
				"Qty 3", "Qty 2", "Ordered 14 Mar 2024, 14:26 CET - files generated 14 Mar 2024, 15:00 CET"}, c.want...)
			if o.Reprint {
				want = append(want, "REPRINT")
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("ship-to %q (text %T): ticket lacks %q:\n%s", c.shipTo, text, w, out)
				}
			}
			for _, w := range c.notWant {
				if strings.Contains(out, w) {
					t.Errorf("ship-to %q (text %T): ticket shows %q:\n%s", c.shipTo, text, w, out)
				}
			}
			if !o.Reprint && strings.Contains(out, "REPRINT") {
				t.Errorf("ship-to %q: REPRINT on a first print", c.shipTo)
			}
		}
	}
}

// TestTicketQR: a phone-openable link goes into the QR code as it is; a file: path,
// another scheme or no link gives the order number. zbarimg reads it back from a
// 100 dpi rasterization, with the order's Code 128.
func TestTicketQR(t *testing.T) {
	t.Parallel()
	pdftoppm := imgcheck.Tool(t, "pdftoppm", "Debian poppler-utils")
	zbarimg := imgcheck.Tool(t, "zbarimg", "Debian zbar-tools")
	presigned := "https://bucket.s3.example.com/s/2024-03-14/A-1001/index.html?X-Amz-Signature=abc&X-Amz-Expires=604800"
	for _, c := range []struct{ link, want string }{
		{presigned, presigned},
		{"http://files.example.com/s/o/index.html", "http://files.example.com/s/o/index.html"},
		{"file:///srv/hotfolder/s/o/index.html", "A-1001"},
		{"/srv/hotfolder/s/o/index.html", "A-1001"},
		{"javascript:alert(1)", "A-1001"},
		{"", "A-1001"},
	} {
		for _, size := range []string{TicketA4, Ticket4x6} {
			path := writeTicket(t, sampleOrder(t), TicketOptions{Size: size, Link: c.link})
			png := filepath.Join(t.TempDir(), "ticket")
			runTool(t, pdftoppm, "-png", "-r", "100", "-f", "1", "-l", "1", "-singlefile", path, png)
			codes := runTool(t, zbarimg, "-q", png+".png")
			if !strings.Contains(codes, "QR-Code:"+c.want+"\n") || !strings.Contains(codes, "CODE-128:A-1001") {
				t.Errorf("%s ticket, link %q: zbarimg read %q, want QR %q", size, c.link, codes, c.want)
			}
			if strings.Contains(codes, "file:") {
				t.Errorf("%s ticket, link %q: the QR holds a file: link", size, c.link)
			}
		}
	}
}

// TestTicketThumbnailInFrame: the preview sits inside its frame with white around
// it, the frame's line visible: rasterized at 100 dpi, left of the preview's first
// pixel come white pixels, then the frame's grey line.
func TestTicketThumbnailInFrame(t *testing.T) {
	t.Parallel()
	pdftoppm := imgcheck.Tool(t, "pdftoppm", "Debian poppler-utils")
	o := sampleOrder(t)
	o.Rows = o.Rows[:1]
	path := writeTicket(t, o, TicketOptions{Size: TicketA4, Link: "https://example.com/o"})
	png := filepath.Join(t.TempDir(), "ticket")
	runTool(t, pdftoppm, "-png", "-r", "100", "-singlefile", path, png)
	f, err := os.Open(png + ".png")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	// The preview is a 64x48 image of grey 0x40 (dark); find its rows and check
	// that the column just left of them is not dark: no image over the frame.
	b := img.Bounds()
	dark := func(c color.Color) bool { g := color.GrayModel.Convert(c).(color.Gray); return g.Y < 0x60 }
	found := false
	for y := b.Min.Y; y < b.Max.Y && !found; y++ {
		for x := b.Min.X; x < b.Max.X/3; x++ {
			if !dark(img.At(x, y)) {
				continue
			}
			// First dark pixel of the row from the left: a preview pixel must have
			// the frame (light grey, not dark) and white between it and the margin.
			if x < 3 {
				t.Fatalf("dark pixel at the page edge (%d,%d)", x, y)
			}
			run := 0
			for xx := x; xx < b.Max.X && dark(img.At(xx, y)); xx++ {
				run++
			}
			if run > 40 { // a preview row (the barcode's bars are narrower runs)
				found = true
				// Left of the preview: white (the inset), then the frame's grey line.
				grey := func(xx int) uint8 { return color.GrayModel.Convert(img.At(xx, y)).(color.Gray).Y }
				if grey(x-1) < 0xf0 || grey(x-2) < 0xf0 {
					t.Errorf("preview at (%d,%d) touches its frame: grey %#x %#x left of it", x, y, grey(x-1), grey(x-2))
				}
				frame := false
				for xx := x - 3; xx >= x-10; xx-- {
					frame = frame || grey(xx) < 0xe0
				}
				if !frame {
					t.Errorf("preview at (%d,%d): no frame line within 10 px left of it", x, y)
				}
			}
			break
		}
	}
	if !found {
		t.Fatal("no preview found on the rasterized ticket")
	}
}

// TestTicketSize: a ticket with shaped text embeds subsets of two faces (regular and
// bold), and stays small; the sizes are logged for docs/shop-floor.md.
func TestTicketSize(t *testing.T) {
	t.Parallel()
	pdffonts := imgcheck.Tool(t, "pdffonts", "Debian poppler-utils")
	rr, err := render.New(render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, size := range []string{TicketA4, Ticket4x6} {
		b, _, err := Ticket(sampleOrder(t), TicketOptions{Size: size, Link: "https://example.com/o", Text: rr})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "ticket.pdf")
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		fonts := runTool(t, pdffonts, path)
		if n := strings.Count(fonts, "CID TrueType"); n != 2 || strings.Contains(strings.ToLower(fonts), "italic") {
			t.Errorf("%s ticket embeds %d faces, want regular and bold:\n%s", size, n, fonts)
		}
		fontBytes := 0
		for _, m := range regexp.MustCompile(`/Length (\d+)\s*/Filter /FlateDecode\s*/Length1`).FindAllSubmatch(b, -1) {
			n, _ := strconv.Atoi(string(m[1]))
			fontBytes += n
		}
		t.Logf("%s ticket: %d bytes, of which embedded font programs %d", size, len(b), fontBytes)
		if len(b) > 60<<10 {
			t.Errorf("%s ticket: %d bytes, want under 60 KB", size, len(b))
		}
	}
}

// FuzzTicket: whatever the order's strings and link, a ticket is a PDF whose QR code
// holds no file: link.
func FuzzTicket(f *testing.F) {
	f.Add("A-1", "Ana", "Rua 1", "2024-03-14T13:26:00Z", "https://example.com/x", "full")
	f.Add("Bestellung-Ä✓", "山田 花子", "", "yesterday", "file:///srv/x", "name")
	f.Add("", "", "\x00\n", "", "", "none")
	f.Fuzz(func(t *testing.T, id, name, addr, created, link, shipTo string) {
		o := Order{ID: id, Created: created, ShipTo: model.Address{FirstName: name, Address1: addr},
			Lines: []Line{{Quantity: 1, DesignName: name}}}
		b, _, err := Ticket(o, TicketOptions{Link: link, ShipTo: shipTo})
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(b, []byte("%PDF-")) {
			t.Fatal("not a PDF")
		}
		if p := QRPayload(link, id); strings.HasPrefix(strings.ToLower(strings.TrimSpace(p)), "file:") && p != id {
			t.Fatalf("QR payload %q", p)
		}
	})
}
