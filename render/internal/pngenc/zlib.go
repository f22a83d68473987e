package pngenc

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
)

// EncodeZlib writes 8-bit pixels (bpp bytes each, 1 to 4, row y starting at
// pix[y*stride]) as one zlib stream of PNG-filtered scanlines, each row led by its
// filter byte: what a PDF image stream with /FlateDecode and /DecodeParms
// << /Predictor 15 /Colors bpp /BitsPerComponent 8 /Columns width >> holds. The
// strips are filtered and deflated in parallel exactly as for a PNG (Options.Level,
// Workers, StripRows and Filter apply; DPI and SRGB are ignored).
func EncodeZlib(ctx context.Context, w io.Writer, pix []byte, width, height, stride, bpp int, opt Options) error {
	cfg, err := opt.resolve()
	if err != nil {
		return err
	}
	if err := checkSize(width, height); err != nil {
		return err
	}
	if bpp < 1 || bpp > 4 {
		return &InputError{Reason: fmt.Sprintf("%d bytes per pixel outside 1..4", bpp)}
	}
	// In uint64: (height-1)*stride of two 31-bit values cannot overflow it.
	if stride < bpp*width || uint64(len(pix)) < uint64(height-1)*uint64(stride)+uint64(bpp*width) {
		return &InputError{Reason: fmt.Sprintf("buffer of %d bytes with stride %d too short for %dx%d at %d bytes a pixel", len(pix), stride, width, height, bpp)}
	}
	adler, err := deflateStrips(ctx, rawSource(pix, width, height, stride, bpp, 0), cfg, klauspostFlate, nil, func(b []byte) error {
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("pngenc: write zlib data: %w", err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	var trailer [4]byte
	binary.BigEndian.PutUint32(trailer[:], adler)
	if _, err := w.Write(trailer[:]); err != nil {
		return fmt.Errorf("pngenc: write zlib trailer: %w", err)
	}
	return nil
}
