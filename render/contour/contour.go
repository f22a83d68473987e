// Package contour traces cut contours and builds ink plates from the alpha of a
// composited view (docs/rendering.md "Cut contours and white plates"): threshold,
// dilate or erode with a Euclidean disc (an exact distance transform, linear in the
// pixels), fill holes, trace the boundaries on the pixel grid, smooth and simplify.
//
// It is pure and bounded: memory is a few bytes per pixel of the mask, the traced
// path has a cap on its points and pieces, and the context is checked per row band.
package contour

import (
	"context"
	"math"
)

// Mask is a binary image: Pix[y*W+x] != 0 is on.
type Mask struct {
	W, H int
	Pix  []byte
}

// NewMask returns an empty w x h mask.
func NewMask(w, h int) *Mask { return &Mask{W: w, H: h, Pix: make([]byte, w*h)} }

// At reports whether (x, y) is on; outside the mask is off.
func (m *Mask) At(x, y int) bool {
	return x >= 0 && y >= 0 && x < m.W && y < m.H && m.Pix[y*m.W+x] != 0
}

// Count is the number of pixels on.
func (m *Mask) Count() int {
	n := 0
	for _, p := range m.Pix {
		if p != 0 {
			n++
		}
	}
	return n
}

// band is the number of rows between context checks.
const band = 64

func check(ctx context.Context, y int) error {
	if y%band == 0 {
		return ctx.Err()
	}
	return nil
}

// FromAlpha thresholds 8-bit samples: a pixel is on when its alpha is at least thr
// (thr 0 counts as 1: a fully transparent pixel is never on). pix is a packed
// 4-bytes-per-pixel raster (RGBA or NRGBA), stride bytes per row, alpha last.
// skip, when set, leaves a pixel off whatever its alpha (the white plate's pure
// white pixels).
func FromAlpha(ctx context.Context, pix []byte, stride, w, h int, thr uint8, skip func(r, g, b, a uint8) bool) (*Mask, error) {
	if thr == 0 {
		thr = 1
	}
	m := NewMask(w, h)
	for y := 0; y < h; y++ {
		if err := check(ctx, y); err != nil {
			return nil, err
		}
		row := pix[y*stride : y*stride+4*w]
		out := m.Pix[y*w : (y+1)*w]
		for x := range out {
			p := row[4*x : 4*x+4 : 4*x+4]
			if p[3] >= thr && (skip == nil || !skip(p[0], p[1], p[2], p[3])) {
				out[x] = 1
			}
		}
	}
	return m, nil
}

// inf is a squared distance beyond any canvas (the transform's "no seed").
const inf = math.MaxInt32

// sqDist returns, per pixel, the squared Euclidean distance to the nearest pixel
// whose seed(x, y) is true (inf when there is none), by Felzenszwalb and
// Huttenlocher's two passes of lower envelopes of parabolas: O(w*h) time, 4 bytes
// per pixel plus a few rows.
func sqDist(ctx context.Context, w, h int, seed func(i int) bool) ([]int32, error) {
	d := make([]int32, w*h)
	// Columns: the distance along y to the nearest seed in the column, in two
	// passes over whole rows (down, then up) so memory is read in order.
	last := make([]int32, w)
	for x := range last {
		last[x] = -1
	}
	for y := 0; y < h; y++ {
		if err := check(ctx, y); err != nil {
			return nil, err
		}
		row := d[y*w : (y+1)*w]
		for x := range row {
			switch {
			case seed(y*w + x):
				last[x] = int32(y)
				row[x] = 0
			case last[x] >= 0:
				row[x] = int32(y) - last[x]
			default:
				row[x] = -1
			}
		}
	}
	for x := range last {
		last[x] = -1
	}
	for y := h - 1; y >= 0; y-- {
		if err := check(ctx, y); err != nil {
			return nil, err
		}
		row := d[y*w : (y+1)*w]
		for x, v := range row {
			if v == 0 {
				last[x] = int32(y)
				continue
			}
			if last[x] >= 0 && (v < 0 || last[x]-int32(y) < v) {
				v = last[x] - int32(y)
			}
			if v < 0 || v > 46340 {
				// No seed in the column, or one so far that its square would
				// overflow: no radius a caller asks for comes near it.
				row[x] = inf
			} else {
				row[x] = v * v
			}
		}
	}
	// Rows: the lower envelope of the parabolas (q - x)^2 + f(q).
	f := make([]float64, w)
	v := make([]int, w)
	z := make([]float64, w+1)
	for y := 0; y < h; y++ {
		if err := check(ctx, y); err != nil {
			return nil, err
		}
		row := d[y*w : (y+1)*w]
		n := 0
		for q := 0; q < w; q++ {
			if row[q] == inf {
				continue
			}
			f[q] = float64(row[q])
			fq := f[q] + float64(q*q)
			for {
				if n == 0 {
					v[0], z[0], z[1] = q, math.Inf(-1), math.Inf(1)
					n = 1
					break
				}
				p := v[n-1]
				s := (fq - (f[p] + float64(p*p))) / float64(2*(q-p))
				if s <= z[n-1] {
					n--
					continue
				}
				v[n], z[n], z[n+1] = q, s, math.Inf(1)
				n++
				break
			}
		}
		if n == 0 {
			continue // no seed in the whole row's envelope: stays inf
		}
		k := 0
		for q := 0; q < w; q++ {
			for z[k+1] < float64(q) {
				k++
			}
			dx := q - v[k]
			val := float64(dx*dx) + f[v[k]]
			if val >= inf {
				row[q] = inf
			} else {
				row[q] = int32(val)
			}
		}
	}
	return d, nil
}

