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
	planned, shelf      int     // used lengths
	utilMR, utilShelf   float64 // artwork area / (width x length)
	ceiling             float64 // utilisation if the padded boxes filled the printable area without a hole
	packedMR, packedShf float64 // padded area (artwork + gap) / (printable width + gap) x (length - 2 margins + gap)
	took                time.Duration
}

// measureSet plans set s on the 22 in roll with Plan and with the shelf packer.
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
	// The shortest roll the gap allows: padded area over the bin width, back to a
	// section length (one gap less, two margins more).
	ceilLen := int((padded+int64(c.binW())-1)/int64(c.binW())) - c.Gap + 2*c.Margin
	shelfLen := shelfBin - c.Gap + 2*c.Margin
	W := float64(c.Width)
	binLen := func(l int) float64 { return float64(l - 2*c.Margin + c.Gap) }
	return utilRow{
		set: s.name, copies: len(boxes), bound: int((art + int64(c.Width) - 1) / int64(c.Width)),
		planned: mrLen, shelf: shelfLen,
		utilMR: float64(art) / (W * float64(mrLen)), utilShelf: float64(art) / (W * float64(shelfLen)),
		ceiling:   float64(art) / (W * float64(ceilLen)),
		packedMR:  float64(padded) / (float64(c.binW()) * binLen(mrLen)),
		packedShf: float64(padded) / (float64(c.binW()) * binLen(shelfLen)),
		took:      took,
	}
}

// TestUtilisation prints the table kept in docs/benchmarks.md ("Gang sheets") and
// holds the goals: the plan shorter than the shelf packer on every set, at
// least 85 % of the area bound (artwork area / (roll width x used length)) on the
// mixed sets, and the padded area packed at 85 % or better on every set.
func TestUtilisation(t *testing.T) {
	fmt.Println("| set | copies | bound length | planned length | shelf length | utilisation planned | utilisation shelf | gap ceiling | packing planned | packing shelf | plan time |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|---|---|")
	for _, s := range synthSets {
		r := measureSet(t, s)
		fmt.Printf("| %s | %d | %.2f m | %.2f m | %.2f m | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %.1f %% | %v |\n",
			r.set, r.copies, m(r.bound), m(r.planned), m(r.shelf), 100*r.utilMR, 100*r.utilShelf, 100*r.ceiling, 100*r.packedMR, 100*r.packedShf, r.took.Round(time.Millisecond))
		if r.planned >= r.shelf {
			t.Errorf("%s: plan %d px not shorter than shelf %d px", r.set, r.planned, r.shelf)
		}
		if s.mixed && r.utilMR < 0.85 {
			t.Errorf("%s: utilisation %.3f of the area bound, below the 85 %% goal for mixed sets", r.set, r.utilMR)
		}
		if r.packedMR < 0.85 {
			t.Errorf("%s: packing %.3f below the 85 %% goal", r.set, r.packedMR)
		}
	}
}

// BenchmarkPlan times Plan on each generated set and on 5000 and 10000 stickers (the
// copy limit's reference), one section of the 22 in roll as in TestUtilisation.
func BenchmarkPlan(b *testing.B) {
	for _, s := range append(synthSets[:len(synthSets):len(synthSets)], limitSets...) {
		b.Run(s.name, func(b *testing.B) {
			c := rollConfig()
			c.MaxLength = 1 << 30
			ds := s.build(c.DPI)
			for b.Loop() {
				if _, err := Plan(ds, c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// m is 300 dpi pixels in metres.
func m(px int) float64 { return float64(px) / 300 * 0.0254 }
