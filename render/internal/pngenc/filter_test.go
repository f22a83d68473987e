package pngenc

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// refFilter is PNG spec 9.2 written plainly, the reference for the optimized filters.
func refFilter(cur, prev []byte, bpp int, ft byte) []byte {
	out := []byte{ft}
	for i := range cur {
		var a, c int
		b := int(prev[i])
		if i >= bpp {
			a, c = int(cur[i-bpp]), int(prev[i-bpp])
		}
		var pred int
		switch ft {
		case ftSub:
			pred = a
		case ftUp:
			pred = b
		case ftPaeth:
			p := a + b - c
			pa, pb, pc := abs(p-a), abs(p-b), abs(p-c)
			switch {
			case pa <= pb && pa <= pc:
				pred = a
			case pb <= pc:
				pred = b
			default:
				pred = c
			}
		}
		out = append(out, cur[i]-uint8(pred))
	}
	return out
}

func TestFiltersMatchReference(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, bpp := range []int{1, 3, 4} {
		for _, width := range []int{1, 2, 3, 5, 8, 17, 64, 101, 1000} {
			n := width * bpp
			cur, prev := make([]byte, n), make([]byte, n)
			for i := range cur {
				// Small and extreme values both, to reach every Paeth branch and borrow.
				cur[i], prev[i] = uint8(r.IntN(256)), uint8(r.IntN(256))
				if r.IntN(3) == 0 {
					prev[i] = cur[i] + uint8(r.IntN(3))
				}
			}
			for _, ft := range []byte{ftNone, ftSub, ftUp, ftPaeth} {
				got := make([]byte, n+1)
				filterRow(got, cur, prev, bpp, ft)
				if want := refFilter(cur, prev, bpp, ft); !bytes.Equal(got, want) {
					t.Errorf("bpp %d width %d filter %d:\n got %v\nwant %v", bpp, width, ft, got, want)
				}
			}
		}
	}
}

func TestSubBytes(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for range 10000 {
		x, y := r.Uint64(), r.Uint64()
		if r.IntN(4) == 0 {
			y = x // zero differences
		}
		got := subBytes(x, y)
		for k := 0; k < 64; k += 8 {
			if want := uint8(x>>k) - uint8(y>>k); uint8(got>>k) != want {
				t.Fatalf("subBytes(%016x, %016x) = %016x: byte %d is %02x, want %02x", x, y, got, k/8, uint8(got>>k), want)
			}
		}
	}
}

// The branch-light Paeth predictor agrees with the spec's on every input.
func TestPaethPredictExhaustive(t *testing.T) {
	for a := range 256 {
		for b := range 256 {
			for c := range 256 {
				p := a + b - c
				pa, pb, pc := abs(p-a), abs(p-b), abs(p-c)
				want := c
				switch {
				case pa <= pb && pa <= pc:
					want = a
				case pb <= pc:
					want = b
				}
				if got := paethPredict(uint8(a), uint8(b), uint8(c)); int(got) != want {
					t.Fatalf("paethPredict(%d, %d, %d) = %d, want %d", a, b, c, got, want)
				}
			}
		}
	}
}

// The vector Paeth (paethBlocks, SSE2 on amd64) agrees with paethPredict on every
// (a, b, c), each with a random byte to filter; elsewhere it filters nothing and the
// test checks that too.
func TestPaethBlocksExhaustive(t *testing.T) {
	const n = 1 << 24
	x, a, b, c, o := make([]byte, n), make([]byte, n), make([]byte, n), make([]byte, n), make([]byte, n)
	r := rand.New(rand.NewPCG(11, 12))
	for i := range n {
		a[i], b[i], c[i], x[i] = uint8(i>>16), uint8(i>>8), uint8(i), uint8(r.Uint32())
	}
	j := paethSIMD(n)
	paethBlocks(o[:j], x, a, b, c)
	for i := range j {
		if want := x[i] - paethPredict(a[i], b[i], c[i]); o[i] != want {
			t.Fatalf("paethBlocks at a=%d b=%d c=%d x=%d: %d, want %d", a[i], b[i], c[i], x[i], o[i], want)
		}
	}
	for i := j; i < n; i++ {
		if o[i] != 0 {
			t.Fatalf("paethBlocks wrote byte %d, past its %d", i, j)
		}
	}
}

