package pngenc

import (
	"context"
	"image"
	"io"
	"sync"
)

// Ahead compresses the strips of a canvas that is still being drawn, as their rows
// become final, so that a renderer waiting on something else (a picture decoding)
// moves that part of the encoding off its critical path. Encode then writes the PNG
// once the whole canvas is final: byte for byte the file EncodeContext writes, since
// a strip's bytes depend on its rows and the row above them only.
//
// The image must be declared opaque (Options.Opaque, as a renderer knows of a
// canvas under an opaque background): the file is RGB, and a strip's bytes do not
// wait on the colour type of rows not yet drawn. Each row is checked as it is
// compressed, ahead or not; a translucent one fails Encode.
//
// One goroutine compresses the strips ahead, one at a time, so that it takes at most
// one core from the drawing it overlaps.
type Ahead struct {
	img   *image.RGBA
	cfg   config
	rows  int // canvas height
	strip int // rows per strip

	mu      sync.Mutex
	final   []bool // rows declared final
	queued  []bool // strips queued or compressed
	queue   []int  // strips to compress, in order of arrival
	done    map[int]strip
	running bool // the goroutine is working the queue
	stopped bool // Encode or Discard: take nothing more from the queue
	wg      sync.WaitGroup
}

// NewAhead prepares to compress img's strips ahead of Encode with the options opt.
// It returns an *InputError where EncodeContext would.
func NewAhead(img *image.RGBA, opt Options) (*Ahead, error) {
	cfg, err := opt.resolve()
	if err != nil {
		return nil, err
	}
	if !cfg.opaque {
		return nil, &InputError{Reason: "compressing ahead needs an image declared opaque (Options.Opaque)"}
	}
	w, h := img.Rect.Dx(), img.Rect.Dy()
	if err := checkSize(w, h); err != nil {
		return nil, err
	}
	n := (h + cfg.stripRows - 1) / cfg.stripRows
	return &Ahead{
		img: img, cfg: cfg, rows: h, strip: cfg.stripRows,
		final: make([]bool, h), queued: make([]bool, n), done: make(map[int]strip),
	}, nil
}

// Final declares rows [y0, y1) of the image (0 is its top row) final: nothing
// writes to them any more. Strips whose rows and the row above them are all final
// are compressed on the Ahead's goroutine. Final does not wait for them.
func (a *Ahead) Final(y0, y1 int) {
	y0, y1 = max(y0, 0), min(y1, a.rows)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.stopped || y0 >= y1 {
		return
	}
	for y := y0; y < y1; y++ {
		a.final[y] = true
	}
	// The strips that rows [y0-1, y1] may have completed (the row above a strip
	// belongs to the strip before it).
	for i := max(0, y0-1) / a.strip; i <= min(y1, a.rows-1)/a.strip && i < len(a.queued); i++ {
		if a.queued[i] || !a.stripFinal(i) {
			continue
		}
		a.queued[i] = true
		a.queue = append(a.queue, i)
	}
	if len(a.queue) > 0 && !a.running {
		a.running = true
		a.wg.Go(a.work)
	}
}

// stripFinal reports whether strip i's rows and the row above them are final.
func (a *Ahead) stripFinal(i int) bool {
	for y := max(0, i*a.strip-1); y < min(a.rows, (i+1)*a.strip); y++ {
		if !a.final[y] {
			return false
		}
	}
	return true
}

// work compresses the queued strips until the queue is empty or the Ahead stops.
func (a *Ahead) work() {
	sw := newStripWorker(declaredOpaqueSource(a.img), a.cfg, klauspostFlate)
	defer sw.release()
	n := len(a.queued)
	for {
		a.mu.Lock()
		if a.stopped || len(a.queue) == 0 {
			a.running = false
			a.mu.Unlock()
			return
		}
		i := a.queue[0]
		a.queue = a.queue[1:]
		a.mu.Unlock()

		s := sw.compress(i, n)
		a.mu.Lock()
		if s.err != nil {
			// A translucent row: Encode meets it again and reports it.
			a.stopped = true
		} else {
			a.done[i] = s
		}
		a.mu.Unlock()
	}
}

// stop ends the work ahead and waits for the strip being compressed; it returns the
// strips compressed, which the caller now owns.
func (a *Ahead) stop() map[int]strip {
	a.mu.Lock()
	a.stopped = true
	a.mu.Unlock()
	a.wg.Wait()
	done := a.done
	a.done = nil
	return done
}

// Encode writes the image, every row of which is now final, to w as EncodeContext
// does, compressing the strips not compressed ahead on all workers.
func (a *Ahead) Encode(ctx context.Context, w io.Writer) error {
	return encodeWith(ctx, w, declaredOpaqueSource(a.img), a.cfg, klauspostFlate, a.stop())
}

// Discard ends the work ahead when the image will not be encoded (its drawing
// failed) and lets go of what was compressed.
func (a *Ahead) Discard() { release(a.stop()) }

func release(strips map[int]strip) {
	for _, s := range strips {
		if s.buf != nil {
			stripBufPool.Put(s.buf)
		}
	}
}
