package svg

import "math"

// maxDashes caps the dash pieces of one stroke; a denser pattern (a dash
// array far shorter than the path) is drawn solid rather than exhausting
// memory.
const maxDashes = 100000

// StrokeToPath returns the outline of s's stroke as a path to fill with the
// nonzero rule, flattening curves to within tol. The outline is a union of
// pieces (one quad per segment, one polygon per join and cap) all wound the
// same way, so nonzero filling merges them without seams; it is meant for
// rasterizing, not as a minimal outline.
func StrokeToPath(s Shape, tol float64) Path {
	var out Path
	strokeOutline(s, tol, func(pts []Point) {
		out = append(out, Segment{Op: MoveTo, Pts: [3]Point{pts[0]}})
		for _, p := range pts[1:] {
			out = append(out, Segment{Op: LineTo, Pts: [3]Point{p}})
		}
		out = append(out, Segment{Op: Close})
	})
	return out
}

// strokeOutline hands each closed polygon of StrokeToPath's outline to emit, in
// order, without keeping them: a stroke is drawn, and its bounds are measured, in
// memory the size of one polygon rather than of the whole outline. emit may not keep
// pts.
func strokeOutline(s Shape, tol float64, emit func(pts []Point)) {
	hw := s.StrokeWidth / 2
	if hw <= 0 || math.IsNaN(hw) || math.IsInf(hw, 0) {
		return
	}
	if tol <= 0 {
		tol = 0.1
	}
	path := s.Path
	if pen, inv, ok := s.pen(); ok {
		// Outline in pen space, mapped back by the pen: flattened finer by the
		// pen's largest stretch so the tolerance holds once mapped.
		path = path.Transform(inv)
		tol /= pen.stretch()
		var buf []Point
		plain := emit
		emit = func(pts []Point) {
			buf = buf[:0]
			for _, q := range pts {
				buf = append(buf, pen.Apply(q))
			}
			plain(buf)
		}
	}
	lines := path.Flatten(tol)
	for i := range lines {
		lines[i].Pts = dedupe(lines[i].Pts)
	}
	if len(s.Dashes) > 0 {
		lines = dash(lines, s.Dashes, s.DashOffset)
	}
	st := stroker{hw: hw, tol: tol, cap: s.LineCap, join: s.LineJoin, miter: s.MiterLimit, emit: emit}
	if st.miter < 1 {
		st.miter = 4
	}
	for _, pl := range lines {
		st.polyline(pl)
	}
}

func dedupe(pts []Point) []Point {
	out := pts[:0:0]
	for i, p := range pts {
		if i == 0 || p != out[len(out)-1] {
			out = append(out, p)
		}
	}
	return out
}

// dash splits polylines into the "on" intervals of the dash pattern.
func dash(lines []Polyline, pattern []float64, offset float64) []Polyline {
	total, length := 0.0, 0.0
	for _, d := range pattern {
		total += d
	}
	for _, pl := range lines {
		pts := pl.Pts
		if pl.Closed && len(pts) > 1 {
			pts = append(pts[:len(pts):len(pts)], pts[0])
		}
		for i := 1; i < len(pts); i++ {
			length += math.Hypot(pts[i].X-pts[i-1].X, pts[i].Y-pts[i-1].Y)
		}
	}
	if total <= 0 || length/total*float64(len(pattern)) > maxDashes {
		return lines
	}
	var out []Polyline
	for _, pl := range lines {
		pts := pl.Pts
		if pl.Closed && len(pts) > 1 {
			pts = append(pts[:len(pts):len(pts)], pts[0])
		}
		// Each subpath restarts the pattern at the offset (SVG 2).
		idx := 0
		phase := math.Mod(offset, total)
		if phase < 0 {
			phase += total
		}
		for phase >= pattern[idx] {
			phase -= pattern[idx]
			idx = (idx + 1) % len(pattern)
		}
		left := pattern[idx] - phase // length left in the current dash or gap
		on := idx%2 == 0
		var cur []Point
		if on && len(pts) > 0 {
			cur = []Point{pts[0]}
		}
		for i := 1; i < len(pts); i++ {
			a, b := pts[i-1], pts[i]
			segLen := math.Hypot(b.X-a.X, b.Y-a.Y)
			pos := 0.0
			for segLen-pos > left {
				pos += left
				t := pos / segLen
				q := Point{a.X + (b.X-a.X)*t, a.Y + (b.Y-a.Y)*t}
				if on {
					out = append(out, Polyline{Pts: append(cur, q)})
					cur = nil
				} else {
					cur = []Point{q}
				}
				on = !on
				idx = (idx + 1) % len(pattern)
				left = pattern[idx]
			}
			left -= segLen - pos
			if on {
				cur = append(cur, b)
			}
		}
		if on && len(cur) > 1 {
			out = append(out, Polyline{Pts: cur})
		}
	}
	return out
}

