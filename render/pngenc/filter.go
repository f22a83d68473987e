package pngenc

import "encoding/binary"

// PNG filter types (PNG spec 9.2). Average is not used: on rendered canvases it never
// beat Paeth by enough to pay for its cost.
const (
	ftNone  = 0
	ftSub   = 1
	ftUp    = 2
	ftPaeth = 4
)

// filterRow writes the filter-type byte and the filtered scanline cur into dst
// (len(dst) == 1+len(cur)). prev is the raw previous scanline, all zeros for the first
// row of the image.
func filterRow(dst, cur, prev []byte, bpp int, ft byte) {
	dst[0] = ft
	d := dst[1 : 1+len(cur)]
	switch ft {
	case ftNone:
		copy(d, cur)
	case ftSub:
		filterSub(d, cur, bpp)
	case ftUp:
		filterUp(d, cur, prev)
	case ftPaeth:
		filterPaeth(d, cur, prev, bpp)
	}
}

func filterSub(d, cur []byte, bpp int) {
	d = d[:len(cur)]
	copy(d[:bpp], cur[:bpp])
	i := bpp
	for ; i+8 <= len(cur); i += 8 {
		binary.LittleEndian.PutUint64(d[i:], subBytes(binary.LittleEndian.Uint64(cur[i:]), binary.LittleEndian.Uint64(cur[i-bpp:])))
	}
	for ; i < len(cur); i++ {
		d[i] = cur[i] - cur[i-bpp]
	}
}

func filterUp(d, cur, prev []byte) {
	d = d[:len(cur)]
	prev = prev[:len(cur)]
	i := 0
	for ; i+8 <= len(cur); i += 8 {
		binary.LittleEndian.PutUint64(d[i:], subBytes(binary.LittleEndian.Uint64(cur[i:]), binary.LittleEndian.Uint64(prev[i:])))
	}
	for ; i < len(cur); i++ {
		d[i] = cur[i] - prev[i]
	}
}

// subBytes subtracts the eight bytes of y from those of x, each modulo 256, in one
// 64-bit operation (Hacker's Delight 2-18): the high bit of every byte is set in x and
// cleared in y so that no borrow crosses a byte, then fixed up.
func subBytes(x, y uint64) uint64 {
	const h = 0x8080808080808080
	return ((x | h) - (y &^ h)) ^ ((x ^ ^y) & h)
}

func filterPaeth(d, cur, prev []byte, bpp int) {
	n := len(cur)
	d = d[:n]
	prev = prev[:n]
	// One pass per channel keeps the left neighbours (a: current row, c: previous row)
	// in registers. With no left neighbour (a = c = 0) the predictor is the byte above.
	for ch := 0; ch < bpp; ch++ {
		a, c := 0, 0
		for i := ch; i < n; i += bpp {
			b := int(prev[i])
			p := b - c // p-a for p = a+b-c
			q := a - c // p-b
			pa, pb, pc := abs(p), abs(q), abs(p+q)
			// Branch-free choice (photos make the branches unpredictable): notA is
			// all ones unless pa <= pb && pa <= pc, notB all ones when pb > pc.
			notA := ((pb - pa) | (pc - pa)) >> (intSize - 1)
			notB := (pc - pb) >> (intSize - 1)
			bc := b ^ ((b ^ c) & notB)
			x := cur[i]
			d[i] = x - uint8(a^((a^bc)&notA))
			a, c = int(x), b
		}
	}
}

func abs(x int) int {
	m := x >> (intSize - 1)
	return (x ^ m) - m
}

const intSize = 32 << (^uint(0) >> 63)

// filterCost estimates how well the filtered bytes compress: the sum of their absolute
// values read as signed bytes (libpng's minimum-sum-of-absolute-differences heuristic).
func filterCost(d []byte) int {
	s := 0
	for _, v := range d {
		s += abs(int(int8(v)))
	}
	return s
}
