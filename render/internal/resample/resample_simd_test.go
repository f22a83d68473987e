package resample

import (
	"bytes"
	"image"
	"image/color"
	"math/rand/v2"
	"slices"
	"testing"
)

// The kernels of resample_simd_amd64.s against their Go loops, on random inputs at
// every length around their blocks. Elsewhere than amd64 (or with -tags purego) both
// sides are the Go loop, and the tests still check the wrappers' bookkeeping.

// resampleRowRGB with its plan's SIMD runs writes what the Go loop writes for every
// column, enlarging (four taps) and shrinking (wider kernels, no runs), with
// Catmull-Rom weights and with random 16-bit ones.
func TestResampleRowRGBMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for _, sw := range []int{1, 2, 3, 4, 5, 7, 16, 33, 100} {
		for _, scale := range []float64{0.7, 0.97, 1, 1.3, 2.9, 7.5} {
			for _, random := range []bool{false, true} {
				ow := int(float64(sw)*scale) + 1
				cols := fixedWeights(kernelWeights(0, ow, scale, r.Float64(), sw), hBits)
				if random {
					for i := range cols {
						for k := range cols[i].w {
							cols[i].w[k] = int32(int16(r.Uint32()))
						}
					}
				}
				src := make([]uint8, 3*sw+rowPad)
				for i := range src {
					src[i] = uint8(r.Uint32())
				}
				want := make([]int32, 3*ow)
				resampleColsRGB(want, src, cols, 0, ow)
				for _, isa := range tierKernels() {
					p := isa.newRowPlan(cols, 3*sw)
					if isa.sse && scale >= 1 && sw >= 8 && len(p.runs) == 0 {
						t.Fatalf("%v: sw %d scale %g: no SIMD runs", isa.tier, sw, scale)
					}
					if isa.sse && scale == 0.97 && sw == 100 && !slices.ContainsFunc(p.runs, func(r tapRun) bool { return r.taps == 5 }) {
						t.Fatalf("%v: sw %d scale %g: no five-tap run (%v)", isa.tier, sw, scale, p.runs)
					}
					got := make([]int32, 3*ow)
					resampleRowRGB(got, src, &p)
					if !slices.Equal(got, want) {
						t.Fatalf("%v: sw %d scale %g random %v (runs %v):\n got %v\nwant %v", isa.tier, sw, scale, random, p.runs, got, want)
					}
				}
			}
		}
	}
}

// rowRunInt4 (SIMD where the CPU has it) stops where the Go loop stops and writes the
// same values, leaving the values between samples alone, forwards and backwards,
// across the row's ends.
func TestRowRunInt4MatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(33, 34))
	for iter := range 3000 {
		// Short rows and runs around the blocks' ends, and long ones (the AVX2
		// kernel's four-sample blocks).
		size := 40
		if iter%2 == 1 {
			size = 300
		}
		rn := r.IntN(size)
		row := make([]uint8, 4*rn)
		for i := range row {
			row[i] = uint8(r.Uint32())
		}
		n, ostride := r.IntN(size*3/4), 4+r.IntN(4)
		ui := toFixed32(r.Float64()*float64(rn+4) - 2)
		dui := toFixed32((r.Float64() - 0.5) * 3)
		if iter%3 == 0 {
			// Whole-pixel steps from a fraction that rounds up to the next pixel
			// (weight row 1024), up to the row's ends.
			ui, dui = ui|0xfff00000, dui&^0xffffffff
			if dui == 0 {
				dui = 1 << 32
			}
			if iter%2 == 1 {
				dui = -dui
			}
		}
		got := make([]int16, n*ostride+4)
		for i := range got {
			got[i] = int16(r.Uint32())
		}
		start := slices.Clone(got)
		want := slices.Clone(got)
		wn := rowRunInt4Go(want, n, ostride, row, rn, ui, dui)
		for _, isa := range tierKernels() {
			copy(got, start)
			gn := isa.rowRunInt4(got, n, ostride, row, rn, ui, dui)
			if gn != wn || !slices.Equal(got, want) {
				t.Fatalf("%v: rn %d n %d ui %x dui %x: %d samples %v, want %d %v", isa.tier, rn, n, ui, dui, gn, got, wn, want)
			}
		}
	}
}

