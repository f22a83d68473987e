package colour

import (
	"math/bits"
	"runtime"
	"sync"
	"sync/atomic"
)

// Steep cells. The lookup grid interpolates between nodes that carry a quarter of an
// 8-bit level, so its 8-bit result can land one level away from the exact path's
// where the exact value is near a rounding boundary. On most profiles one level of
// one ink is a fraction of a ΔE2000 unit, but where a profile is steep it is a
// visible difference: in Ghostscript's ps_cmyk.icc near full C+M+Y one level is worth
// up to ΔE 8 (L* 3.5 against 7.1 for C=M=Y 254 or 253), in gray_to_k.icc's deepest
// shadows up to 2.1. No interpolation can fix that (a finer grid or more precise
// nodes move the rounding boundaries, they do not remove them: sRGB 8,8,8 is exactly
// 253.50 on ps_cmyk.icc), so such cells are not interpolated at all.
//
// When the grid is built it measures at every node how much one 8-bit level of each
// ink changes the printed colour (ΔE2000 through the profile's relative colorimetric
// A2B table, the colorimetry the agreement test uses), and the grid's error at every
// cell's centre (and, where an ink is clipped inside the cell, at eight more
// colours). A cell is steep when one level exceeds steepDeltaE at any of its eight
// corners or a measured error does. A steep cell's colours come from a
// table of the exact pipeline's 8-bit results for every 8-bit colour in the cell (up
// to 8^3 = 512), built the first time a pixel falls in the cell and kept with the
// transform: a profile like ps_cmyk.icc has thousands of steep cells, of which an
// image touches few, and a table costs about 0.4 ms of CPU to build. On
// default_cmyk.icc 957 of the 32768 cells are steep for perceptual (docs/colour.md).

// steepDeltaE is the ΔE2000 of one 8-bit level of one ink above which a cell is
// tabulated. The grid's 8-bit error in the interpolated cells is about one level per
// ink (the agreement test's "levels" column), so below this threshold the grid stays
// well under ΔE 1.0; the margin covers steepness that varies between the corners.
const steepDeltaE = 0.5

// steepCells holds the exact tables of a grid's steep cells.
type steepCells struct {
	exact pipeline
	n     int
	// bits is the grid's steep bitset (grid3.steep); a steep cell's slot is its rank
	// in it, rank[w] counting the bits set in the words before w. Both are a few KiB
	// and stay in L1, so the only cache miss of a steep pixel is its table entry.
	bits []uint64
	rank []int32
	// tabs holds the tables one after another, span^3 entries each: allocated whole
	// but written only when a cell is first used (the pages of untouched tables are
	// never faulted in); ready says which are written.
	tabs  []uint32
	ready []atomic.Bool
	once  []sync.Mutex
	// first is the first 8-bit value of each cell along an axis, count how many
	// values it holds; local is a value's position inside its cell, span the
	// largest count (a table's side).
	first, count []int
	local        [256]uint8
	span         int
}

// lookup is the packed 8-bit CMYK (C in the low byte) of pixel px in the steep cell
// based at base.
func (s *steepCells) lookup(base int, px *[4]byte) uint32 {
	w := base >> 6
	slot := int(s.rank[w]) + bits.OnesCount64(s.bits[w]&(1<<(base&63)-1))
	size := s.span * s.span * s.span
	tab := s.tabs[slot*size : (slot+1)*size]
	if !s.ready[slot].Load() {
		s.once[slot].Lock()
		if !s.ready[slot].Load() {
			s.table(base, tab)
			s.ready[slot].Store(true)
		}
		s.once[slot].Unlock()
	}
	return tab[(int(s.local[px[0]])*s.span+int(s.local[px[1]]))*s.span+int(s.local[px[2]])]
}

