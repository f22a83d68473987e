package colour

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
)

// TestGridNodesMatchExact: with 18 nodes per axis the nodes sit on multiples of 15, so
// every such colour must come out of the grid as the exact path gives it (±1 for the
// double rounding through 8.8 fixed point), whichever tetrahedron the ties select.
func TestGridNodesMatchExact(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"default_cmyk.icc", "ps_cmyk.icc"} {
		tr, err := NewSRGBToCMYK(debianProfile(t, name), Perceptual, false)
		if err != nil {
			t.Fatal(err)
		}
		if err := tr.SetGridPoints(18); err != nil {
			t.Fatal(err)
		}
		var src []byte
		for r := 0; r <= 255; r += 15 {
			for g := 0; g <= 255; g += 15 {
				for b := 0; b <= 255; b += 15 {
					src = append(src, byte(r), byte(g), byte(b), 255)
				}
			}
		}
		dst := make([]byte, len(src))
		tr.ConvertNRGBA(dst, src)
		for i := 0; i < len(src); i += 4 {
			c, m, y, k := tr.CMYK(src[i], src[i+1], src[i+2])
			for j, want := range []byte{c, m, y, k} {
				if d := int(dst[i+j]) - int(want); d < -1 || d > 1 {
					t.Fatalf("%s: sRGB %v: grid %v, exact %v", name, src[i:i+3], dst[i:i+4], []byte{c, m, y, k})
				}
			}
		}
	}
}

// TestConvertShortDst: a dst too small for src is a programming error and panics with
// a message instead of writing out of range.
func TestConvertShortDst(t *testing.T) {
	tr, err := NewSRGBToCMYK(debianProfile(t, "default_cmyk.icc"), Perceptual, false)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Error("no panic")
		}
	}()
	tr.ConvertNRGBA(make([]byte, 4), make([]byte, 8))
}

func TestDeltaE2000Reference(t *testing.T) {
	// Pairs and results from Sharma, Wu and Dalal, "The CIEDE2000 Color-Difference
	// Formula" (2005), table 1.
	for _, tc := range []struct {
		l1, a1, b1, l2, a2, b2, want float64
	}{
		{50, 2.6772, -79.7751, 50, 0, -82.7485, 2.0425},
		{50, -1.3802, -84.2814, 50, 0, -82.7485, 1.0000},
		{50, 0, 0, 50, -1, 2, 2.3669},
		{50, 2.49, -0.001, 50, -2.49, 0.0011, 7.2195},
		{60.2574, -34.0099, 36.2677, 60.4626, -34.1751, 39.4387, 1.2644},
		{22.7233, 20.0904, -46.6940, 23.0331, 14.9730, -42.5619, 2.0373},
		{90.9257, -0.5406, -0.9208, 88.6381, -0.8985, -0.7239, 1.5381},
		{90.8027, -2.0831, 1.4410, 91.1528, -1.6435, 0.0447, 1.4441},
		{2.0776, 0.0795, -1.1350, 0.9033, -0.0636, -0.5514, 0.9082},
	} {
		if got := DeltaE2000(tc.l1, tc.a1, tc.b1, tc.l2, tc.a2, tc.b2); abs(got-tc.want) > 1e-4 {
			t.Errorf("ΔE2000(%v %v %v, %v %v %v) = %.4f, want %.4f", tc.l1, tc.a1, tc.b1, tc.l2, tc.a2, tc.b2, got, tc.want)
		}
	}
}

// TestConvertSplitsAgree: the parallel split over GOMAXPROCS and the proof's
// repeated-pixel shortcut give the same bytes as converting small pieces one by one.
func TestConvertSplitsAgree(t *testing.T) {
	p := debianProfile(t, "default_cmyk.icc")
	tr, err := NewSRGBToCMYK(p, Perceptual, true)
	if err != nil {
		t.Fatal(err)
	}
	pr, err := NewCMYKToSRGB(p, Perceptual)
	if err != nil {
		t.Fatal(err)
	}
	const n = 200_000
	src := make([]byte, 4*n)
	x := uint32(7)
	for i := range src {
		if i%12 < 8 { // runs of equal pixels, then noise
			src[i] = src[max(i-4, 0)]
			continue
		}
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		src[i] = byte(x)
	}
	for name, conv := range map[string]func(dst, src []byte){"ConvertNRGBA": tr.ConvertNRGBA, "ConvertCMYK": pr.ConvertCMYK} {
		whole := make([]byte, len(src))
		conv(whole, src)
		pieces := make([]byte, len(src))
		for o := 0; o < len(src); o += 4 * 997 {
			end := min(o+4*997, len(src))
			conv(pieces[o:end], src[o:end])
		}
		for i := 0; i < len(src); i += 4 {
			var one [4]byte
			conv(one[:], src[i:i+4])
			if one != [4]byte(pieces[i:i+4]) || one != [4]byte(whole[i:i+4]) {
				t.Fatalf("%s pixel %d %v: alone %v, in pieces %v, whole %v", name, i/4, src[i:i+4], one, pieces[i:i+4], whole[i:i+4])
			}
		}
	}
}

