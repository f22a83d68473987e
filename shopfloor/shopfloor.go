// Package shopfloor builds what print staff read beside an order's files
// (docs/shop-floor.md): the job ticket (a PDF), the order's staff page and the day
// page (static HTML), and the files' thumbnails. Every builder takes data and returns
// bytes: reading state and storing the results is the worker's part, so nothing here
// reaches Redis, storage or the network.
package shopfloor

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/printworker/printworker/model"
)

// Ticket sizes.
const (
	TicketA4     = "a4"
	TicketLetter = "letter"
	Ticket4x6    = "4x6"
	TicketOff    = "off"
)

// What the ticket and the staff page draw of an order, whatever it holds: the work
// of an order's completion stays bounded (docs/shop-floor.md "Bounds"). Every
// warning and file stays in the manifest.
const (
	// MaxListedWarnings is how many warnings of one file are listed; the rest are
	// counted in one line.
	MaxListedWarnings = 8
	// MaxTicketRows is how many files a ticket draws (each a preview read back from
	// storage and a few shaped lines); the rest are counted in one line.
	MaxTicketRows = 100
)

// listed is the part of ws that is listed and how many are left out.
func listed(ws []string) ([]string, int) {
	if len(ws) <= MaxListedWarnings {
		return ws, 0
	}
	return ws[:MaxListedWarnings], len(ws) - MaxListedWarnings
}

// Names of the shop floor objects, next to the order's manifest.
const (
	TicketName    = "ticket.pdf"
	StaffPageName = "index.html"
)

// What a ticket shows of the ship-to address (--ticket-ship-to).
const (
	ShipToFull = "full" // name, company and address, as the store sent them
	ShipToName = "name" // the name alone
	ShipToNone = "none" // nothing
)

// ParseShipTo checks a ship-to setting; "" is full.
func ParseShipTo(s string) (string, error) {
	switch s {
	case "", ShipToFull:
		return ShipToFull, nil
	case ShipToName, ShipToNone:
		return s, nil
	}
	return "", fmt.Errorf("ticket ship-to %q: want full, name or none", s)
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

// Order is what the ticket and the staff page show of one order.
type Order struct {
	ID       string
	Store    string
	Domain   string
	Revision int64
	// Status is the hub's order status; Rush says whether it marks a rush order.
	Status string
	Rush   bool
	// Created is the order's creation time as the hub sent it; GeneratedAt when its
	// files were made.
	Created     string
	GeneratedAt string
	ShipTo      model.Address
	// Customer is the name of who ordered; the ticket shows it when the ship-to
	// address has no name (a guest checkout).
	Customer string
	// Lines are the order's lines as the store sent them, each with its quantity.
	Lines []Line
	Rows  []Row
	// Warnings counts the warnings of the order's files.
	Warnings int
	// Ticket is the key of the order's ticket, linked from its staff page; "" for none.
	Ticket string
	// Reprint marks the ticket of an order printed again: "REPRINT" stands on it.
	Reprint bool
	// Review, when set, is the hold of an order waiting for review: its staff page
	// says why and how to release it instead of "complete".
	Review *Review
}

// Review is what the staff page of a held order shows (docs/shop-floor.md "Review
// holds").
type Review struct {
	// Status is held or rejected.
	Status string
	// Findings are the findings that hold the order, as "file: code: message".
	Findings []string
	// Reason is a rejection's reason.
	Reason string
	// Commands are the operator's commands (release, reject), shown to copy.
	Commands []string
}

// Line is one order line.
type Line struct {
	Quantity   int
	DesignID   int64
	DesignName string
	ProductID  string
}

// Row is one print file of one order line: a design on two lines is two rows, each
// with its line's quantity.
type Row struct {
	Quantity   int
	DesignID   int64
	DesignName string
	ProductID  string
	File       File
	// Warnings are the file's warnings as "code: message".
	Warnings []string
	// Preflight is the file's preflight verdict in words ("pass, total ink 240 %");
	// empty when the file was not checked (docs/preflight.md "In the worker").
	Preflight string
	// PreflightReport is the key of the file's preflight report.
	PreflightReport string
}

// File is a stored print file as a row shows it.
type File struct {
	Key string
	// Bucket is the bucket a routing rule sent the file to ("" for the default one);
	// pages then link to its URL and show no preview.
	Bucket   string
	URL      string
	Filename string
	ViewID   string
	ViewName string
	Type     string
	Mode     string
	// Thumbnail is the key of the file's preview; Preview its JPEG bytes, which the
	// ticket embeds (nil: a placeholder box).
	Thumbnail string
	Preview   []byte
	// Sidecars are the files that go with this one to the machine (a white plate, a
	// cut file), each named as staff find it beside the file.
	Sidecars []Sidecar
	// The physical size: page size for a PDF, pixels and resolution for a raster.
	PageWidthPt, PageHeightPt float64
	WidthPx, HeightPx         int
	DPI                       float64
}

// Sidecar is a file stored beside a print file (a white plate, a cut file).
type Sidecar struct {
	Key      string
	Filename string
}

// View is the file's view name, else its id.
func (f File) View() string {
	if f.ViewName != "" {
		return f.ViewName
	}
	return f.ViewID
}

// Size is the file's physical size in mm (and pixels for rasters).
func (f File) Size() string {
	var parts []string
	if f.PageWidthPt > 0 && f.PageHeightPt > 0 {
		parts = append(parts, fmt.Sprintf("%.0f x %.0f mm", f.PageWidthPt*25.4/72, f.PageHeightPt*25.4/72))
	}
	if f.WidthPx > 0 && f.HeightPx > 0 {
		parts = append(parts, fmt.Sprintf("%d x %d px", f.WidthPx, f.HeightPx))
	}
	if f.DPI > 0 {
		parts = append(parts, strconv.FormatFloat(f.DPI, 'f', -1, 64)+" dpi")
	}
	if len(parts) == 0 {
		return "size unknown"
	}
	return strings.Join(parts, ", ")
}

func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}
