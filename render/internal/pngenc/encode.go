// Package pngenc writes 8-bit PNG files fast enough for print canvases (a 4167x5000
// RGB canvas at 300 dpi) on all cores.
//
// The image is cut into strips of rows. Each worker filters and deflates one strip into
// its own buffer, ending it with a sync flush (an empty stored block) so that the strips,
// concatenated in order, form one valid deflate stream; the last strip sets BFINAL. The
// zlib header is written once, and the zlib trailer's Adler-32 is combined from the
// per-strip checksums (as zlib's adler32_combine does). Strips are written as IDAT
// chunks in order as soon as they are ready, with at most two strips per worker in
// flight, so memory stays small next to the canvas (14 MB of heap for an 83 MB one).
//
// Deflate is github.com/klauspost/compress/flate at level 1 by default: faster than
// compress/flate at equal size. Its fast levels store a block outright when they find
// no matches, which filtered photographs provoke; such strips are re-coded Huffman-only
// and the smaller result kept.
//
// Colour types: 8-bit RGB (2) when every pixel is opaque, 8-bit RGBA (6) otherwise,
// 8-bit gray (0) for *image.Gray and *image.Gray16. 16-bit inputs are reduced to 8 bits
// per sample by keeping the high byte, exactly like color.NRGBAModel; premultiplied
// inputs are converted to straight alpha with color.NRGBAModel's arithmetic, so decoding
// the output with image/png yields color.NRGBAModel.Convert of every input pixel.
package pngenc

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"image"
	"io"
	"math"
	"runtime"
	"sync"

	"github.com/klauspost/compress/flate"
)

// Defaults chosen by BenchmarkEncode and BenchmarkEncodeTune on 4167x5000 print canvases
// (docs/benchmarks.md, section "PNG encoder").
const (
	DefaultLevel     = flate.BestSpeed
	DefaultStripRows = 128
	// LevelHuffmanOnly entropy-codes without match search: the fastest setting that
	// still compresses, at a clear size cost.
	LevelHuffmanOnly = flate.HuffmanOnly
)

// Filter names accepted by Options.Filter.
const (
	FilterAuto  = "auto"
	FilterNone  = "none"
	FilterSub   = "sub"
	FilterUp    = "up"
	FilterPaeth = "paeth"
)

// maxIDAT bounds the data of one IDAT chunk, so a strip of any size is written in
// pieces a streaming reader can verify (CRC) without buffering much.
const maxIDAT = 1 << 20

// Options tune the encoder. The zero value is the tuned default.
type Options struct {
	// Level is the deflate level 1 (fastest) .. 9 (smallest), or LevelHuffmanOnly;
	// 0 means DefaultLevel.
	Level int
	// Workers is the number of strips compressed at once; 0 means runtime.GOMAXPROCS(0).
	Workers int
	// StripRows is the number of rows per independently compressed strip; 0 means
	// DefaultStripRows. Smaller strips spread better over cores but cost ratio (matches
	// never cross a strip boundary).
	StripRows int
	// DPI, when > 0, is written as a pHYs chunk in pixels per metre.
	DPI float64
	// SRGB writes an sRGB chunk (perceptual intent): the pixels are sRGB, as a
	// soft proof of a CMYK print is (docs/colour.md).
	SRGB bool
	// Opaque declares that every pixel of an *image.RGBA is opaque, as a renderer
	// knows of a canvas under an opaque background: the file is RGB without the
	// scan of the whole image that finds it out otherwise (83 MB of memory read for
	// a 300-dpi T-shirt front), and each row is checked as it is converted instead,
	// a translucent one failing the encoding with an *InputError rather than losing
	// its alpha. Other image types ignore it.
	Opaque bool
	// Filter is one of FilterAuto (default: per strip, the filter with the smallest
	// sum of absolute values on a sample of rows, Paeth only when clearly ahead since it
	// costs twice the CPU), FilterNone, FilterSub, FilterUp or FilterPaeth.
	Filter string
}

// InputError reports an image or options the encoder refuses. Retrying cannot help.
type InputError struct{ Reason string }

