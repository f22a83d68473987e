package colour

import "math"

// Black-point detection, following lcms 2.14 cmssamp.c so black-point compensation
// scales exactly as transicc -b does.

// perceptualBlack is the ICC v4 perceptual reference medium black (lcms
// cmsPERCEPTUAL_BLACK_X/Y/Z).
var perceptualBlack = xyz{0.00336, 0.0034731, 0.00287}

func isInkSpace(sig string) bool {
	if sig == "CMYK" || sig == "CMY " {
		return true
	}
	if len(sig) == 4 && (sig[:3] == "MCH" || sig[1:] == "CLR") {
		return true
	}
	return false
}

func badBPClass(p *Profile) bool {
	return p.class == "link" || p.class == "abst" || p.class == "nmcl"
}

// detectBlackPoint is lcms cmsDetectBlackPoint (source black point).
func detectBlackPoint(p *Profile, intent Intent) xyz {
	if badBPClass(p) || intent > Saturation || intent < Perceptual {
		return xyz{}
	}
	if p.isV4() && (intent == Perceptual || intent == Saturation) {
		if p.hasMatrx {
			return darkerColorantBlack(p, RelativeColorimetric)
		}
		return perceptualBlack
	}
	if intent == RelativeColorimetric && p.class == "prtr" && isInkSpace(p.space) {
		return perceptualBlackRoundTrip(p)
	}
	return darkerColorantBlack(p, intent)
}

// darkerColorantBlack converts the darkest device colour (full ink, RGB 0) to Lab,
// keeps only L* (clipped to 0..50) and returns it as XYZ.
func darkerColorantBlack(p *Profile, intent Intent) xyz {
	if !p.isIntentSupported(intent, false) {
		return xyz{}
	}
	var v vec
	switch {
	case p.space == "RGB " || p.space == "GRAY":
	case p.space == "Lab ":
		v[1], v[2] = float64(0x8080)/65535, float64(0x8080)/65535
	case p.space == "CMYK" || p.space == "CMY ":
		for i := 0; i < p.Channels(); i++ {
			v[i] = 1
		}
	default:
		return xyz{}
	}
	st, err := p.inputPipeline(intent)
	if err != nil {
		return xyz{}
	}
	st = addConversion(st, p.pcs, "Lab ", diag3(1, 1, 1), [3]float64{})
	st.eval(&v)
	l := math.Min(math.Max(v[0]*100, 0), 50)
	return labToXYZ(l, 0, 0)
}

// roundTrip is lcms CreateRoundtripXForm: Lab -> profile (intent, output direction)
// -> profile (relative colorimetric, input direction) -> Lab, in v4 Lab encoding.
func roundTrip(p *Profile, intent Intent) (pipeline, error) {
	out, err := p.outputPipeline(intent)
	if err != nil {
		return nil, err
	}
	in, err := p.inputPipeline(RelativeColorimetric)
	if err != nil {
		return nil, err
	}
	id := diag3(1, 1, 1)
	// lcms forces BPC into a v4 profile's perceptual and saturation tables even here:
	// the Lab profile's black (0) maps to the v4 perceptual black.
	m, off := id, [3]float64{}
	if forcedBPC(p, intent, false) {
		if bo := detectDestinationBlackPoint(p, intent); bo != (xyz{}) {
			m, off = bpcMatrix(xyz{}, bo)
			for k := range off {
				off[k] /= maxEncodableXYZ
			}
		}
	}
	st := addConversion(nil, "Lab ", p.pcs, m, off)
	st = append(st, out...)
	st = append(st, in...)
	return addConversion(st, p.pcs, "Lab ", id, [3]float64{}), nil
}

func evalLab(st pipeline, l, a, b float64) (float64, float64, float64) {
	var v vec
	v[0], v[1], v[2] = l/100, (a+128)/255, (b+128)/255
	st.eval(&v)
	return v[0] * 100, v[1]*255 - 128, v[2]*255 - 128
}

