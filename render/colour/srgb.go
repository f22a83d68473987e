package colour

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
// colorants and one parametric TRC shared by the three channels.
func encodeSRGB(p *Profile, chad mat3) []byte {
	sf32 := append([]byte("sf32"), 0, 0, 0, 0)
	for _, row := range chad {
		for _, v := range row {
			sf32 = appendS15F16(sf32, v)
		}
	}
	para := append([]byte("para"), 0, 0, 0, 0, 0, 3, 0, 0)
	for _, v := range srgbCurve.p[:5] {
		para = appendS15F16(para, v)
	}
	return encodeProfile(p.version, p.class, p.space, p.pcs, []rawTag{
		{[]string{"desc"}, mlucTag(p.desc)},
		{[]string{"cprt"}, mlucTag("No copyright, use freely")},
		{[]string{"wtpt"}, xyzTag(*p.wtpt)},
		{[]string{"chad"}, sf32},
		{[]string{"rXYZ"}, xyzTag(p.rgbXYZ[0])},
		{[]string{"gXYZ"}, xyzTag(p.rgbXYZ[1])},
		{[]string{"bXYZ"}, xyzTag(p.rgbXYZ[2])},
		{[]string{"rTRC", "gTRC", "bTRC"}, para},
	})
}
