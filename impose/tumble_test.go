package impose

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/imgcheck"
)

// TestTumbleTurnedQR: 190 x 120 mm items fit more turned on SRA3 (2 x 2 against 1 x 3); work-and-tumble; QR
// codes in a wide gutter. Labels land where turning and tumbling put them, worked out
// here from the physical sheet rather than the writer's matrices.
func TestTumbleTurnedQR(t *testing.T) {
	t.Parallel()
	tpl := mustTemplate(t, `{"sheet": {"width_mm": 320, "height_mm": 450}, "margin_mm": 10, "gutter_mm": 16,
		"duplex": "tumble", "order": "rows", "codes": "qr"}`)
	dir := t.TempDir()
	const tw, th = 190.0, 120.0
	var in []Input
	labelAt := map[string][2]float64{}
	for i := 1; i <= 5; i++ {
		name := fmt.Sprintf("inv-%d.pdf", i)
		data := card(t, fmt.Sprint(i), tw, th, 3, true, nil)
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, w := range words(t, p) {
			labelAt[w.text] = [2]float64{w.x - 3, w.y - 3}
		}
		in = append(in, Input{Name: name, Data: data})
	}
	res, sheets := imposeSheets(t, dir, tpl, in, Options{Batch: "T", Created: time.Unix(0, 0).UTC()})
	if !res.Placements[0].Rotated {
		t.Fatalf("items not turned: %+v", res.Placements[0])
	}
	ws := words(t, sheets)
	near := func(page int, text string, x, y float64) bool {
		for _, w := range ws {
			if w.page == page && w.text == text && math.Hypot(w.x-x, w.y-y) <= 1 {
				return true
			}
		}
		return false
	}
	for _, p := range res.Placements {
		n := strings.TrimSuffix(strings.TrimPrefix(p.Item, "inv-"), ".pdf")
		// Turned clockwise: the item's (u, v) is at (x + v, y + tw - u) on the front.
		f := labelAt["F"+n]
		if fx, fy := p.X+f[1], p.Y+tw-f[0]; !near(2*p.Sheet-1, "F"+n, fx, fy) {
			t.Errorf("%s: front label not near (%.1f, %.1f)", p.Item, fx, fy)
		}
		// The back's (u, v) is behind the front's (tw - u, v), at (x + v, y + u) on
		// the front; the tumbled sheet's back sees that at (x + v, H - y - u).
		b := labelAt["B"+n]
		if bx, by := p.X+b[1], 450-p.Y-b[0]; !near(2*p.Sheet, "B"+n, bx, by) {
			t.Errorf("%s: back label not near (%.1f, %.1f)", p.Item, bx, by)
		}
	}
	imgcheck.Tool(t, "pdftoppm", "poppler-utils")
	imgcheck.Tool(t, "zbarimg", "zbar-tools")
	png := filepath.Join(dir, "front")
	if o, err := exec.Command("pdftoppm", "-r", "300", "-png", "-singlefile", "-f", "1", "-l", "1", sheets, png).CombinedOutput(); err != nil {
		t.Fatalf("pdftoppm: %v\n%s", err, o)
	}
	o, _ := exec.Command("zbarimg", "-q", "--raw", png+".png").Output()
	got := strings.Fields(string(o))
	for _, p := range res.Placements {
		if p.Sheet == 1 && !strings.Contains(" "+strings.Join(got, " ")+" ", " "+p.Code+" ") {
			t.Errorf("QR code %s not decoded on sheet 1; zbarimg read %v", p.Code, got)
		}
	}
}
