// Package impose lays personalised sheet products (cards, labels, invitations) out on
// press sheets and writes the sheets as PDF: a template (sheet, margins, gutters,
// duplex, order, marks, codes), the grid and the placements it gives, and the sheet
// writer that embeds each item page once as a form XObject. It is pure: no network,
// no Redis; callers hand it the items' bytes. docs/imposition.md describes the
// template, the maths and the output.
package impose

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
)

// Duplex modes: how the sheet is turned to print its back.
const (
	DuplexNone   = "none"
	DuplexTurn   = "turn"   // work-and-turn: flipped about the sheet's vertical axis
	DuplexTumble = "tumble" // flipped about the sheet's horizontal axis
)

// Orders of items on the sheets.
const (
	OrderRows     = "rows"      // fill sheet 1 row by row, then sheet 2, ...
	OrderCutStack = "cut-stack" // item i on sheet (i mod N)+1 at position i/N
)

// Code symbologies of the per-item code.
const (
	CodesNone    = "none"
	CodesCode128 = "code128"
	CodesQR      = "qr"
)

// Bounds on a template: a sheet larger than 2 m or a grid of more than 10000 cells is
// no sheet-fed press's, and the bound keeps hostile templates cheap.
const (
	maxSheetMM    = 2000
	maxGutterMM   = 100
	maxGridCells  = 10000
	maxTemplateSz = 1 << 20
)

// Template is an imposition template (docs/imposition.md "Templates").
type Template struct {
	Sheet    Sheet   `json:"sheet"`
	MarginMM float64 `json:"margin_mm"`
	GutterMM float64 `json:"gutter_mm"`
	// Grid fixes the columns and rows; zero (the default) takes the grid that holds
	// the most items.
	Grid GridSpec `json:"grid,omitzero"`
	// Rotate lets the best grid turn items 90 degrees when that fits more (default
	// true); with a fixed grid, turned items are used when only they fit.
	Rotate *bool  `json:"rotate,omitempty"`
	Duplex string `json:"duplex"`
	Order  string `json:"order"`
	// Marks draws crop marks at every item's trim lines (default true).
	Marks *bool `json:"marks,omitempty"`
	// Codes is the symbology of the code under every item: code128 (default), qr or none.
	Codes string `json:"codes"`
	// Slug writes the batch, sheet n of m and a colour bar in the bottom margin
	// (default true; it needs a margin of at least 4 mm).
	Slug *bool `json:"slug,omitempty"`
}

// Sheet is the press sheet's size.
type Sheet struct {
	WidthMM  float64 `json:"width_mm"`
	HeightMM float64 `json:"height_mm"`
}

// GridSpec fixes a grid; zero values mean "the best".
type GridSpec struct {
	Columns int `json:"columns"`
	Rows    int `json:"rows"`
}

// ParseTemplate reads a JSON template, filling defaults, and validates it. Unknown
// keys are refused (a misspelt key would otherwise be silently ignored).
func ParseTemplate(r io.Reader) (*Template, error) {
	data, err := io.ReadAll(io.LimitReader(r, maxTemplateSz+1))
	if err != nil {
		return nil, fmt.Errorf("impose template: %w", err)
	}
	if len(data) > maxTemplateSz {
		return nil, fmt.Errorf("impose template: longer than %d bytes", maxTemplateSz)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var t Template
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("impose template: %w", err)
	}
	if dec.More() {
		return nil, errors.New("impose template: more than one JSON value")
	}
	t.fillDefaults()
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return &t, nil
}

func (t *Template) fillDefaults() {
	if t.Duplex == "" {
		t.Duplex = DuplexNone
	}
	if t.Order == "" {
		t.Order = OrderRows
	}
	if t.Codes == "" {
		t.Codes = CodesCode128
	}
	yes := true
	if t.Rotate == nil {
		t.Rotate = &yes
	}
	if t.Marks == nil {
		t.Marks = &yes
	}
	if t.Slug == nil {
		t.Slug = &yes
	}
}

// Validate reports every bad value of a template (defaults filled) at once.
func (t *Template) Validate() error {
	var errs []error
	bad := func(format string, a ...any) { errs = append(errs, fmt.Errorf("impose template: "+format, a...)) }
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	for _, d := range []struct {
		name string
		v    float64
	}{{"sheet.width_mm", t.Sheet.WidthMM}, {"sheet.height_mm", t.Sheet.HeightMM}} {
		if !finite(d.v) || d.v <= 0 || d.v > maxSheetMM {
			bad("%s must be above 0 and at most %d, not %v", d.name, maxSheetMM, d.v)
		}
	}
	if !finite(t.MarginMM) || t.MarginMM < 0 || 2*t.MarginMM >= min(t.Sheet.WidthMM, t.Sheet.HeightMM) {
		bad("margin_mm %v must be at least 0 and leave room on the sheet", t.MarginMM)
	}
	if !finite(t.GutterMM) || t.GutterMM < 0 || t.GutterMM > maxGutterMM {
		bad("gutter_mm %v must be between 0 and %d", t.GutterMM, maxGutterMM)
	}
	if t.Grid.Columns < 0 || t.Grid.Rows < 0 || (t.Grid.Columns == 0) != (t.Grid.Rows == 0) {
		bad("grid needs both columns and rows above 0 (or neither), not %dx%d", t.Grid.Columns, t.Grid.Rows)
	} else if t.Grid.Columns > maxGridCells || t.Grid.Rows > maxGridCells || t.Grid.Columns*t.Grid.Rows > maxGridCells {
		bad("grid %dx%d has more than %d cells", t.Grid.Columns, t.Grid.Rows, maxGridCells)
	}
	switch t.Duplex {
	case DuplexNone, DuplexTurn, DuplexTumble:
	default:
		bad("duplex %q is not none, turn or tumble", t.Duplex)
	}
	switch t.Order {
	case OrderRows, OrderCutStack:
	default:
		bad("order %q is not rows or cut-stack", t.Order)
	}
	switch t.Codes {
	case CodesNone, CodesCode128, CodesQR:
	default:
		bad("codes %q is not code128, qr or none", t.Codes)
	}
	if t.Slug != nil && *t.Slug && finite(t.MarginMM) && t.MarginMM < minSlugMM {
		bad("a slug needs margin_mm of at least %v (or \"slug\": false), not %v", minSlugMM, t.MarginMM)
	}
	return errors.Join(errs...)
}

// minSlugMM is the bottom margin the slug's text and colour bar need.
const minSlugMM = 4
