// Copyright 2026 The printworker Authors. Use of this source code is governed by the
// BSD-style licence of the Go files this package is forked from (see reader.go).

package jpegdec

import "sync"

// pipeMinBlocks is the smallest scan (in 8x8 blocks) handed to a second goroutine:
// below it the goroutine's start and the hand-overs cost more than the inverse DCT
// they move (a 256 x 256 4:2:0 picture is 1536 blocks).
const pipeMinBlocks = 4096

// pipeBatches is how many MCU rows of coefficients are in flight: one being entropy
// decoded, one being transformed, and one spare so that neither side waits on a
// row of uneven cost.
const pipeBatches = 3

// blockRef says where a decoded block goes: its position in 8x8 blocks and its
// component.
type blockRef struct {
	bx, by int32
	comp   int32
	last   int32 // zig-zag index of the last non-zero coefficient
}

// batch is one MCU row of entropy-decoded coefficients, in decoding order.
type batch struct {
	blocks []block
	refs   []blockRef
}

// idctPipe takes the blocks of a sequential scan as the entropy decoder produces
// them and dequantizes, inverse-transforms and stores them into the image, one MCU
// row at a time. With parallel set, the storing side runs on its own goroutine, so
// that on two cores the Huffman decoding (which is inherently serial without restart
// markers) and the inverse DCT overlap; otherwise each row is transformed in place
// once decoded, as image/jpeg does block by block.
type idctPipe struct {
	d        *decoder
	cur      *batch
	free     chan *batch
	work     chan *batch
	done     sync.WaitGroup
	err      error // the storing goroutine's first error; read after done.Wait
	parallel bool
	// rowLimit, when > 0, drops blocks whose top pixel row is at or past rowLimit: they are decoded
	// (a non-interleaved scan must be read to its end) but not transformed.
	rowLimit int
}

// newIDCTPipe sizes the batches for up to perRow blocks an MCU row and starts the
// storing goroutine when parallel.
func (d *decoder) newIDCTPipe(perRow int, parallel bool) *idctPipe {
	p := &idctPipe{d: d, parallel: parallel, rowLimit: d.limit()}
	n := 1
	if parallel {
		n = pipeBatches
	}
	p.free = make(chan *batch, n)
	for range n {
		p.free <- &batch{blocks: make([]block, perRow), refs: make([]blockRef, 0, perRow)}
	}
	p.cur = <-p.free
	if parallel {
		p.work = make(chan *batch, n)
		p.done.Add(1)
		go func() {
			defer p.done.Done()
			for b := range p.work {
				if p.err == nil {
					p.err = p.store(b)
				}
				p.free <- b
			}
		}()
	}
	return p
}

// next returns the cleared block the entropy decoder fills next.
func (p *idctPipe) next() *block {
	b := &p.cur.blocks[len(p.cur.refs)]
	*b = block{}
	return b
}

// add records where the block last returned by next goes.
func (p *idctPipe) add(bx, by, comp int, last int32) {
	if p.rowLimit > 0 {
		d := p.d
		if by*8*d.comp[0].v/d.comp[comp].v >= p.rowLimit {
			return // below the rows wanted: next hands out the same block again
		}
	}
	p.cur.refs = append(p.cur.refs, blockRef{int32(bx), int32(by), int32(comp), last})
}

// flush hands the current MCU row over to be stored.
func (p *idctPipe) flush() error {
	if len(p.cur.refs) == 0 {
		return nil
	}
	if !p.parallel {
		err := p.store(p.cur)
		p.cur.refs = p.cur.refs[:0]
		return err
	}
	p.work <- p.cur
	p.cur = <-p.free
	p.cur.refs = p.cur.refs[:0]
	return nil
}

// close stores what is left, waits for the storing goroutine and returns its error.
// It must be called once, also when the scan fails, so that no goroutine outlives it.
func (p *idctPipe) close() error {
	err := p.flush()
	if p.parallel {
		close(p.work)
		p.done.Wait()
		if p.err != nil {
			return p.err
		}
	}
	return err
}

func (p *idctPipe) store(b *batch) error {
	for i, r := range b.refs {
		if err := p.d.reconstructBlockTo(&b.blocks[i], int(r.bx), int(r.by), int(r.comp), r.last); err != nil {
			return err
		}
	}
	return nil
}
