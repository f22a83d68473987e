package contour

import (
	"context"
	"math"
	"strings"
	"testing"
)

// parse reads a mask drawn with '#' for on pixels, one line per row.
func parse(s string) *Mask {
	lines := strings.Split(strings.Trim(s, "\n"), "\n")
	m := NewMask(len(lines[0]), len(lines))
	for y, l := range lines {
		for x, c := range l {
			if c == '#' {
				m.Pix[y*m.W+x] = 1
			}
		}
	}
	return m
}

// fill rasterizes closed paths with the even-odd rule at pixel centres.
func fill(w, h int, paths []Path) *Mask {
	m := NewMask(w, h)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			in := false
			for _, p := range paths {
				for i := range p {
					a, b := p[i], p[(i+1)%len(p)]
					if (a.Y > py) != (b.Y > py) && px < a.X+(py-a.Y)*(b.X-a.X)/(b.Y-a.Y) {
						in = !in
					}
				}
			}
			if in {
				m.Pix[y*w+x] = 1
			}
		}
	}
	return m
}

func TestTrace(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		mask   string
		holes  bool
		paths  int
		points []int // vertices per path
	}{
		{"empty", "...\n...", false, 0, nil},
		{"one pixel", "...\n.#.\n...", false, 1, []int{4}},
		{"square", "....\n.##.\n.##.\n....", false, 1, []int{4}},
		{"two squares", "##..##\n##..##", false, 2, []int{4, 4}},
		{"ring holes ignored", "###\n#.#\n###", false, 1, []int{4}},
		{"ring with hole", "###\n#.#\n###", true, 2, []int{4, 4}},
		{"diagonal only is one piece", "#.\n.#", false, 1, []int{8}},
		{"anti-diagonal is one piece", ".#\n#.", false, 1, []int{8}},
		{"1-px line", "#####", false, 1, []int{4}},
		{"1-px column", "#\n#\n#", false, 1, []int{4}},
		{"image edges", "###\n###", false, 1, []int{4}},
		{"L shape", "#.\n##", false, 1, []int{6}},
		{"touching pieces share an edge", "##\n##\n.#", false, 1, []int{6}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			m := parse(tc.mask)
			got, err := Trace(context.Background(), m, tc.holes, Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if got.Truncated {
				t.Fatal("truncated")
			}
			if len(got.Paths) != tc.paths {
				t.Fatalf("%d paths, want %d: %v", len(got.Paths), tc.paths, got.Paths)
			}
			for i, p := range got.Paths {
				if len(p) != tc.points[i] {
					t.Errorf("path %d: %d points, want %d: %v", i, len(p), tc.points[i], p)
				}
			}
			if len(got.Paths) > 0 && got.Paths[0].Area() <= 0 {
				t.Errorf("outer path area %g, want positive", got.Paths[0].Area())
			}
			// Filled even-odd, the paths cover the mask exactly (with holes) or
			// the mask with its holes filled.
			want := parse(tc.mask)
			if !tc.holes {
				if err := FillHoles(context.Background(), want); err != nil {
					t.Fatal(err)
				}
			}
			if f := fill(m.W, m.H, got.Paths); string(f.Pix) != string(want.Pix) {
				t.Errorf("filled paths %v differ from the mask %v", f.Pix, want.Pix)
			}
		})
	}
}

// bruteDist2 is the squared distance from (x, y) to the nearest pixel of m that is
// on (want true) or off.
func bruteDist2(m *Mask, x, y int, want bool) float64 {
	best := math.Inf(1)
	for j := 0; j < m.H; j++ {
		for i := 0; i < m.W; i++ {
			if m.At(i, j) == want {
				best = math.Min(best, float64((i-x)*(i-x)+(j-y)*(j-y)))
			}
		}
	}
	return best
}

