package render

import (
	"strings"
	"testing"

	"github.com/printworker/printworker/render/svg"
)

// TestSVGTextModel checks the runs the parser makes and where the glyphs land.
func TestSVGTextModel(t *testing.T) {
	t.Parallel()
	doc, err := svg.Parse(strings.NewReader(`<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100">
<text x="100" y="50" font-size="20" text-anchor="middle">  Ab  <tspan font-weight="bold">cd</tspan>
</text></svg>`), svg.Limits{})
	must(t, err)
	if len(doc.Shapes) != 2 || doc.Shapes[0].Text.Content != "Ab " || doc.Shapes[1].Text.Content != "cd" || !doc.Shapes[1].Text.Bold {
		t.Fatalf("runs: %+v %+v", doc.Shapes[0].Text, doc.Shapes[1].Text)
	}
	newRenderer(t, Options{}).svgText(doc)
	x0, y0, x1, y1 := doc.Bounds()
	// Centred on x = 100, the baseline at 50: caps of a 20-unit font rise about 14.6.
	if mid := (x0 + x1) / 2; mid < 98 || mid > 102 {
		t.Errorf("ink %v..%v centred at %v, want 100 (text-anchor middle)", x0, x1, mid)
	}
	if y1 > 50.5 || y0 > 37 || y0 < 33 {
		t.Errorf("ink rows %v..%v, want about 35..50 (baseline 50)", y0, y1)
	}
}

// TestSVGTextBound: text past maxSVGTextRunes characters is left out and reported.
func TestSVGTextBound(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("<text>"+strings.Repeat("W", 1000)+"</text>", 5)
	doc, err := svg.Parse(strings.NewReader(`<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">`+long+`</svg>`), svg.Limits{})
	must(t, err)
	newRenderer(t, Options{}).svgText(doc)
	drawn := 0
	for _, s := range doc.Shapes {
		if len(s.Path) > 0 {
			drawn++
		}
	}
	if drawn != 4 || !strings.Contains(strings.Join(doc.Unsupported, "|"), "text beyond 4000 characters") {
		t.Errorf("%d of 5 runs drawn, unsupported %v; want 4 and the report", drawn, doc.Unsupported)
	}
}
