package impose

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"time"
)

// Placement is where one copy landed (impose.json, docs/imposition.md "Output"): X, Y
// the lower-left corner of its trim on the sheet's front in mm from the sheet's
// lower-left corner, W x H its footprint there (the trim, turned when Rotated).
type Placement struct {
	Item    string  `json:"item"`
	Copy    int     `json:"copy"`
	Sheet   int     `json:"sheet"`
	X       float64 `json:"x_mm"`
	Y       float64 `json:"y_mm"`
	W       float64 `json:"width_mm"`
	H       float64 `json:"height_mm"`
	Rotated bool    `json:"rotated"`
	// Code is the text of the copy's code ("" without codes); Position its grid
	// position (row-major from the top-left, from 0). Not in impose.json: the
	// fleet's manifests use them.
	Code     string `json:"-"`
	Position int    `json:"-"`
}

// Result is a run's layout: impose.json.
type Result struct {
	Sheets     int         `json:"sheets"`
	Placements []Placement `json:"placements"`
}

// Options are a run's settings beside the template.
type Options struct {
	// Batch names the batch in every sheet's slug and the PDF's title.
	Batch string
	// Created dates the PDF (its Info and XMP): the same input gives the same layout.
	Created time.Time
}

// plan is a run's layout with the items behind it.
type plan struct {
	t      *Template
	grid   Grid
	items  []*item
	of     []int // the item of each input
	result Result
	intent *outputIntent
}

// Plan reads the items' boxes and lays the copies out, without writing a sheet.
func Plan(ctx context.Context, t *Template, in []Input) (*Result, error) {
	p, err := newPlan(ctx, t, in)
	if err != nil {
		return nil, err
	}
	return &p.result, nil
}

func newPlan(ctx context.Context, t *Template, in []Input) (*plan, error) {
	if len(in) == 0 {
		return nil, errors.New("no items to impose")
	}
	if len(in) > maxCopies {
		return nil, fmt.Errorf("%d copies, more than the %d a run may have", len(in), maxCopies)
	}
	p := &plan{t: t, of: make([]int, len(in))}
	seen := map[[32]byte]int{}
	for i := range in {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		k := key(in[i].Data)
		j, ok := seen[k]
		if !ok {
			it, err := readItem(in[i].Name, in[i].Data)
			if err != nil {
				return nil, err
			}
			j = len(p.items)
			seen[k] = j
			p.items = append(p.items, it)
		}
		p.of[i] = j
	}
	// One grid per sheet: every item the first one's size.
	first := p.items[0].size
	var errs []error
	for i, j := range p.of {
		s := p.items[j].size
		if math.Abs(s.TrimW-first.TrimW) > 0.1 || math.Abs(s.TrimH-first.TrimH) > 0.1 {
			errs = append(errs, fmt.Errorf("item %s: trim %.1fx%.1f mm, not the %.1fx%.1f mm of %s (a run imposes one size)",
				in[i].Name, s.TrimW, s.TrimH, first.TrimW, first.TrimH, in[0].Name))
		}
		if p.items[j].pages == 2 && t.Duplex == DuplexNone {
			errs = append(errs, fmt.Errorf("item %s has a back, but the template's duplex is none", in[i].Name))
		}
		if ij := p.items[j].intent; ij != nil && p.intent == nil {
			p.intent = ij
		}
	}
	for i, j := range p.of {
		if ij := p.items[j].intent; p.intent != nil && (ij == nil || ij.sum != p.intent.sum) {
			errs = append(errs, fmt.Errorf("item %s: its output intent is not the other items' (a sheet has one)", in[i].Name))
			break
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	// Every item's bleed counts: the narrowest is the one all are clipped to.
	size := first
	for _, it := range p.items {
		size.Bleed = min(size.Bleed, it.size.Bleed)
	}
	g, err := t.Layout(size)
	if err != nil {
		return nil, err
	}
	p.grid = g
	if err := t.checkCodes(size); err != nil {
		return nil, err
	}
	slots, sheets := Slots(t.Order, len(in), g.Capacity())
	p.result.Sheets = sheets
	p.result.Placements = make([]Placement, len(in))
	copies := map[string]int{}
	for i, s := range slots {
		copies[in[i].Name]++
		x, y := g.Cell(s.Position)
		pl := Placement{
			Item: in[i].Name, Copy: copies[in[i].Name], Sheet: s.Sheet,
			X: round(x), Y: round(y), W: round(g.CellW), H: round(g.CellH), Rotated: g.Rotated,
			Position: s.Position,
		}
		if t.Codes != CodesNone {
			pl.Code = in[i].code(pl.Copy)
			if why := t.codeFits(pl.Code, g.CellW, t.codeStrip(size)); why != "" {
				errs = append(errs, fmt.Errorf("item %s copy %d: code %q: %s", pl.Item, pl.Copy, pl.Code, why))
				if len(errs) >= 10 {
					break
				}
			}
		}
		p.result.Placements[i] = pl
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return p, nil
}

// round keeps impose.json's numbers to the micrometre: the same layout gives the same
// bytes whatever the floating-point path.
func round(v float64) float64 { return math.Round(v*1000) / 1000 }

// Impose lays the copies out and writes the sheets to w as one PDF: each sheet's
// front, then its back when the template is duplex.
func Impose(ctx context.Context, w io.Writer, t *Template, in []Input, opt Options) (*Result, error) {
	p, err := newPlan(ctx, t, in)
	if err != nil {
		return nil, err
	}
	if err := p.write(ctx, w, opt); err != nil {
		return nil, err
	}
	return &p.result, nil
}
