package worker

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"

	"github.com/printworker/printworker/storage"
)

// The shop floor (docs/shop-floor.md): beside each order's manifest the worker writes
// a job ticket (ticket.pdf) and a static staff page (index.html), both before the
// manifest so that the manifest stays the last object of an order.

// Ticket sizes.
const (
	TicketA4     = "a4"
	TicketLetter = "letter"
	Ticket4x6    = "4x6"
	TicketOff    = "off"
)

// Names of the shop floor objects, next to the manifest.
const (
	TicketName    = "ticket.pdf"
	StaffPageName = "index.html"
	kindShopFloor = "shopfloor"
)

// ShopFloor configures thumbnails, job tickets and staff pages; the zero value makes
// all three, tickets in A4.
type ShopFloor struct {
	// NoThumbnails turns previews off (--thumbnails=false).
	NoThumbnails bool
	// TicketSize is a4 (default), letter, 4x6 (a label) or off (--ticket-size).
	TicketSize string
	// NoStaffPages turns the index.html pages off (--staff-pages=false).
	NoStaffPages bool
}

// ParseTicketSize checks a ticket size name.
func ParseTicketSize(s string) (string, error) {
	switch s {
	case "", TicketA4:
		return TicketA4, nil
	case TicketLetter, Ticket4x6, TicketOff:
		return s, nil
	}
	return "", fmt.Errorf("ticket size %q: want a4, letter, 4x6 or off", s)
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
	pageKey := sib(StaffPageName)
	link := w.objectURL(manifestKey)
	if !sf.NoStaffPages {
		m.StaffPage = pageKey
		link = w.objectURL(pageKey)
	}
	if link == "" {
		link = manifestKey
	}
	if size, _ := ParseTicketSize(sf.TicketSize); size != TicketOff {
		key := sib(TicketName)
		m.Ticket = key
		pdf, err := w.ticketPDF(ctx, m, size, link)
		if err != nil {
			return err
		}
		if err := w.putShopFloor(ctx, key, "application/pdf", pdf); err != nil {
			return err
		}
	}
	if !sf.NoStaffPages {
		page, err := staffPage(m, dir, w.pageLinker(ctx, dir))
		if err != nil {
			return err
		}
		if err := w.putShopFloor(ctx, pageKey, "text/html; charset=utf-8", page); err != nil {
			return err
		}
	}
	return nil
}

func (w *Worker) putShopFloor(ctx context.Context, key, contentType string, body []byte) error {
	_, err := w.upload(ctx, kindShopFloor, storage.Object{Key: key, ContentType: contentType,
		Filename: path.Base(key), Size: int64(len(body)), Inline: true}, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("write %s: %w", path.Base(key), err)
	}
	return nil
}

// relLink is the relative, escaped link from folder dir to key, so a page works from
// a hot folder opened in a browser and from a bucket website alike.
func relLink(dir, key string) string {
	var from []string
	if dir != "." && dir != "" {
		from = strings.Split(dir, "/")
	}
	to := strings.Split(key, "/")
	i := 0
	for i < len(from) && i < len(to)-1 && from[i] == to[i] {
		i++
	}
	var parts []string
	for range from[i:] {
		parts = append(parts, "..")
	}
	for _, s := range to[i:] {
		parts = append(parts, url.PathEscape(s))
	}
	out := strings.Join(parts, "/")
	if strings.Contains(parts[0], ":") {
		out = "./" + out // never read as a scheme (javascript:)
	}
	return out
}
