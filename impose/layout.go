package impose

import (
	"fmt"
	"math"
)

// ItemSize is an item's trim size and bleed in mm, from its page boxes.
type ItemSize struct {
	TrimW, TrimH float64
	Bleed        float64
}

// Grid is a sheet's grid of item cells (docs/imposition.md "The grid").
type Grid struct {
	Columns, Rows int
	// Rotated: items are turned 90 degrees clockwise; CellW x CellH is then the
	// turned footprint (the trim's height x width).
	Rotated      bool
	CellW, CellH float64
	// X0, Y0 is the lower-left corner of the lower-left cell's trim, in mm from the
	// sheet's lower-left corner; the block of cells is centred on the sheet.
	X0, Y0 float64
	Gutter float64
}

// Capacity is the number of cells.
func (g Grid) Capacity() int { return g.Columns * g.Rows }

// Cell returns the lower-left corner of the trim at grid position p, counted from 0 in
// row-major order from the top-left cell (left to right, then down).
func (g Grid) Cell(p int) (x, y float64) {
	r, c := p/g.Columns, p%g.Columns
	return g.X0 + float64(c)*(g.CellW+g.Gutter), g.Y0 + float64(g.Rows-1-r)*(g.CellH+g.Gutter)
}

// outer is how far an item reaches beyond its trim on the block's outer edges: its
// bleed, or the code strip under it when that is deeper.
func (t *Template) outer(s ItemSize) float64 {
	if t.Codes == CodesNone {
		return s.Bleed
	}
	return max(s.Bleed, t.codeStrip(s))
}

// codeStrip is the depth of the strip under an item's trim that holds its code: its
// bleed, or half the gutter when that is deeper (the half that is the item's own).
func (t *Template) codeStrip(s ItemSize) float64 { return max(s.Bleed, t.GutterMM/2) }

// fit is how many cells of size cell fit side by side in length avail with the
// gutter between them and outer beyond the first and the last.
func fit(avail, cell, gutter, outer float64) int {
	n := math.Floor((avail - 2*outer + gutter) / (cell + gutter) * (1 + 1e-12))
	if n < 0 || math.IsNaN(n) {
		return 0
	}
	return int(min(n, maxGridCells))
}

// Layout lays out a sheet for items of size s: the template's fixed grid, or the grid
// holding the most items (turned items when they fit strictly more and the template
// allows turning). Every item's bleed (and code strip) stays inside the margins.
func (t *Template) Layout(s ItemSize) (Grid, error) {
	if !(s.TrimW > 0 && s.TrimH > 0 && s.Bleed >= 0) || math.IsInf(s.TrimW+s.TrimH+s.Bleed, 0) {
		return Grid{}, fmt.Errorf("item trim %vx%v mm with bleed %v mm is not a size", s.TrimW, s.TrimH, s.Bleed)
	}
	aw, ah := t.Sheet.WidthMM-2*t.MarginMM, t.Sheet.HeightMM-2*t.MarginMM
	e := t.outer(s)
	try := func(w, h float64) (int, int) {
		return fit(aw, w, t.GutterMM, e), fit(ah, h, t.GutterMM, e)
	}
	uc, ur := try(s.TrimW, s.TrimH)
	rc, rr := try(s.TrimH, s.TrimW)
	g := Grid{Gutter: t.GutterMM}
	switch {
	case t.Grid.Columns > 0:
		g.Columns, g.Rows = t.Grid.Columns, t.Grid.Rows
		switch {
		case uc >= g.Columns && ur >= g.Rows:
		case *t.Rotate && rc >= g.Columns && rr >= g.Rows:
			g.Rotated = true
		default:
			return Grid{}, fmt.Errorf("a %dx%d grid of %vx%v mm items (bleed %v mm) does not fit inside the margins of a %vx%v mm sheet",
				g.Columns, g.Rows, s.TrimW, s.TrimH, s.Bleed, t.Sheet.WidthMM, t.Sheet.HeightMM)
		}
	case *t.Rotate && rc*rr > uc*ur:
		g.Columns, g.Rows, g.Rotated = rc, rr, true
	default:
		g.Columns, g.Rows = uc, ur
	}
	if g.Capacity() == 0 {
		return Grid{}, fmt.Errorf("a %vx%v mm item (bleed %v mm) does not fit inside the margins of a %vx%v mm sheet",
			s.TrimW, s.TrimH, s.Bleed, t.Sheet.WidthMM, t.Sheet.HeightMM)
	}
	if g.Capacity() > maxGridCells {
		return Grid{}, fmt.Errorf("a %vx%v mm item gives a grid of %d cells, more than %d", s.TrimW, s.TrimH, g.Capacity(), maxGridCells)
	}
	g.CellW, g.CellH = s.TrimW, s.TrimH
	if g.Rotated {
		g.CellW, g.CellH = s.TrimH, s.TrimW
	}
	bw := float64(g.Columns)*g.CellW + float64(g.Columns-1)*g.Gutter
	bh := float64(g.Rows)*g.CellH + float64(g.Rows-1)*g.Gutter
	g.X0, g.Y0 = (t.Sheet.WidthMM-bw)/2, (t.Sheet.HeightMM-bh)/2
	return g, nil
}