// perceptualBlackRoundTrip is lcms BlackPointUsingPerceptualBlack: the black an output
// profile really prints, discounting ink limits: Lab 0 through the perceptual table
// and back colorimetrically.
func perceptualBlackRoundTrip(p *Profile) xyz {
	if !p.isIntentSupported(Perceptual, false) {
		return xyz{}
	}
	rt, err := roundTrip(p, Perceptual)
	if err != nil {
		return xyz{}
	}
	l, _, _ := evalLab(rt, 0, 0, 0)
	return labToXYZ(math.Min(l, 50), 0, 0)
}

// detectDestinationBlackPoint is lcms cmsDetectDestinationBlackPoint, the Adobe
// algorithm: round-trip an L* ramp and fit a quadratic to the shadow part of the
// curve; its vertex is the black point.
func detectDestinationBlackPoint(p *Profile, intent Intent) xyz {
	if badBPClass(p) || intent > Saturation || intent < Perceptual {
		return xyz{}
	}
	if p.isV4() && (intent == Perceptual || intent == Saturation) {
		if p.hasMatrx {
			return darkerColorantBlack(p, RelativeColorimetric)
		}
		return perceptualBlack
	}
	if !p.isCLUT(intent, true) || (p.space != "GRAY" && p.space != "RGB " && !isInkSpace(p.space)) {
		return detectBlackPoint(p, intent)
	}
	var ini [3]float64
	if intent == RelativeColorimetric {
		ini = xyzToLab(detectBlackPoint(p, intent))
	}
	rt, err := roundTrip(p, intent)
	if err != nil {
		return xyz{}
	}
	var inRamp, outRamp [256]float64
	a := math.Min(50, math.Max(-50, ini[1]))
	b := math.Min(50, math.Max(-50, ini[2]))
	for l := 0; l < 256; l++ {
		L := float64(l) * 100 / 255
		out, _, _ := evalLab(rt, L, a, b)
		inRamp[l], outRamp[l] = L, out
	}
	for l := 254; l > 0; l-- {
		outRamp[l] = math.Min(outRamp[l], outRamp[l+1])
	}
	if !(outRamp[0] < outRamp[255]) {
		return xyz{}
	}
	minL, maxL := outRamp[0], outRamp[255]
	if intent == RelativeColorimetric {
		straight := true
		for l := 0; l < 256; l++ {
			if !(inRamp[l] <= minL+0.2*(maxL-minL) || math.Abs(inRamp[l]-outRamp[l]) < 4.0) {
				straight = false
			}
		}
		if straight {
			return labToXYZ(ini[0], ini[1], ini[2])
		}
	}
	lo, hi := 0.03, 0.25
	if intent == RelativeColorimetric {
		lo, hi = 0.1, 0.5
	}
	var xs, ys []float64
	for l := 0; l < 256; l++ {
		y := (outRamp[l] - minL) / (maxL - minL)
		if y >= lo && y < hi {
			xs = append(xs, inRamp[l])
			ys = append(ys, y)
		}
	}
	if len(xs) < 3 {
		return xyz{}
	}
	L := math.Max(quadraticRoot(xs, ys), 0)
	return labToXYZ(L, ini[1], ini[2])
}

// quadraticRoot is lcms 2.14 RootOfLeastSquaresFitQuadraticCurve, including its
// clamp order in the near-linear case (which always yields 0).
func quadraticRoot(x, y []float64) float64 {
	n := len(x)
	if n < 4 {
		return 0
	}
	var sx, sx2, sx3, sx4, sy, syx, syx2 float64
	for i := range x {
		xn, yn := x[i], y[i]
		sx += xn
		sx2 += xn * xn
		sx3 += xn * xn * xn
		sx4 += xn * xn * xn * xn
		sy += yn
		syx += yn * xn
		syx2 += yn * xn * xn
	}
	m := mat3{{float64(n), sx, sx2}, {sx, sx2, sx3}, {sx2, sx3, sx4}}
	inv, err := m.inverse()
	if err != nil {
		return 0
	}
	res := inv.apply([3]float64{sy, syx, syx2})
	a, b, c := res[2], res[1], res[0]
	if math.Abs(a) < 1e-10 {
		if math.Abs(b) < 1e-10 {
			return 0
		}
		return math.Min(0, math.Max(50, -c/b))
	}
	d := b*b - 4*a*c
	if d <= 0 {
		return 0
	}
	return math.Max(0, math.Min(50, (-b+math.Sqrt(d))/(2*a)))
}