// Dilate returns m grown by a disc of radius r pixels: a pixel is on when an on
// pixel of m lies within r of it (centre to centre).
func Dilate(ctx context.Context, m *Mask, r float64) (*Mask, error) {
	if r <= 0 {
		return &Mask{W: m.W, H: m.H, Pix: append([]byte(nil), m.Pix...)}, nil
	}
	d, err := sqDist(ctx, m.W, m.H, func(i int) bool { return m.Pix[i] != 0 })
	if err != nil {
		return nil, err
	}
	r2 := r * r
	out := NewMask(m.W, m.H)
	for i, v := range d {
		if v != inf && float64(v) <= r2 {
			out.Pix[i] = 1
		}
	}
	return out, nil
}

// Erode returns m shrunk by a disc of radius r pixels (the choke): a pixel stays on
// when no off pixel of m lies within r of it. Outside the mask counts as on, so a
// plate is not choked along the edge of the canvas, where the art goes on into the
// bleed or is cut off by the page.
func Erode(ctx context.Context, m *Mask, r float64) (*Mask, error) {
	if r <= 0 {
		return &Mask{W: m.W, H: m.H, Pix: append([]byte(nil), m.Pix...)}, nil
	}
	d, err := sqDist(ctx, m.W, m.H, func(i int) bool { return m.Pix[i] == 0 })
	if err != nil {
		return nil, err
	}
	r2 := r * r
	out := NewMask(m.W, m.H)
	for i, v := range d {
		if m.Pix[i] != 0 && (v == inf || float64(v) > r2) {
			out.Pix[i] = 1
		}
	}
	return out, nil
}

// FillHoles turns on every off pixel not connected (4-connected) to the mask's
// border through off pixels: a piece's holes, and the pieces inside them.
func FillHoles(ctx context.Context, m *Mask) error {
	w, h := m.W, m.H
	// 0 off, 1 on, 2 off and reached from the border.
	const reached = 2
	stack := make([]int32, 0, 2*(w+h))
	push := func(i int) {
		if m.Pix[i] == 0 {
			m.Pix[i] = reached
			stack = append(stack, int32(i))
		}
	}
	for x := 0; x < w; x++ {
		push(x)
		push((h-1)*w + x)
	}
	for y := 0; y < h; y++ {
		push(y * w)
		push(y*w + w - 1)
	}
	for steps := 0; len(stack) > 0; steps++ {
		if steps%(band*1024) == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		i := int(stack[len(stack)-1])
		stack = stack[:len(stack)-1]
		x, y := i%w, i/w
		if x > 0 {
			push(i - 1)
		}
		if x < w-1 {
			push(i + 1)
		}
		if y > 0 {
			push(i - w)
		}
		if y < h-1 {
			push(i + w)
		}
	}
	for i, p := range m.Pix {
		if p == reached {
			m.Pix[i] = 0
		} else {
			m.Pix[i] = 1
		}
	}
	return nil
}

// CutOptions are the settings of Cut, in pixels of the mask.
type CutOptions struct {
	// Offset grows the pieces by this distance before tracing.
	Offset float64
	// Tolerance is Simplify's (0: no simplification).
	Tolerance float64
	// Holes keeps the boundaries of holes (and the pieces inside them).
	Holes bool
	Limits
}

// Cut traces the cut contours of the mask's pieces: grown by the offset, holes
// filled unless asked for, traced, smoothed and simplified; one closed path per
// separate piece (pieces whose grown outlines meet are one). When the pieces or
// points exceed the limits, the result is one rectangle around everything grown
// by the offset, and Truncated says so: a bounded path that still cuts the art
// out whole.
func Cut(ctx context.Context, m *Mask, o CutOptions) (Traced, error) {
	g, err := Dilate(ctx, m, o.Offset)
	if err != nil {
		return Traced{}, err
	}
	if !o.Holes {
		if err := FillHoles(ctx, g); err != nil {
			return Traced{}, err
		}
	}
	t, err := Trace(ctx, g, o.Holes, o.Limits)
	if err != nil {
		return Traced{}, err
	}
	if t.Truncated {
		x0, y0, x1, y1, ok := bbox(g)
		t.Paths = nil
		if ok {
			t.Paths = []Path{{{float64(x0), float64(y0)}, {float64(x1), float64(y0)}, {float64(x1), float64(y1)}, {float64(x0), float64(y1)}}}
		}
		return t, nil
	}
	for i, p := range t.Paths {
		t.Paths[i] = Simplify(Smooth(p), o.Tolerance)
	}
	return t, nil
}

// bbox is the pixel-edge bounding box of the on pixels.
func bbox(m *Mask) (x0, y0, x1, y1 int, ok bool) {
	x0, y0, x1, y1 = m.W, m.H, 0, 0
	for y := 0; y < m.H; y++ {
		row := m.Pix[y*m.W : (y+1)*m.W]
		for x, p := range row {
			if p != 0 {
				x0, y0 = min(x0, x), min(y0, y)
				x1, y1 = max(x1, x+1), max(y1, y+1)
				ok = true
			}
		}
	}
	return
}