func (e *InputError) Error() string { return "pngenc: " + e.Reason }

// Retryable reports false: the same input fails the same way.
func (e *InputError) Retryable() bool { return false }

// Encode writes img to w as a PNG. See EncodeContext.
func Encode(w io.Writer, img image.Image, opt Options) error {
	return EncodeContext(context.Background(), w, img, opt)
}

// EncodeContext writes img to w as a PNG, stopping between strips when ctx is done.
// Errors from w are returned wrapped; bad input yields an *InputError.
func EncodeContext(ctx context.Context, w io.Writer, img image.Image, opt Options) error {
	cfg, err := opt.resolve()
	if err != nil {
		return err
	}
	b := img.Bounds()
	if err := checkSize(b.Dx(), b.Dy()); err != nil {
		return err
	}
	return encode(ctx, w, sourceOf(img, cfg), cfg, klauspostFlate)
}

// sourceOf is newSource, or a checked RGB reader of an *image.RGBA declared opaque.
func sourceOf(img image.Image, cfg config) source {
	if m, ok := img.(*image.RGBA); ok && cfg.opaque {
		return declaredOpaqueSource(m)
	}
	return newSource(img, cfg.workers)
}

// EncodeRGB writes 8-bit RGB pixels (3 bytes each, row y starting at pix[y*stride]) as
// a PNG of colour type 2, reading pix in place. It saves a renderer that keeps an RGB
// buffer the conversion that Encode would do for an *image.RGBA.
func EncodeRGB(ctx context.Context, w io.Writer, pix []byte, width, height, stride int, opt Options) error {
	cfg, err := opt.resolve()
	if err != nil {
		return err
	}
	if err := checkSize(width, height); err != nil {
		return err
	}
	// In uint64: (height-1)*stride of two 31-bit values cannot overflow it.
	if stride < 3*width || uint64(len(pix)) < uint64(height-1)*uint64(stride)+uint64(3*width) {
		return &InputError{Reason: fmt.Sprintf("RGB buffer of %d bytes with stride %d too short for %dx%d", len(pix), stride, width, height)}
	}
	return encode(ctx, w, rawSource(pix, width, height, stride, 3, colorRGB), cfg, klauspostFlate)
}

func checkSize(w, h int) error {
	// PNG dimensions are 31-bit; a zero dimension has no valid encoding.
	if w <= 0 || h <= 0 || int64(w) > math.MaxInt32 || int64(h) > math.MaxInt32 {
		return &InputError{Reason: fmt.Sprintf("invalid image size %dx%d", w, h)}
	}
	return nil
}

// config is Options with defaults applied and values checked.
type config struct {
	level     int
	workers   int
	stripRows int
	dpi       float64
	srgb      bool
	opaque    bool
	filter    int // ftNone.. or -1 for auto
}

const filterAuto = -1

func (o Options) resolve() (config, error) {
	c := config{level: o.Level, workers: o.Workers, stripRows: o.StripRows, dpi: o.DPI, srgb: o.SRGB, opaque: o.Opaque}
	var errs []error
	if c.level == 0 {
		c.level = DefaultLevel
	}
	if c.level != LevelHuffmanOnly && (c.level < 1 || c.level > 9) {
		errs = append(errs, &InputError{Reason: fmt.Sprintf("level %d outside 1..9 and not LevelHuffmanOnly", o.Level)})
	}
	if c.workers == 0 {
		c.workers = runtime.GOMAXPROCS(0)
	}
	if c.workers < 0 {
		errs = append(errs, &InputError{Reason: fmt.Sprintf("negative workers %d", o.Workers)})
	}
	if c.stripRows == 0 {
		c.stripRows = DefaultStripRows
	}
	if c.stripRows < 0 {
		errs = append(errs, &InputError{Reason: fmt.Sprintf("negative strip rows %d", o.StripRows)})
	}
	if math.IsNaN(c.dpi) || math.IsInf(c.dpi, 0) || c.dpi < 0 || c.dpi*(1/0.0254) > math.MaxUint32 {
		errs = append(errs, &InputError{Reason: fmt.Sprintf("invalid dpi %v", o.DPI)})
	}
	switch o.Filter {
	case "", FilterAuto:
		c.filter = filterAuto
	case FilterNone:
		c.filter = ftNone
	case FilterSub:
		c.filter = ftSub
	case FilterUp:
		c.filter = ftUp
	case FilterPaeth:
		c.filter = ftPaeth
	default:
		errs = append(errs, &InputError{Reason: fmt.Sprintf("unknown filter %q", o.Filter)})
	}
	return c, errors.Join(errs...)
}

