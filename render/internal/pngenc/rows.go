package pngenc

import (
	"context"
	"io"
)

// RowFunc fills dst (width*4 bytes) with scanline y as 8-bit straight-alpha RGBA
// (NRGBA order). dst holds stale bytes from an earlier row: every byte must be written.
//
// The encoder calls it from several goroutines at once, may ask for a row more than
// once (filter trials, the previous row of a strip), and asks in strips of
// Options.StripRows rows dispatched in order: a row of strip k is requested only after
// every strip before k-2*Workers has been written out. A producer that renders from a
// description (a gang sheet) can therefore drop state for rows far behind the
// current one, and never holds the canvas.
type RowFunc func(y int, dst []byte)

// EncodeNRGBARows writes a width x height PNG of colour type 6 (8-bit RGBA) whose rows
// come from row, on demand: the canvas is never held in memory, only the strips in
// flight (see the package comment).
func EncodeNRGBARows(ctx context.Context, w io.Writer, width, height int, row RowFunc, opt Options) error {
	cfg, err := opt.resolve()
	if err != nil {
		return err
	}
	if err := checkSize(width, height); err != nil {
		return err
	}
	src := source{
		width: width, height: height, bpp: 4, colorType: colorRGBA,
		row: func(y int, dst []byte) []byte {
			row(y, dst)
			return dst
		},
	}
	return encode(ctx, w, src, cfg, klauspostFlate)
}

// ResolvedWorkers reports the number of strips the encoder compresses at once for opt (0
// resolves to runtime.GOMAXPROCS(0)), so a RowFunc can size what it keeps behind.
func (o Options) ResolvedWorkers() int {
	c, err := o.resolve()
	if err != nil || c.workers < 1 {
		return 1
	}
	return c.workers
}

// ResolvedStripRows reports the strip height used for opt.
func (o Options) ResolvedStripRows() int {
	c, err := o.resolve()
	if err != nil || c.stripRows < 1 {
		return DefaultStripRows
	}
	return c.stripRows
}
