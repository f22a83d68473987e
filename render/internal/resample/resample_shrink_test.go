package resample

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// shrinkCase is a row of columns for the wide-kernel tests: Catmull-Rom weights of a
// shrink by scale from a random offset, or random columns of given tap counts, with
// weights drawn by weight.
type shrinkCase struct {
	name string
	sw   int
	cols []fixedTaps
}

// shrinkCases covers the shrink factors of thumbnails and small placements (6 to 64
// taps), every row length around a group, columns at both ends of the row (the
// kernel's window shifted left at the right end), tap counts differing within a row,
// and weights random over int16, all at its extremes, or just outside it (the Go loop
// then).
func shrinkCases(r *rand.Rand) []shrinkCase {
	var cs []shrinkCase
	for _, sw := range []int{6, 7, 9, 13, 31, 64, 100, 257} {
		for _, scale := range []float64{0.66, 0.5, 0.37, 0.25, 0.16, 0.1, 0.0625} {
			ow := int(float64(sw)*scale) + 1
			cols := fixedWeights(kernelWeights(0, ow, scale, r.Float64()*2-1, sw), hBits)
			cs = append(cs, shrinkCase{fmt.Sprintf("sw %d scale %g", sw, scale), sw, cols})
		}
	}
	weights := map[string]func() int32{
		"random":  func() int32 { return int32(int16(r.Uint32())) },
		"min":     func() int32 { return -1 << 15 },
		"max":     func() int32 { return 1<<15 - 1 },
		"extreme": func() int32 { return []int32{-1 << 15, 1<<15 - 1, 0, 1, -1}[r.IntN(5)] },
		"over":    func() int32 { return []int32{1 << 15, -1<<15 - 1, 1 << 14}[r.IntN(3)] },
	}
	for _, name := range []string{"random", "min", "max", "extreme", "over"} {
		weight := weights[name]
		for n := 6; n <= 64; n++ {
			sw := n + r.IntN(3*n)
			ow := 1 + r.IntN(40)
			cols := make([]fixedTaps, ow)
			for i := range cols {
				// Mostly n taps, some fewer (edges) or one more (a shrink's rounding).
				k := min(sw, max(1, n+[]int{0, 0, 0, 1, -1, -n / 2}[r.IntN(6)]))
				cols[i] = fixedTaps{start: r.IntN(sw - k + 1), w: make([]int32, k)}
				for j := range cols[i].w {
					cols[i].w[j] = weight()
				}
			}
			cs = append(cs, shrinkCase{fmt.Sprintf("%s weights, %d taps, sw %d", name, n, sw), sw, cols})
		}
	}
	return cs
}

// resampleRowRGB with its plan's runs of six taps or more writes what the Go loop
// writes for every column.
func TestResampleRowRGBShrinkMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	grouped := 0
	for _, c := range shrinkCases(r) {
		src := randomBytes(r, 3*c.sw+rowPad)
		for _, fill := range []uint8{0, 255} {
			if fill == 255 {
				// The largest products: every pixel at 255 (padding too).
				for i := range src {
					src[i] = 255
				}
			}
			p := hostISA.newRowPlan(c.cols, 3*c.sw)
			for _, run := range p.runs {
				if run.groups > 0 {
					grouped += run.i1 - run.i0
				}
			}
			got, want := make([]int32, 3*len(c.cols)), make([]int32, 3*len(c.cols))
			resampleRowRGB(got, src, &p)
			resampleColsRGB(want, src, c.cols, 0, len(c.cols))
			if !slices.Equal(got, want) {
				t.Fatalf("%s (runs %v):\n got %v\nwant %v", c.name, p.runs, got, want)
			}
		}
	}
	if hostISA.avx2 && grouped < 1000 {
		t.Fatalf("only %d columns in SIMD runs of six taps or more", grouped)
	}
}

// groupTaps lays out each tap's weight where resampleRowRGBGroups reads it, zero
// elsewhere in the window.
func TestGroupTaps(t *testing.T) {
	for groups := 1; groups <= 5; groups++ {
		for n := 1; n <= 4*groups; n++ {
			for sh := 0; sh+n <= 4*groups; sh++ {
				w := make([]int32, n)
				for k := range w {
					w[k] = int32(k + 1)
				}
				out := make([]int16, 16*groups)
				if !groupTaps(w, sh, out) {
					t.Fatal("weights fit, groupTaps says not")
				}
				for tp := range 4 * groups {
					g, q := tp/4, tp%4
					base := 32*(g/2) + 8*(g%2)
					if q >= 2 {
						base += 16
						if g == groups-1 && g%2 == 0 {
							base -= 8
						}
					}
					want := int16(0)
					if tp >= sh && tp < sh+n {
						want = int16(tp - sh + 1)
					}
					for c := range 4 {
						if got := out[base+2*c+q%2]; got != want {
							t.Fatalf("groups %d n %d sh %d: tap %d channel %d weighs %d, want %d", groups, n, sh, tp, c, got, want)
						}
					}
				}
			}
		}
	}
}

// combineNCases are vertical passes for combineN: 1 to 64 taps, every row length
// around the 4- and 8-pixel blocks, intermediate values as the horizontal pass makes
// them or random over int32 (wrapping products and sums, both clamps), weights as
// Catmull-Rom's or random over int32.
func combineNCases(r *rand.Rand) []struct {
	name string
	taps [][]int32
	w    []int32
} {
	var cs []struct {
		name string
		taps [][]int32
		w    []int32
	}
	for _, wide := range []bool{false, true} {
		for _, nt := range []int{1, 2, 3, 5, 6, 7, 9, 16, 26, 27, 33, 64} {
			for n := range 35 {
				taps := make([][]int32, nt)
				w := make([]int32, nt)
				for k := range taps {
					taps[k] = randomInter(r, 3*n, wide)
					if wide {
						w[k] = int32(r.Uint32())
					} else {
						w[k] = int32(r.IntN(2<<vBits/nt) - 1<<vBits/(4*nt))
					}
				}
				cs = append(cs, struct {
					name string
					taps [][]int32
					w    []int32
				}{fmt.Sprintf("wide %v, %d taps, %d pixels", wide, nt, n), taps, w})
			}
		}
	}
	return cs
}

// combineN (blocks of SIMD on amd64, then Go) writes the bytes of its Go loop.
func TestCombineNMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(45, 46))
	for _, c := range combineNCases(r) {
		n := len(c.taps[0]) / 3
		// One pixel more: nothing is written past the row.
		want := make([]uint8, 4*n+4)
		want[4*n] = 7
		combineNCols(want[:4*n], c.taps, c.w, 0)
		for _, isa := range tierKernels() {
			got := make([]uint8, 4*n+4)
			got[4*n] = 7
			isa.combineN(got[:4*n], c.taps, c.w)
			if !slices.Equal(got, want) {
				t.Fatalf("%v: %s:\n got %v\nwant %v", isa.tier, c.name, got, want)
			}
		}
	}
}

// randomInter is a row of n intermediate values for the vertical pass: as the
// horizontal pass makes them (-20 to 280 levels at 2^iBits), or random over int32
// when wide.
func randomInter(r *rand.Rand, n int, wide bool) []int32 {
	t := make([]int32, n)
	for i := range t {
		if wide {
			t[i] = int32(r.Uint32())
		} else {
			t[i] = int32(r.IntN(300<<iBits)) - 20<<iBits
		}
	}
	return t
}

// randomBytes is n random bytes from r.
func randomBytes(r *rand.Rand, n int) []uint8 {
	b := make([]uint8, n)
	for i := range b {
		b[i] = uint8(r.Uint32())
	}
	return b
}
