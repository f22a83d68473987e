package gang

import (
	"errors"
	"fmt"
	"image"
	"math/rand/v2"
	"strings"
	"testing"
)

func rollConfig() Config {
	// 22 in roll at 300 dpi, 5 mm gap and margin, up to 10 m.
	return Config{DPI: 300, Width: 6600, MaxLength: 118110, Gap: 59, Margin: 59, Rotate: true}
}

// checkLayout asserts the geometric invariants: every copy inside the printable area,
// no two copies (each grown by the gap and its label band) overlapping, every copy of
// every accepted design placed exactly once, sizes matching the design.
func checkLayout(t testing.TB, ds []Design, l *Layout) {
	t.Helper()
	c := l.Config
	rejected := map[int]bool{}
	for _, r := range l.Rejected {
		rejected[r.Design] = true
	}
	seen := map[[2]int]bool{}
	for _, s := range l.Sheets {
		area := image.Rect(c.Margin, c.Margin, s.Width-c.Margin, s.Length-c.Margin)
		var boxes []image.Rectangle
		for _, p := range s.Placements {
			d := ds[p.Design]
			w, h := d.Trim.Dx(), d.Trim.Dy()
			if p.Rotation == 90 {
				w, h = h, w
			}
			if p.W != w || p.H != h || p.Src != d.Trim {
				t.Fatalf("%s copy %d: placed %dx%d src %v, design trim %v rot %d", d.Key, p.Copy, p.W, p.H, p.Src, d.Trim, p.Rotation)
			}
			if p.Rotation != 0 && !c.Rotate {
				t.Fatalf("%s rotated with rotation off", d.Key)
			}
			art := image.Rect(p.X, p.Y, p.X+p.W, p.Y+p.H+c.Bands())
			if !art.In(area) {
				t.Fatalf("sheet %d: %s copy %d at %v outside the printable area %v", s.Index, d.Key, p.Copy, art, area)
			}
			k := [2]int{p.Design, p.Copy}
			if seen[k] {
				t.Fatalf("%s copy %d placed twice", d.Key, p.Copy)
			}
			seen[k] = true
			// Half the gap on every side: two grown boxes touch at most.
			g := image.Rect(art.Min.X*2-c.Gap, art.Min.Y*2-c.Gap, art.Max.X*2+c.Gap, art.Max.Y*2+c.Gap)
			for _, o := range boxes {
				if g.Overlaps(o) {
					t.Fatalf("sheet %d: %s copy %d (%v) closer than the gap %d to another copy", s.Index, d.Key, p.Copy, art, c.Gap)
				}
			}
			boxes = append(boxes, g)
		}
		if !c.Sheets && s.Length > c.MaxLength {
			t.Fatalf("roll section %d is %d px, longer than the maximum %d", s.Index, s.Length, c.MaxLength)
		}
	}
	for i, d := range ds {
		for k := 1; k <= d.Quantity; k++ {
			if !rejected[i] && !seen[[2]int{i, k}] {
				t.Fatalf("%s copy %d not placed", d.Key, k)
			}
		}
	}
}

func TestPlanSynthSets(t *testing.T) {
	for _, set := range synthSets {
		t.Run(set.name, func(t *testing.T) {
			ds := set.build(300)
			l, err := Plan(ds, rollConfig())
			if err != nil {
				t.Fatal(err)
			}
			checkLayout(t, ds, l)
			if len(l.Rejected) != 0 {
				t.Fatalf("rejected %v", l.Rejected)
			}
		})
	}
}

// TestPlanRandom is the property test: random designs, gaps, margins, label bands,
// rotation and sheet modes always give a valid layout.
func TestPlanRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := range propertyCases(300) {
		c := Config{
			DPI: 100, Width: 200 + r.IntN(800), MaxLength: 300 + r.IntN(1500),
			Gap: r.IntN(20), Margin: r.IntN(30), Rotate: r.IntN(2) == 0,
			Sheets: r.IntN(3) == 0, Label: r.IntN(3) * 7,
		}
		var ds []Design
		for j := range 1 + r.IntN(40) {
			w, h := 1+r.IntN(c.Width), 1+r.IntN(c.Width/2+10)
			x, y := r.IntN(5), r.IntN(5)
			ds = append(ds, Design{Key: fmt.Sprintf("d%d", j), Quantity: 1 + r.IntN(4), Width: w + 2*x, Height: h + 2*y, Trim: image.Rect(x, y, x+w, y+h)})
		}
		l, err := Plan(ds, c)
		if errors.Is(err, ErrNothingPlaced) {
			continue
		}
		if err != nil {
			t.Fatalf("case %d %+v: %v", i, c, err)
		}
		checkLayout(t, ds, l)
	}
}

