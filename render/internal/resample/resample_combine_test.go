package resample

import (
	"bytes"
	"image/color"
	"math/rand/v2"
	"testing"
)

// combine4 (SSE4.1 blocks on amd64, then Go) writes the same bytes as combineN's plain
// loop at every tier, on random intermediate values (wrapping int32 products and sums, both clamps)
// and on realistic ones, at every length around the 4-pixel block.
func TestCombine4MatchesCombineN(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, wide := range []bool{false, true} {
		for n := range 41 {
			taps := make([][]int32, 4)
			for k := range taps {
				taps[k] = randomInter(r, 3*n, wide)
			}
			w := []int32{int32(r.IntN(3000)) - 1500, int32(r.IntN(1 << vBits)), int32(r.IntN(1 << vBits)), int32(r.IntN(3000)) - 1500}
			if wide {
				w = []int32{int32(r.Uint32()), int32(r.Uint32()), int32(r.Uint32()), int32(r.Uint32())}
			}
			want := make([]uint8, 4*n+4)
			combineNCols(want[:4*n], taps, w, 0)
			for _, isa := range tierKernels() {
				got := make([]uint8, 4*n+4)
				isa.combine4(got[:4*n], taps[0], taps[1], taps[2], taps[3], w)
				if !bytes.Equal(got, want) {
					t.Fatalf("%v: wide %v n %d:\n got %v\nwant %v", isa.tier, wide, n, got, want)
				}
			}
		}
	}
}

// The split YCbCr conversion of the 4:2:0 row fetcher equals color.YCbCrToRGB on
// every (y, cb, cr).
func TestYCbCrSplitMatchesStdlib(t *testing.T) {
	for cb := range 256 {
		for cr := range 256 {
			rc, gc, bc := chromaTerms(uint8(cb), uint8(cr))
			for y := range 256 {
				r, g, b := lumaPlusChroma(uint8(y), rc, gc, bc)
				wr, wg, wb := color.YCbCrToRGB(uint8(y), uint8(cb), uint8(cr))
				if r != wr || g != wg || b != wb {
					t.Fatalf("y %d cb %d cr %d: %d %d %d, want %d %d %d", y, cb, cr, r, g, b, wr, wg, wb)
				}
			}
		}
	}
}
