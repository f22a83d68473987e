package shopfloor

import (
	"bytes"
	"fmt"
	"image/color"
	"net/url"
	"slices"
	"strings"
	"time"

	gofpdf "codeberg.org/go-pdf/fpdf"
	"github.com/boombuler/barcode"
	"github.com/boombuler/barcode/code128"
	"github.com/boombuler/barcode/qr"

	"github.com/printworker/printworker/model"
)

// Job ticket (docs/shop-floor.md): one PDF per order with the order number as a Code
// 128 barcode, a QR code a phone opens (QRPayload), and every file with its preview. Bars
// and modules are drawn as vector rectangles so they stay sharp at any print dpi.

// ticketPage is a ticket size in points, with its margin and scale of type.
type ticketPage struct {
	w, h, margin, scale float64
}

func ticketPageOf(size string) ticketPage {
	switch size {
	case TicketLetter:
		return ticketPage{612, 792, 36, 1}
	case Ticket4x6:
		return ticketPage{288, 432, 14, 0.7}
	}
	return ticketPage{595.28, 841.89, 36, 1}
}

// LineDrawer draws shaped text with embedded fonts (*render.Renderer): the ticket
// then prints any script the renderer's fonts cover (docs/shop-floor.md).
type LineDrawer interface {
	PDFLine(pdf *gofpdf.Fpdf, x, baseline, size float64, bold, italic bool, s string) (float64, []rune)
	MeasureLine(s string, size float64, bold, italic bool) float64
}

// ticketWriter draws the ticket top-down, adding pages as it fills them.
type ticketWriter struct {
	pdf *gofpdf.Fpdf
	pg  ticketPage
	y   float64
	// txt draws the text; nil (a worker without a renderer): the core Helvetica,
	// through tr, which turns what Windows-1252 lacks into "?".
	txt LineDrawer
	tr  func(string) string
	// missing are the characters no font covered, for one warning per ticket.
	missing map[rune]bool
	// order is the order number repeated on every further page.
	order string
}

// text writes s with its baseline at (x, baseline).
func (t *ticketWriter) text(x, baseline, size float64, style, s string) {
	bold, italic := strings.Contains(style, "B"), strings.Contains(style, "I")
	if t.txt == nil {
		t.pdf.SetFont("Helvetica", style, size)
		t.pdf.Text(x, baseline, t.tr(s))
		return
	}
	_, missing := t.txt.PDFLine(t.pdf, x, baseline, size, bold, italic, s)
	for _, r := range missing {
		t.missing[r] = true
	}
}

// width is the width text would give s.
func (t *ticketWriter) width(s string, size float64, style string) float64 {
	if t.txt == nil {
		t.pdf.SetFont("Helvetica", style, size)
		return t.pdf.GetStringWidth(t.tr(s))
	}
	return t.txt.MeasureLine(s, size, strings.Contains(style, "B"), strings.Contains(style, "I"))
}

func (t *ticketWriter) fs(pt float64) float64 { return pt * t.pg.scale }

// need starts a new page unless h points still fit.
func (t *ticketWriter) need(h float64) {
	if t.y+h > t.pg.h-t.pg.margin {
		t.pdf.AddPage()
		t.y = t.pg.margin
		// A page that comes loose from the first still names its order.
		size := t.fs(10)
		head := fmt.Sprintf("Order %s (continued, page %d)", t.order, t.pdf.PageNo())
		t.text(t.pg.margin, t.y+size, size, "B", t.fit(head, t.pg.w-2*t.pg.margin, size, "B"))
		t.y += size * 1.8
	}
}

// line writes one line of text (cut to the width) at x.
func (t *ticketWriter) line(x float64, size float64, style, s string) {
	size = t.fs(size)
	t.need(size * 1.3)
	t.text(x, t.y+size, size, style, t.fit(s, t.pg.w-t.pg.margin-x, size, style))
	t.y += size * 1.3
}

