package pngenc

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
	for i := bpp; i < len(cur); i++ {
		d[i] = cur[i] - cur[i-bpp]
	}
}

func filterUp(d, cur, prev []byte) {
	d = d[:len(cur)]
	prev = prev[:len(cur)]
	for i := range cur {
		d[i] = cur[i] - prev[i]
	}
}

func filterPaeth(d, cur, prev []byte, bpp int) {
	n := len(cur)
	d = d[:n]
	prev = prev[:n]
	// With no left neighbour the Paeth predictor is the byte above.
	for i := 0; i < bpp; i++ {
		d[i] = cur[i] - prev[i]
	}
	for i := bpp; i < n; i++ {
		a := int(cur[i-bpp])
		b := int(prev[i])
		c := int(prev[i-bpp])
		p := b - c // p-a for p = a+b-c
		q := a - c // p-b
		pa, pb, pc := abs(p), abs(q), abs(p+q)
		pred := c
		if pa <= pb && pa <= pc {
			pred = a
		} else if pb <= pc {
			pred = b
		}
		d[i] = cur[i] - uint8(pred)
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