// compressor is the part of a deflate writer the strips use; both compress/flate and
// klauspost/compress/flate writers satisfy it (the benchmarks compare them).
type compressor interface {
	io.WriteCloser
	Flush() error
	Reset(io.Writer)
}

// flateFactory hands out a compressor for a level and takes it back when done.
type flateFactory struct {
	get func(level int, w io.Writer) compressor
	put func(level int, c compressor)
	// storesUnmatched: the fast levels store a block outright when their match search
	// finds nothing (klauspost/compress does; compress/flate entropy-codes it).
	storesUnmatched bool
}

// klauspostPools keeps one pool per level (index level+2, HuffmanOnly = -2): a deflate
// writer holds about a megabyte of tables, too much to build per strip.
var klauspostPools [12]sync.Pool

var klauspostFlate = flateFactory{
	get: func(level int, w io.Writer) compressor {
		if c, ok := klauspostPools[level+2].Get().(*flate.Writer); ok {
			c.Reset(w)
			return c
		}
		c, err := flate.NewWriter(w, level)
		if err != nil {
			panic(err) // unreachable: resolve checked the level
		}
		return c
	},
	put:             func(level int, c compressor) { klauspostPools[level+2].Put(c) },
	storesUnmatched: true,
}

// strip is one compressed strip on its way to the output.
type strip struct {
	buf    *[]byte // compressed bytes; the first strip starts with the zlib header
	adler  uint32  // Adler-32 of the strip's uncompressed (filtered) bytes
	length int64   // number of uncompressed bytes
	err    error
}

var stripBufPool sync.Pool // *[]byte

func encode(ctx context.Context, w io.Writer, src source, cfg config, ff flateFactory) error {
	return encodeWith(ctx, w, src, cfg, ff, nil)
}

