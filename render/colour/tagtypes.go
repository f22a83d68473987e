package colour

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"unicode/utf16"
)

var be = binary.BigEndian

var errShort = errors.New("tag truncated")

func s15f16(b []byte) float64 { return float64(int32(be.Uint32(b))) / 65536 }

func readXYZ(b []byte) (xyz, error) {
	if len(b) < 20 || string(b[0:4]) != "XYZ " {
		return xyz{}, fmt.Errorf("not an XYZ tag of at least 20 bytes")
	}
	return xyz{s15f16(b[8:]), s15f16(b[12:]), s15f16(b[16:])}, nil
}

// readText reads a v2 textDescriptionType, a textType or a v4 multiLocalizedUnicode
// (English preferred, else the first record).
func readText(b []byte) (string, error) {
	switch string(b[0:4]) {
	case "desc":
		if len(b) < 12 {
			return "", errShort
		}
		n := be.Uint32(b[8:12])
		if uint64(n) > uint64(len(b)-12) {
			return "", fmt.Errorf("desc: %d characters claimed, %d bytes present", n, len(b)-12)
		}
		return cString(b[12 : 12+n]), nil
	case "text":
		return cString(b[8:]), nil
	case "mluc":
		if len(b) < 16 {
			return "", errShort
		}
		n, rs := be.Uint32(b[8:12]), be.Uint32(b[12:16])
		if rs < 12 || uint64(n)*uint64(rs) > uint64(len(b)-16) {
			return "", fmt.Errorf("mluc: %d records of %d bytes do not fit", n, rs)
		}
		best := -1
		for i := uint32(0); i < n; i++ {
			r := b[16+i*rs:]
			if best < 0 || string(r[0:2]) == "en" {
				best = int(i)
				if string(r[0:2]) == "en" {
					break
				}
			}
		}
		if best < 0 {
			return "", nil
		}
		r := b[16+uint32(best)*rs:]
		l, off := be.Uint32(r[4:8]), be.Uint32(r[8:12])
		if uint64(off)+uint64(l) > uint64(len(b)) || l%2 != 0 {
			return "", fmt.Errorf("mluc: string (offset %d, length %d) outside the tag", off, l)
		}
		u := make([]uint16, l/2)
		for i := range u {
			u[i] = be.Uint16(b[off+2*uint32(i):])
		}
		return cString([]byte(string(utf16.Decode(u)))), nil
	}
	return "", fmt.Errorf("unsupported text type %q", string(b[0:4]))
}