// fit cuts s to width points, ending in "..." (the longest prefix that fits, found by
// bisection: each measure shapes the string).
func (t *ticketWriter) fit(s string, width, size float64, style string) string {
	if t.width(s, size, style) <= width {
		return s
	}
	r := []rune(s)
	lo, hi := 0, len(r) // r[:lo]+"..." fits (or lo is 0), r[:hi]+"..." does not
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if t.width(string(r[:mid])+"...", size, style) <= width {
			lo = mid
		} else {
			hi = mid
		}
	}
	return string(r[:lo]) + "..."
}

// cp1252 keeps the ticket's core-font text readable: runes the encoding lacks become "?".
func cp1252(tr func(string) string) func(string) string {
	return func(s string) string {
		s = strings.Map(func(r rune) rune {
			if r < 0x20 {
				return ' '
			}
			if r > 0xff && !strings.ContainsRune("€‚ƒ„…†‡ˆ‰Š‹ŒŽ‘’“”•–—˜™š›œžŸ", r) {
				return '?'
			}
			return r
		}, s)
		return tr(s)
	}
}

// modules draws a barcode's dark modules as rectangles in the box x, y, w, h.
func modules(pdf *gofpdf.Fpdf, bc barcode.Barcode, x, y, w, h float64) {
	b := bc.Bounds()
	mw, mh := w/float64(b.Dx()), h/float64(b.Dy())
	pdf.SetFillColor(0, 0, 0)
	for j := b.Min.Y; j < b.Max.Y; j++ {
		for i := b.Min.X; i < b.Max.X; {
			if !dark(bc.At(i, j)) {
				i++
				continue
			}
			run := i
			for run < b.Max.X && dark(bc.At(run, j)) {
				run++
			}
			pdf.Rect(x+float64(i-b.Min.X)*mw, y+float64(j-b.Min.Y)*mh, float64(run-i)*mw, mh, "F")
			i = run
		}
	}
}

func dark(c color.Color) bool {
	r, g, b, _ := c.RGBA()
	return r+g+b < 3*0x8000
}

// TicketOptions say how a ticket is drawn.
type TicketOptions struct {
	// Size is a ticket size (ParseTicketSize); TicketOff draws an A4 ticket too.
	Size string
	// Link is what the QR code holds: a link a phone can open (http or https). Any
	// other link (a file: path of a hot folder, "") gives the order number instead.
	Link string
	// ShipTo is how much of the ship-to address the ticket shows (ParseShipTo; ""
	// is full).
	ShipTo string
	// Location is the store's time zone, in which the order date is shown; nil: UTC.
	Location *time.Location
	// Text draws the text; nil: the core Helvetica, in which characters outside
	// Windows-1252 print as "?".
	Text LineDrawer
}

