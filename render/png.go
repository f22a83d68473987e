package render

import (
	"context"
	"image"
	"io"

	"github.com/printworker/printworker/render/internal/pngenc"
)

// The PNG encoder lives behind the render/internal seam (it picks its kernels from the
// CPU's features, as resample does); these are the parts other packages use: gang
// sheets streamed row by row, their previews, the offline gang command and the
// benchmarks.

// PNGOptions tune the PNG encoder; the zero value is the tuned default (all cores,
// strips of 128 rows, the filter chosen per strip).
type PNGOptions = pngenc.Options

// PNGRowFunc fills dst (width*4 bytes) with scanline y as 8-bit straight-alpha RGBA.
// The encoder calls it from several goroutines, may ask for a row more than once and
// asks in strips dispatched in order, so a producer that draws from a description
// never holds the canvas (see EncodePNGRows).
type PNGRowFunc = pngenc.RowFunc

// EncodePNG writes img to w as a PNG, stopping between strips when ctx is done; bad
// input is a permanent error.
func EncodePNG(ctx context.Context, w io.Writer, img image.Image, opt PNGOptions) error {
	return pngenc.EncodeContext(ctx, w, img, opt)
}

// EncodePNGRows writes a width x height RGBA PNG whose rows come from row on demand:
// only the strips in flight are in memory (about 2*Workers strips behind the current
// row may still be asked for).
func EncodePNGRows(ctx context.Context, w io.Writer, width, height int, row PNGRowFunc, opt PNGOptions) error {
	return pngenc.EncodeNRGBARows(ctx, w, width, height, row, opt)
}
