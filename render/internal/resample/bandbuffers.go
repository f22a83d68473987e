package resample

import "context"

// bandBuffers are one band worker's buffers, on every path that draws a picture in
// bands (forEachBand, which hands each worker its own). drawTransformed: the ring of pass-1 values, the span of source
// pixels, the coverage mask and its accumulation cells, the taps. scaleAxisAligned:
// the source row and the band's horizontally resampled rows. A Drawer keeps them
// across draws in a pool (Drawer.pool).
//
// Why: a 300-dpi draw on two workers allocated about 1.4 MB of them each time when
// rotated and 7 MB unrotated (a band's resampled rows, grown band by band), zeroed by
// the allocator and then brought into the cache cold; a worker process draws
// thousands of pictures an hour. From a pool, a worker gets buffers a draw before it
// used and that have the room already. A sync.Pool lets the garbage collector drop
// them when the renderer stops drawing pictures.
type bandBuffers struct {
	inter    []float32
	interInt []int16
	spanBuf  []uint8
	mask     []uint8
	cov      coverageScratch
	// fullRow is the mask row of the rows coverage reports wholly covered, which it
	// leaves out of the mask (full).
	fullRow []uint8
	idx     []int
	w       []float32
	// rowsInt and tapRows are scaleOpaque's resampled rows and the rows one output
	// row combines, spanBuf its source row; scaleAxisAligned's float path keeps its
	// resampled rows in inter and its source row in srcRowF.
	rowsInt []int32
	tapRows [][]int32
	srcRowF []float32
}

// full returns a mask row of n wholly covered pixels.
func (b *bandBuffers) full(n int) []uint8 {
	if len(b.fullRow) < n {
		b.fullRow = make([]uint8, n)
		fill255(b.fullRow)
	}
	return b.fullRow[:n]
}

// taps returns the buffers for n kernel taps.
func (b *bandBuffers) taps(n int) ([]int, []float32) {
	b.idx, b.w = grow(b.idx, n), grow(b.w, n)
	return b.idx, b.w
}

// bandEnv is what the band workers of one picture draw share from their render: the
// pool their buffers come from (nil: new ones), and the render's context, checked
// before every band (nil: never); once it ends the workers take no more bands and the
// draw returns, its picture partly drawn, for the caller to see the context's error.
type bandEnv struct {
	pool bufferPool
	ctx  context.Context
}

// stopped reports whether the draw's context has ended.
func (b bandEnv) stopped() bool { return b.ctx != nil && b.ctx.Err() != nil }

// bufferPool is where a renderer keeps band buffers between draws: a *sync.Pool.
type bufferPool interface {
	Get() any
	Put(any)
}

// takeBandBuffers hands out n workers' buffers from pool: the ones a draw before put
// back, new ones when pool is nil or has too few. forEachBand takes them before it
// starts its workers and puts them back after they are all done, so the pool is
// only touched from the drawing goroutine.
func takeBandBuffers(pool bufferPool, n int) []*bandBuffers {
	bufs := make([]*bandBuffers, n)
	for i := range bufs {
		if pool != nil {
			bufs[i], _ = pool.Get().(*bandBuffers)
		}
		if bufs[i] == nil {
			bufs[i] = new(bandBuffers)
		}
	}
	return bufs
}

// putBandBuffers gives a finished draw's buffers back to pool (nil: drops them).
func putBandBuffers(pool bufferPool, bufs []*bandBuffers) {
	if pool == nil {
		return
	}
	for _, b := range bufs {
		pool.Put(b)
	}
}
