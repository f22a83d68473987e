package colour

import (
	"fmt"
	"math"
)

// inputPipeline is device -> PCS for one intent (lcms _cmsReadInputLUT): the A2B table
// for the intent, else A2B0, else the matrix/shaper.
func (p *Profile) inputPipeline(intent Intent) (pipeline, error) {
	if intent >= Perceptual && intent <= AbsoluteColorimetric {
		l := p.luts[device2PCS[intent]]
		if l == nil {
			l = p.luts["A2B0"]
		}
		if l != nil {
			st := append(pipeline(nil), l.stages...)
			if l.typ == "mft2" && p.pcs == "Lab " {
				if p.space == "Lab " {
					st = append(pipeline{labV4ToV2()}, st...)
				}
				st = append(st, labV2ToV4())
			}
			return st, nil
		}
	}
	if p.space == "RGB " && p.hasMatrx {
		m := p.rgbMatrix()
		for i := range m {
			for j := range m[i] {
				m[i][j] /= maxEncodableXYZ
			}
		}
		st := pipeline{
			&curveStage{c: []curve{p.rgbTRC[0], p.rgbTRC[1], p.rgbTRC[2]}},
			&matrixStage{rows: 3, cols: 3, m: m.flat()},
		}
		if p.pcs == "Lab " {
			st = append(st, xyz2labStage{})
		}
		return st, nil
	}
	return nil, fmt.Errorf("colour: %s profile %q has no device-to-PCS table (A2B0) or matrix/TRC", p.ColorSpace(), p.desc)
}

// outputPipeline is PCS -> device for one intent (lcms _cmsReadOutputLUT). Tables
// indexed by Lab interpolate trilinearly, as in lcms.
func (p *Profile) outputPipeline(intent Intent) (pipeline, error) {
	if intent >= Perceptual && intent <= AbsoluteColorimetric {
		l := p.luts[pcs2Device[intent]]
		if l == nil {
			l = p.luts["B2A0"]
		}
		if l != nil {
			st := append(pipeline(nil), l.stages...)
			if p.pcs == "Lab " {
				for i, s := range st {
					if c, ok := s.(*clutStage); ok && len(c.grid) == 3 {
						st[i] = c.withTrilinear()
					}
				}
			}
			if l.typ == "mft2" && p.pcs == "Lab " {
				st = append(pipeline{labV4ToV2()}, st...)
				if p.space == "Lab " {
					st = append(st, labV2ToV4())
				}
			}
			return st, nil
		}
	}
	if p.space == "RGB " && p.hasMatrx {
		inv, err := p.rgbMatrix().inverse()
		if err != nil {
			return nil, fmt.Errorf("colour: %q: colorant matrix cannot be inverted", p.desc)
		}
		for i := range inv {
			for j := range inv[i] {
				inv[i][j] *= maxEncodableXYZ
			}
		}
		var rev [3]curve
		for i, c := range p.rgbTRC {
			pc, ok := c.(paraCurve)
			if !ok || pc.typ != 4 {
				return nil, fmt.Errorf("colour: %q: only sRGB-type parametric TRCs can be inverted for output", p.desc)
			}
			pc.typ = -4
			rev[i] = pc
		}
		st := pipeline{}
		if p.pcs == "Lab " {
			st = append(st, lab2xyzStage{})
		}
		return append(st, &matrixStage{rows: 3, cols: 3, m: inv.flat()}, &curveStage{c: rev[:]}), nil
	}
	return nil, fmt.Errorf("colour: %s profile %q has no PCS-to-device table (B2A0)", p.ColorSpace(), p.desc)
}

func (p *Profile) rgbMatrix() mat3 {
	r, g, b := p.rgbXYZ[0], p.rgbXYZ[1], p.rgbXYZ[2]
	return mat3{{r.X, g.X, b.X}, {r.Y, g.Y, b.Y}, {r.Z, g.Z, b.Z}}
}

// conversion is lcms ComputeConversion: the XYZ matrix/offset between the PCS of two
// profiles for an intent, with the offset in the normalised XYZ encoding.
func conversion(in, out *Profile, intent Intent, bpc bool) (mat3, [3]float64) {
	m := diag3(1, 1, 1)
	var off [3]float64
	if intent == AbsoluteColorimetric {
		wi, wo := in.mediaWhite(), out.mediaWhite()
		m = diag3(wi.X/wo.X, wi.Y/wo.Y, wi.Z/wo.Z)
	} else if bpc {
		bi := detectBlackPoint(in, intent)
		bo := detectDestinationBlackPoint(out, intent)
		if bi != bo {
			m, off = bpcMatrix(bi, bo)
		}
	}
	for k := range off {
		off[k] /= maxEncodableXYZ
	}
	return m, off
}

// bpcMatrix is lcms ComputeBlackPointCompensation: a per-axis scale in XYZ that maps
// the source black to the destination black and keeps D50 white.
func bpcMatrix(in, out xyz) (mat3, [3]float64) {
	tx, ty, tz := in.X-d50.X, in.Y-d50.Y, in.Z-d50.Z
	m := diag3((out.X-d50.X)/tx, (out.Y-d50.Y)/ty, (out.Z-d50.Z)/tz)
	off := [3]float64{
		-d50.X * (out.X - in.X) / tx,
		-d50.Y * (out.Y - in.Y) / ty,
		-d50.Z * (out.Z - in.Z) / tz,
	}
	return m, off
}

func isEmptyLayer(m mat3, off [3]float64) bool {
	diff := 0.0
	id := diag3(1, 1, 1)
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			diff += math.Abs(m[i][j] - id[i][j])
		}
		diff += math.Abs(off[i])
	}
	return diff < 0.002
}

// addConversion is lcms AddConversion: PCS mismatch stages plus the XYZ matrix.
func addConversion(st pipeline, from, to string, m mat3, off [3]float64) pipeline {
	empty := isEmptyLayer(m, off)
	ms := &matrixStage{rows: 3, cols: 3, m: m.flat(), off: off[:]}
	switch {
	case from == "XYZ " && to == "XYZ ":
		if !empty {
			st = append(st, ms)
		}
	case from == "XYZ " && to == "Lab ":
		if !empty {
			st = append(st, ms)
		}
		st = append(st, xyz2labStage{})
	case from == "Lab " && to == "XYZ ":
		st = append(st, lab2xyzStage{})
		if !empty {
			st = append(st, ms)
		}
	case from == "Lab " && to == "Lab ":
		if !empty {
			st = append(st, lab2xyzStage{}, ms, xyz2labStage{})
		}
	}
	return st
}

// forcedBPC is lcms _cmsLinkProfiles: v4 output profiles always get black-point
// compensation in perceptual and saturation; absolute never does.
func forcedBPC(out *Profile, intent Intent, bpc bool) bool {
	if intent == AbsoluteColorimetric {
		return false
	}
	if (intent == Perceptual || intent == Saturation) && out.isV4() {
		return true
	}
	return bpc
}

// link builds the device-to-device pipeline in -> out (lcms DefaultICCintents for two
// profiles), clipped to the output device range.
func link(in, out *Profile, intent Intent, bpc bool) (pipeline, error) {
	if err := intent.valid(); err != nil {
		return nil, err
	}
	st, err := in.inputPipeline(intent)
	if err != nil {
		return nil, err
	}
	o, err := out.outputPipeline(intent)
	if err != nil {
		return nil, err
	}
	m, off := conversion(in, out, intent, forcedBPC(out, intent, bpc))
	st = addConversion(st, in.pcs, out.pcs, m, off)
	st = append(st, o...)
	return append(st, clampStage{n: out.Channels()}), nil
}
