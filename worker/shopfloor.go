package worker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/printworker/printworker/shopfloor"
	"github.com/printworker/printworker/storage"
)

// The shop floor (docs/shop-floor.md): beside each order's manifest the worker writes
// a job ticket (ticket.pdf) and a static staff page (index.html), both before the
// manifest so that the manifest stays the last object of an order.

// kindShopFloor labels the uploads of tickets and pages in the metrics.
const kindShopFloor = "shopfloor"

// ShopFloor configures thumbnails, job tickets and staff pages; the zero value makes
// all three, tickets in A4.
type ShopFloor struct {
	// NoThumbnails turns previews off (--thumbnails=false).
	NoThumbnails bool
	// TicketSize is a4 (default), letter, 4x6 (a label) or off (--ticket-size).
	TicketSize string
	// NoStaffPages turns the index.html pages off (--staff-pages=false).
	NoStaffPages bool
	// DayPageDelay is how long a day page build waits after the completion that
	// enqueued it, so the completions of a burst share one build (--day-page-delay):
	// 0 is DefaultDayPageDelay, negative builds at once.
	DayPageDelay time.Duration
	// ShipTo is how much of the ship-to address tickets show: full (default), name or
	// none (--ticket-ship-to).
	ShipTo string
	// TimeZone shows the order date on tickets in that zone (nil: UTC); StoreTimeZones
	// per store (--ticket-time-zone, --ticket-store-time-zone).
	TimeZone       *time.Location
	StoreTimeZones map[string]*time.Location
}

// timeZone is the time zone of store's tickets.
func (s ShopFloor) timeZone(store string) *time.Location {
	if loc, ok := s.StoreTimeZones[store]; ok && loc != nil {
		return loc
	}
	if s.TimeZone != nil {
		return s.TimeZone
	}
	return time.UTC
}

// reader is the optional part of a Storage that reads objects back (both backends);
// tickets embed the thumbnails through it.
type reader interface {
	Get(ctx context.Context, key string) (io.ReadCloser, storage.Info, error)
}

// maxThumbRead bounds a thumbnail read back for a ticket: ours are a few tens of KB.
const maxThumbRead = 2 << 20

// readThumb reads a thumbnail back for the ticket; nil when it cannot (a placeholder
// is drawn instead).
func (w *Worker) readThumb(ctx context.Context, bucket, key string) []byte {
	r, ok := w.storageOf(bucket).(reader)
	if !ok || key == "" {
		return nil
	}
	rc, _, err := r.Get(ctx, key)
	if err != nil {
		w.logger(ctx).WarnContext(ctx, "thumbnail unreadable, ticket shows a placeholder", "key", key, "err", err)
		return nil
	}
	defer rc.Close()
	b, err := io.ReadAll(io.LimitReader(rc, maxThumbRead+1))
	if err != nil || len(b) > maxThumbRead {
		return nil
	}
	return b
}

// writeShopFloor writes the ticket and staff page of the order whose manifest goes to
// manifestKey, and names them in the manifest.
func (w *Worker) writeShopFloor(ctx context.Context, m *Manifest, manifestKey string) error {
	dir := path.Dir(manifestKey)
	sib := func(name string) string {
		if dir == "." {
			return name
		}
		return dir + "/" + name
	}
	sf := w.cfg.ShopFloor
	pageKey := sib(shopfloor.StaffPageName)
	// The QR code opens the order's page (else its manifest) on a phone: a public or
	// presigned link when the storage makes one; the ticket shows the order number
	// otherwise (a hot folder's file: link opens nowhere else).
	linkKey := manifestKey
	if !sf.NoStaffPages {
		m.StaffPage = pageKey
		linkKey = pageKey
	}
	if size, _ := shopfloor.ParseTicketSize(sf.TicketSize); size != shopfloor.TicketOff {
		key := sib(shopfloor.TicketName)
		m.Ticket = key
		link, err := w.link(ctx, "", linkKey)
		if err != nil {
			w.logger(ctx).WarnContext(ctx, "job ticket: no link for the QR code, it holds the order number", "key", linkKey, "err", err)
			link = ""
		}
		pdf, err := w.ticket(ctx, m, size, link)
		if err != nil {
			return err
		}
		if err := w.putShopFloor(ctx, key, "application/pdf", pdf); err != nil {
			return err
		}
	}
	if !sf.NoStaffPages {
		page, err := shopfloor.StaffPage(shopOrder(m), manifestKey, w.pageLinker(ctx, dir))
		if err != nil {
			return err
		}
		if err := w.putShopFloor(ctx, pageKey, "text/html; charset=utf-8", page); err != nil {
			return err
		}
	}
	return nil
}

