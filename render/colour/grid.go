package colour

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

// The raster paths use lookup grids sampled from the exact pipeline: n nodes per input
// axis and integer tetrahedral interpolation. For 8-bit data that is within a fraction
// of a level of the exact path (measured in the tests) at a few nanoseconds per pixel.

// axis maps an 8-bit input to its grid cell (node offset, already multiplied by the
// axis stride) and the fraction 0..one inside the cell.
type axis struct {
	off  [256]int32
	frac [256]int32
}

func newAxisScale(n, stride, one int) axis {
	var a axis
	for v := 0; v < 256; v++ {
		num := v * (n - 1)
		i, rem := num/255, num%255
		f := (rem*one + 127) / 255
		if i >= n-1 {
			i, f = n-2, one
		}
		a.off[v] = int32(i * stride)
		a.frac[v] = int32(f)
	}
	return a
}

// sampleGrid evaluates f at every node of an n^dims grid (first axis slowest), out
// values per node, in parallel over the first axis.
func sampleGrid(n, dims, out int, f func(in []float64, dst []uint16)) []uint16 {
	per := out
	for i := 1; i < dims; i++ {
		per *= n
	}
	data := make([]uint16, per*n)
	var wg sync.WaitGroup
	next := make(chan int, n)
	for i := 0; i < n; i++ {
		next <- i
	}
	close(next)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in := make([]float64, dims)
			for i0 := range next {
				slab := data[i0*per : (i0+1)*per]
				idx := make([]int, dims)
				idx[0] = i0
				for o := 0; o < len(slab); o += out {
					for d := 0; d < dims; d++ {
						in[d] = float64(idx[d]) / float64(n-1)
					}
					f(in, slab[o:o+out])
					for d := dims - 1; d > 0; d-- {
						idx[d]++
						if idx[d] < n {
							break
						}
						idx[d] = 0
					}
				}
			}
		}()
	}
	wg.Wait()
	return data
}

// grid3 is the sRGB -> CMYK grid. Each node is one uint64 with the four channels in
// 16-bit lanes, in 1/4 of an 8-bit level (0..1020); weights are in 1/64 of a cell and
// sum to 64, so a weighted sum is at most 1020*64 = 65280 and never leaves its lane:
// one multiply per vertex weighs all four inks, and the 33^3 grid is 287 KiB, inside
// a core's L2 cache. Node precision (1/4 level) and position precision (1/64 of a
// 7.97-level cell) keep the result within about a quarter level of interpolating the
// exact values.
type grid3 struct {
	n    int
	data []uint64
	// tet maps the fraction order (see newGrid3) to the two middle vertices of the
	// tetrahedron.
	tet [8]tetCase
	// packed holds per axis and 8-bit value the node offset (high 32 bits) and the
	// fraction (low 32 bits): one load per channel in the pixel loop.
	packed [3][256]uint64

	// Steep cells (steep.go) are not interpolated: their 8-bit colours are looked up
	// in tables of the exact pipeline's results. steep has one bit per node offset,
	// set when the cell based at that node is steep (4.5 KiB for 33^3, in L1: one
	// load and test per pixel); the rest is in *steepCells, used only for those
	// pixels.
	steep []uint64
	cells *steepCells
}

type tetCase struct {
	o1, o12 int32 // offsets of the second and third vertex
}

// tetTable maps three comparison bits of the fractions along axes with strides s to
// the two middle vertices of the tetrahedron: bit 4 if f0 > f1, 2 if f1 > f2, 1 if
// f0 > f2. For each index it takes an order of the axes (largest fraction first) that
// agrees with the bits; a cleared bit puts the second axis first, which is right for
// ties too because tied axes get zero weight. The two contradictory indexes never
// occur.
func tetTable(s [3]int32) [8]tetCase {
	var t [8]tetCase
	perms := [6][3]int{{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}}
	for idx := 0; idx < 8; idx++ {
		for _, p := range perms {
			pos := [3]int{}
			for k, a := range p {
				pos[a] = k
			}
			before := func(a, b int) bool { return pos[a] < pos[b] }
			if before(0, 1) == (idx&4 != 0) && before(1, 2) == (idx&2 != 0) && before(0, 2) == (idx&1 != 0) {
				t[idx] = tetCase{o1: s[p[0]], o12: s[p[0]] + s[p[1]]}
				break
			}
		}
	}
	return t
}

