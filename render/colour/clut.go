package colour

import "math"

// clutStage is a multidimensional lookup table with 16-bit entries, the first input
// varying slowest (ICC order). Like lcms it quantises its inputs to 16 bits, uses
// tetrahedral interpolation for three inputs (trilinear when the table is indexed by
// Lab, as lcms switches Lab-indexed output tables), linear, bilinear for one and two,
// and for four or more inputs interpolates linearly along the first between two
// lower-dimensional evaluations.
type clutStage struct {
	grid      []int
	stride    []int // entries to step one node along each dimension
	out       int
	data      []uint16
	trilinear bool
}

func newCLUT(grid []int, out int) *clutStage {
	c := &clutStage{grid: grid, out: out, stride: make([]int, len(grid))}
	s := out
	for i := len(grid) - 1; i >= 0; i-- {
		c.stride[i] = s
		s *= grid[i]
	}
	c.data = make([]uint16, s)
	return c
}

// withTrilinear returns a copy that interpolates trilinearly (the table data is shared).
func (c *clutStage) withTrilinear() *clutStage {
	d := *c
	d.trilinear = true
	return &d
}

func (c *clutStage) eval(v *vec) {
	n := len(c.grid)
	if n == 3 || n == 4 {
		// Bit-for-bit lcms: 16-bit integer interpolation (cmsintrp.c). In the
		// shadows of XYZ tables one 16-bit step of Y is 0.03 L*, so the rounding
		// has to be lcms's, not just as good as lcms's.
		var in16 [4]int
		for i := 0; i < n; i++ {
			in16[i] = int(saturateWord(v[i] * 65535))
		}
		var out [maxChannels]uint16
		if n == 3 {
			if c.trilinear {
				c.trilinear16(in16[:3], 0, out[:c.out])
			} else {
				c.tetra16(in16[:3], 0, 0, out[:c.out], false)
			}
		} else {
			c.eval4(in16, out[:c.out])
		}
		for i := 0; i < c.out; i++ {
			v[i] = float64(out[i]) / 65535
		}
		return
	}
	var in [maxChannels]float64
	for i := 0; i < n; i++ {
		in[i] = float64(saturateWord(v[i]*65535)) / 65535
	}
	var out [maxChannels]float64
	c.interp(in[:n], 0, 0, out[:c.out])
	for i := 0; i < c.out; i++ {
		v[i] = math.Round(out[i]) / 65535
	}
}

// toFixedDomain is lcms _cmsToFixedDomain: a value in 0..0xffff*domain to 16.16.
func toFixedDomain(a int) int { return a + (a+0x7fff)/0xffff }

// fixedCell splits a 16-bit input along dimension d into node offset, step to the
// next node (0 at the top edge) and the 16-bit fraction.
func (c *clutStage) fixedCell(in, d int) (off, next, rest int) {
	f := toFixedDomain(in * (c.grid[d] - 1))
	off = (f >> 16) * c.stride[d]
	if in != 0xffff {
		next = c.stride[d]
	}
	return off, next, f & 0xffff
}

func lerpFixed(a, l, h int) int { return l + ((h-l)*a+0x8000)>>16 }

