package resample

import (
	"image"
	"math"
	"sync"

	"github.com/printworker/printworker/render/svg"
)

// Drawer draws pictures into a canvas (Draw): the resampling, the coverage of their
// edges and the band workers that share the work, with the kernels of one tier. It
// keeps the band workers' buffers across draws (bandBuffers); a Drawer is safe for
// concurrent draws.
type Drawer struct {
	workers int
	isa     kernels
	// pool keeps the band workers' buffers between draws, a *sync.Pool; nil: each
	// draw allocates its own.
	pool bufferPool
}

// New returns a Drawer that runs each draw's bands on up to workers goroutines with
// the kernels of the highest tier this machine has.
func New(workers int) *Drawer { return NewTier(workers, TierAVX2) }

// NewTier is New with the kernels capped at tier t (a tier the machine lacks gives
// the highest it has below), for tests that compare the tiers and for measuring what
// a tier buys. Every tier draws the same bytes.
func NewTier(workers int, t Tier) *Drawer {
	return &Drawer{workers: max(1, workers), isa: kernelsFor(host, t), pool: new(sync.Pool)}
}

// Tier is the tier of the kernels d runs.
func (d *Drawer) Tier() Tier { return d.isa.tier }

// Matrix is render's placement: svg.Matrix's layout, m.Mul(n) applies n first.
type Matrix = svg.Matrix

// Rect is a rectangle of canvas pixels with fractional edges (X, Y top-left; W, H
// size): render.Rect's fields, so that render converts one to the other.
type Rect struct{ X, Y, W, H float64 }

// bounds returns the bounding box of the pixels r transformed by m.
func bounds(m Matrix, r image.Rectangle) Rect {
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, p := range [4]image.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, {X: r.Min.X, Y: r.Max.Y}, r.Max} {
		q := m.Apply(svg.Point{X: float64(p.X), Y: float64(p.Y)})
		x0, y0 = math.Min(x0, q.X), math.Min(y0, q.Y)
		x1, y1 = math.Max(x1, q.X), math.Max(y1, q.Y)
	}
	return Rect{x0, y0, x1 - x0, y1 - y0}
}

// YCbCrRows returns a converter of m's rows to opaque RGBA with the kernels of the
// highest tier this machine has: row y's pixels [x0, x1) (m's coordinates) written to
// buf[:4*(x1-x0)] and returned, the bytes draw.Draw's conversion gives (the CMYK
// PDF's pictures are converted band by band through it).
func YCbCrRows(m *image.YCbCr) func(y, x0, x1 int, buf []uint8) []uint8 {
	return kernelsFor(host, TierAVX2).yccSpanFetcher(m, 0, 0, false, false)
}