func cString(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// readCurve reads a 'curv' or 'para' tag and returns the curve and the number of
// bytes it used (for curve sequences in lutAtoB/lutBtoA).
func readCurveN(b []byte) (curve, int, error) {
	if len(b) < 12 {
		return nil, 0, errShort
	}
	switch string(b[0:4]) {
	case "curv":
		n := be.Uint32(b[8:12])
		if uint64(n)*2 > uint64(len(b)-12) {
			return nil, 0, fmt.Errorf("curv: %d entries claimed, %d bytes present", n, len(b)-12)
		}
		used := 12 + 2*int(n)
		switch n {
		case 0:
			return paraCurve{typ: 1, p: [7]float64{1}}, used, nil
		case 1:
			return paraCurve{typ: 1, p: [7]float64{float64(be.Uint16(b[12:14])) / 256}}, used, nil
		}
		t := make(tableCurve, n)
		for i := range t {
			t[i] = be.Uint16(b[12+2*i:])
		}
		return t, used, nil
	case "para":
		typ := be.Uint16(b[8:10])
		counts := []int{1, 3, 4, 5, 7}
		if int(typ) >= len(counts) {
			return nil, 0, fmt.Errorf("para: unknown function type %d", typ)
		}
		n := counts[typ]
		if len(b) < 12+4*n {
			return nil, 0, errShort
		}
		c := paraCurve{typ: int(typ) + 1}
		for i := 0; i < n; i++ {
			c.p[i] = s15f16(b[12+4*i:])
		}
		return c, 12 + 4*n, nil
	}
	return nil, 0, fmt.Errorf("unsupported curve type %q", string(b[0:4]))
}

func readCurve(b []byte) (curve, error) {
	c, _, err := readCurveN(b)
	return c, err
}

// lutTag is a parsed lut8/lut16/lutAtoB/lutBtoA tag as a pipeline of stages in lcms's
// normalised 0..1 encoding.
type lutTag struct {
	typ     string // "mft1", "mft2", "mAB ", "mBA "
	in, out int
	stages  []stage
}

func readLut(b []byte) (*lutTag, error) {
	if len(b) < 12 {
		return nil, errShort
	}
	switch string(b[0:4]) {
	case "mft1", "mft2":
		return readLut816(b)
	case "mAB ", "mBA ":
		return readLutAB(b)
	}
	return nil, fmt.Errorf("unsupported table type %q", string(b[0:4]))
}

func checkChannels(in, out int) error {
	if in < 1 || in > maxChannels || out < 1 || out > maxChannels {
		return fmt.Errorf("%d inputs and %d outputs: channel counts must be 1..%d", in, out, maxChannels)
	}
	return nil
}

// clutSize is grid^in (or the product of per-dimension grids) times out, with an
// overflow/size check.
func clutSize(grid []int, out int) (int, error) {
	n := out
	for _, g := range grid {
		if g < 2 {
			return 0, fmt.Errorf("CLUT with %d grid points in a dimension (at least 2 needed)", g)
		}
		n *= g
		if n > maxCLUTEntries {
			return 0, fmt.Errorf("CLUT larger than %d entries", maxCLUTEntries)
		}
	}
	return n, nil
}

func readLut816(b []byte) (*lutTag, error) {
	typ := string(b[0:4])
	if len(b) < 48 {
		return nil, errShort
	}
	in, out, g := int(b[8]), int(b[9]), int(b[10])
	if err := checkChannels(in, out); err != nil {
		return nil, err
	}
	l := &lutTag{typ: typ, in: in, out: out}
	var m [9]float64
	for i := range m {
		m[i] = s15f16(b[12+4*i:])
	}
	if in == 3 && !isIdentity3(m) {
		l.stages = append(l.stages, &matrixStage{rows: 3, cols: 3, m: m[:]})
	}
	pos := 48
	nIn, nOut, width := 256, 256, 1
	if typ == "mft2" {
		if len(b) < 52 {
			return nil, errShort
		}
		nIn, nOut, width = int(be.Uint16(b[48:50])), int(be.Uint16(b[50:52])), 2
		if nIn < 2 || nOut < 2 || nIn > 4096 || nOut > 4096 {
			return nil, fmt.Errorf("lut16 curves of %d and %d entries (2..4096 allowed)", nIn, nOut)
		}
		pos = 52
	}
	grid := make([]int, in)
	for i := range grid {
		grid[i] = g
	}
	n, err := clutSize(grid, out)
	if err != nil {
		return nil, err
	}
	need := (in*nIn + n + out*nOut) * width
	if len(b)-pos < need {
		return nil, fmt.Errorf("%s needs %d bytes of tables, %d present", typ, need, len(b)-pos)
	}
	read := func(k int) uint16 {
		if width == 1 {
			v := uint16(b[pos+k])
			return v<<8 | v
		}
		return be.Uint16(b[pos+2*k:])
	}
	curves := func(ch, entries int) *curveStage {
		cs := &curveStage{c: make([]curve, ch)}
		for i := 0; i < ch; i++ {
			t := make(tableCurve, entries)
			for j := range t {
				t[j] = read(i*entries + j)
			}
			cs.c[i] = t
		}
		pos += ch * entries * width
		return cs
	}
	l.stages = append(l.stages, curves(in, nIn))
	cl := newCLUT(grid, out)
	for i := range cl.data {
		cl.data[i] = read(i)
	}
	pos += n * width
	l.stages = append(l.stages, cl, curves(out, nOut))
	return l, nil
}

func readLutAB(b []byte) (*lutTag, error) {
	typ := string(b[0:4])
	if len(b) < 32 {
		return nil, errShort
	}
	in, out := int(b[8]), int(b[9])
	if err := checkChannels(in, out); err != nil {
		return nil, err
	}
	offB, offMat, offM, offCLUT, offA := be.Uint32(b[12:]), be.Uint32(b[16:]), be.Uint32(b[20:]), be.Uint32(b[24:]), be.Uint32(b[28:])
	for _, o := range []uint32{offB, offMat, offM, offCLUT, offA} {
		if o != 0 && (o < 32 || o >= uint32(len(b))) {
			return nil, fmt.Errorf("%s element offset %d outside the %d-byte tag", typ, o, len(b))
		}
	}
	curves := func(off uint32, n int) (*curveStage, error) {
		cs := &curveStage{c: make([]curve, n)}
		p := int(off)
		for i := 0; i < n; i++ {
			if p >= len(b) {
				return nil, errShort
			}
			c, used, err := readCurveN(b[p:])
			if err != nil {
				return nil, err
			}
			cs.c[i] = c
			p += (used + 3) &^ 3
		}
		return cs, nil
	}
	matrix := func(off uint32) (*matrixStage, error) {
		if int(off)+48 > len(b) {
			return nil, errShort
		}
		m := &matrixStage{rows: 3, cols: 3, m: make([]float64, 9), off: make([]float64, 3)}
		for i := 0; i < 9; i++ {
			m.m[i] = s15f16(b[int(off)+4*i:])
		}
		for i := 0; i < 3; i++ {
			m.off[i] = s15f16(b[int(off)+36+4*i:])
		}
		return m, nil
	}
	clut := func(off uint32) (*clutStage, error) {
		o := int(off)
		if o+20 > len(b) {
			return nil, errShort
		}
		grid := make([]int, in)
		for i := range grid {
			grid[i] = int(b[o+i])
		}
		prec := int(b[o+16])
		if prec != 1 && prec != 2 {
			return nil, fmt.Errorf("CLUT precision %d (1 or 2 allowed)", prec)
		}
		n, err := clutSize(grid, out)
		if err != nil {
			return nil, err
		}
		if len(b)-o-20 < n*prec {
			return nil, fmt.Errorf("CLUT needs %d bytes, %d present", n*prec, len(b)-o-20)
		}
		cl := newCLUT(grid, out)
		for i := range cl.data {
			if prec == 1 {
				v := uint16(b[o+20+i])
				cl.data[i] = v<<8 | v
			} else {
				cl.data[i] = be.Uint16(b[o+20+2*i:])
			}
		}
		return cl, nil
	}
	l := &lutTag{typ: typ, in: in, out: out}
	add := func(s stage, err error) error {
		if err != nil {
			return err
		}
		l.stages = append(l.stages, s)
		return nil
	}
	var err error
	if typ == "mAB " {
		// A curves -> CLUT -> M curves -> matrix -> B curves.
		if offA != 0 {
			if offCLUT == 0 && in != out {
				return nil, fmt.Errorf("mAB without CLUT maps %d to %d channels", in, out)
			}
			err = add(curves(offA, in))
		}
		if err == nil && offCLUT != 0 {
			err = add(clut(offCLUT))
		} else if err == nil && in != out {
			return nil, fmt.Errorf("mAB without CLUT maps %d to %d channels", in, out)
		}
		if err == nil && offM != 0 {
			err = add(curves(offM, out))
		}
		if err == nil && offMat != 0 && out == 3 {
			err = add(matrix(offMat))
		}
		if err == nil && offB != 0 {
			err = add(curves(offB, out))
		}
	} else {
		// B curves -> matrix -> M curves -> CLUT -> A curves.
		if offB != 0 {
			err = add(curves(offB, in))
		}
		if err == nil && offMat != 0 && in == 3 {
			err = add(matrix(offMat))
		}
		if err == nil && offM != 0 {
			err = add(curves(offM, in))
		}
		if err == nil && offCLUT != 0 {
			err = add(clut(offCLUT))
		} else if err == nil && in != out {
			return nil, fmt.Errorf("mBA without CLUT maps %d to %d channels", in, out)
		}
		if err == nil && offA != 0 {
			err = add(curves(offA, out))
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", typ, err)
	}
	return l, nil
}

func isIdentity3(m [9]float64) bool {
	for i := 0; i < 9; i++ {
		want := 0.0
		if i%4 == 0 {
			want = 1
		}
		if math.Abs(m[i]-want) > 1.0/65535 {
			return false
		}
	}
	return true
}
