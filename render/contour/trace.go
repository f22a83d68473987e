package contour

import (
	"context"
	"math"
)

// Point is a vertex in pixel units: (0, 0) is the top-left corner of the mask, y
// down.
type Point struct{ X, Y float64 }

// Path is a closed polygon (the last vertex joins the first).
type Path []Point

// Area is the path's signed area: positive for an outer boundary as Trace writes
// it (clockwise on a y-down screen), negative for a hole.
func (p Path) Area() float64 {
	a := 0.0
	for i := range p {
		j := (i + 1) % len(p)
		a += p[i].X*p[j].Y - p[j].X*p[i].Y
	}
	return a / 2
}

// Limits bound a trace.
type Limits struct {
	// MaxPieces caps the closed paths kept (DefaultMaxPieces when 0).
	MaxPieces int
	// MaxPoints caps the vertices of all paths together (DefaultMaxPoints when 0).
	MaxPoints int
}

// Defaults of Limits.
const (
	DefaultMaxPieces = 10_000
	DefaultMaxPoints = 1_000_000
)

func (l Limits) withDefaults() Limits {
	if l.MaxPieces <= 0 {
		l.MaxPieces = DefaultMaxPieces
	}
	if l.MaxPoints <= 0 {
		l.MaxPoints = DefaultMaxPoints
	}
	return l
}

// Traced is the result of Trace.
type Traced struct {
	// Paths are the closed boundaries, in the order their topmost-leftmost edge
	// appears in the mask.
	Paths []Path
	// Truncated is set when a limit stopped the trace: Paths is then incomplete.
	Truncated bool
}

// Trace follows the boundaries of the mask's pieces along pixel edges. Pieces are
// 8-connected: pixels touching at a corner belong to one piece (no cut can pass
// between them). Outer boundaries run clockwise on a y-down screen (positive
// Area), holes counter-clockwise; holes are left out unless holes is set. Each
// path's vertices are the corners where the boundary turns, so a path covers
// exactly the pixels of its piece. The mask is read, not changed; the memory used
// beyond the paths is one byte per pixel.
func Trace(ctx context.Context, m *Mask, holes bool, lim Limits) (Traced, error) {
	lim = lim.withDefaults()
	w, h := m.W, m.H
	// seen marks the top edges of on pixels already followed: every closed
	// boundary runs along at least one top edge, so scanning them finds all.
	seen := make([]byte, w*h)
	var out Traced
	points := 0
	var buf Path
	for y := 0; y < h; y++ {
		if err := check(ctx, y); err != nil {
			return Traced{}, err
		}
		for x := 0; x < w; x++ {
			i := y*w + x
			if m.Pix[i] == 0 || seen[i] != 0 || m.At(x, y-1) {
				continue
			}
			var ok bool
			buf, ok = follow(m, seen, x, y, buf[:0], lim.MaxPoints-points)
			if !ok {
				out.Truncated = true
				return out, nil
			}
			p := append(Path(nil), buf...)
			if p.Area() < 0 && !holes {
				continue
			}
			if len(out.Paths) == lim.MaxPieces {
				out.Truncated = true
				return out, nil
			}
			points += len(p)
			out.Paths = append(out.Paths, p)
		}
	}
	return out, nil
}

// Directions on the pixel grid, y down.
var steps = [4][2]int{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}

// follow walks the boundary that starts along the top edge of pixel (x0, y0),
// keeping the on pixels on its right, and appends its turning corners to p; false
// when it would hold more than max vertices.
func follow(m *Mask, seen []byte, x0, y0 int, p Path, maxPts int) (Path, bool) {
	x, y, d := x0, y0, 0
	for {
		if d == 0 {
			seen[y*m.W+x] = 1
		}
		x += steps[d][0]
		y += steps[d][1]
		// The two pixels ahead of corner (x, y) going in direction d: left and right.
		var lx, ly, rx, ry int
		switch d {
		case 0:
			lx, ly, rx, ry = x, y-1, x, y
		case 1:
			lx, ly, rx, ry = x, y, x-1, y
		case 2:
			lx, ly, rx, ry = x-1, y, x-1, y-1
		case 3:
			lx, ly, rx, ry = x-1, y-1, x, y-1
		}
		nd := d
		switch {
		case m.At(lx, ly):
			nd = (d + 3) % 4 // left: joins pixels touching at a corner
		case m.At(rx, ry):
			// straight on
		default:
			nd = (d + 1) % 4 // right
		}
		if nd != d {
			if len(p) >= maxPts {
				return p, false
			}
			p = append(p, Point{float64(x), float64(y)})
		}
		d = nd
		if x == x0 && y == y0 && d == 0 {
			return p, true
		}
	}
}

