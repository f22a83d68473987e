package colour

import (
	"fmt"
	"sync"
)

// Transform converts 8-bit sRGB to the device values of a CMYK output profile.
// It is safe for concurrent use.
type Transform struct {
	out    *Profile
	intent Intent
	bpc    bool
	exact  pipeline

	gridOnce sync.Once
	grid     *grid3
	gridN    int
}

// DefaultGridPoints is the number of nodes per axis of the sRGB lookup grid used by
// ConvertNRGBA (see docs/colour.md for the accuracy and speed it was chosen for).
const DefaultGridPoints = 33

// NewSRGBToCMYK builds the sRGB -> out transform. out must be a CMYK profile with a
// B2A table; intent must be one of the four ICC intents. blackPointCompensation
// scales the source black to the profile's black (lcms BPC); as in lcms it is always
// on for perceptual and saturation into a v4 profile, and never for absolute.
func NewSRGBToCMYK(out *Profile, intent Intent, blackPointCompensation bool) (*Transform, error) {
	if out == nil {
		return nil, classify(ErrWrongProfile, fmt.Errorf("colour: no output profile"))
	}
	if err := intent.valid(); err != nil {
		return nil, err
	}
	if out.ColorSpace() != "CMYK" {
		return nil, classify(ErrWrongProfile, fmt.Errorf("colour: output profile %q is %s, a CMYK profile is needed", out.desc, out.ColorSpace()))
	}
	if out.class == "link" || out.class == "abst" || out.class == "nmcl" {
		return nil, classify(ErrWrongProfile, fmt.Errorf("colour: output profile %q is a %q class profile, an output (prtr) profile is needed", out.desc, out.class))
	}
	st, err := link(SRGB(), out, intent, blackPointCompensation)
	if err != nil {
		return nil, classify(ErrWrongProfile, err)
	}
	return &Transform{out: out, intent: intent, bpc: blackPointCompensation, exact: st, gridN: DefaultGridPoints}, nil
}

// Profile is the output profile.
func (t *Transform) Profile() *Profile { return t.out }

// Intent is the rendering intent.
func (t *Transform) Intent() Intent { return t.intent }

// CMYKFloat converts one sRGB colour (components 0..1) exactly, returning CMYK 0..1.
func (t *Transform) CMYKFloat(r, g, b float64) (c, m, y, k float64) {
	var v vec
	v[0], v[1], v[2] = r, g, b
	t.exact.eval(&v)
	return v[0], v[1], v[2], v[3]
}

// CMYK converts one 8-bit sRGB colour through the exact pipeline (no grid), for
// vector colours. 0 is no ink, 255 full ink.
func (t *Transform) CMYK(r, g, b uint8) (c, m, y, k uint8) {
	fc, fm, fy, fk := t.CMYKFloat(float64(r)/255, float64(g)/255, float64(b)/255)
	return to8(fc), to8(fm), to8(fy), to8(fk)
}

func to8(x float64) uint8 {
	x = clamp01(x)*255 + 0.5
	return uint8(x)
}

// Proof converts device CMYK of a profile to sRGB, for soft proofs and checks. It is
// safe for concurrent use.
type Proof struct {
	in     *Profile
	intent Intent
	exact  pipeline

	gridOnce sync.Once
	grid     *grid4
}

// NewCMYKToSRGB builds the in -> sRGB proof transform with lcms's defaults: no
// black-point compensation requested, which lcms still applies for perceptual and
// saturation because its built-in sRGB is a v4 profile.
func NewCMYKToSRGB(in *Profile, intent Intent) (*Proof, error) {
	return NewCMYKToSRGBWithBPC(in, intent, false)
}

// NewCMYKToSRGBWithBPC is NewCMYKToSRGB with black-point compensation as transicc -b.
func NewCMYKToSRGBWithBPC(in *Profile, intent Intent, blackPointCompensation bool) (*Proof, error) {
	if in == nil {
		return nil, classify(ErrWrongProfile, fmt.Errorf("colour: no input profile"))
	}
	if err := intent.valid(); err != nil {
		return nil, err
	}
	if in.ColorSpace() != "CMYK" {
		return nil, classify(ErrWrongProfile, fmt.Errorf("colour: proof profile %q is %s, a CMYK profile is needed", in.desc, in.ColorSpace()))
	}
	if in.class == "link" || in.class == "abst" || in.class == "nmcl" {
		return nil, classify(ErrWrongProfile, fmt.Errorf("colour: proof profile %q is a %q class profile, an output (prtr) profile is needed", in.desc, in.class))
	}
	st, err := link(in, SRGB(), intent, blackPointCompensation)
	if err != nil {
		return nil, classify(ErrWrongProfile, err)
	}
	return &Proof{in: in, intent: intent, exact: st}, nil
}

// RGBFloat converts CMYK 0..1 to sRGB 0..1 exactly (clipped to the sRGB gamut).
func (p *Proof) RGBFloat(c, m, y, k float64) (r, g, b float64) {
	var v vec
	v[0], v[1], v[2], v[3] = c, m, y, k
	p.exact.eval(&v)
	return v[0], v[1], v[2]
}

// RGB converts one 8-bit CMYK colour exactly.
func (p *Proof) RGB(c, m, y, k uint8) (r, g, b uint8) {
	fr, fg, fb := p.RGBFloat(float64(c)/255, float64(m)/255, float64(y)/255, float64(k)/255)
	return to8(fr), to8(fg), to8(fb)
}