// Slot is where one item copy goes: a sheet (from 1) and a grid position (from 0).
type Slot struct {
	Sheet, Position int
}

// Slots assigns n items, in input order, to sheets of the grid's capacity: row by row
// and sheet by sheet for OrderRows; for OrderCutStack the i-th item (from 0) goes on
// sheet (i mod N)+1 at position i/N, N being the number of sheets, so cutting the
// sheets and stacking the piles position by position gives the input order.
// It returns the slots and N.
func Slots(order string, n, capacity int) ([]Slot, int) {
	if n <= 0 || capacity <= 0 {
		return nil, 0
	}
	sheets := (n + capacity - 1) / capacity
	out := make([]Slot, n)
	for i := range out {
		if order == OrderCutStack {
			out[i] = Slot{Sheet: i%sheets + 1, Position: i / sheets}
		} else {
			out[i] = Slot{Sheet: i/capacity + 1, Position: i % capacity}
		}
	}
	return out, sheets
}

// Back returns where the back of an item whose trim footprint on the front is
// (x, y, w, h) lies on the sheet's back, seen from the back: x' = W - x - w for a
// turn, y' = H - y - h for a tumble, unchanged otherwise.
func (t *Template) Back(x, y, w, h float64) (float64, float64) {
	switch t.Duplex {
	case DuplexTurn:
		return t.Sheet.WidthMM - x - w, y
	case DuplexTumble:
		return x, t.Sheet.HeightMM - y - h
	}
	return x, y
}

// affine is a PDF matrix [a b c d e f]: (u, v) -> (a u + c v + e, b u + d v + f).
type affine [6]float64

func (m affine) then(n affine) affine {
	return affine{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m affine) apply(u, v float64) (float64, float64) {
	return m[0]*u + m[2]*v + m[4], m[1]*u + m[3]*v + m[5]
}

// frontMatrix maps an item's trim coordinates (mm, origin its trim's lower-left
// corner) to the sheet's front, for a cell at (x, y).
func frontMatrix(x, y, trimW float64, rotated bool) affine {
	if rotated {
		// Turned clockwise: the item's up is the sheet's right; its lower-left
		// corner lands at the cell's upper-left.
		return affine{0, -1, 1, 0, x, y + trimW}
	}
	return affine{1, 0, 0, 1, x, y}
}

// backMatrix maps an item's back page (trim coordinates) to the sheet's back. Item
// backs are made to be read when the item is turned over about its own vertical axis
// (as a book's leaf): a point (u, v) of the back lies behind (trimW - u, v) of the
// front. The sheet's back sees a point (X, Y) of the front at (W - X, Y) for a turn
// and (X, H - Y) for a tumble. So a tumbled sheet carries its backs upside down, and
// a turned item's back is turned the other way from its front.
func (t *Template) backMatrix(x, y, trimW float64, rotated bool) affine {
	leaf := affine{-1, 0, 0, 1, trimW, 0}
	sheet := affine{1, 0, 0, 1, 0, 0}
	switch t.Duplex {
	case DuplexTurn:
		sheet = affine{-1, 0, 0, 1, t.Sheet.WidthMM, 0}
	case DuplexTumble:
		sheet = affine{1, 0, 0, -1, 0, t.Sheet.HeightMM}
	}
	return leaf.then(frontMatrix(x, y, trimW, rotated)).then(sheet)
}