// insideRange counts the samples rowRunInt4Go's loop takes, forwards, backwards and
// standing still, from inside and outside the row, near whole pixels.
func TestInsideRange(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 40))
	for iter := range 20000 {
		rn := 4 + r.IntN(100)
		n := r.IntN(200)
		ui := toFixed32(r.Float64()*float64(rn+4) - 2)
		dui := toFixed32((r.Float64() - 0.5) * 4)
		switch iter % 4 {
		case 1:
			dui &^= 0xffffffff
		case 2:
			ui, dui = ui&^0xffffffff-int64(r.IntN(2)), 0
		}
		want := 0
		for v := ui; want < n && v>>32 >= 1 && v>>32 <= int64(rn-3); v += dui {
			want++
		}
		if got := insideRange(n, ui, dui, 1<<32, int64(rn-2)<<32); got != want {
			t.Fatalf("n %d rn %d ui %x dui %x: %d, want %d", n, rn, ui, dui, got, want)
		}
	}
}

// columnsRowInt4 (SIMD runs of wholly covered pixels) writes the bytes of the Go loop,
// on realistic pass-1 values and on random int32 ones (wrapping sums, both clamps),
// with covered, uncovered and partly covered pixels, opaque and not.
func TestColumnsRowInt4MatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(35, 36))
	for iter := range 2000 {
		ring := 1 << (2 + r.IntN(4))
		cs := intRingStride(ring)
		bw := 1 + r.IntN(40)
		inter := make([]int16, cs*bw)
		for i := range inter {
			if iter%2 == 0 {
				inter[i] = int16(r.IntN(300<<iBits) - 20<<iBits)
			} else {
				inter[i] = int16(r.Uint32())
			}
		}
		// The ring's repeated slots hold their slots' values, as drawTransformed
		// keeps them (mirrorSlot): where a fraction rounds up to a whole row,
		// columnsRunBlocksVEX reads the row's value from its slot where the others
		// read it from the slot's copy after the ring's end.
		for s := range 3 {
			mirrorSlot(inter, bw, cs, ring, s)
		}
		mrow := make([]uint8, bw)
		for i := range mrow {
			switch r.IntN(4) {
			case 0:
				mrow[i] = uint8(r.Uint32())
			case 1:
				mrow[i] = 0
			default:
				mrow[i] = 255
			}
		}
		lo := r.IntN(bw)
		hi := lo + r.IntN(bw-lo+1)
		vi := toFixed32(1 + r.Float64()*float64(ring))
		dvi := toFixed32((r.Float64() - 0.5) * 2)
		if iter%3 == 0 {
			// Whole-row steps from a fraction that rounds up to the next row: weight
			// row 1024 at every pixel.
			vi, dvi = vi|0xfff00000, dvi&^0xffffffff
		}
		opacity := 1.0
		if r.IntN(4) == 0 {
			opacity = 0.5
		}
		got := make([]uint8, 4*bw)
		for i := range got {
			got[i] = uint8(r.Uint32())
		}
		start := slices.Clone(got)
		want := slices.Clone(got)
		columnsRowInt4Go(want, mrow, inter, cs, ring-1, lo, hi, vi, dvi, opacity)
		// A wholly covered row without the scan: columnsRunInt4.
		full := slices.Clone(mrow)
		fill255(full)
		wantFull := slices.Clone(want)
		columnsRowInt4Go(wantFull, full, inter, cs, ring-1, lo, hi, vi, dvi, opacity)
		for _, isa := range tierKernels() {
			copy(got, start)
			isa.columnsRowInt4(got, mrow, inter, cs, ring-1, lo, hi, vi, dvi, opacity)
			if !bytes.Equal(got, want) {
				t.Fatalf("%v: iter %d ring %d bw %d [%d, %d):\n got %v\nwant %v", isa.tier, iter, ring, bw, lo, hi, got, want)
			}
			isa.columnsRunInt4(got, full, inter, cs, ring-1, lo, hi, vi, dvi, opacity)
			if !bytes.Equal(got, wantFull) {
				t.Fatalf("%v: iter %d covered run, ring %d bw %d [%d, %d):\n got %v\nwant %v", isa.tier, iter, ring, bw, lo, hi, got, wantFull)
			}
		}
	}
}