func TestPlanDeterministic(t *testing.T) {
	ds := synthSets[0].build(300)
	a, err := Plan(ds, rollConfig())
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		b, _ := Plan(ds, rollConfig())
		for i := range a.Sheets {
			ma, _ := MarshalManifest(a.Manifest(i, "x.png"))
			mb, _ := MarshalManifest(b.Manifest(i, "x.png"))
			if string(ma) != string(mb) {
				t.Fatal("same input, different manifests")
			}
		}
	}
}

func TestPlanBadInput(t *testing.T) {
	good := Design{Key: "ok.png", Quantity: 2, Width: 100, Height: 100, Trim: image.Rect(0, 0, 100, 100)}
	wide := Design{Key: "wide.png", Quantity: 1, Width: 900, Height: 900, Trim: image.Rect(0, 0, 900, 900)}
	long := Design{Key: "long.png", Quantity: 1, Width: 700, Height: 50, Trim: image.Rect(0, 0, 700, 50)}
	c := Config{DPI: 100, Width: 600, MaxLength: 2000, Gap: 10, Margin: 10}
	tests := []struct {
		name     string
		cfg      func(*Config)
		designs  []Design
		wantErr  string
		rejected []string
	}{
		{"empty set", nil, nil, "no designs to place", nil},
		{"zero quantity", nil, []Design{good, {Key: "z.png", Quantity: 0, Width: 1, Height: 1, Trim: image.Rect(0, 0, 1, 1)}}, "z.png: quantity 0", nil},
		{"negative quantity", nil, []Design{{Key: "n.png", Quantity: -2, Width: 1, Height: 1, Trim: image.Rect(0, 0, 1, 1)}}, "n.png: quantity -2", nil},
		{"gap larger than the roll", func(c *Config) { c.Gap = 600 }, []Design{good}, "gap 600 px is not smaller than the sheet width", nil},
		{"margins eat the roll", func(c *Config) { c.Margin = 300 }, []Design{good}, "margins", nil},
		{"too wide either way", func(c *Config) { c.Rotate = true }, []Design{good, wide}, "", []string{"wide.png"}},
		{"too wide unrotated, fits rotated", func(c *Config) { c.Rotate = true }, []Design{good, long}, "", nil},
		{"too wide, rotation off", nil, []Design{good, long}, "", []string{"long.png"}},
		{"only bad designs", nil, []Design{wide}, "no design fits", []string{"wide.png"}},
		{"wrong dpi", nil, []Design{good, {Key: "hi.png", Quantity: 1, Width: 10, Height: 10, Trim: image.Rect(0, 0, 10, 10), DPI: 300}}, "", []string{"hi.png"}},
		{"fully transparent", nil, []Design{good, {Key: "t.png", Quantity: 1, Width: 10, Height: 10}}, "", []string{"t.png"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := c
			if tt.cfg != nil {
				tt.cfg(&cfg)
			}
			l, err := Plan(tt.designs, cfg)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if l == nil {
				return
			}
			var got []string
			for _, r := range l.Rejected {
				got = append(got, r.Key)
				if r.Reason == "" {
					t.Fatal("rejection without a reason")
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.rejected) {
				t.Fatalf("rejected %v, want %v", got, tt.rejected)
			}
			if err == nil {
				checkLayout(t, tt.designs, l)
				if len(l.Sheets) == 0 {
					t.Fatal("good designs not placed")
				}
			}
		})
	}
}

func TestPlanSplitsRoll(t *testing.T) {
	// 30 copies of 100x100 with 10 px gap on a 330 px printable width, max 250 px
	// long: 3 per row, 2 rows per section -> 5 sections.
	d := Design{Key: "a.png", Quantity: 30, Width: 100, Height: 100, Trim: image.Rect(0, 0, 100, 100)}
	l, err := Plan([]Design{d}, Config{DPI: 100, Width: 330, MaxLength: 250, Gap: 10})
	if err != nil {
		t.Fatal(err)
	}
	checkLayout(t, []Design{d}, l)
	if len(l.Sheets) != 5 {
		t.Fatalf("%d sections, want 5", len(l.Sheets))
	}
	if l.Sheets[0].Length != 210 {
		t.Fatalf("section length %d, want 210 (two rows and one gap)", l.Sheets[0].Length)
	}
}

// TestPackersRandom is the property test for each packer on its own (Plan keeps only
// the best try, so a packer that never wins would go unchecked there): random boxes
// and bins, every MaxRects heuristic, every skyline rule, skyline starts with
// perturbed orders and slack, and packBest; every box is placed once or returned
// once, inside the bin, turned only when allowed, and no two boxes overlap.
func TestPackersRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	for i := range propertyCases(200) {
		w, h := 50+r.IntN(600), 50+r.IntN(2000)
		if r.IntN(3) == 0 {
			h = 1 << 30 // a roll: the length is open
		}
		rotate := r.IntN(2) == 0
		var boxes []box
		for id := range 1 + r.IntN(60) {
			aw, ah, gap, label := 1+r.IntN(w/2), 1+r.IntN(w/2), r.IntN(10), r.IntN(2)*r.IntN(15)
			boxes = append(boxes, box{W: aw + gap, H: ah + label + gap, RW: ah + gap, RH: aw + label + gap, ID: id})
		}
		type run struct {
			name   string
			placed []packed
			rest   []box
		}
		var runs []run
		for _, hr := range []heuristic{bestShortSide, bottomLeft, bestArea} {
			p, rest := packMaxRects(boxes, w, h, rotate, hr)
			runs = append(runs, run{fmt.Sprintf("maxrects %d", hr), p, rest})
		}
		for _, rule := range skyRules {
			p, rest := packSkyline(boxes, w, h, rotate, rule)
			runs = append(runs, run{fmt.Sprintf("skyline %+v", rule), p, rest})
		}
		for k := range 1 + r.IntN(4) {
			// packBest's extra starts (perturbed order, slack): it keeps only the
			// winner, so some are checked on their own.
			rule := skyRule{pol: placePolicy(k % 2), lowFirst: k/2%2 == 1, slack: startSlack[k%len(startSlack)]}
			p, rest := packSkyline(perturbed(boxes, uint64(k)), w, h, rotate, rule)
			runs = append(runs, run{fmt.Sprintf("skyline start %d %+v", k, rule), p, rest})
		}
		p, rest := packBest(boxes, w, h, rotate)
		runs = append(runs, run{"best", p, rest})
		for _, ru := range runs {
			checkPacked(t, fmt.Sprintf("case %d (%dx%d rotate %v) %s", i, w, h, rotate, ru.name), boxes, w, h, rotate, ru.placed, ru.rest)
		}
	}
}

