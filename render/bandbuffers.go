package render

import "sync"

// bandBuffers are one band worker's buffers, on every path that draws a picture in
// bands (forEachBand). drawTransformed: the ring of pass-1 values, the span of source
// pixels, the coverage mask and its accumulation cells, the taps. scaleAxisAligned:
// the source row and the band's horizontally resampled rows. A renderer keeps them
// across draws in a pool (Renderer.bandBufs).
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

// bytes returns spanBuf with room for n bytes.
func (b *bandBuffers) bytes(n int) []uint8 {
	if cap(b.spanBuf) < n {
		b.spanBuf = make([]uint8, n)
	}
	return b.spanBuf[:n]
}

// taps returns the buffers for n kernel taps.
func (b *bandBuffers) taps(n int) ([]int, []float32) {
	if cap(b.idx) < n {
		b.idx, b.w = make([]int, n), make([]float32, n)
	}
	return b.idx[:n], b.w[:n]
}

// bufferPool is where a renderer keeps band buffers between draws: a *sync.Pool.
type bufferPool interface {
	Get() any
	Put(any)
}

// bandBufferSet hands the workers of one draw their buffers from pool (new ones
// when pool is nil or empty) and puts them back once the draw is over: forEachBand
// has returned, so no worker holds them any more.
type bandBufferSet struct {
	pool  bufferPool
	mu    sync.Mutex
	taken []*bandBuffers
}

func (s *bandBufferSet) take() *bandBuffers {
	if s.pool == nil {
		return new(bandBuffers)
	}
	b, _ := s.pool.Get().(*bandBuffers)
	if b == nil {
		b = new(bandBuffers)
	}
	s.mu.Lock()
	s.taken = append(s.taken, b)
	s.mu.Unlock()
	return b
}

func (s *bandBufferSet) release() {
	for _, b := range s.taken {
		s.pool.Put(b)
	}
	s.taken = nil
}
