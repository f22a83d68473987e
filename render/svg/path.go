package svg

import (
	"math"
)

// Point is a position in a 2D coordinate space.
type Point struct{ X, Y float64 }

// Op is the kind of a path segment.
type Op uint8

// Segment kinds. Elliptical arcs never appear: the parser converts them to
// cubics so that every backend (raster and PDF) needs only these five.
const (
	MoveTo  Op = iota // Pts[0]: start of a new subpath
	LineTo            // Pts[0]: end point
	QuadTo            // Pts[0]: control, Pts[1]: end point
	CubicTo           // Pts[0], Pts[1]: controls, Pts[2]: end point
	Close             // closes the subpath back to its MoveTo point
)

// Segment is one command of a Path with absolute points.
type Segment struct {
	Op  Op
	Pts [3]Point
}

// Path is a sequence of segments. Every subpath starts with MoveTo.
type Path []Segment

// Transform returns a copy of p with every point mapped by m. Affine maps keep
// Béziers exact, so no flattening happens.
func (p Path) Transform(m Matrix) Path {
	out := make(Path, len(p))
	for i, s := range p {
		out[i].Op = s.Op
		for j := 0; j < s.Op.points(); j++ {
			out[i].Pts[j] = m.Apply(s.Pts[j])
		}
	}
	return out
}

func (o Op) points() int {
	switch o {
	case MoveTo, LineTo:
		return 1
	case QuadTo:
		return 2
	case CubicTo:
		return 3
	}
	return 0
}

// Polyline is one flattened subpath.
type Polyline struct {
	Pts    []Point
	Closed bool
}

// Flatten approximates p by polylines whose distance to the curves stays
// within tol (same units as the path). Subpaths with a single point are kept:
// strokes draw caps on them.
func (p Path) Flatten(tol float64) []Polyline {
	if tol <= 0 {
		tol = 0.1
	}
	var out []Polyline
	var cur []Point
	var start Point
	flush := func(closed bool) {
		if len(cur) > 0 {
			out = append(out, Polyline{Pts: cur, Closed: closed})
		}
		cur = nil
	}
	last := func() Point {
		if len(cur) == 0 {
			return start
		}
		return cur[len(cur)-1]
	}
	for _, s := range p {
		switch s.Op {
		case MoveTo:
			flush(false)
			start = s.Pts[0]
			cur = []Point{start}
		case LineTo:
			if len(cur) == 0 {
				cur = []Point{start}
			}
			cur = append(cur, s.Pts[0])
		case QuadTo:
			if len(cur) == 0 {
				cur = []Point{start}
			}
			p0 := last()
			n := curveSteps(math.Hypot(p0.X-2*s.Pts[0].X+s.Pts[1].X, p0.Y-2*s.Pts[0].Y+s.Pts[1].Y), tol)
			for i := 1; i <= n; i++ {
				t := float64(i) / float64(n)
				u := 1 - t
				cur = append(cur, Point{
					u*u*p0.X + 2*u*t*s.Pts[0].X + t*t*s.Pts[1].X,
					u*u*p0.Y + 2*u*t*s.Pts[0].Y + t*t*s.Pts[1].Y,
				})
			}
		case CubicTo:
			if len(cur) == 0 {
				cur = []Point{start}
			}
			p0 := last()
			c1, c2, e := s.Pts[0], s.Pts[1], s.Pts[2]
			dd := math.Max(
				math.Hypot(p0.X-2*c1.X+c2.X, p0.Y-2*c1.Y+c2.Y),
				math.Hypot(c1.X-2*c2.X+e.X, c1.Y-2*c2.Y+e.Y))
			n := curveSteps(1.5*dd, tol)
			for i := 1; i <= n; i++ {
				t := float64(i) / float64(n)
				u := 1 - t
				a, b, c, d := u*u*u, 3*u*u*t, 3*u*t*t, t*t*t
				cur = append(cur, Point{
					a*p0.X + b*c1.X + c*c2.X + d*e.X,
					a*p0.Y + b*c1.Y + c*c2.Y + d*e.Y,
				})
			}
		case Close:
			flush(true)
			cur = nil
		}
	}
	flush(false)
	return out
}

// curveSteps returns how many chords keep a Bézier whose second difference
// has magnitude dd within tol: the chord error is bounded by dd/(8 n²).
func curveSteps(dd, tol float64) int {
	n := int(math.Ceil(math.Sqrt(dd / (8 * tol))))
	switch {
	case n < 1:
		return 1
	case n > 1000:
		return 1000
	}
	return n
}