// checkPacked asserts that placed and rest hold every box exactly once, and that the
// placed boxes lie inside the w x h bin, turned only if rotate, without overlapping.
func checkPacked(t *testing.T, name string, boxes []box, w, h int, rotate bool, placed []packed, rest []box) {
	t.Helper()
	sizes := map[int]box{}
	for _, b := range boxes {
		sizes[b.ID] = b
	}
	seen := map[int]bool{}
	for _, b := range rest {
		if seen[b.ID] {
			t.Fatalf("%s: box %d returned twice", name, b.ID)
		}
		seen[b.ID] = true
	}
	bin := rect{0, 0, w, h}
	var rs []rect
	for _, p := range placed {
		b, ok := sizes[p.ID]
		if !ok || seen[p.ID] {
			t.Fatalf("%s: box %d unknown, or placed twice or placed and returned", name, p.ID)
		}
		seen[p.ID] = true
		if p.Rot && !rotate {
			t.Fatalf("%s: box %d turned with rotation off", name, p.ID)
		}
		bw, bh := b.dims(p.Rot)
		r := rect{p.X, p.Y, bw, bh}
		if !bin.contains(r) {
			t.Fatalf("%s: box %d at %+v outside the bin %dx%d", name, p.ID, r, w, h)
		}
		for _, o := range rs {
			if o.intersects(r) {
				t.Fatalf("%s: box %d at %+v overlaps %+v", name, p.ID, r, o)
			}
		}
		rs = append(rs, r)
	}
	if len(seen) != len(boxes) {
		t.Fatalf("%s: %d of %d boxes placed or returned", name, len(seen), len(boxes))
	}
}

// propertyCases is how many random cases a property test runs: full, or a fifth with
// -short.
func propertyCases(full int) int {
	if testing.Short() {
		return full / 5
	}
	return full
}