// packAxes returns, per axis and 8-bit value, the node offset (high 32 bits) and the
// fraction 0..one (low 32 bits): one load per channel in the pixel loops.
func packAxes(n int, strides []int32, one int) [][256]uint64 {
	p := make([][256]uint64, len(strides))
	for a, stride := range strides {
		ax := newAxisScale(n, int(stride), one)
		for v := 0; v < 256; v++ {
			p[a][v] = uint64(ax.off[v])<<32 | uint64(ax.frac[v])
		}
	}
	return p
}

// sortedWeights sorts three fractions (branch-free) into tetrahedral weights for a
// cell of size one, and returns the comparison index for tetTable.
func sortedWeights(fa, fb, fc, one int32) (w0, w1, w2, w3 int32, idx uint32) {
	f1, f3 := max(fa, fb, fc), min(fa, fb, fc)
	f2 := fa + fb + fc - f1 - f3
	idx = uint32(fb-fa)>>31<<2 | uint32(fc-fb)>>31<<1 | uint32(fc-fa)>>31
	return one - f1, f1 - f2, f2 - f3, f3, idx & 7
}

const gridOne = 64 // weight of a whole cell

func newGrid3(n int, exact pipeline) *grid3 {
	raw := sampleGrid(n, 3, 4, func(in []float64, dst []uint16) {
		var v vec
		copy(v[:], in)
		exact.eval(&v)
		for k := 0; k < 4; k++ {
			dst[k] = uint16(clamp01(v[k])*255*4 + 0.5)
		}
	})
	data := make([]uint64, len(raw)/4)
	for i := range data {
		data[i] = uint64(raw[4*i]) | uint64(raw[4*i+1])<<16 | uint64(raw[4*i+2])<<32 | uint64(raw[4*i+3])<<48
	}
	g := &grid3{n: n, data: data}
	s := [3]int32{int32(n * n), int32(n), 1}
	g.tet = tetTable(s)
	copy(g.packed[:], packAxes(n, s[:], gridOne))
	g.steep = make([]uint64, (len(data)+63)/64)
	return g
}

// SetGridPoints changes the grid size used by ConvertNRGBA (2..256 nodes per axis);
// it must be called before the first ConvertNRGBA.
func (t *Transform) SetGridPoints(n int) error {
	if n < 2 || n > 256 {
		return fmt.Errorf("colour: grid of %d points per axis (2..256 allowed)", n)
	}
	t.gridN = n
	return nil
}

// BuildGrid samples the lookup grid now instead of on the first ConvertNRGBA.
func (t *Transform) BuildGrid() {
	t.gridOnce.Do(func() {
		t.grid = newGrid3(t.gridN, t.exact)
		if toLab, err := t.out.labPipeline(); err == nil {
			t.grid.markSteepCells(t.exact, toLab, steepDeltaE)
		}
	})
}

// ConvertNRGBA converts pixels: src is 8-bit NRGBA (alpha ignored), dst receives 4
// bytes per pixel C, M, Y, K. It uses the lookup grid (built on first use) and splits
// the work over GOMAXPROCS goroutines. dst must hold len(src) bytes.
func (t *Transform) ConvertNRGBA(dst, src []byte) {
	t.checkDst(dst, src)
	t.BuildGrid()
	parallel(len(src)/4, func(lo, hi int) { t.grid.convert(dst[lo*4:hi*4], src[lo*4:hi*4]) })
}

