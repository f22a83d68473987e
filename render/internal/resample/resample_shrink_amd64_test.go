//go:build !purego

package resample

import (
	"image/color"
	"math/rand/v2"
	"slices"
	"testing"
)

// The kernels of resample_shrink_amd64.s write what the Go loops write for the
// columns and pixels they are given, and nothing past them.

func TestResampleRowRGBGroupsKernel(t *testing.T) {
	if !hostISA.avx2 {
		t.Skip("no AVX2")
	}
	r := rand.New(rand.NewPCG(43, 44))
	runs := 0
	for _, c := range shrinkCases(r) {
		src := randomBytes(r, 3*c.sw+rowPad)
		p := hostISA.newRowPlan(c.cols, 3*c.sw)
		for _, run := range p.runs {
			if run.groups == 0 {
				continue
			}
			runs++
			n, g := run.i1-run.i0, 16*run.groups
			want := make([]int32, 3*n)
			resampleColsRGB(want, src, c.cols[run.i0:run.i1], 0, n)
			got := make([]int32, 3*n+1)
			got[3*n] = -7
			resampleRowRGBGroups(got[:3*n], src, p.offs[run.i0:run.i1], p.gwts[g*run.i0:g*run.i1], n, run.groups)
			if !slices.Equal(got[:3*n], want) || got[3*n] != -7 {
				t.Fatalf("%s, run %v:\n got %v\nwant %v", c.name, run, got, want)
			}
		}
	}
	if runs < 300 {
		t.Fatalf("only %d runs of wide columns", runs)
	}
}

func TestCombineNBlocksKernel(t *testing.T) {
	if !hostISA.avx2 {
		t.Skip("no AVX2")
	}
	r := rand.New(rand.NewPCG(47, 48))
	for _, c := range combineNCases(r) {
		nb := len(c.taps[0]) / 24
		got, want := make([]uint8, 32*nb+4), make([]uint8, 32*nb+4)
		got[32*nb], want[32*nb] = 7, 7
		combineNBlocksAVX2(got[:32*nb], c.taps, c.w, nb)
		combineNCols(want[:32*nb], c.taps, c.w, 0)
		if !slices.Equal(got, want) {
			t.Fatalf("%s:\n got %v\nwant %v", c.name, got, want)
		}
	}
}

// yccHalfBlocksAVX2 (RGB, 3 bytes a pixel) and yccHalfBlocksAVX2RGBA (4, alpha 255)
// convert as color.YCbCrToRGB for every (y, cb, cr), and store nothing past a row's
// last block but the RGB form's four bytes of padding.
func TestYCCHalfBlocksAVX2MatchesStdlib(t *testing.T) {
	if !hostISA.avx2 {
		t.Skip("no AVX2")
	}
	for _, c := range []struct {
		ps, pad int
		conv    func(dst, y, cb, cr []uint8, n int)
	}{{3, 4, yccHalfBlocksAVX2}, {4, 0, yccHalfBlocksAVX2RGBA}} {
		ys := make([]uint8, 256)
		for i := range ys {
			ys[i] = uint8(i)
		}
		cb, cr := make([]uint8, 128), make([]uint8, 128)
		end := c.ps*256 + c.pad
		out := make([]uint8, end+1)
		for k := range 1 << 16 {
			// Chroma pairs differ within a block: cb from k, cr from k rotated, each
			// pair (pixels 2j, 2j+1) sharing its own.
			for j := range cb {
				cb[j], cr[j] = uint8(k+j), uint8(k>>8+3*j)
			}
			out[end] = 7
			c.conv(out[:end], ys, cb, cr, 32)
			for x, yv := range ys {
				wr, wg, wb := color.YCbCrToRGB(yv, cb[x/2], cr[x/2])
				q := out[c.ps*x : c.ps*x+c.ps]
				if q[0] != wr || q[1] != wg || q[2] != wb || (c.ps == 4 && q[3] != 255) {
					t.Fatalf("%d bytes a pixel: y %d cb %d cr %d: %v, want %d %d %d", c.ps, yv, cb[x/2], cr[x/2], q, wr, wg, wb)
				}
			}
			if out[end] != 7 {
				t.Fatalf("%d bytes a pixel: stored past the padding", c.ps)
			}
		}
	}
}