func TestDilateErodeMatchBruteForce(t *testing.T) {
	t.Parallel()
	masks := []string{
		"..........\n..........\n....#.....\n..........\n..........\n.......##.\n..........",
		"#.........\n..........\n..........\n.........#",
		"##########\n##########\n###....###\n###....###\n##########\n##########",
		"..........\n.########.\n.########.\n.########.\n..........",
		"#.#.#.#.#.\n.#.#.#.#.#\n#.#.#.#.#.",
	}
	for mi, s := range masks {
		for _, r := range []float64{0.5, 1, 1.5, 2, 3.2} {
			m := parse(s)
			d, err := Dilate(context.Background(), m, r)
			if err != nil {
				t.Fatal(err)
			}
			e, err := Erode(context.Background(), m, r)
			if err != nil {
				t.Fatal(err)
			}
			for y := 0; y < m.H; y++ {
				for x := 0; x < m.W; x++ {
					wantD := bruteDist2(m, x, y, true) <= r*r
					if d.At(x, y) != wantD {
						t.Errorf("mask %d r %g: dilate (%d,%d) = %v, want %v", mi, r, x, y, d.At(x, y), wantD)
					}
					wantE := m.At(x, y) && bruteDist2(m, x, y, false) > r*r
					if e.At(x, y) != wantE {
						t.Errorf("mask %d r %g: erode (%d,%d) = %v, want %v", mi, r, x, y, e.At(x, y), wantE)
					}
				}
			}
		}
	}
}

func TestErodeKeepsCanvasEdge(t *testing.T) {
	t.Parallel()
	m := parse("####\n####\n####")
	e, err := Erode(context.Background(), m, 1)
	if err != nil {
		t.Fatal(err)
	}
	if e.Count() != 12 {
		t.Errorf("a full canvas choked to %d pixels, want all 12: the canvas edge is no art edge", e.Count())
	}
}

func TestFillHoles(t *testing.T) {
	t.Parallel()
	m := parse("#####.\n#...#.\n#.#.#.\n#...#.\n#####.")
	if err := FillHoles(context.Background(), m); err != nil {
		t.Fatal(err)
	}
	want := parse("#####.\n#####.\n#####.\n#####.\n#####.")
	if string(m.Pix) != string(want.Pix) {
		t.Errorf("got %v", m.Pix)
	}
}

func TestSimplify(t *testing.T) {
	t.Parallel()
	// A circle of 1000 vertices, radius 100: simplified within 0.5, it keeps far
	// fewer vertices and every original vertex stays within the tolerance.
	var p Path
	for i := 0; i < 1000; i++ {
		a := 2 * math.Pi * float64(i) / 1000
		p = append(p, Point{100 + 100*math.Cos(a), 100 + 100*math.Sin(a)})
	}
	for _, tol := range []float64{0.1, 0.5, 2} {
		s := Simplify(p, tol)
		if len(s) >= len(p)/4 || len(s) < 8 {
			t.Errorf("tol %g: %d vertices", tol, len(s))
		}
		for _, q := range p {
			best := math.Inf(1)
			for i := range s {
				best = math.Min(best, segDist2(q, s[i], s[(i+1)%len(s)]))
			}
			if math.Sqrt(best) > tol+1e-9 {
				t.Fatalf("tol %g: vertex %v is %g from the simplified path", tol, q, math.Sqrt(best))
			}
		}
	}
	// Collinear points go.
	sq := Path{{0, 0}, {1, 0}, {2, 0}, {2, 1}, {2, 2}, {1, 2}, {0, 2}, {0, 1}}
	if got := Simplify(sq, 0.01); len(got) != 4 {
		t.Errorf("square: %v", got)
	}
}

func TestCutOffset(t *testing.T) {
	t.Parallel()
	// Two squares 30 px apart with an offset of 10: two paths, each enclosing its
	// square at 10..11 px; with an offset of 20 they merge into one.
	m := NewMask(120, 60)
	for y := 20; y < 40; y++ {
		for x := 20; x < 40; x++ {
			m.Pix[y*m.W+x] = 1
			m.Pix[y*m.W+x+50] = 1
		}
	}
	for _, tc := range []struct {
		offset float64
		paths  int
	}{{10, 2}, {20, 1}} {
		got, err := Cut(context.Background(), m, CutOptions{Offset: tc.offset, Tolerance: 0.5})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.Paths) != tc.paths || got.Truncated {
			t.Fatalf("offset %g: %d paths (truncated %v), want %d", tc.offset, len(got.Paths), got.Truncated, tc.paths)
		}
		// Every art pixel is inside, at least offset-1 from every path vertex'
		// segments, and no path point is farther than offset+1.5 from the art.
		for _, p := range got.Paths {
			for i := range p {
				a, b := p[i], p[(i+1)%len(p)]
				near := math.Inf(1)
				for y := 0; y < m.H; y++ {
					for x := 0; x < m.W; x++ {
						if m.At(x, y) {
							near = math.Min(near, segDist2(Point{float64(x) + 0.5, float64(y) + 0.5}, a, b))
						}
					}
				}
				if d := math.Sqrt(near); d < tc.offset-1 || d > tc.offset+1.5 {
					t.Errorf("offset %g: segment %v-%v is %g from the art", tc.offset, a, b, d)
				}
			}
		}
		in := fill(m.W, m.H, got.Paths)
		for i, v := range m.Pix {
			if v != 0 && in.Pix[i] == 0 {
				t.Fatalf("offset %g: art pixel %d outside the cut", tc.offset, i)
			}
		}
	}
}