// ConvertNRGBASerial is ConvertNRGBA on the calling goroutine alone, for callers that
// already spread the bands of a picture over the cores (the renderer's PDF, TIFF and
// proof paths): splitting each band again would hand half of rows one core has just
// written to the other core's cache, and queue twice as many goroutines as cores.
func (t *Transform) ConvertNRGBASerial(dst, src []byte) {
	t.checkDst(dst, src)
	t.BuildGrid()
	t.grid.convert(dst, src)
}

func (t *Transform) checkDst(dst, src []byte) {
	if len(dst) < len(src)/4*4 {
		panic(fmt.Sprintf("colour: ConvertNRGBA: dst has %d bytes for %d pixels", len(dst), len(src)/4))
	}
}

// parallel calls f over n pixels in contiguous chunks, on GOMAXPROCS goroutines when
// there are enough pixels to pay for them. The goroutines take the chunks in turn (about
// eight each) rather than one fixed part each: a part that costs more (a photo's
// steep cells cluster) or whose core is lent to another process for a while then no
// longer holds up the whole conversion, while the others sit idle.
func parallel(n int, f func(lo, hi int)) {
	const minPart = 1 << 15
	workers := min(runtime.GOMAXPROCS(0), n/minPart)
	if workers <= 1 {
		f(0, n)
		return
	}
	chunk := max(minPart, n/(8*workers))
	chunks := (n + chunk - 1) / chunk
	var next atomic.Int64
	work := func() {
		for i := int(next.Add(1)) - 1; i < chunks; i = int(next.Add(1)) - 1 {
			f(i*chunk, min(n, (i+1)*chunk))
		}
	}
	var wg sync.WaitGroup
	for range workers - 1 {
		wg.Go(work)
	}
	work() // the caller is the last worker
	wg.Wait()
}