// tetra16 is lcms TetrahedralInterp16 (eval4 = false) or the inner part of
// Eval4Inputs (eval4 = true, which rounds the rest differently).
func (c *clutStage) tetra16(in []int, dim, base int, out []uint16, eval4 bool) {
	x0, x1, rx := c.fixedCell(in[0], dim)
	y0, y1, ry := c.fixedCell(in[1], dim+1)
	z0, z1, rz := c.fixedCell(in[2], dim+2)
	t := c.data[base+x0+y0+z0:]
	for k := range out {
		d := func(x, y, z int) int { return int(t[x+y+z+k]) }
		c0 := d(0, 0, 0)
		var c1, c2, c3 int
		switch {
		case rx >= ry && ry >= rz:
			c1, c2, c3 = d(x1, 0, 0)-c0, d(x1, y1, 0)-d(x1, 0, 0), d(x1, y1, z1)-d(x1, y1, 0)
		case rx >= rz && rz >= ry:
			c1, c2, c3 = d(x1, 0, 0)-c0, d(x1, y1, z1)-d(x1, 0, z1), d(x1, 0, z1)-d(x1, 0, 0)
		case rz >= rx && rx >= ry:
			c1, c2, c3 = d(x1, 0, z1)-d(0, 0, z1), d(x1, y1, z1)-d(x1, 0, z1), d(0, 0, z1)-c0
		case ry >= rx && rx >= rz:
			c1, c2, c3 = d(x1, y1, 0)-d(0, y1, 0), d(0, y1, 0)-c0, d(x1, y1, z1)-d(x1, y1, 0)
		case ry >= rz && rz >= rx:
			c1, c2, c3 = d(x1, y1, z1)-d(0, y1, z1), d(0, y1, 0)-c0, d(0, y1, z1)-d(0, y1, 0)
		default:
			c1, c2, c3 = d(x1, y1, z1)-d(0, y1, z1), d(0, y1, z1)-d(0, 0, z1), d(0, 0, z1)-c0
		}
		rest := c1*rx + c2*ry + c3*rz
		if eval4 {
			out[k] = uint16(c0 + (toFixedDomain(rest)+0x8000)>>16)
		} else {
			r := rest + 0x8001
			out[k] = uint16(c0 + (r+r>>16)>>16)
		}
	}
}

// trilinear16 is lcms TrilinearInterp16.
func (c *clutStage) trilinear16(in []int, base int, out []uint16) {
	x0, x1, rx := c.fixedCell(in[0], 0)
	y0, y1, ry := c.fixedCell(in[1], 1)
	z0, z1, rz := c.fixedCell(in[2], 2)
	t := c.data[base+x0+y0+z0:]
	lerp := func(a, l, h int) int { return int(uint16(lerpFixed(a, l, h))) }
	for k := range out {
		d := func(x, y, z int) int { return int(t[x+y+z+k]) }
		dx00 := lerp(rx, d(0, 0, 0), d(x1, 0, 0))
		dx01 := lerp(rx, d(0, 0, z1), d(x1, 0, z1))
		dx10 := lerp(rx, d(0, y1, 0), d(x1, y1, 0))
		dx11 := lerp(rx, d(0, y1, z1), d(x1, y1, z1))
		dxy0 := lerp(ry, dx00, dx10)
		dxy1 := lerp(ry, dx01, dx11)
		out[k] = uint16(lerp(rz, dxy0, dxy1))
	}
}

// eval4 is lcms Eval4Inputs: tetrahedral over the last three inputs at the two
// nodes of the first, then linear between them.
func (c *clutStage) eval4(in [4]int, out []uint16) {
	k0, k1, rk := c.fixedCell(in[0], 0)
	var lo, hi [maxChannels]uint16
	c.tetra16(in[1:], 1, k0, lo[:len(out)], true)
	c.tetra16(in[1:], 1, k0+k1, hi[:len(out)], true)
	for i := range out {
		out[i] = uint16(lerpFixed(rk, int(lo[i]), int(hi[i])))
	}
}

// cell returns the node index below x in dimension d, the step to the next node (0
// at the top edge) and the fraction.
func (c *clutStage) cell(x float64, d int) (base, next int, f float64) {
	p := x * float64(c.grid[d]-1)
	i := int(p)
	if i >= c.grid[d]-1 {
		return (c.grid[d] - 1) * c.stride[d], 0, 0
	}
	return i * c.stride[d], c.stride[d], p - float64(i)
}