// ticket draws the order's ticket with its previews read back from storage; link is
// what the QR code holds.
func (w *Worker) ticket(ctx context.Context, m *Manifest, size, link string) ([]byte, error) {
	o := shopOrder(m)
	// Only the files the ticket draws have their preview read back.
	for i, r := range o.Rows[:min(len(o.Rows), shopfloor.MaxTicketRows)] {
		o.Rows[i].File.Preview = w.readThumb(ctx, r.File.Bucket, r.File.Thumbnail)
	}
	opt := shopfloor.TicketOptions{Size: size, Link: link, ShipTo: w.cfg.ShopFloor.ShipTo, Location: w.cfg.ShopFloor.timeZone(m.Store)}
	if d, ok := w.deps.Renderer.(shopfloor.LineDrawer); ok {
		opt.Text = d
	} else {
		w.logger(ctx).WarnContext(ctx, "job ticket in the core Helvetica font (no renderer): characters outside Windows-1252 print as '?'", "order", m.OrderID)
	}
	pdf, missing, err := shopfloor.Ticket(o, opt)
	if len(missing) > 0 {
		w.logger(ctx).WarnContext(ctx, "job ticket: no installed font covers some characters (drawn as boxes)", "order", m.OrderID, "chars", string(missing))
	}
	return pdf, err
}

// shopOrder is what tickets and staff pages show of the manifest's order: its files
// line by line (a design on two lines twice, with each line's quantity).
func shopOrder(m *Manifest) shopfloor.Order {
	o := shopfloor.Order{ID: m.OrderID, Store: m.Store, Domain: m.Domain, Revision: m.Revision,
		Status: m.OrderStatus, Rush: IsRush(m.OrderStatus), Created: m.OrderCreated, GeneratedAt: m.GeneratedAt,
		ShipTo: m.Shipping, Customer: strings.TrimSpace(m.Customer.FirstName + " " + m.Customer.LastName), Warnings: len(m.Warnings), Ticket: m.Ticket, Reprint: m.Reprint}
	for _, li := range m.LineItems {
		o.Lines = append(o.Lines, shopfloor.Line{Quantity: li.Quantity, DesignID: li.DesignID, DesignName: li.DesignName, ProductID: li.ProductID})
	}
	byKey := map[string]FileRecord{}
	for _, f := range m.Files {
		byKey[f.Key] = f
	}
	for _, li := range m.LineItems {
		for _, k := range li.Files {
			f := byKey[k]
			r := shopfloor.Row{Quantity: li.Quantity, DesignID: li.DesignID, DesignName: li.DesignName, ProductID: li.ProductID,
				File: shopfloor.File{Key: f.Key, Bucket: f.Bucket, URL: f.URL, Filename: f.Filename, ViewID: f.ViewID,
					ViewName: f.ViewName, Type: f.Type, Mode: f.Mode, Thumbnail: f.Thumbnail,
					PageWidthPt: f.PageWidthPt, PageHeightPt: f.PageHeightPt, WidthPx: f.WidthPx, HeightPx: f.HeightPx, DPI: f.DPI}}
			for _, sc := range f.Sidecars {
				r.File.Sidecars = append(r.File.Sidecars, shopfloor.Sidecar{Key: sc.Key, Filename: sc.Filename})
			}
			for _, wr := range f.Warnings {
				r.Warnings = append(r.Warnings, wr.Code+": "+wr.Message)
			}
			r.Preflight, r.PreflightReport = preflightLine(f.Preflight)
			o.Rows = append(o.Rows, r)
		}
	}
	return o
}

func (w *Worker) putShopFloor(ctx context.Context, key, contentType string, body []byte) error {
	_, err := w.upload(ctx, kindShopFloor, storage.Object{Key: key, ContentType: contentType,
		Filename: path.Base(key), Size: int64(len(body)), Inline: true}, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("write %s: %w", path.Base(key), err)
	}
	return nil
}
