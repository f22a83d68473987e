package colour

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
	var in [maxChannels]float64
	for i := 0; i < n; i++ {
		in[i] = float64(saturateWord(v[i]*65535)) / 65535
	}
	var out [maxChannels]float64
	c.interp(in[:n], 0, 0, out[:c.out])
	for i := 0; i < c.out; i++ {
		v[i] = out[i] / 65535
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