type stroker struct {
	hw, tol, miter float64
	cap, join      string
	emit           func(pts []Point)
	circ           []Point // circle's points, reused
}

// poly appends a closed polygon, wound so that its signed area is positive.
func (s *stroker) poly(pts ...Point) {
	area := 0.0
	for i := range pts {
		j := (i + 1) % len(pts)
		area += pts[i].X*pts[j].Y - pts[j].X*pts[i].Y
	}
	if area == 0 {
		return
	}
	if area < 0 {
		for i, j := 0, len(pts)-1; i < j; i, j = i+1, j-1 {
			pts[i], pts[j] = pts[j], pts[i]
		}
	}
	s.emit(pts)
}

func (s *stroker) circle(c Point) {
	n := 8
	if s.hw > s.tol {
		n = int(math.Ceil(math.Pi / math.Acos(1-s.tol/s.hw)))
	}
	n = max(8, min(n, 512))
	if cap(s.circ) < n {
		s.circ = make([]Point, n)
	}
	pts := s.circ[:n]
	for i := range pts {
		sn, cs := math.Sincos(2 * math.Pi * float64(i) / float64(n))
		pts[i] = Point{c.X + s.hw*cs, c.Y + s.hw*sn}
	}
	s.poly(pts...)
}

func unit(a, b Point) (Point, bool) {
	dx, dy := b.X-a.X, b.Y-a.Y
	l := math.Hypot(dx, dy)
	if l == 0 {
		return Point{}, false
	}
	return Point{dx / l, dy / l}, true
}

func (s *stroker) polyline(pl Polyline) {
	pts := pl.Pts
	closed := pl.Closed
	if closed && len(pts) > 1 && pts[0] == pts[len(pts)-1] {
		pts = pts[:len(pts)-1]
	}
	if len(pts) == 1 || (closed && len(pts) < 2) {
		// A zero-length subpath shows only its caps (round and square).
		switch s.cap {
		case "round":
			s.circle(pts[0])
		case "square":
			p, h := pts[0], s.hw
			s.poly(Point{p.X - h, p.Y - h}, Point{p.X + h, p.Y - h}, Point{p.X + h, p.Y + h}, Point{p.X - h, p.Y + h})
		}
		return
	}
	n := len(pts)
	segs := n - 1
	if closed {
		segs = n
	}
	for i := 0; i < segs; i++ {
		a, b := pts[i], pts[(i+1)%n]
		d, _ := unit(a, b)
		nx, ny := -d.Y*s.hw, d.X*s.hw
		s.poly(Point{a.X + nx, a.Y + ny}, Point{b.X + nx, b.Y + ny}, Point{b.X - nx, b.Y - ny}, Point{a.X - nx, a.Y - ny})
	}
	// Joins at inner vertices, and at every vertex of a closed subpath.
	for i := 0; i < n; i++ {
		if !closed && (i == 0 || i == n-1) {
			continue
		}
		prev, next := pts[(i-1+n)%n], pts[(i+1)%n]
		s.joinAt(prev, pts[i], next)
	}
	if !closed {
		s.capAt(pts[0], pts[1])
		s.capAt(pts[n-1], pts[n-2])
	}
}

