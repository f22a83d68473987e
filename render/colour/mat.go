package colour

import "errors"

// mat3 is a row-major 3x3 matrix.
type mat3 [3][3]float64

func (a mat3) mul(b mat3) mat3 {
	var r mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			r[i][j] = a[i][0]*b[0][j] + a[i][1]*b[1][j] + a[i][2]*b[2][j]
		}
	}
	return r
}

func (a mat3) apply(v [3]float64) [3]float64 {
	return [3]float64{
		a[0][0]*v[0] + a[0][1]*v[1] + a[0][2]*v[2],
		a[1][0]*v[0] + a[1][1]*v[1] + a[1][2]*v[2],
		a[2][0]*v[0] + a[2][1]*v[1] + a[2][2]*v[2],
	}
}

func (a mat3) inverse() (mat3, error) {
	c0 := a[1][1]*a[2][2] - a[1][2]*a[2][1]
	c1 := -a[1][0]*a[2][2] + a[1][2]*a[2][0]
	c2 := a[1][0]*a[2][1] - a[1][1]*a[2][0]
	det := a[0][0]*c0 + a[0][1]*c1 + a[0][2]*c2
	if det > -1e-4 && det < 1e-4 { // lcms MATRIX_DET_TOLERANCE
		return mat3{}, errors.New("colour: singular matrix")
	}
	var r mat3
	r[0][0] = c0 / det
	r[0][1] = (a[0][2]*a[2][1] - a[0][1]*a[2][2]) / det
	r[0][2] = (a[0][1]*a[1][2] - a[0][2]*a[1][1]) / det
	r[1][0] = c1 / det
	r[1][1] = (a[0][0]*a[2][2] - a[0][2]*a[2][0]) / det
	r[1][2] = (a[0][2]*a[1][0] - a[0][0]*a[1][2]) / det
	r[2][0] = c2 / det
	r[2][1] = (a[0][1]*a[2][0] - a[0][0]*a[2][1]) / det
	r[2][2] = (a[0][0]*a[1][1] - a[0][1]*a[1][0]) / det
	return r, nil
}

func (a mat3) flat() []float64 {
	return []float64{a[0][0], a[0][1], a[0][2], a[1][0], a[1][1], a[1][2], a[2][0], a[2][1], a[2][2]}
}

func diag3(x, y, z float64) mat3 { return mat3{{x, 0, 0}, {0, y, 0}, {0, 0, z}} }

// bradford is the cone response matrix lcms uses for chromatic adaptation.
var bradford = mat3{
	{0.8951, 0.2664, -0.1614},
	{-0.7502, 1.7135, 0.0367},
	{0.0389, -0.0685, 1.0296},
}

// adaptationMatrix is lcms _cmsAdaptationMatrix with the Bradford cone matrix: it
// maps XYZ under white `from` to XYZ under white `to`.
func adaptationMatrix(from, to xyz) (mat3, error) {
	inv, err := bradford.inverse()
	if err != nil {
		return mat3{}, err
	}
	s := bradford.apply([3]float64{from.X, from.Y, from.Z})
	d := bradford.apply([3]float64{to.X, to.Y, to.Z})
	cone := diag3(d[0]/s[0], d[1]/s[1], d[2]/s[2])
	return inv.mul(cone.mul(bradford)), nil
}
