package svg

import "math"

// Matrix is a 2D affine transform stored like SVG's matrix(a,b,c,d,e,f):
//
//	x' = a*x + c*y + e
//	y' = b*x + d*y + f
type Matrix [6]float64

// Identity is the transform that changes nothing.
var Identity = Matrix{1, 0, 0, 1, 0, 0}

// Translate returns a translation by (tx, ty).
func Translate(tx, ty float64) Matrix { return Matrix{1, 0, 0, 1, tx, ty} }

// Scale returns a scale by (sx, sy) about the origin.
func Scale(sx, sy float64) Matrix { return Matrix{sx, 0, 0, sy, 0, 0} }

// Rotate returns a rotation by deg degrees about the origin; positive angles
// turn clockwise on screen because the y axis points down, as in SVG.
func Rotate(deg float64) Matrix {
	s, c := math.Sincos(deg * math.Pi / 180)
	return Matrix{c, s, -s, c, 0, 0}
}

// SkewX returns SVG's skewX(deg).
func SkewX(deg float64) Matrix { return Matrix{1, 0, math.Tan(deg * math.Pi / 180), 1, 0, 0} }

// SkewY returns SVG's skewY(deg).
func SkewY(deg float64) Matrix { return Matrix{1, math.Tan(deg * math.Pi / 180), 0, 1, 0, 0} }

// Mul returns the product m×n: the transform that applies n first, then m.
// This matches SVG's transform lists, where transform="A B" means A×B.
func (m Matrix) Mul(n Matrix) Matrix {
	return Matrix{
		m[0]*n[0] + m[2]*n[1],
		m[1]*n[0] + m[3]*n[1],
		m[0]*n[2] + m[2]*n[3],
		m[1]*n[2] + m[3]*n[3],
		m[0]*n[4] + m[2]*n[5] + m[4],
		m[1]*n[4] + m[3]*n[5] + m[5],
	}
}

// Apply maps the point p.
func (m Matrix) Apply(p Point) Point {
	return Point{m[0]*p.X + m[2]*p.Y + m[4], m[1]*p.X + m[3]*p.Y + m[5]}
}

// Det returns the determinant of the linear part.
func (m Matrix) Det() float64 { return m[0]*m[3] - m[1]*m[2] }

// Invert returns the inverse of m and false when m is singular.
func (m Matrix) Invert() (Matrix, bool) {
	det := m.Det()
	if det == 0 || math.IsNaN(det) || math.IsInf(det, 0) {
		return Matrix{}, false
	}
	a, b, c, d := m[3]/det, -m[1]/det, -m[2]/det, m[0]/det
	return Matrix{a, b, c, d, -(a*m[4] + c*m[5]), -(b*m[4] + d*m[5])}, true
}

// meanScale is the factor by which m scales lengths on average; it converts
// stroke widths, dash lengths and tolerances between coordinate spaces.
func (m Matrix) meanScale() float64 { return math.Sqrt(math.Abs(m.Det())) }