// Ticket draws the order's job ticket. missing are the characters no font covered
// (drawn as boxes), sorted, for the caller to report.
func Ticket(o Order, opt TicketOptions) (pdfBytes []byte, missing []rune, err error) {
	pg := ticketPageOf(opt.Size)
	pdf := gofpdf.NewCustom(&gofpdf.InitType{UnitStr: "pt", Size: gofpdf.SizeType{Wd: pg.w, Ht: pg.h}})
	pdf.SetMargins(pg.margin, pg.margin, pg.margin)
	pdf.SetAutoPageBreak(false, 0)
	pdf.SetCreator("printworker", true)
	// The title is an info string (PDFDocEncoding or UTF-16): any script goes.
	pdf.SetTitle("Job ticket, order "+o.ID, true)
	pdf.AddPage()
	t := &ticketWriter{pdf: pdf, pg: pg, y: pg.margin, tr: cp1252(pdf.UnicodeTranslatorFromDescriptor("")),
		order: o.ID, missing: map[rune]bool{}, txt: opt.Text}
	x0 := pg.margin

	// QR code top right, the order number and its barcode to its left.
	qrSide := t.fs(96)
	if code, err := qr.Encode(QRPayload(opt.Link, o.ID), qr.M, qr.Auto); err == nil {
		modules(pdf, code, pg.w-pg.margin-qrSide, t.y, qrSide, qrSide)
	}
	if o.Reprint {
		red(pdf)
		t.line(x0, 16, "B", "REPRINT")
		black(pdf)
	}
	t.line(x0, 9, "", "JOB TICKET")
	t.line(x0, 20, "B", "Order "+o.ID)
	barW := pg.w - 2*pg.margin - qrSide - t.fs(12)
	barH := t.fs(40)
	if code, err := code128.Encode(o.ID); err == nil {
		// A quiet zone of 10 modules each side keeps scanners happy.
		mw := barW / float64(code.Bounds().Dx()+20)
		modules(pdf, code, x0+10*mw, t.y+t.fs(4), mw*float64(code.Bounds().Dx()), barH)
	} else {
		t.text(x0, t.y+barH/2, t.fs(9), "", "no barcode: the order number is not plain ASCII")
	}
	t.y = max(t.y+barH+t.fs(10), pg.margin+qrSide+t.fs(6))

	t.line(x0, 10, "", fmt.Sprintf("Store %s (%s) - revision %d - status %s", o.Store, o.Domain, o.Revision, orDash(o.Status)))
	t.line(x0, 10, "", "Ordered "+OrderDate(o.Created, opt.Location)+" - files generated "+OrderDate(o.GeneratedAt, opt.Location))
	rush := "no"
	if o.Rush {
		rush = "YES"
	}
	t.line(x0, 10, "B", "Rush: "+rush)
	t.y += t.fs(4)
	if lines := shipToLines(o.ShipTo, o.Customer, opt.ShipTo); len(lines) > 0 {
		t.line(x0, 11, "B", "Ship to")
		for _, l := range lines {
			t.line(x0+t.fs(8), 10, "", l)
		}
		t.line(x0+t.fs(8), 10, "", "Method: not given (the hub sends no shipping method)")
		t.y += t.fs(4)
	}
	if len(o.Lines) > 0 {
		items := 0
		for _, l := range o.Lines {
			items += l.Quantity
		}
		t.line(x0, 11, "B", fmt.Sprintf("Items (%d on %d line(s))", items, len(o.Lines)))
		for _, l := range o.Lines {
			t.line(x0+t.fs(8), 10, "", fmt.Sprintf("%d x  %s (design %d) - product %s", l.Quantity, orDash(l.DesignName), l.DesignID, orDash(l.ProductID)))
		}
		t.y += t.fs(4)
	}
	if o.Warnings > 0 {
		red(pdf)
		t.line(x0, 11, "B", fmt.Sprintf("%d warning(s): see the files below", o.Warnings))
		black(pdf)
	}
	t.line(x0, 11, "B", fmt.Sprintf("Files (%d)", len(o.Rows)))
	for i, r := range o.Rows[:min(len(o.Rows), MaxTicketRows)] {
		t.row(i, r)
	}
	if more := len(o.Rows) - MaxTicketRows; more > 0 {
		t.line(x0, 11, "B", fmt.Sprintf("... and %d more file(s): see the staff page or the manifest", more))
	}
	for r := range t.missing {
		missing = append(missing, r)
	}
	slices.Sort(missing)
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, missing, fmt.Errorf("job ticket: %w", err)
	}
	return buf.Bytes(), missing, nil
}

