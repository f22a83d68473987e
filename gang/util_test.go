package gang

import (
	"fmt"
	"testing"
	"time"
)

// utilRow is one line of the utilisation table in docs/benchmarks.md.
type utilRow struct {
	set                 string
	copies              int
	bound               int     // lower bound length: artwork area / roll width
	maxrects, shelf     int     // used lengths
	utilMR, utilShelf   float64 // artwork area / (width x length)
	packedMR, packedShf float64 // padded area (artwork + gap) / (printable width + gap) x (length - 2 margins + gap)
	took                time.Duration
}

// measureSet plans set s on the 22 in roll with MaxRects and with the shelf packer.
func measureSet(t testing.TB, s synthSet) utilRow {
	c := rollConfig()
	c.MaxLength = 1 << 30 // one section, so lengths compare
	ds := s.build(c.DPI)
	start := time.Now()
	l, err := Plan(ds, c)
	if err != nil {
		t.Fatal(err)
	}
	took := time.Since(start)
	checkLayout(t, ds, l)
	var boxes []box
	var art, padded int64
	for _, d := range ds {
		for range d.Quantity {
			b := c.box(d, len(boxes))
			boxes = append(boxes, b)
			art += int64(d.Trim.Dx()) * int64(d.Trim.Dy())
			padded += int64(b.W) * int64(b.H)
		}
	}
	sizes := map[int]box{}
	for _, b := range boxes {
		sizes[b.ID] = b
	}
	placed, rest := packShelf(boxes, c.binW(), c.binH(), c.Rotate)
	if len(rest) > 0 {
		t.Fatalf("shelf left %d boxes", len(rest))
	}
	shelfBin := usedLength(placed, sizes)
	mrLen := l.Sheets[0].Length
	shelfLen := shelfBin - c.Gap + 2*c.Margin
	W := float64(c.Width)
	binLen := func(l int) float64 { return float64(l - 2*c.Margin + c.Gap) }
	return utilRow{
		set: s.name, copies: len(boxes), bound: int((art + int64(c.Width) - 1) / int64(c.Width)),
		maxrects: mrLen, shelf: shelfLen,
		utilMR: float64(art) / (W * float64(mrLen)), utilShelf: float64(art) / (W * float64(shelfLen)),
		packedMR:  float64(padded) / (float64(c.binW()) * binLen(mrLen)),
		packedShf: float64(padded) / (float64(c.binW()) * binLen(shelfLen)),
		took:      took,
	}
}

// TestUtilisation prints the table kept in docs/benchmarks.md ("Gang sheets") and
// holds the goals: MaxRects shorter than the shelf packer on every set, and the
// padded area packed at 85 % or better of the printable area used.
func TestUtilisation(t *testing.T) {
	fmt.Println("| set | copies | bound length | MaxRects length | shelf length | utilisation MaxRects | utilisation shelf | packing MaxRects | packing shelf | plan time |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|")
	for _, s := range synthSets {
		r := measureSet(t, s)
		fmt.Printf("| %s | %d | %.2f m | %.2f m | %.2f m | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %v |\n",
			r.set, r.copies, m(r.bound), m(r.maxrects), m(r.shelf), 100*r.utilMR, 100*r.utilShelf, 100*r.packedMR, 100*r.packedShf, r.took.Round(time.Millisecond))
		if r.maxrects >= r.shelf {
			t.Errorf("%s: MaxRects %d px not shorter than shelf %d px", r.set, r.maxrects, r.shelf)
		}
		if r.packedMR < 0.85 {
			t.Errorf("%s: packing %.3f below the 85 %% goal", r.set, r.packedMR)
		}
	}
}

// m is 300 dpi pixels in metres.
func m(px int) float64 { return float64(px) / 300 * 0.0254 }
