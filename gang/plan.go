// Package gang nests many designs onto one roll or fixed sheets (gang sheets for
// DTF, sublimation and sticker printing) and streams the sheet as a transparent PNG at
// print resolution without holding the canvas in memory.
//
// Plan turns designs (each with a quantity) into sheets of placements with a best-fit
// skyline packer and MaxRects, keeping the better; Render writes one sheet; Manifest
// describes it. Everything is pure: no network, the caller supplies the design pixels
// through a Loader.
package gang

import (
	"errors"
	"fmt"
	"image"
	"math"
	"strings"
)

// Design is one artwork file and how many copies to print.
type Design struct {
	// Key identifies the file (its path relative to the input folder).
	Key      string
	OrderID  string // "" for a loose file without an order manifest
	Line     int    // 1-based line item number in its order; 0 when none
	DesignID int64
	View     string
	Quantity int
	// Width and Height are the file's pixel size; Trim is the part with alpha > 0
	// (what is packed and printed). An empty Trim means a fully transparent file.
	Width, Height int
	Trim          image.Rectangle
	// DPI is the file's resolution when known (0: assume the sheet's). Files are
	// placed pixel for pixel, never resampled, so another DPI is refused.
	DPI float64
}

// Config is the sheet geometry, all lengths in sheet pixels.
type Config struct {
	DPI   float64
	Width int
	// MaxLength is the longest roll section (a longer layout continues on the next
	// section), or with Sheets the length of every sheet.
	MaxLength int
	// Sheets: fixed sheets of Width x MaxLength; otherwise roll sections cut to the
	// length used.
	Sheets bool
	// Gap is the clear space between two copies' artwork; Margin the clear border of
	// the sheet.
	Gap, Margin int
	Rotate      bool
	// Label is the height of the label band under each copy (0: no labels).
	Label int
	// Code is the height of the code band under each copy (and its label band; 0:
	// no codes): a Code 128 barcode of its order, line and copy.
	Code int
	// CutMarks draws corner marks in the gap around each copy.
	CutMarks bool
}

// Bands is the height under each copy's artwork its label and code take.
func (c Config) Bands() int { return c.Label + c.Code }

// Placement is one copy on a sheet. X, Y, W, H are the artwork's trimmed box on the
// sheet in pixels; Src is the trimmed box in the design file.
type Placement struct {
	Design   int // index into the designs given to Plan
	Copy     int // 1..Quantity
	X, Y     int
	W, H     int
	Rotation int // 0, or 90 (turned clockwise)
	Src      image.Rectangle
}

// Sheet is one roll section or fixed sheet.
type Sheet struct {
	Index      int // 1-based
	Width      int
	Length     int
	Placements []Placement
}

// Rejection is a design left off every sheet, and why.
type Rejection struct {
	Design int
	Key    string
	Reason string
}

// Layout is the result of Plan.
type Layout struct {
	Config   Config
	Designs  []Design
	Sheets   []Sheet
	Rejected []Rejection
}

// InputError is a configuration or design list that cannot be planned; retrying
// cannot help.
type InputError struct{ Reason string }

func (e *InputError) Error() string { return "gang: " + e.Reason }

// Retryable reports false: the same input fails the same way.
func (e *InputError) Retryable() bool { return false }

// ErrNothingPlaced is returned (wrapped) when every design was rejected.
var ErrNothingPlaced = errors.New("no design fits on the sheet")

// maxCopies bounds the copies of one plan: MaxRects is quadratic in them (on 2
// shared cores at load ~20, 5000 1-4 in stickers on a 22 in roll plan in 9.7 s of
// CPU, 10000 in 39 s; docs/benchmarks.md "Gang sheets").
const maxCopies = 10000

// Validate reports every bad setting at once.
func (c Config) Validate() error {
	var errs []string
	if !(c.DPI > 0) || math.IsInf(c.DPI, 0) {
		errs = append(errs, fmt.Sprintf("dpi must be positive, got %v", c.DPI))
	}
	if c.Width <= 0 {
		errs = append(errs, fmt.Sprintf("width must be positive, got %d px", c.Width))
	}
	if c.MaxLength <= 0 {
		errs = append(errs, fmt.Sprintf("max length must be positive, got %d px", c.MaxLength))
	}
	if c.Gap < 0 || c.Margin < 0 || c.Label < 0 || c.Code < 0 {
		errs = append(errs, "gap, margin, label and code heights must not be negative")
	}
	if c.Width > 0 && c.Gap >= c.Width {
		errs = append(errs, fmt.Sprintf("gap %d px is not smaller than the sheet width %d px", c.Gap, c.Width))
	}
	if c.Width > 0 && 2*c.Margin >= c.Width {
		errs = append(errs, fmt.Sprintf("margins 2 x %d px leave nothing of the width %d px", c.Margin, c.Width))
	}
	if c.MaxLength > 0 && 2*c.Margin >= c.MaxLength {
		errs = append(errs, fmt.Sprintf("margins 2 x %d px leave nothing of the length %d px", c.Margin, c.MaxLength))
	}
	if c.CutMarks && c.Gap < 4 {
		errs = append(errs, fmt.Sprintf("cut marks need a gap of at least 4 px, got %d", c.Gap))
	}
	if len(errs) > 0 {
		return &InputError{Reason: strings.Join(errs, "; ")}
	}
	return nil
}