// encodeWith is encode with strips compressed ahead (pre, by strip index) written as
// they are instead of compressed again.
func encodeWith(ctx context.Context, w io.Writer, src source, cfg config, ff flateFactory, pre map[int]strip) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	bw := &chunkWriter{w: w}
	bw.writeHeader(src, cfg.dpi)
	if cfg.srgb {
		bw.writeChunk("sRGB", []byte{0})
	}
	if bw.err != nil {
		return fmt.Errorf("pngenc: write header: %w", bw.err)
	}
	adler, err := deflateStrips(ctx, src, cfg, ff, pre, func(b []byte) error {
		bw.writeIDAT(b)
		if bw.err != nil {
			return fmt.Errorf("pngenc: write image data: %w", bw.err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	binary.BigEndian.PutUint32(bw.trailer[:], adler)
	bw.writeChunk("IDAT", bw.trailer[:])
	bw.writeChunk("IEND", nil)
	if bw.err != nil {
		return fmt.Errorf("pngenc: write trailer: %w", bw.err)
	}
	return nil
}

// deflateStrips filters and compresses src's strips in parallel and hands them to
// emit in order: the zlib header and one deflate stream, without the trailer. It
// returns the Adler-32 of the filtered data, which the caller writes as the trailer.
// The strips in pre (by index) were compressed ahead and are emitted as they are;
// deflateStrips takes their buffers.
func deflateStrips(ctx context.Context, src source, cfg config, ff flateFactory, pre map[int]strip, emit func([]byte) error) (uint32, error) {
	nStrips := (src.height + cfg.stripRows - 1) / cfg.stripRows
	// The strips left to compress, in order: the k-th travels through slot k%window.
	todo := make([]int, 0, nStrips-len(pre))
	for i := range nStrips {
		if _, ok := pre[i]; !ok {
			todo = append(todo, i)
		}
	}
	workers := max(1, min(cfg.workers, len(todo)))
	// Up to two strips per worker may be compressed but not yet written: enough to keep
	// every core busy while the writer drains, small next to the canvas.
	window := 2 * workers

	// The k-th strip to compress travels through slot k%window: it is dispatched only
	// after the one window places before it in todo was written, so its slot is free
	// by then.
	slots := make([]chan strip, window)
	for i := range slots {
		slots[i] = make(chan strip, 1)
	}
	jobs := make(chan int)
	tokens := make(chan struct{}, window)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(jobs)
		for k := range todo {
			select {
			case tokens <- struct{}{}:
			case <-done:
				return
			}
			select {
			case jobs <- k:
			case <-done:
				return
			}
		}
	})
	for range workers {
		wg.Go(func() {
			sw := newStripWorker(src, cfg, ff)
			for k := range jobs {
				select {
				case <-done:
					slots[k%window] <- strip{err: context.Canceled}
					continue
				default:
				}
				slots[k%window] <- sw.compress(todo[k], nStrips)
			}
			sw.release()
		})
	}
	defer func() {
		close(done)
		wg.Wait()
		// Strips finished after an early return still hold pooled buffers, and so
		// do the strips compressed ahead that were not written.
		for _, ch := range slots {
			select {
			case s := <-ch:
				if s.buf != nil {
					stripBufPool.Put(s.buf)
				}
			default:
			}
		}
		for _, s := range pre {
			if s.buf != nil {
				stripBufPool.Put(s.buf)
			}
		}
	}()

	adler := uint32(1)
	k := 0 // strips of todo written
	for i := 0; i < nStrips; i++ {
		s, ahead := pre[i]
		if ahead {
			delete(pre, i)
		} else {
			select {
			case s = <-slots[k%window]:
			case <-ctx.Done():
				return 0, ctx.Err()
			}
			k++
		}
		if s.err != nil {
			if s.buf != nil {
				stripBufPool.Put(s.buf)
			}
			return 0, s.err
		}
		adler = adler32Combine(adler, s.adler, s.length)
		err := emit(*s.buf)
		stripBufPool.Put(s.buf)
		if !ahead {
			<-tokens
		}
		if err != nil {
			return 0, err
		}
	}
	return adler, nil
}

// stripWorker owns the per-goroutine scratch buffers and deflate writer.
type stripWorker struct {
	src      source
	cfg      config
	ff       flateFactory
	zw       compressor // at cfg.level
	zh       compressor // Huffman-only, taken when first needed
	out      sliceWriter
	rowA     []byte // scratch for converted rows
	rowB     []byte
	zero     []byte  // the previous row of the image's first row
	filtered []byte  // one strip of filtered scanlines
	trial    []byte  // auto filter trials: 1 + row bytes
	scratch  *[]byte // backs the slices above; back to scratchPool on release
}

// scratchPool holds the row and strip buffers of strip workers (*[]byte).
var scratchPool sync.Pool

func newStripWorker(src source, cfg config, ff flateFactory) *stripWorker {
	n := src.width * src.bpp
	rows := min(cfg.stripRows, src.height)
	need := 3*n + (n + 1) + rows*(n+1)
	bp, _ := scratchPool.Get().(*[]byte)
	if bp == nil || cap(*bp) < need {
		bp = new([]byte)
		*bp = make([]byte, need)
	}
	buf := (*bp)[:need]
	clear(buf[2*n : 3*n]) // the zero row
	sw := &stripWorker{
		src: src, cfg: cfg, ff: ff, scratch: bp,
		rowA:     buf[0*n : 1*n : 1*n],
		rowB:     buf[1*n : 2*n : 2*n],
		zero:     buf[2*n : 3*n : 3*n],
		trial:    buf[3*n : 4*n+1 : 4*n+1],
		filtered: buf[4*n+1:],
	}
	sw.zw = ff.get(cfg.level, nil)
	return sw
}

func (sw *stripWorker) release() {
	// A pooled flate writer still points into this worker (its output buffer), so
	// the worker outlives the call; drop the image it reads, or a whole canvas stays
	// reachable until the pool is next cleared.
	sw.src = source{}
	scratchPool.Put(sw.scratch)
	sw.ff.put(sw.cfg.level, sw.zw)
	if sw.zh != nil {
		sw.ff.put(LevelHuffmanOnly, sw.zh)
	}
}

// compress filters and deflates strip i of n.
func (sw *stripWorker) compress(i, n int) strip {
	src := sw.src
	y0 := i * sw.cfg.stripRows
	y1 := min(y0+sw.cfg.stripRows, src.height)
	lineBytes := src.width*src.bpp + 1

	ft := sw.cfg.filter
	if ft == filterAuto {
		ft = sw.chooseFilter(y0, y1)
	}
	// Rows alternate between the two scratch buffers so that the previous row stays
	// valid while the current one is converted.
	prev := sw.zero
	if y0 > 0 {
		prev = src.row(y0-1, sw.rowB)
	}
	scratch := [2][]byte{sw.rowA, sw.rowB}
	data := sw.filtered[:(y1-y0)*lineBytes]
	for y := y0; y < y1; y++ {
		cur := src.row(y, scratch[(y-y0)&1])
		if src.check != nil && !src.check(y) {
			return strip{err: &InputError{Reason: fmt.Sprintf("row %d has a translucent pixel in an image declared opaque", y)}}
		}
		k := (y - y0) * lineBytes
		filterRow(data[k:k+lineBytes], cur, prev, src.bpp, byte(ft))
		prev = cur
	}
	last := i == n-1

	bp, err := sw.deflate(sw.zw, i == 0, data, last)
	if err == nil && sw.ff.storesUnmatched && sw.cfg.level != LevelHuffmanOnly && len(*bp) > len(data)/2 {
		// klauspost/compress's fast levels store a block outright when their match
		// search finds nothing, which is what filtered photographs look like: their
		// residues compress by entropy coding alone. Try Huffman-only, keep the smaller.
		if sw.zh == nil {
			sw.zh = sw.ff.get(LevelHuffmanOnly, nil)
		}
		var alt *[]byte
		alt, err = sw.deflate(sw.zh, i == 0, data, last)
		if err == nil && len(*alt) < len(*bp) {
			bp, alt = alt, bp
		}
		stripBufPool.Put(alt)
	}
	if err != nil {
		stripBufPool.Put(bp)
		return strip{err: fmt.Errorf("pngenc: deflate: %w", err)}
	}
	return strip{buf: bp, adler: adlerSum(data), length: int64(len(data))}
}

// deflate compresses data with zw into a pooled buffer, after the zlib header for the
// first strip, ending with a sync flush (or the final block for the last strip).
func (sw *stripWorker) deflate(zw compressor, first bool, data []byte, last bool) (*[]byte, error) {
	// Sized for the worst case up front (stored blocks: 5 bytes per 64 KiB, plus the
	// zlib header and a flush marker): growing by doubling left tens of MB of garbage
	// per canvas while the pool was cold.
	bound := len(data) + len(data)>>12 + 64
	bp, _ := stripBufPool.Get().(*[]byte)
	if bp == nil || cap(*bp) < bound {
		bp = new([]byte)
		*bp = make([]byte, 0, bound)
	}
	sw.out.buf = (*bp)[:0]
	if first {
		// zlib header: deflate with a 32 KiB window, FLEVEL from the level, FCHECK.
		sw.out.buf = append(sw.out.buf, 0x78, zlibFlevel(sw.cfg.level))
	}
	zw.Reset(&sw.out)
	_, err := zw.Write(data)
	if err == nil {
		if last {
			err = zw.Close()
		} else {
			err = zw.Flush()
		}
	}
	*bp = sw.out.buf
	sw.out.buf = nil
	return bp, err
}

// chooseFilter picks, for rows [y0,y1), the filter with the smallest sum of absolute
// filtered values over a few sample rows spread through the strip. Per-row trials of
// every filter (what image/png does) cost more than the compression they save here.
func (sw *stripWorker) chooseFilter(y0, y1 int) int {
	const samples = 4
	src := sw.src
	var cost [5]int
	step := max(1, (y1-y0)/samples)
	for y := y0 + step/2; y < y1; y += step {
		prev := sw.zero
		if y > 0 {
			prev = src.row(y-1, sw.rowA)
		}
		cur := src.row(y, sw.rowB)
		for _, ft := range [...]int{ftNone, ftSub, ftUp, ftPaeth} {
			filterRow(sw.trial, cur, prev, src.bpp, byte(ft))
			cost[ft] += filterCost(sw.trial[1:])
		}
	}
	best := ftUp
	for _, ft := range [...]int{ftSub, ftNone} {
		if cost[ft] <= cost[best] {
			best = ft
		}
	}
	// Paeth costs about twice the CPU of the others and, by this estimate, often
	// wins on upscaled photos where Sub then compresses better (measured); it has
	// to promise a clear gain.
	if cost[ftPaeth] < cost[best]-cost[best]/paethMargin {
		best = ftPaeth
	}
	return best
}

// paethMargin: Paeth is chosen when its estimate is at least 1/paethMargin below the
// best of None, Sub and Up.
const paethMargin = 8

func zlibFlevel(level int) byte {
	// FLEVEL (RFC 1950 2.2) with FCHECK making CMF*256+FLG a multiple of 31.
	switch {
	case level == LevelHuffmanOnly || level == 1:
		return 0x01
	case level < 6:
		return 0x5e
	case level == 6:
		return 0x9c
	default:
		return 0xda
	}
}

const pngSignature = "\x89PNG\r\n\x1a\n"

// sliceWriter appends to a byte slice (bytes.Buffer without the read side, so the
// slice can go back to a pool).
type sliceWriter struct{ buf []byte }

func (s *sliceWriter) Write(p []byte) (int, error) {
	s.buf = append(s.buf, p...)
	return len(p), nil
}

// chunkWriter writes PNG chunks and remembers the first error.
type chunkWriter struct {
	w       io.Writer
	err     error
	hdr     [8]byte
	tail    [4]byte
	trailer [4]byte
	ihdr    [13]byte
	phys    [9]byte
}

func (c *chunkWriter) write(p []byte) {
	if c.err == nil {
		_, c.err = c.w.Write(p)
	}
}

func (c *chunkWriter) writeChunk(typ string, data []byte) {
	binary.BigEndian.PutUint32(c.hdr[:4], uint32(len(data)))
	copy(c.hdr[4:], typ)
	crc := crc32.Update(crc32.ChecksumIEEE(c.hdr[4:8]), crc32.IEEETable, data)
	c.write(c.hdr[:8])
	c.write(data)
	binary.BigEndian.PutUint32(c.tail[:], crc)
	c.write(c.tail[:])
}

func (c *chunkWriter) writeIDAT(data []byte) {
	for len(data) > 0 && c.err == nil {
		n := min(len(data), maxIDAT)
		c.writeChunk("IDAT", data[:n])
		data = data[n:]
	}
}

func (c *chunkWriter) writeHeader(src source, dpi float64) {
	copy(c.hdr[:], pngSignature)
	c.write(c.hdr[:])
	ihdr := &c.ihdr
	binary.BigEndian.PutUint32(ihdr[0:], uint32(src.width))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(src.height))
	ihdr[8] = 8 // bit depth
	ihdr[9] = src.colorType
	// compression 0 (deflate), filter method 0, interlace 0: already zero.
	c.writeChunk("IHDR", ihdr[:])
	if dpi > 0 {
		phys := &c.phys
		ppm := uint32(math.Round(dpi / 0.0254))
		binary.BigEndian.PutUint32(phys[0:], ppm)
		binary.BigEndian.PutUint32(phys[4:], ppm)
		phys[8] = 1 // unit: metre
		c.writeChunk("pHYs", phys[:])
	}
}