func (g *grid3) convert(dst, src []byte) {
	d := g.data
	o111 := g.n*g.n + g.n + 1
	const round = 128 * 0x0001000100010001
	ax := &g.packed
	n := min(len(src), len(dst)) / 4
	for i := 0; i < n; i++ {
		px := (*[4]byte)(src[4*i : 4*i+4])
		ar, ag, ab := ax[0][px[0]], ax[1][px[1]], ax[2][px[2]]
		base := int(ar>>32 + ag>>32 + ab>>32)
		q := (*[4]byte)(dst[4*i : 4*i+4])
		if g.steep[base>>6]>>(base&63)&1 != 0 {
			v := g.cells.lookup(base, px)
			q[0], q[1], q[2], q[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
			continue
		}
		w0, w1, w2, w3, idx := sortedWeights(int32(ar), int32(ag), int32(ab), gridOne)
		tc := g.tet[idx]
		cell := d[base : base+o111+1]
		sum := cell[0]*uint64(w0) + cell[tc.o1]*uint64(w1) + cell[tc.o12]*uint64(w2) + cell[o111]*uint64(w3) + round
		q[0] = byte(sum >> 8)
		q[1] = byte(sum >> 24)
		q[2] = byte(sum >> 40)
		q[3] = byte(sum >> 56)
	}
}

// grid4 is the CMYK -> sRGB proof grid: linear along C between two tetrahedral
// evaluations over M, Y, K (the same split lcms uses for four inputs). It stores
// linear-light RGB in 16 bits and applies the sRGB curve after interpolating through
// a 64 Ki-entry table, because interpolating gamma-encoded values over a 17-node grid
// loses up to ΔE 1.7 in dark colours.
type grid4 struct {
	n      int
	data   []uint16
	tet    [8]tetCase
	packed [][256]uint64 // C, M, Y, K
	out    [3][]uint8
}

// ProofGridPoints is the number of nodes per axis of the CMYK proof grid.
const ProofGridPoints = 17

func newGrid4(n int, linear pipeline, curves *curveStage) *grid4 {
	data := sampleGrid(n, 4, 3, func(in []float64, dst []uint16) {
		var v vec
		copy(v[:], in)
		linear.eval(&v)
		for k := 0; k < 3; k++ {
			dst[k] = uint16(clamp01(v[k])*65535 + 0.5)
		}
	})
	s := []int32{int32(n * n * n * 3), int32(n * n * 3), int32(n * 3), 3}
	g := &grid4{n: n, data: data, tet: tetTable([3]int32(s[1:])), packed: packAxes(n, s, 256)}
	for ch := 0; ch < 3; ch++ {
		g.out[ch] = make([]uint8, 65536)
		for i := range g.out[ch] {
			g.out[ch][i] = to8(curves.c[ch].eval(float64(i) / 65535))
		}
	}
	return g
}

// BuildGrid samples the proof grid now instead of on the first ConvertCMYK.
func (p *Proof) BuildGrid() {
	p.gridOnce.Do(func() {
		// The pipeline ends with the sRGB output curves and the clamp (see link).
		n := len(p.exact)
		p.grid = newGrid4(ProofGridPoints, p.exact[:n-2], p.exact[n-2].(*curveStage))
	})
}

// ConvertCMYK converts pixels: src is 4 bytes per pixel CMYK, dst receives 8-bit
// NRGBA with alpha 255. It uses the proof grid (built on first use) over GOMAXPROCS
// goroutines. dst must hold len(src) bytes.
func (p *Proof) ConvertCMYK(dst, src []byte) {
	if len(dst) < len(src)/4*4 {
		panic(fmt.Sprintf("colour: ConvertCMYK: dst has %d bytes for %d pixels", len(dst), len(src)/4))
	}
	p.BuildGrid()
	parallel(len(src)/4, func(lo, hi int) { p.grid.convert(dst[lo*4:hi*4], src[lo*4:hi*4]) })
}

func (g *grid4) convert(dst, src []byte) {
	d := g.data
	sc := g.n * g.n * g.n * 3
	o111 := g.n*g.n*3 + g.n*3 + 3
	pc, pm, py, pk := &g.packed[0], &g.packed[1], &g.packed[2], &g.packed[3]
	n := min(len(src), len(dst)) / 4
	// Print artwork has flat areas: a pixel equal to the previous one reuses its
	// result (the interpolation costs about 60 ns, the compare nothing).
	var last uint32
	var lastOut [4]byte
	for i := 0; i < n; i++ {
		px := (*[4]byte)(src[4*i : 4*i+4])
		key := uint32(px[0]) | uint32(px[1])<<8 | uint32(px[2])<<16 | uint32(px[3])<<24
		if i > 0 && key == last {
			*(*[4]byte)(dst[4*i : 4*i+4]) = lastOut
			continue
		}
		last = key
		ac, am, ay, ak := pc[px[0]], pm[px[1]], py[px[2]], pk[px[3]]
		fc := int64(int32(ac))
		base := int(ac>>32 + am>>32 + ay>>32 + ak>>32)
		w0, w1, w2, w3, idx := sortedWeights(int32(am), int32(ay), int32(ak), 256)
		tc := g.tet[idx]
		v1, v2 := int(tc.o1), int(tc.o12)
		lo := d[base : base+o111+3]
		hi := d[base+sc : base+sc+o111+3]
		q := (*[4]byte)(dst[4*i : 4*i+4])
		for ch := 0; ch < 3; ch++ {
			l := int64(lo[ch])*int64(w0) + int64(lo[v1+ch])*int64(w1) + int64(lo[v2+ch])*int64(w2) + int64(lo[o111+ch])*int64(w3)
			h := int64(hi[ch])*int64(w0) + int64(hi[v1+ch])*int64(w1) + int64(hi[v2+ch])*int64(w2) + int64(hi[o111+ch])*int64(w3)
			q[ch] = g.out[ch][uint16((l*(256-fc)+h*fc+1<<15)>>16)]
		}
		q[3] = 255
		lastOut = *q
	}
}
