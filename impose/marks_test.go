package impose

import (
	"context"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var reSegment = regexp.MustCompile(`([-0-9.]+) ([-0-9.]+) m ([-0-9.]+) ([-0-9.]+) l S`)

// TestMarksClear: every crop mark lies on the sheet, clear of every item's drawn area
// (trim plus bleed, and its code strip), and on one of its item's trim lines; every
// trim line of every item is marked (by its own marks or, where the gutter has no
// room, by the marks beyond the block's edges on the same line).
func TestMarksClear(t *testing.T) {
	t.Parallel()
	for _, doc := range []string{
		`{"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 10, "gutter_mm": 4, "duplex": "turn"}`,
		`{"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 10, "gutter_mm": 16, "duplex": "tumble", "codes": "none"}`,
		`{"sheet": {"width_mm": 210, "height_mm": 297}, "margin_mm": 5, "gutter_mm": 10, "grid": {"columns": 2, "rows": 3}}`,
	} {
		tpl := mustTemplate(t, doc)
		data := card(t, "M", 85, 55, 2, tpl.Duplex != DuplexNone, nil)
		var in []Input
		for i := range 4 {
			in = append(in, Input{Name: fmt.Sprint(i), Data: data})
		}
		p, err := newPlan(context.Background(), tpl, in)
		if err != nil {
			t.Fatal(err)
		}
		size := p.items[0].size
		ext := min(size.Bleed, tpl.GutterMM/2)
		strip := 0.0
		if tpl.Codes != CodesNone {
			strip = tpl.codeStrip(size)
		}
		g := p.grid
		marked := map[string]bool{}
		for pos := range g.Capacity() {
			x, y := g.Cell(pos)
			var c strings.Builder
			p.marks(&c, x, y, ext)
			for _, m := range reSegment.FindAllStringSubmatch(c.String(), -1) {
				var v [4]float64
				for i := range v {
					v[i], _ = strconv.ParseFloat(m[i+1], 64)
					v[i] /= ptPerMM
				}
				x0, y0, x1, y1 := min(v[0], v[2]), min(v[1], v[3]), max(v[0], v[2]), max(v[1], v[3])
				if x0 < 0 || y0 < 0 || x1 > tpl.Sheet.WidthMM || y1 > tpl.Sheet.HeightMM {
					t.Errorf("%s: mark %v off the sheet", doc, v)
				}
				for q := range g.Capacity() {
					qx, qy := g.Cell(q)
					// The item's drawn area, its code strip under it.
					ax0, ay0, ax1, ay1 := qx-ext, qy-max(ext, strip), qx+g.CellW+ext, qy+g.CellH+ext
					if x1 > ax0+1e-3 && x0 < ax1-1e-3 && y1 > ay0+1e-3 && y0 < ay1-1e-3 {
						t.Errorf("%s: mark %v of position %d crosses position %d's area", doc, v, pos, q)
					}
				}
				switch {
				case x0 == x1 && (near(x0, x) || near(x0, x+g.CellW)):
					marked[fmt.Sprintf("x%.2f", x0)] = true
				case y0 == y1 && (near(y0, y) || near(y0, y+g.CellH)):
					marked[fmt.Sprintf("y%.2f", y0)] = true
				default:
					t.Errorf("%s: mark %v on none of position %d's trim lines", doc, v, pos)
				}
			}
		}
		for pos := range g.Capacity() {
			x, y := g.Cell(pos)
			for _, l := range []string{fmt.Sprintf("x%.2f", x), fmt.Sprintf("x%.2f", x+g.CellW), fmt.Sprintf("y%.2f", y), fmt.Sprintf("y%.2f", y+g.CellH)} {
				if !marked[l] {
					t.Errorf("%s: position %d's trim line %s has no mark", doc, pos, l)
				}
			}
		}
	}
}

func near(a, b float64) bool { return a-b < 1e-3 && b-a < 1e-3 }
