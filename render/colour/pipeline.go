package colour

import "math"

// The pipeline works like lcms's float pipeline: every value between stages is in the
// normalised encoding of its space (device values 0..1; XYZ divided by
// maxEncodableXYZ; Lab as L/100, (a+128)/255, (b+128)/255, the v4 encoding).
const maxEncodableXYZ = 1.0 + 32767.0/32768.0

var d50 = xyz{0.9642, 1.0, 0.8249}

// vec holds one colour between stages; 15 channels is the ICC maximum we accept.
type vec [maxChannels]float64

type stage interface {
	eval(in *vec)
}

type pipeline []stage

func (p pipeline) eval(v *vec) {
	for _, s := range p {
		s.eval(v)
	}
}

// curve is a one-dimensional transfer function.
type curve interface {
	eval(x float64) float64
}

// tableCurve is a sampled curve. lcms evaluates sampled curves at 16-bit precision even
// in float transforms; doing the same keeps shadows within a hair of transicc.
type tableCurve []uint16

func (t tableCurve) eval(x float64) float64 {
	return float64(lerp16(t, saturateWord(x*65535))) / 65535
}

func saturateWord(d float64) uint16 {
	d += 0.5
	if d <= 0 || d != d {
		return 0
	}
	if d >= 65535 {
		return 0xffff
	}
	return uint16(d)
}

// lerp16 is lcms LinLerp1D: 16.16 fixed-point linear interpolation in a table.
func lerp16(t []uint16, v uint16) uint16 {
	dom := len(t) - 1
	if v == 0xffff || dom == 0 {
		return t[dom]
	}
	val3 := dom * int(v)
	val3 += (val3 + 0x7fff) / 0xffff // _cmsToFixedDomain
	cell0 := val3 >> 16
	rest := val3 & 0xffff
	if cell0 >= dom {
		return t[dom]
	}
	l, h := int(t[cell0]), int(t[cell0+1])
	return uint16(((h-l)*rest+0x8000)>>16 + l)
}

// paraCurve is an ICC parametric curve (types 1..5 are ICC function types 0..4); a
// negative type is the inverse, as lcms numbers them.
type paraCurve struct {
	typ int
	p   [7]float64
}

func (c paraCurve) eval(x float64) float64 {
	p := c.p
	switch c.typ {
	case 1:
		if x < 0 {
			if math.Abs(p[0]-1) < 1e-4 {
				return x
			}
			return 0
		}
		return math.Pow(x, p[0])
	case 2:
		if math.Abs(p[1]) < 1e-4 {
			return 0
		}
		if x >= -p[2]/p[1] {
			if e := p[1]*x + p[2]; e > 0 {
				return math.Pow(e, p[0])
			}
		}
		return 0
	case 3:
		if math.Abs(p[1]) < 1e-4 {
			return 0
		}
		disc := math.Max(-p[2]/p[1], 0)
		if x >= disc {
			if e := p[1]*x + p[2]; e > 0 {
				return math.Pow(e, p[0]) + p[3]
			}
			return 0
		}
		return p[3]
	case 4:
		if x >= p[4] {
			if e := p[1]*x + p[2]; e > 0 {
				return math.Pow(e, p[0])
			}
			return 0
		}
		return x * p[3]
	case 5:
		if x >= p[4] {
			if e := p[1]*x + p[2]; e > 0 {
				return math.Pow(e, p[0]) + p[5]
			}
			return p[5]
		}
		return x*p[3] + p[6]
	case -4:
		disc := 0.0
		if e := p[1]*p[4] + p[2]; e >= 0 {
			disc = math.Pow(e, p[0])
		}
		if x >= disc {
			return (math.Pow(x, 1/p[0]) - p[2]) / p[1]
		}
		return x / p[3]
	}
	return x
}

type curveStage struct{ c []curve }

func (s *curveStage) eval(v *vec) {
	for i, c := range s.c {
		v[i] = c.eval(v[i])
	}
}

// matrixStage is out = m*in + off, m row-major with one row per output.
type matrixStage struct {
	rows, cols int
	m, off     []float64
}

func (s *matrixStage) eval(v *vec) {
	var o vec
	for i := 0; i < s.rows; i++ {
		t := 0.0
		for j := 0; j < s.cols; j++ {
			t += v[j] * s.m[i*s.cols+j]
		}
		if s.off != nil {
			t += s.off[i]
		}
		o[i] = t
	}
	copy(v[:s.rows], o[:s.rows])
}

func diagStage(k float64) *matrixStage {
	return &matrixStage{rows: 3, cols: 3, m: []float64{k, 0, 0, 0, k, 0, 0, 0, k}}
}

// Lab v2 <-> v4 encodings of 16-bit tables (v2 L=100 is 0xFF00, v4 is 0xFFFF).
func labV4ToV2() stage { return diagStage(65280.0 / 65535.0) }
func labV2ToV4() stage { return diagStage(65535.0 / 65280.0) }

type xyz2labStage struct{}

func (xyz2labStage) eval(v *vec) {
	l := xyzToLab(xyz{v[0] * maxEncodableXYZ, v[1] * maxEncodableXYZ, v[2] * maxEncodableXYZ})
	v[0], v[1], v[2] = l[0]/100, (l[1]+128)/255, (l[2]+128)/255
}

type lab2xyzStage struct{}

func (lab2xyzStage) eval(v *vec) {
	x := labToXYZ(v[0]*100, v[1]*255-128, v[2]*255-128)
	v[0], v[1], v[2] = x.X/maxEncodableXYZ, x.Y/maxEncodableXYZ, x.Z/maxEncodableXYZ
}

// clampStage clips device values to 0..1 (the output of a bounded transform).
type clampStage struct{ n int }

func (s clampStage) eval(v *vec) {
	for i := 0; i < s.n; i++ {
		v[i] = clamp01(v[i])
	}
}

func clamp01(x float64) float64 {
	if x < 0 || x != x {
		return 0
	}
	if x > 1 {
		return 1
	}
	return x
}

func labF(t float64) float64 {
	const limit = (24.0 / 116.0) * (24.0 / 116.0) * (24.0 / 116.0)
	if t <= limit {
		return (841.0/108.0)*t + 16.0/116.0
	}
	return math.Cbrt(t)
}

func labFInv(t float64) float64 {
	if t <= 24.0/116.0 {
		return (108.0 / 841.0) * (t - 16.0/116.0)
	}
	return t * t * t
}

// xyzToLab converts D50-relative XYZ to CIELAB (lcms cmsXYZ2Lab with a D50 white).
func xyzToLab(c xyz) [3]float64 {
	fx, fy, fz := labF(c.X/d50.X), labF(c.Y/d50.Y), labF(c.Z/d50.Z)
	return [3]float64{116*fy - 16, 500 * (fx - fy), 200 * (fy - fz)}
}

func labToXYZ(l, a, b float64) xyz {
	y := (l + 16) / 116
	x := y + 0.002*a
	z := y - 0.005*b
	return xyz{labFInv(x) * d50.X, labFInv(y) * d50.Y, labFInv(z) * d50.Z}
}