// row draws one file: its preview (or a placeholder box) and its facts.
func (t *ticketWriter) row(i int, r Row) {
	pdf, side := t.pdf, t.fs(72)
	t.need(side + t.fs(8))
	x0, top := t.pg.margin, t.y
	pdf.SetDrawColor(160, 160, 160)
	pdf.Rect(x0, top, side, side, "D")
	if img := r.File.Preview; img != nil {
		name := fmt.Sprintf("thumb-%d", i)
		opt := gofpdf.ImageOptions{ImageType: "JPG"}
		info := pdf.RegisterImageOptionsReader(name, opt, bytes.NewReader(img))
		if pdf.Ok() && info != nil {
			// Inset from the frame, so the frame's line stays visible around the image.
			pad := t.fs(4)
			iw, ih := info.Width(), info.Height()
			k := min((side-2*pad)/iw, (side-2*pad)/ih)
			pdf.ImageOptions(name, x0+(side-iw*k)/2, top+(side-ih*k)/2, iw*k, ih*k, false, opt, 0, "")
		} else {
			pdf.ClearError()
		}
	} else {
		t.text(x0+t.fs(6), top+side/2, t.fs(8), "", "no preview")
	}
	tx := x0 + side + t.fs(10)
	t.line(tx, 12, "B", fmt.Sprintf("Qty %d  -  %s (design %d)", r.Quantity, orDash(r.DesignName), r.DesignID))
	t.line(tx, 9, "", fmt.Sprintf("Product %s - view %s", orDash(r.ProductID), orDash(r.File.View())))
	t.line(tx, 9, "", r.File.Size()+" - "+orDash(r.File.Type))
	t.line(tx, 8, "", orDash(r.File.Filename))
	// A white plate or cut file prints with its file: staff look for both.
	for _, sc := range r.File.Sidecars {
		t.line(tx, 8, "", "+ "+sc.Filename)
	}
	if r.Preflight != "" {
		t.line(tx, 8, "", "Preflight "+r.Preflight)
	}
	if len(r.Warnings) > 0 {
		red(pdf)
		shown, more := listed(r.Warnings)
		for _, wr := range shown {
			t.line(tx, 8, "", "! "+wr)
		}
		if more > 0 {
			t.line(tx, 8, "", fmt.Sprintf("! and %d more warning(s): see the manifest", more))
		}
		black(pdf)
	}
	t.y = max(t.y, top+side) + t.fs(8)
}

// QRPayload is what a ticket's QR code holds: link when a phone can open it (http or
// https), else the order number; never a file: path, which opens nowhere but on the
// machine that wrote it.
func QRPayload(link, orderID string) string {
	if u, err := url.Parse(link); err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
		return link
	}
	return orderID
}

// OrderDate is the order's creation time (RFC 3339, as the hub sends it) in loc
// (nil: UTC), as staff read it: "14 Mar 2024, 14:26 CET". A time that does not parse
// is shown as sent, none as "-".
func OrderDate(created string, loc *time.Location) string {
	ts, err := time.Parse(time.RFC3339, strings.TrimSpace(created))
	if err != nil {
		return orDash(created)
	}
	if loc == nil {
		loc = time.UTC
	}
	return ts.In(loc).Format("2 Jan 2006, 15:04 MST")
}

// shipToLines are the lines of the ship-to address the setting shows, in its
// country's layout (AddressLines), with its phone for the courier. A guest order's
// address may carry no name: the customer's stands in for it.
func shipToLines(s model.Address, customer, setting string) []string {
	name := PersonName(s)
	if name == "" {
		name = strings.TrimSpace(customer)
	}
	switch setting {
	case ShipToNone:
		return nil
	case ShipToName:
		return nonEmpty(name)
	}
	out := AddressLines(s, name)
	if p := strings.TrimSpace(s.Phone); p != "" {
		out = append(out, "Phone "+p)
	}
	return out
}

// red and black set the colour of text: core-font text takes the text colour, shaped
// text drawn as outlines the fill colour.
func red(pdf *gofpdf.Fpdf) {
	pdf.SetTextColor(183, 28, 28)
	pdf.SetFillColor(183, 28, 28)
}

func black(pdf *gofpdf.Fpdf) {
	pdf.SetTextColor(0, 0, 0)
	pdf.SetFillColor(0, 0, 0)
}