// table converts every 8-bit colour of the cell based at base exactly.
func (s *steepCells) table(base int, tab []uint32) {
	n, nn := s.n, s.n*s.n
	cell := [3]int{base / nn, base / n % n, base % n}
	for lr := 0; lr < s.count[cell[0]]; lr++ {
		for lg := 0; lg < s.count[cell[1]]; lg++ {
			for lb := 0; lb < s.count[cell[2]]; lb++ {
				var v vec
				v[0] = float64(s.first[cell[0]]+lr) / 255
				v[1] = float64(s.first[cell[1]]+lg) / 255
				v[2] = float64(s.first[cell[2]]+lb) / 255
				s.exact.eval(&v)
				tab[(lr*s.span+lg)*s.span+lb] = uint32(to8(v[0])) | uint32(to8(v[1]))<<8 | uint32(to8(v[2]))<<16 | uint32(to8(v[3]))<<24
			}
		}
	}
}

// labPipeline is device CMYK -> CIELAB through the profile's relative colorimetric
// A2B table, with Lab in lcms's normalised v4 encoding (L/100, (a+128)/255).
func (p *Profile) labPipeline() (pipeline, error) {
	st, err := p.inputPipeline(RelativeColorimetric)
	if err != nil {
		return nil, err
	}
	return addConversion(st, p.pcs, "Lab ", diag3(1, 1, 1), [3]float64{}), nil
}

func evalLab8(toLab pipeline, c [4]int) [3]float64 {
	var v vec
	for i, x := range c {
		v[i] = float64(x) / 255
	}
	toLab.eval(&v)
	return [3]float64{v[0] * 100, v[1]*255 - 128, v[2]*255 - 128}
}

// levelDeltaE is the largest ΔE2000 one 8-bit level of one ink makes at c.
func levelDeltaE(toLab pipeline, c [4]int) float64 {
	base := evalLab8(toLab, c)
	worst := 0.0
	for j := range c {
		d := c
		if d[j] < 255 {
			d[j]++
		} else {
			d[j]--
		}
		l := evalLab8(toLab, d)
		worst = max(worst, DeltaE2000(base[0], base[1], base[2], l[0], l[1], l[2]))
	}
	return worst
}

// forParts runs f over [0, n) split into one contiguous part per GOMAXPROCS.
func forParts(n int, f func(lo, hi int)) {
	parts := max(1, min(runtime.GOMAXPROCS(0), n))
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { f(n*p/parts, n*(p+1)/parts) })
	}
	wg.Wait()
}