// The word-wise filter cost equals the byte-wise sum of absolute values, over lengths
// around the word size and the lane flush, and on the extreme bytes (0x80 is -128).
func TestFilterCost(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	for _, n := range []int{0, 1, 7, 8, 9, 63, 255 * 8, 255*8 + 1, 256 * 8, 12501, 40000} {
		for _, fill := range []string{"random", "0x80", "0xff", "0x7f"} {
			d := make([]byte, n)
			for i := range d {
				switch fill {
				case "random":
					d[i] = uint8(r.IntN(256))
				case "0x80":
					d[i] = 0x80
				case "0xff":
					d[i] = 0xff
				case "0x7f":
					d[i] = 0x7f
				}
			}
			want := 0
			for _, v := range d {
				if s := int(int8(v)); s < 0 {
					want -= s
				} else {
					want += s
				}
			}
			if got := filterCost(d); got != want {
				t.Errorf("filterCost of %d bytes (%s) = %d, want %d", n, fill, got, want)
			}
		}
	}
}

// BenchmarkFilterCost scores one RGB row of a 300-dpi T-shirt canvas, which chooseFilter
// does for every sample row and candidate filter.
func BenchmarkFilterCost(b *testing.B) {
	r := rand.New(rand.NewPCG(11, 12))
	d := make([]byte, 3*4167)
	for i := range d {
		d[i] = uint8(r.IntN(256))
	}
	b.SetBytes(int64(len(d)))
	for b.Loop() {
		filterCost(d)
	}
}

// rgbaToRGB (PSHUFB blocks on amd64, 64-bit words, then bytes) keeps every colour
// byte in order and writes nothing past 3 bytes a pixel, at every length around the
// block and word sizes.
func TestRGBAToRGB(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for n := range 70 {
		src := make([]byte, 4*n)
		for i := range src {
			src[i] = uint8(r.Uint32())
		}
		dst := make([]byte, 3*n+8)
		for i := range dst {
			dst[i] = 0xa5
		}
		rgbaToRGB(dst[:3*n], src)
		for p := range n {
			for c := range 3 {
				if got, want := dst[3*p+c], src[4*p+c]; got != want {
					t.Fatalf("n=%d pixel %d channel %d: %d, want %d", n, p, c, got, want)
				}
			}
		}
		for i := 3 * n; i < len(dst); i++ {
			if dst[i] != 0xa5 {
				t.Fatalf("n=%d: byte %d past the row written", n, i)
			}
		}
	}
}

// opaqueRows (64-byte SSE2 blocks on amd64, then words and bytes) finds one
// translucent pixel wherever it is in a row, and calls a fully opaque row opaque,
// at widths around the block and word sizes.
func TestOpaqueRowsFindsEveryPixel(t *testing.T) {
	for _, w := range []int{1, 3, 4, 15, 16, 17, 33, 100} {
		pix := make([]byte, 4*w)
		for i := range pix {
			pix[i] = 0xff
		}
		if !opaqueRows(pix, 4*w, w, 0, 1, nil) {
			t.Fatalf("width %d: opaque row called translucent", w)
		}
		for x := range w {
			for c := range 3 { // a colour byte below 0xff changes nothing
				pix[4*x+c] = 0
			}
			if !opaqueRows(pix, 4*w, w, 0, 1, nil) {
				t.Fatalf("width %d: dark pixel %d called translucent", w, x)
			}
			pix[4*x+3] = 0xfe
			if opaqueRows(pix, 4*w, w, 0, 1, nil) {
				t.Fatalf("width %d: alpha 0xfe at pixel %d missed", w, x)
			}
			pix[4*x], pix[4*x+1], pix[4*x+2], pix[4*x+3] = 0xff, 0xff, 0xff, 0xff
		}
	}
}
