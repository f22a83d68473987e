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
	// With no left neighbour (a = c = 0) the predictor is the byte above.
	k := min(bpp, n)
	for i := range k {
		d[i] = cur[i] - prev[i]
	}
	// The encoder knows every neighbour up front (a is a raw byte of the current row,
	// not a decoded one), so the bytes are independent: one flat loop over aligned
	// views of the four neighbourhoods, with no loop-carried state and, the views
	// being resliced to one length, no bounds checks.
	x := cur[k:]
	a := cur[:len(x)]
	b := prev[k:]
	b = b[:len(x)]
	c := prev[:len(x)]
	o := d[k:]
	o = o[:len(x)]
	// On amd64 the bulk goes 16 bytes at a time through SSE2 (paeth_amd64.s: the same
	// predictor on 16-bit lanes, 4x the throughput of this loop); the Go loop does the
	// tail, and everything elsewhere.
	j := paethSIMD(len(x))
	paethBlocks(o[:j], x, a, b, c)
	x, a, b, c, o = x[j:], a[j:], b[j:], c[j:], o[j:]
	for i := range x {
		o[i] = x[i] - paethPredict(a[i], b[i], c[i])
	}
}

// paethPredict is the Paeth predictor of PNG spec 9.2 (the neighbour among a, b, c
// closest to a+b-c, ties to a then b) in the formulation of stb_image 2.26: with
// t = 3c-(a+b), the predictor is max(a,b) when t <= min(a,b), else min(a,b) when
// max(a,b) <= t, else c. Go compiles it to two min/max and two compares into
// conditional moves, about half the work of the spec's three absolute values;
// TestPaethPredictExhaustive checks it against the spec on all 2^24 inputs.
func paethPredict(a, b, c uint8) uint8 {
	// On ints, not bytes: Go turns byte min/max into branches, which photographs
	// mispredict (measured 3x slower).
	ia, ib, p := int(a), int(b), int(c)
	t := 3*p - (ia + ib)
	lo, hi := min(ia, ib), max(ia, ib)
	if hi <= t {
		p = lo
	}
	if t <= lo {
		p = hi
	}
	return uint8(p)
}

func abs(x int) int {
	m := x >> (intSize - 1)
	return (x ^ m) - m
}

const intSize = 32 << (^uint(0) >> 63)

// filterCost estimates how well the filtered bytes compress: the sum of their absolute
// values read as signed bytes (libpng's minimum-sum-of-absolute-differences heuristic).
// It runs on every sample row of every candidate filter, so it works eight bytes per
// 64-bit word: each byte's absolute value in place (at most 128, so no carry leaves a
// byte), summed into four 16-bit lanes that are added to the total before they can
// overflow.
func filterCost(d []byte) int {
	const (
		lsb   = 0x0101010101010101
		lanes = 0x00ff00ff00ff00ff
		// A lane gains at most 2*128 per word: 255 words keep it under 2^16.
		flushWords = 255
	)
	s := 0
	i := 0
	for i+8 <= len(d) {
		var acc uint64
		for k := 0; k < flushWords && i+8 <= len(d); k, i = k+1, i+8 {
			x := binary.LittleEndian.Uint64(d[i:])
			neg := x >> 7 & lsb      // 1 in each byte that is negative
			x = (x ^ neg*0xff) + neg // two's complement negation of those bytes
			acc += x&lanes + x>>8&lanes
		}
		acc = acc&0x0000ffff0000ffff + acc>>16&0x0000ffff0000ffff
		s += int(acc&0xffffffff + acc>>32)
	}
	for ; i < len(d); i++ {
		s += abs(int(int8(d[i])))
	}
	return s
}