// capAt draws the cap at end point p of a segment coming from q.
func (s *stroker) capAt(p, q Point) {
	switch s.cap {
	case "round":
		s.circle(p)
	case "square":
		d, _ := unit(q, p)
		ex, ey := d.X*s.hw, d.Y*s.hw
		nx, ny := -ey, ex
		s.poly(Point{p.X + nx, p.Y + ny}, Point{p.X + nx + ex, p.Y + ny + ey}, Point{p.X - nx + ex, p.Y - ny + ey}, Point{p.X - nx, p.Y - ny})
	}
}

func (s *stroker) joinAt(prev, p, next Point) {
	d0, ok0 := unit(prev, p)
	d1, ok1 := unit(p, next)
	if !ok0 || !ok1 {
		return
	}
	cross := d0.X*d1.Y - d0.Y*d1.X
	dot := d0.X*d1.X + d0.Y*d1.Y
	if math.Abs(cross) < 1e-12 && dot > 0 {
		return // straight on: the segment quads already meet
	}
	if s.join == "round" {
		s.circle(p)
		return
	}
	// The outer side is where the turn opens: left normals for a right
	// turn, right normals for a left turn.
	sign := 1.0
	if cross > 0 {
		sign = -1
	}
	n0 := Point{-d0.Y * s.hw * sign, d0.X * s.hw * sign}
	n1 := Point{-d1.Y * s.hw * sign, d1.X * s.hw * sign}
	o0 := Point{p.X + n0.X, p.Y + n0.Y}
	o1 := Point{p.X + n1.X, p.Y + n1.Y}
	if s.join == "miter" {
		// Miter length / stroke width = 1 / sin(theta/2), theta the angle
		// between the segments; cos(theta) = -dot.
		cosTheta := -dot
		sinHalf := math.Sqrt(math.Max(0, (1-cosTheta)/2))
		if sinHalf > 0 && 1/sinHalf <= s.miter {
			// The tip lies along the bisector of the two outer normals.
			bx, by := n0.X+n1.X, n0.Y+n1.Y
			bl := math.Hypot(bx, by)
			if bl > 0 {
				tl := s.hw / sinHalf
				tip := Point{p.X + bx/bl*tl, p.Y + by/bl*tl}
				s.poly(p, o0, tip, o1)
				return
			}
		}
	}
	s.poly(p, o0, o1)
}

// pen returns the shape's pen and its inverse; false for a round pen.
func (s *Shape) pen() (pen, inv Matrix, ok bool) {
	if s.Pen == (Matrix{}) {
		return Identity, Identity, false
	}
	inv, ok = s.Pen.Invert()
	return s.Pen, inv, ok
}

// stretch bounds how much m lengthens a vector: its Frobenius norm of the
// linear part (at least its largest singular value).
func (m Matrix) stretch() float64 {
	return math.Max(math.Sqrt(m[0]*m[0]+m[1]*m[1]+m[2]*m[2]+m[3]*m[3]), 1e-12)
}

// penOf returns the pen of a transform: its linear part divided by scale (its
// mean scale), or zero when that is a rotation (or reflection) a round pen
// draws alike.
func penOf(ctm Matrix, scale float64) Matrix {
	if scale <= 0 || math.IsNaN(scale) || math.IsInf(scale, 0) {
		return Matrix{}
	}
	a, b, c, d := ctm[0]/scale, ctm[1]/scale, ctm[2]/scale, ctm[3]/scale
	const eps = 1e-9
	if (math.Abs(a-d) < eps && math.Abs(b+c) < eps) || (math.Abs(a+d) < eps && math.Abs(b-c) < eps) {
		return Matrix{}
	}
	return Matrix{a, b, c, d, 0, 0}
}
