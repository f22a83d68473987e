package colour

import (
	"encoding/binary"
	"math"
	"unicode/utf16"
)

// sRGB as LittleCMS builds its "*sRGB": Rec. 709 primaries and a D65 white
// (x 0.3127, y 0.3290), the colorant matrix adapted to the D50 PCS with Bradford, and
// the IEC 61966-2-1 curve as ICC parametric type 3 (lcms type 4): gamma 2.4,
// a 1/1.055, b 0.055/1.055, c 1/12.92, d 0.04045. Built in code, not shipped.
var (
	srgbWhite     = [2]float64{0.3127, 0.3290}
	srgbPrimaries = [3][2]float64{{0.64, 0.33}, {0.30, 0.60}, {0.15, 0.06}}
	srgbCurve     = paraCurve{typ: 4, p: [7]float64{2.4, 1 / 1.055, 0.055 / 1.055, 1 / 12.92, 0.04045}}
)

// srgbMatrix is lcms _cmsBuildRGB2XYZtransferMatrix followed by _cmsAdaptMatrixToD50.
func srgbMatrix() (mat3, mat3) {
	xn, yn := srgbWhite[0], srgbWhite[1]
	pr, pg, pb := srgbPrimaries[0], srgbPrimaries[1], srgbPrimaries[2]
	prim := mat3{
		{pr[0], pg[0], pb[0]},
		{pr[1], pg[1], pb[1]},
		{1 - pr[0] - pr[1], 1 - pg[0] - pg[1], 1 - pb[0] - pb[1]},
	}
	inv, err := prim.inverse()
	if err != nil {
		panic(err) // constant input; cannot happen
	}
	coef := inv.apply([3]float64{xn / yn, 1, (1 - xn - yn) / yn})
	var r mat3
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			r[i][j] = coef[j] * prim[i][j]
		}
	}
	white := xyz{xn / yn, 1, (1 - xn - yn) / yn}
	chad, err := adaptationMatrix(white, d50)
	if err != nil {
		panic(err)
	}
	return chad.mul(r), chad
}

// SRGB returns the built-in sRGB profile (a v4 matrix/shaper display profile equal to
// LittleCMS's "*sRGB"). Each call returns a new value; Bytes is a valid ICC v4
// profile that can be embedded.
func SRGB() *Profile {
	m, chad := srgbMatrix()
	p := &Profile{
		version:  0x04300000,
		class:    "mntr",
		space:    "RGB ",
		pcs:      "XYZ ",
		desc:     "sRGB built-in",
		luts:     map[string]*lutTag{},
		hasMatrx: true,
	}
	w := d50
	p.wtpt = &w
	for i := 0; i < 3; i++ {
		p.rgbTRC[i] = srgbCurve
		p.rgbXYZ[i] = xyz{m[0][i], m[1][i], m[2][i]}
	}
	p.raw = encodeSRGB(p, chad)
	return p
}

// encodeSRGB writes the profile as ICC v4.3 bytes: desc, cprt, wtpt, chad, the three
// colorants and one shared parametric TRC.
func encodeSRGB(p *Profile, chad mat3) []byte {
	type tag struct {
		sig  string
		body []byte
	}
	fix := func(b []byte, v float64) []byte {
		return binary.BigEndian.AppendUint32(b, uint32(int32(math.Round(v*65536))))
	}
	xyzTag := func(c xyz) []byte {
		b := append([]byte("XYZ "), 0, 0, 0, 0)
		return fix(fix(fix(b, c.X), c.Y), c.Z)
	}
	mluc := func(s string) []byte {
		u := utf16.Encode([]rune(s))
		b := append([]byte("mluc"), 0, 0, 0, 0)
		b = binary.BigEndian.AppendUint32(b, 1)
		b = binary.BigEndian.AppendUint32(b, 12)
		b = append(b, 'e', 'n', 'U', 'S')
		b = binary.BigEndian.AppendUint32(b, uint32(2*len(u)))
		b = binary.BigEndian.AppendUint32(b, 28)
		for _, c := range u {
			b = binary.BigEndian.AppendUint16(b, c)
		}
		return b
	}
	sf32 := append([]byte("sf32"), 0, 0, 0, 0)
	for _, row := range chad {
		for _, v := range row {
			sf32 = fix(sf32, v)
		}
	}
	para := append([]byte("para"), 0, 0, 0, 0, 0, 3, 0, 0)
	for _, v := range srgbCurve.p[:5] {
		para = fix(para, v)
	}
	tags := []tag{
		{"desc", mluc(p.desc)},
		{"cprt", mluc("No copyright, use freely")},
		{"wtpt", xyzTag(*p.wtpt)},
		{"chad", sf32},
		{"rXYZ", xyzTag(p.rgbXYZ[0])},
		{"gXYZ", xyzTag(p.rgbXYZ[1])},
		{"bXYZ", xyzTag(p.rgbXYZ[2])},
		{"rTRC", para},
	}
	// Header and tag table; gTRC and bTRC share rTRC's data.
	n := len(tags) + 2
	out := make([]byte, 128+4+12*n)
	var table []byte
	body := []byte{}
	offs := map[string][2]uint32{}
	for _, t := range tags {
		for len(body)%4 != 0 {
			body = append(body, 0)
		}
		off := uint32(len(out) + len(body))
		body = append(body, t.body...)
		offs[t.sig] = [2]uint32{off, uint32(len(t.body))}
		table = append(table, t.sig...)
		table = binary.BigEndian.AppendUint32(table, off)
		table = binary.BigEndian.AppendUint32(table, uint32(len(t.body)))
	}
	for _, sig := range []string{"gTRC", "bTRC"} {
		table = append(table, sig...)
		table = binary.BigEndian.AppendUint32(table, offs["rTRC"][0])
		table = binary.BigEndian.AppendUint32(table, offs["rTRC"][1])
	}
	for len(body)%4 != 0 {
		body = append(body, 0)
	}
	out = append(out[:132], table...)
	out = append(out, body...)
	be := binary.BigEndian
	be.PutUint32(out[0:], uint32(len(out)))
	be.PutUint32(out[8:], p.version)
	copy(out[12:], "mntrRGB XYZ ")
	// Creation date: fixed, so the bytes (and their hash) never change.
	for i, v := range []uint16{2024, 1, 1, 0, 0, 0} {
		be.PutUint16(out[24+2*i:], v)
	}
	copy(out[36:], "acsp")
	copy(out[68:], fix(nil, d50.X))
	copy(out[72:], fix(nil, d50.Y))
	copy(out[76:], fix(nil, d50.Z))
	be.PutUint32(out[128:], uint32(n))
	return out
}
