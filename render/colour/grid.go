package colour

import (
	"fmt"
	"runtime"
	"sync"
)

// The raster paths use lookup grids sampled from the exact pipeline: n nodes per input
// axis, node values in 8.8 fixed point of the 8-bit output scale, and integer
// tetrahedral interpolation (weights in 1/256 of a cell). For 8-bit data that is
// within a fraction of a level of the exact path (measured in the tests) at a few
// nanoseconds per pixel.

// axis maps an 8-bit input to its grid cell (node offset, already multiplied by the
// axis stride) and the fraction 0..256 inside the cell.
type axis struct {
	off  [256]int32
	frac [256]int32
}

func newAxis(n, stride int) axis {
	var a axis
	for v := 0; v < 256; v++ {
		num := v * (n - 1)
		i, rem := num/255, num%255
		f := (rem*256 + 127) / 255
		if i >= n-1 {
			i, f = n-2, 256
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

func toFixed88(x float64) uint16 {
	return uint16(clamp01(x)*255*256 + 0.5)
}

// grid3 is the sRGB -> CMYK grid.
type grid3 struct {
	n       int
	data    []uint16
	r, g, b axis
}

func newGrid3(n int, exact pipeline) *grid3 {
	data := sampleGrid(n, 3, 4, func(in []float64, dst []uint16) {
		var v vec
		copy(v[:], in)
		exact.eval(&v)
		for k := 0; k < 4; k++ {
			dst[k] = toFixed88(v[k])
		}
	})
	return &grid3{n: n, data: data, r: newAxis(n, n*n*4), g: newAxis(n, n*4), b: newAxis(n, 4)}
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
	t.gridOnce.Do(func() { t.grid = newGrid3(t.gridN, t.exact) })
}

// ConvertNRGBA converts pixels: src is 8-bit NRGBA (alpha ignored), dst receives 4
// bytes per pixel C, M, Y, K. It uses the lookup grid (built on first use) and splits
// the work over GOMAXPROCS goroutines. dst must hold len(src) bytes.
func (t *Transform) ConvertNRGBA(dst, src []byte) {
	if len(dst) < len(src)/4*4 {
		panic(fmt.Sprintf("colour: ConvertNRGBA: dst has %d bytes for %d pixels", len(dst), len(src)/4))
	}
	t.BuildGrid()
	parallel(len(src)/4, func(lo, hi int) { t.grid.convert(dst[lo*4:hi*4], src[lo*4:hi*4]) })
}

// parallel splits n pixels into contiguous parts, one per GOMAXPROCS, when there are
// enough of them to pay for the goroutines.
func parallel(n int, f func(lo, hi int)) {
	const minPart = 1 << 15
	parts := runtime.GOMAXPROCS(0)
	if parts > n/minPart {
		parts = n / minPart
	}
	if parts <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	for i := 0; i < parts; i++ {
		lo, hi := n*i/parts, n*(i+1)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(lo, hi)
		}()
	}
	wg.Wait()
}

func (g *grid3) convert(dst, src []byte) {
	d := g.data
	sx, sy := int32(g.n*g.n*4), int32(g.n*4)
	for o := 0; o+3 < len(src); o += 4 {
		r, gg, b := src[o], src[o+1], src[o+2]
		fx, fy, fz := g.r.frac[r], g.g.frac[gg], g.b.frac[b]
		base := g.r.off[r] + g.g.off[gg] + g.b.off[b]
		// Tetrahedron: walk from node 000 to 111 along the axes in order of
		// decreasing fraction; w are the barycentric weights.
		var v1, v2 int32
		var w0, w1, w2, w3 int32
		switch {
		case fx >= fy && fy >= fz:
			v1, v2 = sx, sx+sy
			w0, w1, w2, w3 = 256-fx, fx-fy, fy-fz, fz
		case fx >= fz && fz >= fy:
			v1, v2 = sx, sx+4
			w0, w1, w2, w3 = 256-fx, fx-fz, fz-fy, fy
		case fz >= fx && fx >= fy:
			v1, v2 = 4, sx+4
			w0, w1, w2, w3 = 256-fz, fz-fx, fx-fy, fy
		case fy >= fx && fx >= fz:
			v1, v2 = sy, sx+sy
			w0, w1, w2, w3 = 256-fy, fy-fx, fx-fz, fz
		case fy >= fz && fz >= fx:
			v1, v2 = sy, sy+4
			w0, w1, w2, w3 = 256-fy, fy-fz, fz-fx, fx
		default:
			v1, v2 = 4, sy+4
			w0, w1, w2, w3 = 256-fz, fz-fy, fy-fx, fx
		}
		p0 := d[base : base+4 : base+4]
		p1 := d[base+v1 : base+v1+4 : base+v1+4]
		p2 := d[base+v2 : base+v2+4 : base+v2+4]
		e := base + sx + sy + 4
		p3 := d[e : e+4 : e+4]
		q := dst[o : o+4 : o+4]
		q[0] = byte((int32(p0[0])*w0 + int32(p1[0])*w1 + int32(p2[0])*w2 + int32(p3[0])*w3 + 32768) >> 16)
		q[1] = byte((int32(p0[1])*w0 + int32(p1[1])*w1 + int32(p2[1])*w2 + int32(p3[1])*w3 + 32768) >> 16)
		q[2] = byte((int32(p0[2])*w0 + int32(p1[2])*w1 + int32(p2[2])*w2 + int32(p3[2])*w3 + 32768) >> 16)
		q[3] = byte((int32(p0[3])*w0 + int32(p1[3])*w1 + int32(p2[3])*w2 + int32(p3[3])*w3 + 32768) >> 16)
	}
}

// grid4 is the CMYK -> sRGB proof grid: linear along C between two tetrahedral
// evaluations over M, Y, K (the same split lcms uses for four inputs).
type grid4 struct {
	n          int
	data       []uint16
	c, m, y, k axis
}

// ProofGridPoints is the number of nodes per axis of the CMYK proof grid.
const ProofGridPoints = 17

func newGrid4(n int, exact pipeline) *grid4 {
	data := sampleGrid(n, 4, 3, func(in []float64, dst []uint16) {
		var v vec
		copy(v[:], in)
		exact.eval(&v)
		for k := 0; k < 3; k++ {
			dst[k] = toFixed88(v[k])
		}
	})
	return &grid4{n: n, data: data, c: newAxis(n, n*n*n*3), m: newAxis(n, n*n*3), y: newAxis(n, n*3), k: newAxis(n, 3)}
}

// BuildGrid samples the proof grid now instead of on the first ConvertCMYK.
func (p *Proof) BuildGrid() {
	p.gridOnce.Do(func() { p.grid = newGrid4(ProofGridPoints, p.exact) })
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
	sc := int32(g.n * g.n * g.n * 3)
	for o := 0; o+3 < len(src); o += 4 {
		c, m, y, k := src[o], src[o+1], src[o+2], src[o+3]
		fc := g.c.frac[c]
		base := g.m.off[m] + g.y.off[y] + g.k.off[k] + g.c.off[c]
		var lo, hi [3]int32
		g.tetra(base, m, y, k, &lo)
		g.tetra(base+sc, m, y, k, &hi)
		q := dst[o : o+4 : o+4]
		for i := 0; i < 3; i++ {
			q[i] = byte((int64(lo[i])*int64(256-fc) + int64(hi[i])*int64(fc) + 1<<23) >> 24)
		}
		q[3] = 255
	}
}

// tetra interpolates over M, Y, K from base; results are in 8.8 fixed point times 256.
func (g *grid4) tetra(base int32, m, y, k byte, out *[3]int32) {
	sx, sy, sz := int32(g.n*g.n*3), int32(g.n*3), int32(3)
	fx, fy, fz := g.m.frac[m], g.y.frac[y], g.k.frac[k]
	var v1, v2 int32
	var w0, w1, w2, w3 int32
	switch {
	case fx >= fy && fy >= fz:
		v1, v2 = sx, sx+sy
		w0, w1, w2, w3 = 256-fx, fx-fy, fy-fz, fz
	case fx >= fz && fz >= fy:
		v1, v2 = sx, sx+sz
		w0, w1, w2, w3 = 256-fx, fx-fz, fz-fy, fy
	case fz >= fx && fx >= fy:
		v1, v2 = sz, sx+sz
		w0, w1, w2, w3 = 256-fz, fz-fx, fx-fy, fy
	case fy >= fx && fx >= fz:
		v1, v2 = sy, sx+sy
		w0, w1, w2, w3 = 256-fy, fy-fx, fx-fz, fz
	case fy >= fz && fz >= fx:
		v1, v2 = sy, sy+sz
		w0, w1, w2, w3 = 256-fy, fy-fz, fz-fx, fx
	default:
		v1, v2 = sz, sy+sz
		w0, w1, w2, w3 = 256-fz, fz-fy, fy-fx, fx
	}
	d := g.data
	e := base + sx + sy + sz
	for i := int32(0); i < 3; i++ {
		out[i] = int32(d[base+i])*w0 + int32(d[base+v1+i])*w1 + int32(d[base+v2+i])*w2 + int32(d[e+i])*w3
	}
}