// binW and binH are the space boxes are packed into: the printable area plus one gap,
// since every box carries the gap on its right and bottom side.
func (c Config) binW() int { return c.Width - 2*c.Margin + c.Gap }
func (c Config) binH() int { return c.MaxLength - 2*c.Margin + c.Gap }

// Plan nests every copy of every design. Designs that can never fit are rejected (and
// reported in Layout.Rejected) while the rest proceed; bad settings, an empty list and
// zero or negative quantities are errors.
func Plan(designs []Design, cfg Config) (*Layout, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(designs) == 0 {
		return nil, &InputError{Reason: "no designs to place"}
	}
	var bad []string
	total := 0
	for _, d := range designs {
		if d.Quantity <= 0 {
			bad = append(bad, fmt.Sprintf("%s: quantity %d (must be at least 1)", d.Key, d.Quantity))
		}
		total += max(d.Quantity, 0)
	}
	if len(bad) > 0 {
		return nil, &InputError{Reason: strings.Join(bad, "; ")}
	}
	if total > maxCopies {
		return nil, &InputError{Reason: fmt.Sprintf("%d copies, more than the %d one plan takes", total, maxCopies)}
	}
	l := &Layout{Config: cfg, Designs: designs}
	var boxes []box
	var copies []Placement // by box ID
	for i, d := range designs {
		if reason := cfg.reject(d); reason != "" {
			l.Rejected = append(l.Rejected, Rejection{Design: i, Key: d.Key, Reason: reason})
			continue
		}
		for c := 1; c <= d.Quantity; c++ {
			boxes = append(boxes, cfg.box(d, len(copies)))
			copies = append(copies, Placement{Design: i, Copy: c, Src: d.Trim})
		}
	}
	if len(boxes) == 0 {
		return l, fmt.Errorf("gang: %w (%d designs rejected)", ErrNothingPlaced, len(l.Rejected))
	}
	for len(boxes) > 0 {
		placed, rest := packBest(boxes, cfg.binW(), cfg.binH(), cfg.Rotate)
		if len(placed) == 0 {
			// reject() checked every box against an empty sheet; cannot happen.
			return nil, fmt.Errorf("gang: %d copies fit no empty sheet", len(rest))
		}
		l.Sheets = append(l.Sheets, cfg.sheet(len(l.Sheets)+1, placed, copies))
		boxes = rest
	}
	return l, nil
}

// Reject says why d can never be placed on a sheet of c (another dpi, nothing to
// print, too big either way), "" if it can: Plan leaves such a design off.
func (c Config) Reject(d Design) string { return c.reject(d) }

// reject says why d can never be placed, "" if it can.
func (c Config) reject(d Design) string {
	if d.DPI > 0 && math.Abs(d.DPI-c.DPI) > 0.01 {
		return fmt.Sprintf("file is %g dpi, the sheet %g dpi (files are placed pixel for pixel, never resampled)", d.DPI, c.DPI)
	}
	if d.Trim.Empty() {
		return "fully transparent: nothing to print"
	}
	b := c.box(d, 0)
	fits := func(w, h int) bool { return w <= c.binW() && h <= c.binH() }
	if fits(b.W, b.H) || (c.Rotate && fits(b.RW, b.RH)) {
		return ""
	}
	pw, ph := c.binW()-c.Gap, c.binH()-c.Gap-c.Bands()
	if c.Rotate {
		return fmt.Sprintf("artwork %dx%d px fits neither way in the printable area %dx%d px", d.Trim.Dx(), d.Trim.Dy(), pw, ph)
	}
	return fmt.Sprintf("artwork %dx%d px does not fit in the printable area %dx%d px (rotation is off)", d.Trim.Dx(), d.Trim.Dy(), pw, ph)
}

// box is the padded size of one copy of d: artwork, label and code bands under it, gap.
func (c Config) box(d Design, id int) box {
	w, h := d.Trim.Dx(), d.Trim.Dy()
	return box{W: w + c.Gap, H: h + c.Bands() + c.Gap, RW: h + c.Gap, RH: w + c.Bands() + c.Gap, ID: id}
}

// sheet turns packed boxes into placements, sorted top to bottom then left to right
// (the order the renderer and the manifest want).
func (c Config) sheet(index int, placed []packed, copies []Placement) Sheet {
	s := Sheet{Index: index, Width: c.Width}
	bottom := 0
	for _, p := range placed {
		pl := copies[p.ID]
		w, h := pl.Src.Dx(), pl.Src.Dy()
		if p.Rot {
			w, h = h, w
			pl.Rotation = 90
		}
		pl.X, pl.Y, pl.W, pl.H = c.Margin+p.X, c.Margin+p.Y, w, h
		bottom = max(bottom, pl.Y+h+c.Bands())
		s.Placements = append(s.Placements, pl)
	}
	sortPlacements(s.Placements)
	s.Length = c.MaxLength
	if !c.Sheets {
		s.Length = bottom + c.Margin
	}
	return s
}