// nonZeroSpan (eight bytes at a time) finds the first and last covered pixel of rows
// with runs of zeros of every length at both ends.
func TestNonZeroSpan(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 38))
	for range 5000 {
		row := make([]uint8, r.IntN(40))
		for i := range row {
			if r.IntN(3) == 0 {
				row[i] = uint8(1 + r.IntN(255))
			}
		}
		a, b := r.IntN(len(row)+1), r.IntN(len(row)+1)
		clear(row[:min(a, b)])
		clear(row[max(a, b):])
		wlo, whi := 0, len(row)
		for wlo < whi && row[wlo] == 0 {
			wlo++
		}
		for whi > wlo && row[whi-1] == 0 {
			whi--
		}
		if lo, hi := nonZeroSpan(row); lo != wlo || hi != whi {
			t.Fatalf("%v: [%d, %d), want [%d, %d)", row, lo, hi, wlo, whi)
		}
	}
}

// edgeSampleFixed agrees with edgeSample at every 32.32 position around and far
// beyond both ends of a row, at random fractions and at whole and half pixels.
func TestEdgeSampleFixedMatchesFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(39, 40))
	for _, n := range []int{1, 2, 5, 40} {
		for _, k := range []kernel1D{newKernel(1.5, n), newKernel(0.5, n)} {
			for range 20000 {
				ui := int64(r.IntN(2*(n+12)<<32)) - int64(n+12)<<32
				switch r.IntN(3) {
				case 0:
					ui &^= 1<<32 - 1
				case 1:
					ui = ui&^(1<<32-1) | 1<<31
				}
				e, L, ok := edgeSampleFixed(ui, k, n)
				we, wL, wok := edgeSample(fromFixed32(ui), k, n)
				if e != we || L != wL || ok != wok {
					t.Fatalf("n %d stretch %g ui %x: %d %d %v, want %d %d %v", n, k.stretch, ui, e, L, ok, we, wL, wok)
				}
			}
		}
	}
}

// The unrotated path's 4:2:0 row fetcher (four pixels at a time into a padded row)
// converts as color.YCbCrToRGB, at every width around the block, with and without
// the padding.
func TestYCbCrRowFetchMatchesStdlib(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for w := 1; w < 40; w++ {
		m := image.NewYCbCr(image.Rect(0, 0, w, 3), image.YCbCrSubsampleRatio420)
		for _, p := range [][]uint8{m.Y, m.Cb, m.Cr} {
			for i := range p {
				p[i] = uint8(r.Uint32())
			}
		}
		fetch := hostISA.opaqueRowFetcher(m)
		for _, pad := range []int{0, rowPad} {
			for y := range 3 {
				out := make([]uint8, 3*w+pad)
				fetch(y, out)
				for x := range w {
					ci := m.COffset(x, y)
					wr, wg, wb := color.YCbCrToRGB(m.Y[m.YOffset(x, y)], m.Cb[ci], m.Cr[ci])
					if q := out[3*x : 3*x+3]; q[0] != wr || q[1] != wg || q[2] != wb {
						t.Fatalf("w %d pad %d (%d, %d): %v, want %d %d %d", w, pad, x, y, q, wr, wg, wb)
					}
				}
			}
		}
	}
}

// gatherStride and gatherStride2 (four bytes a step where the assembly is) read what
// the Go loop reads, forwards and backwards, at every length around their blocks.
func TestGatherStride(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	src := make([]uint8, 5000)
	for i := range src {
		src[i] = uint8(r.Uint32())
	}
	for range 2000 {
		n := r.IntN(40)
		step := r.IntN(120) - 60
		at := r.IntN(len(src))
		if n > 0 {
			// Keep the last index inside src.
			at = min(max(at, -step*(n-1)), len(src)-1-max(step*(n-1), 0))
		}
		got, want := make([]uint8, n), make([]uint8, n)
		hostISA.gatherStride(got, src, at, step)
		for i := range want {
			want[i] = src[at+i*step]
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("n %d at %d step %d:\n got %v\nwant %v", n, at, step, got, want)
		}
		// Two planes at once: src and src read backwards.
		rev := slices.Clone(src)
		slices.Reverse(rev)
		got0, got1, want1 := make([]uint8, n), make([]uint8, n), make([]uint8, n)
		hostISA.gatherStride2(got0, got1, src, rev, at, step)
		for i := range want1 {
			want1[i] = rev[at+i*step]
		}
		if !bytes.Equal(got0, want) || !bytes.Equal(got1, want1) {
			t.Fatalf("two planes, n %d at %d step %d:\n got %v %v\nwant %v %v", n, at, step, got0, got1, want, want1)
		}
	}
}