// TestGridWithinOneDeltaE: the raster grid against the exact path (which the
// agreement test holds to transicc within ΔE 0.2) on many more colours than the
// agreement test: every colour of the dark 16^3 corner, where ps_cmyk.icc and
// gray_to_k.icc are steepest, and 1500 pseudo-random ones, for every test profile,
// intent and BPC setting. Both 8-bit results go to Lab through the profile's relative
// colorimetric A2B table; none may be more than ΔE2000 1.0 apart.
func TestGridWithinOneDeltaE(t *testing.T) {
	t.Parallel()
	var src []byte
	for r := 0; r < 16; r++ {
		for g := 0; g < 16; g++ {
			for b := 0; b < 16; b++ {
				src = append(src, byte(r), byte(g), byte(b), 255)
			}
		}
	}
	x := uint32(2463534242)
	for range 1500 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		src = append(src, byte(x), byte(x>>8), byte(x>>16), 255)
	}
	for _, pc := range testProfiles(t) {
		prof, err := LoadProfile(pc.path)
		if err != nil {
			t.Fatal(err)
		}
		toLab, err := prof.labPipeline()
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range []Intent{Perceptual, RelativeColorimetric, Saturation, AbsoluteColorimetric} {
			for _, bpc := range []bool{false, true} {
				if bpc && it == AbsoluteColorimetric {
					continue
				}
				tr, err := NewSRGBToCMYK(prof, it, bpc)
				if err != nil {
					t.Fatal(err)
				}
				dst := make([]byte, len(src))
				tr.ConvertNRGBA(dst, src)
				worst, bad := 0.0, 0
				for i := 0; i < len(src); i += 4 {
					c, m, y, k := tr.CMYK(src[i], src[i+1], src[i+2])
					a := evalLab8(toLab, [4]int{int(c), int(m), int(y), int(k)})
					g := evalLab8(toLab, [4]int{int(dst[i]), int(dst[i+1]), int(dst[i+2]), int(dst[i+3])})
					d := DeltaE2000(a[0], a[1], a[2], g[0], g[1], g[2])
					worst = max(worst, d)
					if d > maxDeltaE {
						if bad++; bad <= 5 {
							t.Errorf("%s %v bpc=%v: sRGB %v: grid %v, exact %v: ΔE %.2f", pc.name, it, bpc, src[i:i+3], dst[i:i+4], []byte{c, m, y, k}, d)
						}
					}
				}
				t.Logf("%s %v bpc=%v: grid vs exact max ΔE %.3f over %d colours", pc.name, it, bpc, worst, len(src)/4)
			}
		}
	}
}

// TestSteepTablesConcurrent: goroutines converting at once build a steep cell's table
// at most once each and all read complete tables (run with -race). Dark colours on
// ps_cmyk.icc, whose shadows are steep, in rasters large enough that ConvertNRGBA
// splits them over goroutines, converted by two callers at once on a fresh transform
// and compared with the exact path.
func TestSteepTablesConcurrent(t *testing.T) {
	tr, err := NewSRGBToCMYK(debianProfile(t, "ps_cmyk.icc"), Perceptual, false)
	if err != nil {
		t.Fatal(err)
	}
	src := make([]byte, 4*70000)
	x := uint32(88172645)
	for i := 0; i < len(src); i += 4 {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		src[i], src[i+1], src[i+2], src[i+3] = byte(x&31), byte(x>>8&31), byte(x>>16&31), 255
	}
	outs := [2][]byte{make([]byte, len(src)), make([]byte, len(src))}
	var wg sync.WaitGroup
	for _, out := range outs {
		wg.Go(func() { tr.ConvertNRGBA(out, src) })
	}
	wg.Wait()
	built := 0
	for i := range tr.grid.cells.ready {
		if tr.grid.cells.ready[i].Load() {
			built++
		}
	}
	if built == 0 {
		t.Fatal("no steep cell's table was built: the test no longer exercises them")
	}
	for i := 0; i < len(src); i += 4 {
		px := (*[4]byte)(src[i : i+4])
		base := int(tr.grid.packed[0][px[0]]>>32 + tr.grid.packed[1][px[1]]>>32 + tr.grid.packed[2][px[2]]>>32)
		if tr.grid.steep[base>>6]>>(base&63)&1 == 0 {
			continue
		}
		c, m, y, k := tr.CMYK(px[0], px[1], px[2])
		for _, out := range outs {
			if !bytes.Equal(out[i:i+4], []byte{c, m, y, k}) {
				t.Fatalf("sRGB %v in a steep cell: %v, exact %v", px[:3], out[i:i+4], []byte{c, m, y, k})
			}
		}
	}
	t.Logf("%d steep tables built", built)
}

// TestConvertSerialAgrees: ConvertNRGBASerial (one goroutine) and ConvertNRGBA, whose
// goroutines take chunks in turn, give the same bytes, on an odd number of pixels (a
// short last chunk) with four Ps so the chunks are shared out even on a small machine.
func TestConvertSerialAgrees(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(4))
	tr, err := NewSRGBToCMYK(debianProfile(t, "default_cmyk.icc"), Perceptual, true)
	if err != nil {
		t.Fatal(err)
	}
	const n = 9*(1<<15) + 12345
	src := xorshiftBytes(4*n, 11)
	par, ser := make([]byte, len(src)), make([]byte, len(src))
	tr.ConvertNRGBA(par, src)
	tr.ConvertNRGBASerial(ser, src)
	for i := 0; i < len(src); i += 4 {
		var one [4]byte
		tr.ConvertNRGBASerial(one[:], src[i:i+4])
		if one != [4]byte(par[i:i+4]) || one != [4]byte(ser[i:i+4]) {
			t.Fatalf("pixel %d %v: alone %v, parallel %v, serial %v", i/4, src[i:i+4], one, par[i:i+4], ser[i:i+4])
		}
	}
}
