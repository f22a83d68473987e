package impose

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

func mustTemplate(t testing.TB, doc string) *Template {
	t.Helper()
	tpl, err := ParseTemplate(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func TestLayout(t *testing.T) {
	t.Parallel()
	const sra3 = `"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 10, "gutter_mm": 4`
	tests := []struct {
		name         string
		tpl          string
		item         ItemSize
		cols, rows   int
		rotated      bool
		x0, y0       float64
		wantErr      string
		cellW, cellH float64
	}{
		// 3 x 85 + 2 x 4 + 2 x 2 = 267 <= 300; 7 x 55 + 6 x 4 + 4 = 413 <= 430.
		// Turned: 5 x 4 = 20 < 21, so upright.
		{name: "cards on SRA3", tpl: `{` + sra3 + `}`, item: ItemSize{85, 55, 2}, cols: 3, rows: 7,
			x0: (320 - 263) / 2.0, y0: (450 - 409) / 2.0, cellW: 85, cellH: 55},
		// 100 x 60 upright: 2 x 6 = 12; turned (60 x 100): 4 x 4 = 16.
		{name: "turned fits more", tpl: `{` + sra3 + `}`, item: ItemSize{100, 60, 2}, cols: 4, rows: 4, rotated: true,
			x0: (320 - 252) / 2.0, y0: (450 - 412) / 2.0, cellW: 60, cellH: 100},
		{name: "turning forbidden", tpl: `{` + sra3 + `, "rotate": false}`, item: ItemSize{100, 60, 2}, cols: 2, rows: 6,
			x0: (320 - 204) / 2.0, y0: (450 - 380) / 2.0, cellW: 100, cellH: 60},
		{name: "fixed grid", tpl: `{` + sra3 + `, "grid": {"columns": 2, "rows": 3}}`, item: ItemSize{85, 55, 2}, cols: 2, rows: 3,
			x0: (320 - 174) / 2.0, y0: (450 - 173) / 2.0, cellW: 85, cellH: 55},
		{name: "fixed grid only turned", tpl: `{` + sra3 + `, "grid": {"columns": 4, "rows": 2}}`, item: ItemSize{100, 60, 2}, cols: 4, rows: 2, rotated: true,
			x0: (320 - 252) / 2.0, y0: (450 - 204) / 2.0, cellW: 60, cellH: 100},
		{name: "fixed grid too big", tpl: `{` + sra3 + `, "grid": {"columns": 9, "rows": 9}}`, item: ItemSize{85, 55, 2}, wantErr: "does not fit"},
		{name: "item larger than the sheet", tpl: `{` + sra3 + `}`, item: ItemSize{400, 500, 2}, wantErr: "does not fit"},
		// A deep code strip (half of a 10 mm gutter) pushes the block in from the margins.
		{name: "code strip deeper than the bleed", tpl: `{"sheet": {"width_mm": 100, "height_mm": 100}, "margin_mm": 4, "gutter_mm": 10}`,
			item: ItemSize{40, 40, 1}, cols: 1, rows: 1, x0: 30, y0: 30, cellW: 40, cellH: 40},
		{name: "no codes", tpl: `{"sheet": {"width_mm": 100, "height_mm": 100}, "margin_mm": 4, "gutter_mm": 10, "codes": "none"}`,
			item: ItemSize{40, 40, 1}, cols: 2, rows: 2, x0: 5, y0: 5, cellW: 40, cellH: 40},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			g, err := mustTemplate(t, tt.tpl).Layout(tt.item)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g.Columns != tt.cols || g.Rows != tt.rows || g.Rotated != tt.rotated || g.CellW != tt.cellW || g.CellH != tt.cellH {
				t.Errorf("grid %dx%d rotated %v cell %vx%v, want %dx%d rotated %v cell %vx%v",
					g.Columns, g.Rows, g.Rotated, g.CellW, g.CellH, tt.cols, tt.rows, tt.rotated, tt.cellW, tt.cellH)
			}
			if math.Abs(g.X0-tt.x0) > 1e-9 || math.Abs(g.Y0-tt.y0) > 1e-9 {
				t.Errorf("origin (%v, %v), want (%v, %v)", g.X0, g.Y0, tt.x0, tt.y0)
			}
		})
	}
}

