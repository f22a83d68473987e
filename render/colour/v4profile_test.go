package colour

import (
	"encoding/binary"
	"testing"
)

// buildV4Profile turns Debian's default_cmyk.icc (v2, lut16 A2B0, lut8 B2A0, Lab PCS)
// into a v4 profile with lutAtoB/lutBtoA tags, so both this package and transicc read
// the v4 table types and Lab encoding from the same data. Debian ships no v4
// lutAtoB/lutBtoA CMYK profile, and linkicc writes only device links. Every element
// type is exercised: A/M/B curves as curv tables and para functions, the matrix with
// offsets, 16-bit (A2B) and 8-bit (B2A) CLUTs. A2B1/B2A1 share the intent-0 data.
func buildV4Profile(t *testing.T, src *Profile) []byte {
	t.Helper()
	raw := src.Bytes()
	tags, err := readTagTable(raw)
	if err != nil {
		t.Fatal(err)
	}
	tag := func(sig, typ string) []byte {
		e, ok := tags[sig]
		if !ok || string(raw[e.off:e.off+4]) != typ {
			t.Fatalf("%s: %s is not a %s tag", src.Description(), sig, typ)
		}
		return raw[e.off : e.off+e.size]
	}
	return encodeProfile(0x04200000, "prtr", "CMYK", "Lab ", []rawTag{
		{[]string{"desc"}, mlucTag("printworker test v4 CMYK (from default_cmyk.icc)")},
		{[]string{"cprt"}, mlucTag("test data")},
		{[]string{"wtpt"}, xyzTag(*src.wtpt)},
		{[]string{"A2B0", "A2B1"}, a2bFromLut16(t, tag("A2B0", "mft2"))},
		{[]string{"B2A0", "B2A1"}, b2aFromLut8(t, tag("B2A0", "mft1"))},
	})
}

var be16 = binary.BigEndian

func curvTag(v []uint16) []byte {
	b := append([]byte("curv"), 0, 0, 0, 0)
	b = be16.AppendUint32(b, uint32(len(v)))
	for _, x := range v {
		b = be16.AppendUint16(b, x)
	}
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// paraGamma is a parametric curve of type 0 (Y = X^g).
func paraGamma(g float64) []byte {
	return appendS15F16(append([]byte("para"), 0, 0, 0, 0, 0, 0, 0, 0), g)
}

func identityMatrix() []byte {
	var b []byte
	for i := 0; i < 9; i++ {
		v := 0.0
		if i%4 == 0 {
			v = 1
		}
		b = appendS15F16(b, v)
	}
	for i := 0; i < 3; i++ {
		b = appendS15F16(b, 0)
	}
	return b
}

func clutElement(grid []int, prec int, data []byte) []byte {
	b := make([]byte, 20)
	for i, g := range grid {
		b[i] = byte(g)
	}
	b[16] = byte(prec)
	b = append(b, data...)
	for len(b)%4 != 0 {
		b = append(b, 0)
	}
	return b
}

// lutAB assembles a mAB/mBA tag from its elements (nil elements are absent).
func lutAB(typ string, in, out int, bCurves, matrix, mCurves, clut, aCurves []byte) []byte {
	b := append([]byte(typ), 0, 0, 0, 0, byte(in), byte(out), 0, 0)
	hdr := len(b)
	b = append(b, make([]byte, 20)...)
	for i, el := range [][]byte{bCurves, matrix, mCurves, clut, aCurves} {
		if el == nil {
			continue
		}
		be16.PutUint32(b[hdr+4*i:], uint32(len(b)))
		b = append(b, el...)
	}
	return b
}

// a2bFromLut16: A curves = the lut16 input tables, CLUT = the lut16 grid (v2 Lab
// values), M curves = gamma 1, identity matrix, B curves = the lut16 output tables
// with the v2 -> v4 Lab rescaling folded in (256 entries).
func a2bFromLut16(t *testing.T, b []byte) []byte {
	in, out, g := int(b[8]), int(b[9]), int(b[10])
	nIn, nOut := int(be16.Uint16(b[48:])), int(be16.Uint16(b[50:]))
	pos := 52
	var aCurves []byte
	for i := 0; i < in; i++ {
		v := make([]uint16, nIn)
		for j := range v {
			v[j] = be16.Uint16(b[pos+2*(i*nIn+j):])
		}
		aCurves = append(aCurves, curvTag(v)...)
	}
	pos += 2 * in * nIn
	n := out
	grid := make([]int, in)
	for i := range grid {
		grid[i] = g
		n *= g
	}
	clut := clutElement(grid, 2, b[pos:pos+2*n])
	pos += 2 * n
	var bCurves, mCurves []byte
	for i := 0; i < out; i++ {
		tab := make(tableCurve, nOut)
		for j := range tab {
			tab[j] = be16.Uint16(b[pos+2*(i*nOut+j):])
		}
		v := make([]uint16, 256)
		for j := range v {
			x := float64(lerp16(tab, uint16(j*257))) * 65535 / 65280
			v[j] = uint16(min(x+0.5, 65535))
		}
		bCurves = append(bCurves, curvTag(v)...)
		mCurves = append(mCurves, paraGamma(1)...)
	}
	if len(b) < pos+2*out*nOut {
		t.Fatal("lut16 truncated")
	}
	return lutAB("mAB ", in, out, bCurves, identityMatrix(), mCurves, clut, aCurves)
}

// b2aFromLut8: B curves = gamma 1, identity matrix, M curves = the lut8 input tables,
// an 8-bit CLUT, A curves = the lut8 output tables. lut8 Lab is already the v4 encoding.
func b2aFromLut8(t *testing.T, b []byte) []byte {
	in, out, g := int(b[8]), int(b[9]), int(b[10])
	pos := 48
	table := func(ch int) []byte {
		var cs []byte
		for i := 0; i < ch; i++ {
			v := make([]uint16, 256)
			for j := range v {
				v[j] = uint16(b[pos+i*256+j]) * 257
			}
			cs = append(cs, curvTag(v)...)
		}
		pos += ch * 256
		return cs
	}
	mCurves := table(in)
	n := out
	grid := make([]int, in)
	for i := range grid {
		grid[i] = g
		n *= g
	}
	clut := clutElement(grid, 1, b[pos:pos+n])
	pos += n
	aCurves := table(out)
	if pos > len(b) {
		t.Fatal("lut8 truncated")
	}
	var bCurves []byte
	for i := 0; i < in; i++ {
		bCurves = append(bCurves, paraGamma(1)...)
	}
	return lutAB("mBA ", in, out, bCurves, identityMatrix(), mCurves, clut, aCurves)
}