func TestCutCaps(t *testing.T) {
	t.Parallel()
	// 10,000 separate pixels on a 400 x 400 grid, pieces capped at 100: one
	// rectangle around all of them, marked truncated.
	m := NewMask(400, 400)
	for y := 0; y < 400; y += 4 {
		for x := 0; x < 400; x += 4 {
			m.Pix[y*m.W+x] = 1
		}
	}
	got, err := Cut(context.Background(), m, CutOptions{Offset: 1, Tolerance: 0.5, Limits: Limits{MaxPieces: 100}})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Truncated || len(got.Paths) != 1 || len(got.Paths[0]) != 4 {
		t.Fatalf("got %d paths, truncated %v", len(got.Paths), got.Truncated)
	}
	// The same under the default caps: 10,000 pieces are kept.
	got, err = Cut(context.Background(), m, CutOptions{Offset: 1, Tolerance: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	if got.Truncated || len(got.Paths) != 10_000 {
		t.Fatalf("got %d paths, truncated %v", len(got.Paths), got.Truncated)
	}
	// A point cap stops a trace too.
	got, err = Trace(context.Background(), m, false, Limits{MaxPoints: 1000})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Truncated {
		t.Fatal("point cap not applied")
	}
}

func TestRoundedRect(t *testing.T) {
	t.Parallel()
	p := RoundedRect(10, 20, 100, 50, 10, 0.1)
	if p.Area() <= 0 {
		t.Fatalf("area %g", p.Area())
	}
	want := 100*50 - (4-math.Pi)*100
	if math.Abs(p.Area()-want) > 5 {
		t.Errorf("area %g, want about %g", p.Area(), want)
	}
	for _, q := range p {
		if q.X < 10-1e-9 || q.X > 110+1e-9 || q.Y < 20-1e-9 || q.Y > 70+1e-9 {
			t.Errorf("%v outside the rectangle", q)
		}
	}
	if got := RoundedRect(0, 0, 10, 10, 0, 0.1); len(got) != 4 {
		t.Errorf("square corners: %v", got)
	}
}

func TestContextStops(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	m := NewMask(100, 100)
	if _, err := Dilate(ctx, m, 2); err == nil {
		t.Error("dilate ran on a cancelled context")
	}
	if _, err := Trace(ctx, m, false, Limits{}); err == nil {
		t.Error("trace ran on a cancelled context")
	}
}

func TestSmooth(t *testing.T) {
	t.Parallel()
	// A 10 x 10 square keeps its sides straight: each corner is cut by half a
	// pixel, and the long edges keep their line.
	sq := Path{{0, 0}, {10, 0}, {10, 10}, {0, 10}}
	got := Smooth(sq)
	want := Path{{0.5, 0}, {9.5, 0}, {10, 0.5}, {10, 9.5}, {9.5, 10}, {0.5, 10}, {0, 9.5}, {0, 0.5}}
	if len(got) != len(want) {
		t.Fatalf("%v", got)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%v, want %v", got, want)
		}
	}
	// A unit staircase becomes its edges' midpoints.
	st := Path{{0, 0}, {1, 0}, {1, 1}, {0, 1}}
	if got := Smooth(st); len(got) != 4 || got[0] != (Point{0.5, 0}) {
		t.Errorf("%v", got)
	}
}