func TestCell(t *testing.T) {
	t.Parallel()
	g := Grid{Columns: 3, Rows: 2, CellW: 10, CellH: 5, X0: 1, Y0: 2, Gutter: 1}
	want := [][2]float64{{1, 8}, {12, 8}, {23, 8}, {1, 2}, {12, 2}, {23, 2}}
	for p, w := range want {
		if x, y := g.Cell(p); x != w[0] || y != w[1] {
			t.Errorf("position %d at (%v, %v), want (%v, %v): row-major from the top-left", p, x, y, w[0], w[1])
		}
	}
}

func TestSlots(t *testing.T) {
	t.Parallel()
	tests := []struct {
		order       string
		n, capacity int
		sheets      int
		want        []Slot
	}{
		{OrderRows, 5, 2, 3, []Slot{{1, 0}, {1, 1}, {2, 0}, {2, 1}, {3, 0}}},
		// N = 3: item i on sheet i mod 3 + 1 at position i / 3.
		{OrderCutStack, 5, 2, 3, []Slot{{1, 0}, {2, 0}, {3, 0}, {1, 1}, {2, 1}}},
		{OrderCutStack, 6, 3, 2, []Slot{{1, 0}, {2, 0}, {1, 1}, {2, 1}, {1, 2}, {2, 2}}},
		{OrderCutStack, 2, 21, 1, []Slot{{1, 0}, {1, 1}}},
		{OrderRows, 0, 4, 0, nil},
	}
	for _, tt := range tests {
		got, sheets := Slots(tt.order, tt.n, tt.capacity)
		if sheets != tt.sheets || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Slots(%s, %d, %d) = %v on %d sheets, want %v on %d", tt.order, tt.n, tt.capacity, got, sheets, tt.want, tt.sheets)
		}
	}
}

// TestBack checks x' = W - x - w (turn), y' = H - y - h (tumble), and that the back
// matrix puts every point of an item's back behind the same point of its front: a
// front point (u, v) at F(u, v) on the sheet's front is seen from the back at
// (W - X, Y) or (X, H - Y), and the back's point behind it is (trimW - u, v).
func TestBack(t *testing.T) {
	t.Parallel()
	for _, duplex := range []string{DuplexNone, DuplexTurn, DuplexTumble} {
		for _, rotated := range []bool{false, true} {
			tpl := mustTemplate(t, fmt.Sprintf(`{"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 10, "gutter_mm": 4, "duplex": %q}`, duplex))
			x, y, tw, th := 30.0, 40.0, 85.0, 55.0
			fw, fh := tw, th
			if rotated {
				fw, fh = th, tw
			}
			bx, by := tpl.Back(x, y, fw, fh)
			want := map[string][2]float64{DuplexNone: {x, y}, DuplexTurn: {320 - x - fw, y}, DuplexTumble: {x, 450 - y - fh}}[duplex]
			if bx != want[0] || by != want[1] {
				t.Errorf("%s rotated %v: back at (%v, %v), want (%v, %v)", duplex, rotated, bx, by, want[0], want[1])
			}
			if duplex == DuplexNone {
				continue
			}
			f := frontMatrix(x, y, tw, rotated)
			b := tpl.backMatrix(x, y, tw, rotated)
			for _, uv := range [][2]float64{{0, 0}, {tw, 0}, {0, th}, {10, 20}} {
				X, Y := f.apply(uv[0], uv[1])
				if duplex == DuplexTurn {
					X = 320 - X
				} else {
					Y = 450 - Y
				}
				gx, gy := b.apply(tw-uv[0], uv[1])
				if math.Abs(gx-X) > 1e-9 || math.Abs(gy-Y) > 1e-9 {
					t.Errorf("%s rotated %v: back point behind (%v, %v) drawn at (%v, %v), want (%v, %v)", duplex, rotated, uv[0], uv[1], gx, gy, X, Y)
				}
				// ... and inside the back footprint.
				if gx < bx-1e-9 || gx > bx+fw+1e-9 || gy < by-1e-9 || gy > by+fh+1e-9 {
					t.Errorf("%s rotated %v: (%v, %v) outside the back footprint", duplex, rotated, gx, gy)
				}
			}
		}
	}
}

func TestParseTemplateErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ doc, want string }{
		{`{}`, "sheet.width_mm"},
		{`{"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 200}`, "margin_mm"},
		{`{"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 10, "duplex": "flip"}`, "duplex"},
		{`{"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 10, "order": "random"}`, "order"},
		{`{"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 10, "codes": "datamatrix"}`, "codes"},
		{`{"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 10, "grid": {"columns": 3}}`, "grid"},
		{`{"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 2}`, "slug"},
		{`{"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 10, "gutter": 4}`, "unknown field"},
		{`{"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 10} {}`, "more than one"},
	}
	for _, tt := range tests {
		if _, err := ParseTemplate(strings.NewReader(tt.doc)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err %v, want one naming %q", tt.doc, err, tt.want)
		}
	}
	tpl := mustTemplate(t, `{"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 10}`)
	if tpl.Duplex != DuplexNone || tpl.Order != OrderRows || tpl.Codes != CodesCode128 || !*tpl.Marks || !*tpl.Slug || !*tpl.Rotate {
		t.Errorf("defaults: %+v", tpl)
	}
}

func FuzzParseTemplate(f *testing.F) {
	f.Add(`{"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 10, "gutter_mm": 4, "duplex": "turn", "order": "cut-stack", "marks": true, "codes": "code128"}`)
	f.Add(`{"sheet": {"width_mm": 1e-300, "height_mm": 2000}, "margin_mm": 0, "gutter_mm": 100, "grid": {"columns": 10000, "rows": 1}, "slug": false}`)
	f.Add(`{"sheet": {"width_mm": 100, "height_mm": 100}, "margin_mm": 5, "codes": "qr", "duplex": "tumble"}`)
	f.Add(`[]`)
	f.Fuzz(func(t *testing.T, doc string) {
		tpl, err := ParseTemplate(strings.NewReader(doc))
		if err != nil {
			return
		}
		if err := tpl.Validate(); err != nil {
			t.Fatalf("parsed but invalid: %v", err)
		}
		for _, s := range []ItemSize{{85, 55, 2}, {0.2, 0.2, 0}, {1999, 1, 50}} {
			g, err := tpl.Layout(s)
			if err != nil {
				continue
			}
			if g.Capacity() < 1 || g.Capacity() > maxGridCells {
				t.Fatalf("capacity %d", g.Capacity())
			}
			x, y := g.Cell(g.Capacity() - 1)
			if x < tpl.MarginMM-1e-6 || y < tpl.MarginMM-1e-6 || x+g.CellW > tpl.Sheet.WidthMM-tpl.MarginMM+1e-6 {
				t.Fatalf("cell (%v, %v) outside the margins of %+v", x, y, tpl)
			}
		}
	})
}

// TestPlanGolden pins impose.json for six cards, three copies of one, work-and-tumble
// in rows on A4.
func TestPlanGolden(t *testing.T) {
	t.Parallel()
	tpl := mustTemplate(t, `{"sheet": {"width_mm": 210, "height_mm": 297}, "margin_mm": 8, "gutter_mm": 6, "duplex": "tumble", "order": "rows"}`)
	var in []Input
	for i, n := range []int{1, 2, 3, 1, 1, 1} {
		data := card(t, fmt.Sprintf("%02d", i+1), 85, 55, 3, true, nil)
		for range n {
			in = append(in, Input{Name: fmt.Sprintf("cards/card-%02d.pdf", i+1), Data: data})
		}
	}
	res, err := Plan(context.Background(), tpl, in)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "impose.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("impose.json differs from %s (go test ./impose -update rewrites it):\n%s", golden, got)
	}
}