// bounds returns the bounding box of the path's points and control points,
// which contains the curves (convex hull property).
func (p Path) bounds() (minX, minY, maxX, maxY float64, ok bool) {
	minX, minY = math.Inf(1), math.Inf(1)
	maxX, maxY = math.Inf(-1), math.Inf(-1)
	for _, s := range p {
		for j := 0; j < s.Op.points(); j++ {
			q := s.Pts[j]
			minX, maxX = math.Min(minX, q.X), math.Max(maxX, q.X)
			minY, maxY = math.Min(minY, q.Y), math.Max(maxY, q.Y)
		}
	}
	return minX, minY, maxX, maxY, minX <= maxX
}

// arcToCubics appends cubics approximating the SVG elliptical arc from p0 to
// p (SVG 1.1 F.6 endpoint parameterization).
func arcToCubics(dst Path, p0 Point, rx, ry, phiDeg float64, large, sweep bool, p Point) Path {
	if p0 == p {
		return dst
	}
	rx, ry = math.Abs(rx), math.Abs(ry)
	if rx == 0 || ry == 0 {
		return append(dst, Segment{Op: LineTo, Pts: [3]Point{p}})
	}
	sinPhi, cosPhi := math.Sincos(phiDeg * math.Pi / 180)
	dx2, dy2 := (p0.X-p.X)/2, (p0.Y-p.Y)/2
	x1p := cosPhi*dx2 + sinPhi*dy2
	y1p := -sinPhi*dx2 + cosPhi*dy2
	// Scale radii up when they cannot span the endpoints (F.6.6).
	if lambda := x1p*x1p/(rx*rx) + y1p*y1p/(ry*ry); lambda > 1 {
		s := math.Sqrt(lambda)
		rx, ry = rx*s, ry*s
	}
	num := rx*rx*ry*ry - rx*rx*y1p*y1p - ry*ry*x1p*x1p
	den := rx*rx*y1p*y1p + ry*ry*x1p*x1p
	coef := 0.0
	if den != 0 && num > 0 {
		coef = math.Sqrt(num / den)
	}
	if large == sweep {
		coef = -coef
	}
	cxp, cyp := coef*rx*y1p/ry, -coef*ry*x1p/rx
	cx := cosPhi*cxp - sinPhi*cyp + (p0.X+p.X)/2
	cy := sinPhi*cxp + cosPhi*cyp + (p0.Y+p.Y)/2
	ang := func(ux, uy, vx, vy float64) float64 { return math.Atan2(ux*vy-uy*vx, ux*vx+uy*vy) }
	theta1 := ang(1, 0, (x1p-cxp)/rx, (y1p-cyp)/ry)
	dtheta := ang((x1p-cxp)/rx, (y1p-cyp)/ry, (-x1p-cxp)/rx, (-y1p-cyp)/ry)
	if !sweep && dtheta > 0 {
		dtheta -= 2 * math.Pi
	} else if sweep && dtheta < 0 {
		dtheta += 2 * math.Pi
	}
	if math.IsNaN(dtheta) || math.IsNaN(theta1) {
		return append(dst, Segment{Op: LineTo, Pts: [3]Point{p}})
	}
	n := int(math.Ceil(math.Abs(dtheta) / (math.Pi / 2)))
	if n < 1 {
		n = 1
	}
	step := dtheta / float64(n)
	k := 4.0 / 3 * math.Tan(step/4)
	pt := func(t float64) (Point, Point) { // point and derivative direction
		st, ct := math.Sincos(t)
		x, y := rx*ct, ry*st
		dx, dy := -rx*st, ry*ct
		return Point{cosPhi*x - sinPhi*y + cx, sinPhi*x + cosPhi*y + cy},
			Point{cosPhi*dx - sinPhi*dy, sinPhi*dx + cosPhi*dy}
	}
	t := theta1
	a, da := pt(t)
	a = p0
	for i := 0; i < n; i++ {
		t2 := t + step
		b, db := pt(t2)
		if i == n-1 {
			b = p
		}
		dst = append(dst, Segment{Op: CubicTo, Pts: [3]Point{
			{a.X + k*da.X, a.Y + k*da.Y},
			{b.X - k*db.X, b.Y - k*db.Y},
			b,
		}})
		a, da, t = b, db, t2
	}
	return dst
}