// interp evaluates dimensions dim.. at the node offset off, writing out (in 16-bit units).
func (c *clutStage) interp(in []float64, dim, off int, out []float64) {
	switch len(in) - dim {
	case 1:
		b, n, f := c.cell(in[dim], dim)
		for k := range out {
			a := float64(c.data[off+b+k])
			out[k] = a + (float64(c.data[off+b+n+k])-a)*f
		}
	case 2:
		bx, nx, fx := c.cell(in[dim], dim)
		by, ny, fy := c.cell(in[dim+1], dim+1)
		for k := range out {
			d := func(x, y int) float64 { return float64(c.data[off+bx+x+by+y+k]) }
			d0 := d(0, 0) + (d(nx, 0)-d(0, 0))*fx
			d1 := d(0, ny) + (d(nx, ny)-d(0, ny))*fx
			out[k] = d0 + (d1-d0)*fy
		}
	case 3:
		if c.trilinear {
			c.trilinear3(in[dim:], dim, off, out)
		} else {
			c.tetra3(in[dim:], dim, off, out)
		}
	default:
		b, n, f := c.cell(in[dim], dim)
		var lo, hi [maxChannels]float64
		c.interp(in, dim+1, off+b, lo[:len(out)])
		if n == 0 {
			copy(out, lo[:len(out)])
			return
		}
		c.interp(in, dim+1, off+b+n, hi[:len(out)])
		for k := range out {
			out[k] = lo[k] + (hi[k]-lo[k])*f
		}
	}
}

func (c *clutStage) tetra3(in []float64, dim, off int, out []float64) {
	bx, X1, rx := c.cell(in[0], dim)
	by, Y1, ry := c.cell(in[1], dim+1)
	bz, Z1, rz := c.cell(in[2], dim+2)
	base := off + bx + by + bz
	for k := range out {
		d := func(x, y, z int) float64 { return float64(c.data[base+x+y+z+k]) }
		c0 := d(0, 0, 0)
		var c1, c2, c3 float64
		switch {
		case rx >= ry && ry >= rz:
			c1 = d(X1, 0, 0) - c0
			c2 = d(X1, Y1, 0) - d(X1, 0, 0)
			c3 = d(X1, Y1, Z1) - d(X1, Y1, 0)
		case rx >= rz && rz >= ry:
			c1 = d(X1, 0, 0) - c0
			c2 = d(X1, Y1, Z1) - d(X1, 0, Z1)
			c3 = d(X1, 0, Z1) - d(X1, 0, 0)
		case rz >= rx && rx >= ry:
			c1 = d(X1, 0, Z1) - d(0, 0, Z1)
			c2 = d(X1, Y1, Z1) - d(X1, 0, Z1)
			c3 = d(0, 0, Z1) - c0
		case ry >= rx && rx >= rz:
			c1 = d(X1, Y1, 0) - d(0, Y1, 0)
			c2 = d(0, Y1, 0) - c0
			c3 = d(X1, Y1, Z1) - d(X1, Y1, 0)
		case ry >= rz && rz >= rx:
			c1 = d(X1, Y1, Z1) - d(0, Y1, Z1)
			c2 = d(0, Y1, 0) - c0
			c3 = d(0, Y1, Z1) - d(0, Y1, 0)
		default: // rz >= ry >= rx
			c1 = d(X1, Y1, Z1) - d(0, Y1, Z1)
			c2 = d(0, Y1, Z1) - d(0, 0, Z1)
			c3 = d(0, 0, Z1) - c0
		}
		out[k] = c0 + c1*rx + c2*ry + c3*rz
	}
}

func (c *clutStage) trilinear3(in []float64, dim, off int, out []float64) {
	bx, X1, fx := c.cell(in[0], dim)
	by, Y1, fy := c.cell(in[1], dim+1)
	bz, Z1, fz := c.cell(in[2], dim+2)
	base := off + bx + by + bz
	lerp := func(a, b, t float64) float64 { return a + (b-a)*t }
	for k := range out {
		d := func(x, y, z int) float64 { return float64(c.data[base+x+y+z+k]) }
		dx00 := lerp(d(0, 0, 0), d(X1, 0, 0), fx)
		dx01 := lerp(d(0, 0, Z1), d(X1, 0, Z1), fx)
		dx10 := lerp(d(0, Y1, 0), d(X1, Y1, 0), fx)
		dx11 := lerp(d(0, Y1, Z1), d(X1, Y1, Z1), fx)
		dxy0 := lerp(dx00, dx10, fy)
		dxy1 := lerp(dx01, dx11, fy)
		out[k] = lerp(dxy0, dxy1, fz)
	}
}