// Smooth cuts each corner of a traced path by half a pixel along both its edges:
// a unit step becomes its midpoint (the polygon marching squares would give), and
// a longer edge keeps its straight middle, so straight runs stay straight.
func Smooth(p Path) Path {
	if len(p) < 3 {
		return p
	}
	out := make(Path, 0, 2*len(p))
	for i := range p {
		a, b := p[i], p[(i+1)%len(p)]
		l := math.Hypot(b.X-a.X, b.Y-a.Y)
		if l <= 1 {
			out = append(out, Point{(a.X + b.X) / 2, (a.Y + b.Y) / 2})
			continue
		}
		ux, uy := (b.X-a.X)/l/2, (b.Y-a.Y)/l/2
		out = append(out, Point{a.X + ux, a.Y + uy}, Point{b.X - ux, b.Y - uy})
	}
	return out
}

// Simplify reduces a closed path by Ramer-Douglas-Peucker with the tolerance tol
// (in the path's units): no point of p lies farther than tol from the result. The
// recursion is an explicit stack, so a long path costs no deep call chain.
func Simplify(p Path, tol float64) Path {
	n := len(p)
	if n < 4 || tol <= 0 {
		return p
	}
	// Split the closed path at its first vertex and the vertex farthest from it.
	far, best := 0, -1.0
	for i := 1; i < n; i++ {
		if d := dist2(p[0], p[i]); d > best {
			far, best = i, d
		}
	}
	keep := make([]bool, n+1)
	keep[0], keep[far], keep[n] = true, true, true
	at := func(i int) Point { return p[i%n] }
	type span struct{ a, b int }
	stack := []span{{0, far}, {far, n}}
	tol2 := tol * tol
	for len(stack) > 0 {
		s := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if s.b-s.a < 2 {
			continue
		}
		idx, worst := -1, tol2
		for i := s.a + 1; i < s.b; i++ {
			if d := segDist2(at(i), at(s.a), at(s.b)); d > worst {
				idx, worst = i, d
			}
		}
		if idx >= 0 {
			keep[idx] = true
			stack = append(stack, span{s.a, idx}, span{idx, s.b})
		}
	}
	out := make(Path, 0, 16)
	for i := 0; i < n; i++ {
		if keep[i] {
			out = append(out, p[i])
		}
	}
	if len(out) < 3 {
		return p
	}
	return out
}

func dist2(a, b Point) float64 { return (a.X-b.X)*(a.X-b.X) + (a.Y-b.Y)*(a.Y-b.Y) }

// segDist2 is the squared distance from q to the segment a-b.
func segDist2(q, a, b Point) float64 {
	dx, dy := b.X-a.X, b.Y-a.Y
	l := dx*dx + dy*dy
	if l == 0 {
		return dist2(q, a)
	}
	t := ((q.X-a.X)*dx + (q.Y-a.Y)*dy) / l
	t = math.Max(0, math.Min(1, t))
	return dist2(q, Point{a.X + t*dx, a.Y + t*dy})
}

// RoundedRect is the closed path of a rectangle with corners rounded by radius r
// (clamped to half the shorter side), clockwise on a y-down screen, each quarter
// circle drawn as segments no farther than tol from the arc.
func RoundedRect(x, y, w, h, r, tol float64) Path {
	r = math.Max(0, math.Min(r, math.Min(w, h)/2))
	if r == 0 {
		return Path{{x, y}, {x + w, y}, {x + w, y + h}, {x, y + h}}
	}
	// Segments per quarter so the sagitta r(1-cos(θ/2)) stays within tol.
	n := 1
	if tol > 0 && tol < r {
		n = int(math.Ceil((math.Pi / 2) / (2 * math.Acos(1-tol/r))))
	}
	n = max(1, min(n, 64))
	var p Path
	corner := func(cx, cy, a0 float64) {
		for i := 0; i <= n; i++ {
			a := a0 + float64(i)*(math.Pi/2)/float64(n)
			p = append(p, Point{cx + r*math.Cos(a), cy + r*math.Sin(a)})
		}
	}
	corner(x+w-r, y+r, -math.Pi/2)
	corner(x+w-r, y+h-r, 0)
	corner(x+r, y+h-r, math.Pi/2)
	corner(x+r, y+r, math.Pi)
	return p
}