// markSteepCells finds the grid's steep cells (see the file comment); their tables
// are built on first use from exact.
func (g *grid3) markSteepCells(exact, toLab pipeline, limit float64) {
	n := g.n
	sens := make([]float64, len(g.data))
	forParts(len(g.data), func(lo, hi int) {
		for i := lo; i < hi; i++ {
			w := g.data[i]
			var c [4]int
			for k := range c {
				c[k] = (int(w>>(16*k)&0xffff) + 2) / 4 // quarter levels to 8 bits
			}
			sens[i] = levelDeltaE(toLab, c)
		}
	})
	s := &steepCells{exact: exact, n: n, first: make([]int, n-1), count: make([]int, n-1)}
	// The 8-bit values of cell i along an axis are first[i] .. first[i]+count[i]-1,
	// as newAxisScale assigns them (255 belongs to the last cell).
	var cellOf [256]int
	for v := 255; v >= 0; v-- {
		cellOf[v] = min(v*(n-1)/255, n-2)
		s.first[cellOf[v]] = v
		s.count[cellOf[v]]++
	}
	for v := range 256 {
		s.local[v] = uint8(v - s.first[cellOf[v]])
		s.span = max(s.span, s.count[cellOf[v]])
	}
	// The interpolation error measured at each cell's centre colour: where the
	// black generation turns inside a cell the grid can be several levels off
	// without any ink being steep.
	m := n - 1
	// errAt is the ΔE2000 between the grid's and the exact 8-bit result for the
	// colour at position (ri, gi, bi) inside cell (i, j, k).
	errAt := func(i, j, k, ri, gi, bi int) float64 {
		px := [4]byte{byte(s.first[i] + ri), byte(s.first[j] + gi), byte(s.first[k] + bi), 255}
		var out [4]byte
		g.convert(out[:], px[:])
		var v vec
		v[0], v[1], v[2] = float64(px[0])/255, float64(px[1])/255, float64(px[2])/255
		exact.eval(&v)
		a := evalLab8(toLab, [4]int{int(to8(v[0])), int(to8(v[1])), int(to8(v[2])), int(to8(v[3]))})
		b := evalLab8(toLab, [4]int{int(out[0]), int(out[1]), int(out[2]), int(out[3])})
		return DeltaE2000(a[0], a[1], a[2], b[0], b[1], b[2])
	}
	centreErr := make([]float64, m*m*m)
	forParts(m, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for j := range m {
				for k := range m {
					centreErr[(i*m+j)*m+k] = errAt(i, j, k, s.count[i]/2, s.count[j]/2, s.count[k]/2)
				}
			}
		}
	})
	nn := n * n
	corners := []int{0, 1, n, n + 1, nn, nn + 1, nn + n, nn + n + 1}
	var bases []int
	var kinks [][4]int // base and cell of the clipped cells to measure
	for i := 0; i < n-1; i++ {
		for j := 0; j < n-1; j++ {
			for k := 0; k < n-1; k++ {
				b := i*nn + j*n + k
				worst := 0.0
				var lo, hi [4]uint64
				lo = [4]uint64{1020, 1020, 1020, 1020}
				for _, o := range corners {
					worst = max(worst, sens[b+o])
					for q := range lo {
						v := g.data[b+o] >> (16 * q) & 0xffff
						lo[q], hi[q] = min(lo[q], v), max(hi[q], v)
					}
				}
				steepness := worst
				worst = max(worst, centreErr[(i*m+j)*m+k])
				if worst > limit {
					bases = append(bases, b)
					continue
				}
				// An ink that reaches 0 or 100 % at some corners but not at all
				// of them is clipped inside the cell: a kink the interpolation
				// cuts across, by up to about a quarter of the ink's range in the
				// cell, worth that many times the steepness. Where that bound
				// exceeds the limit the cell is measured at eight more colours.
				for q := range lo {
					if ((lo[q] == 0 && hi[q] > 0) || (hi[q] == 1020 && lo[q] < 1020)) && steepness*float64(hi[q]-lo[q])/4/4 > limit {
						kinks = append(kinks, [4]int{b, i, j, k})
						break
					}
				}
			}
		}
	}
	kinked := make([]bool, len(kinks))
	forParts(len(kinks), func(lo, hi int) {
		for x := lo; x < hi; x++ {
			i, j, k := kinks[x][1], kinks[x][2], kinks[x][3]
			for _, ri := range []int{s.count[i] / 4, s.count[i] * 3 / 4} {
				for _, gi := range []int{s.count[j] / 4, s.count[j] * 3 / 4} {
					for _, bi := range []int{s.count[k] / 4, s.count[k] * 3 / 4} {
						kinked[x] = kinked[x] || errAt(i, j, k, ri, gi, bi) > limit
					}
				}
			}
		}
	})
	for x, c := range kinks {
		if kinked[x] {
			bases = append(bases, c[0])
		}
	}
	if len(bases) == 0 {
		return
	}
	for _, b := range bases {
		g.steep[b>>6] |= 1 << (b & 63)
	}
	s.bits = g.steep
	s.rank = make([]int32, len(g.steep))
	total := 0
	for w, word := range g.steep {
		s.rank[w] = int32(total)
		total += bits.OnesCount64(word)
	}
	s.tabs = make([]uint32, total*s.span*s.span*s.span)
	s.ready = make([]atomic.Bool, total)
	s.once = make([]sync.Mutex, total)
	g.cells = s
}
