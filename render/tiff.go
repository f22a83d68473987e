package render

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"image"
	"io"
	"math"
	"slices"
	"sync"
	"unicode/utf16"

	"github.com/klauspost/compress/zlib"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/contour"
)

// ContentTypeTIFF is the content type of the tiff export.
const ContentTypeTIFF = "image/tiff"

// The tiff export type (docs/colour.md "CMYK TIFF"): the view rasterized at the
// export dpi, flattened on white paper, converted to the output profile's CMYK
// (pure black to K only, ink cap) and written as a baseline TIFF: one IFD, 8-bit
// chunky CMYK (PhotometricInterpretation 5, InkSet 1), Adobe Deflate strips with the
// horizontal predictor, the dpi in XResolution / YResolution and the profile in the
// ICC tag (34675). golang.org/x/image/tiff reads CMYK but cannot write it.
//
// The conversion runs in strips; only the compressed strips are held, because the
// IFD at the front of the file must give every strip's offset and length.
//
// A white plate (Print.White) is a fifth sample per pixel, a named spot channel as
// Photoshop writes one (docs/rendering.md "Cut contours and white plates"):
// ExtraSamples 0 (unspecified: not alpha), the channel's name and its display as a
// spot in the Photoshop image resources (tag 34377: 0x03EE alpha names, 0x0415
// Unicode alpha names, 0x03EF and 0x0435 DisplayInfo with kind "spot"), which is
// what RIPs read for TIFF spot channels (Harlequin documents exactly these), and
// InkNames / NumberOfInks naming all five inks for TIFF 6 readers such as libtiff's.
// InkSet stays 1 (CMYK): the first four samples are the ICC profile's CMYK. The cut
// stays a vector sidecar (-cut.pdf): a cutter follows a path, not pixels.

// TIFF tags written.
const (
	tagImageWidth       = 256
	tagImageLength      = 257
	tagBitsPerSample    = 258
	tagCompression      = 259
	tagPhotometric      = 262
	tagStripOffsets     = 273
	tagSamplesPerPixel  = 277
	tagRowsPerStrip     = 278
	tagStripByteCounts  = 279
	tagXResolution      = 282
	tagYResolution      = 283
	tagPlanarConfig     = 284
	tagResolutionUnit   = 296
	tagPredictor        = 317
	tagInkSet           = 332
	tagInkNames         = 333
	tagNumberOfInks     = 334
	tagExtraSamples     = 338
	tagPhotoshop        = 34377
	tagICCProfile       = 34675
	tiffByte            = 1
	tiffASCII           = 2
	tiffShort           = 3
	tiffLong            = 4
	tiffRational        = 5
	tiffUndefined       = 7
	compressionDeflate  = 8
	photometricSep      = 5
	predictorHorizontal = 2
)

// tiffStripBytes is the raw size a strip aims at: small enough to spread over
// workers and keep little uncompressed data around, large enough for deflate.
const tiffStripBytes = 1 << 18

// writeTIFF rasterizes the scene and writes it as a CMYK TIFF, with the white plate
// as a spot channel and the cut as a -cut.pdf sidecar.
func (r *Renderer) writeTIFF(ctx context.Context, w io.Writer, d *model.DesignDetail, s *Scene) ([]Sidecar, error) {
	canvas, err := r.Rasterize(ctx, s)
	if err != nil {
		return nil, err
	}
	var pl *plates
	var sidecars []Sidecar
	if r.hasPlates() {
		// From the art's alpha, before it is flattened on paper.
		if pl, err = r.makePlates(ctx, s, canvas); err != nil {
			return nil, err
		}
		if r.print.Cut != nil {
			b, err := r.cutPDF(d, s, pl)
			if err != nil {
				return nil, fmt.Errorf("render: view %s: cut: %w", s.ViewID, err)
			}
			sidecars = append(sidecars, Sidecar{Suffix: SidecarCut, ContentType: ContentTypePDF, Data: b})
		}
	}
	flattenOnWhite(canvas)
	h := tiffHeader{width: s.WidthPx, height: s.HeightPx, dpi: s.DPI, icc: r.print.Profile.ICC, samples: 4}
	var white *contour.Mask
	if pl != nil && pl.white != nil {
		white, h.samples, h.spot = pl.white, 5, r.print.White.spot()
	}
	h.rowsPerStrip = tiffRowsPerStrip(s.WidthPx, h.samples)
	strips, maxInk, err := r.tiffStrips(ctx, canvas, white, h.samples)
	if err != nil {
		return nil, fmt.Errorf("render: view %s: tiff: %w", s.ViewID, err)
	}
	s.MaxInkPercent = max(s.MaxInkPercent, maxInk)
	if err := writeTIFFFile(w, h, strips); err != nil {
		return nil, fmt.Errorf("render: view %s: tiff: %w", s.ViewID, err)
	}
	return sidecars, nil
}

func tiffRowsPerStrip(width, samples int) int { return max(1, tiffStripBytes/(samples*width)) }

// tiffStrips converts and compresses the canvas strip by strip on the workers; the
// result holds the compressed strips in order and the highest ink coverage. With
// white (samples 5) each pixel's fifth sample is the white plate: 255 full ink.
func (r *Renderer) tiffStrips(ctx context.Context, canvas *image.RGBA, white *contour.Mask, samples int) ([][]byte, float64, error) {
	b := canvas.Bounds()
	w, h := b.Dx(), b.Dy()
	rows := tiffRowsPerStrip(w, samples)
	n := (h + rows - 1) / rows
	strips := make([][]byte, n)
	meters := make([]inkMeter, n)
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(1, r.opts.Workers) {
		wg.Go(func() {
			buf := make([]byte, samples*w*rows)
			var cmyk []byte
			if samples != 4 {
				cmyk = make([]byte, 4*w)
			}
			for i := range next {
				meters[i].p = r.print
				strips[i], errs[i] = tiffStrip(canvas, white, i*rows, min(h, (i+1)*rows), buf, cmyk, &meters[i])
			}
		})
	}
	var err error
	for i := range n {
		if err = ctx.Err(); err != nil {
			break
		}
		next <- i
	}
	close(next)
	wg.Wait()
	if err != nil {
		return nil, 0, err
	}
	top := 0.0
	for i := range n {
		if errs[i] != nil {
			return nil, 0, errs[i]
		}
		top = max(top, meters[i].percent())
	}
	return strips, top, nil
}

// tiffStrip converts rows y0..y1 of the (opaque) canvas to CMYK, interleaves the
// white plate's sample when there is one (cmyk is then a row of scratch), applies
// the horizontal predictor and deflates them.
func tiffStrip(canvas *image.RGBA, white *contour.Mask, y0, y1 int, buf, cmyk []byte, ink *inkMeter) ([]byte, error) {
	w := canvas.Bounds().Dx()
	spp := 4
	if white != nil {
		spp = 5
	}
	row := spp * w
	out := buf[:row*(y1-y0)]
	for y := y0; y < y1; y++ {
		off := canvas.PixOffset(canvas.Rect.Min.X, canvas.Rect.Min.Y+y)
		dst := out[(y-y0)*row : (y-y0+1)*row]
		if white == nil {
			ink.row(dst, canvas.Pix[off:off+4*w])
		} else {
			ink.row(cmyk, canvas.Pix[off:off+4*w])
			plate := white.Pix[y*white.W : (y+1)*white.W]
			for x := range w {
				copy(dst[5*x:5*x+4], cmyk[4*x:4*x+4])
				if plate[x] != 0 {
					dst[5*x+4] = 255
				} else {
					dst[5*x+4] = 0
				}
			}
		}
		// Predictor 2: each sample minus the same sample of the pixel to its left.
		for i := row - 1; i >= spp; i-- {
			dst[i] -= dst[i-spp]
		}
	}
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	if err != nil {
		return nil, err
	}
	if _, err := zw.Write(out); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return z.Bytes(), nil
}

// tiffHeader is what the IFD says besides the strips.
type tiffHeader struct {
	width, height, rowsPerStrip int
	dpi                         float64
	icc                         []byte
	// samples is 4 (CMYK) or 5 (CMYK and the spot channel named spot).
	samples int
	spot    string
}

// writeTIFFFile writes header, IFD, out-of-line values and strips (little endian).
func writeTIFFFile(w io.Writer, h tiffHeader, strips [][]byte) error {
	type entry struct {
		tag, typ uint16
		count    uint32
		value    []byte // inline when <= 4 bytes, else written after the IFD
	}
	le := binary.LittleEndian
	short := func(v ...uint16) []byte {
		b := make([]byte, 2*len(v))
		for i, x := range v {
			le.PutUint16(b[2*i:], x)
		}
		return b
	}
	long := func(v ...uint32) []byte {
		b := make([]byte, 4*len(v))
		for i, x := range v {
			le.PutUint32(b[4*i:], x)
		}
		return b
	}
	den := uint32(100)
	res := long(uint32(math.Round(h.dpi*float64(den))), den)
	counts := make([]uint32, len(strips))
	for i, s := range strips {
		counts[i] = uint32(len(s))
	}
	spp := max(4, h.samples)
	bits := make([]uint16, spp)
	for i := range bits {
		bits[i] = 8
	}
	entries := []entry{
		{tagImageWidth, tiffLong, 1, long(uint32(h.width))},
		{tagImageLength, tiffLong, 1, long(uint32(h.height))},
		{tagBitsPerSample, tiffShort, uint32(spp), short(bits...)},
		{tagCompression, tiffShort, 1, short(compressionDeflate)},
		{tagPhotometric, tiffShort, 1, short(photometricSep)},
		{tagStripOffsets, tiffLong, uint32(len(strips)), nil}, // filled below
		{tagSamplesPerPixel, tiffShort, 1, short(uint16(spp))},
		{tagRowsPerStrip, tiffLong, 1, long(uint32(h.rowsPerStrip))},
		{tagStripByteCounts, tiffLong, uint32(len(strips)), long(counts...)},
		{tagXResolution, tiffRational, 1, res},
		{tagYResolution, tiffRational, 1, res},
		{tagPlanarConfig, tiffShort, 1, short(1)},
		{tagResolutionUnit, tiffShort, 1, short(2)},
		{tagPredictor, tiffShort, 1, short(predictorHorizontal)},
		{tagInkSet, tiffShort, 1, short(1)},
	}
	if spp > 4 {
		names := "Cyan\x00Magenta\x00Yellow\x00Black\x00" + h.spot + "\x00"
		entries = append(entries,
			entry{tagInkNames, tiffASCII, uint32(len(names)), []byte(names)},
			entry{tagNumberOfInks, tiffShort, 1, short(uint16(spp))},
			entry{tagExtraSamples, tiffShort, 1, short(0)})
		ps := photoshopSpot(h.spot)
		entries = append(entries, entry{tagPhotoshop, tiffByte, uint32(len(ps)), ps})
	}
	if len(h.icc) > 0 {
		entries = append(entries, entry{tagICCProfile, tiffUndefined, uint32(len(h.icc)), h.icc})
	}
	// Layout: header (8), IFD (2 + 12n + 4), out-of-line values (word aligned), strips.
	ifdSize := 2 + 12*len(entries) + 4
	extra := 0
	for i := range entries {
		size := len(entries[i].value)
		if entries[i].tag == tagStripOffsets {
			size = 4 * len(strips)
		}
		if size > 4 {
			extra += size + size%2
		}
	}
	data := uint32(8 + ifdSize + extra)
	offsets := make([]uint32, len(strips))
	for i, s := range strips {
		offsets[i] = data
		data += uint32(len(s))
	}
	if uint64(data) > math.MaxUint32 {
		return fmt.Errorf("file of %d bytes exceeds the 4 GiB of a classic TIFF", data)
	}
	for i := range entries {
		if entries[i].tag == tagStripOffsets {
			entries[i].value = long(offsets...)
		}
	}
	var head bytes.Buffer
	head.WriteString("II")
	head.Write(short(42))
	head.Write(long(8))
	head.Write(short(uint16(len(entries))))
	at := uint32(8 + ifdSize)
	var tail bytes.Buffer
	for _, e := range entries {
		head.Write(short(e.tag, e.typ))
		head.Write(long(e.count))
		if len(e.value) <= 4 {
			var v [4]byte
			copy(v[:], e.value)
			head.Write(v[:])
			continue
		}
		head.Write(long(at))
		tail.Write(e.value)
		if len(e.value)%2 == 1 {
			tail.WriteByte(0)
		}
		at += uint32(len(e.value) + len(e.value)%2)
	}
	head.Write(long(0)) // no next IFD
	if _, err := w.Write(head.Bytes()); err != nil {
		return err
	}
	if _, err := w.Write(tail.Bytes()); err != nil {
		return err
	}
	for _, s := range strips {
		if _, err := w.Write(s); err != nil {
			return err
		}
	}
	return nil
}

// photoshopSpot is the Photoshop image resources (TIFF tag 34377) declaring the one
// extra channel a spot channel named name, shown as white at full solidity: its
// alpha name (0x03EE, a Pascal string), its Unicode name (0x0415), and its
// DisplayInfo in the old (0x03EF) and the CS3 (0x0435) forms, kind 2 (spot).
func photoshopSpot(name string) []byte {
	be := binary.BigEndian
	var out bytes.Buffer
	block := func(id uint16, data []byte) {
		out.WriteString("8BIM")
		var b [2]byte
		be.PutUint16(b[:], id)
		out.Write(b[:])
		out.Write([]byte{0, 0}) // empty resource name, padded to even
		var n [4]byte
		be.PutUint32(n[:], uint32(len(data)))
		out.Write(n[:])
		out.Write(data)
		if len(data)%2 == 1 {
			out.WriteByte(0)
		}
	}
	pascal := append([]byte{byte(len(name))}, name...) // a spot name is ASCII, at most 63
	block(0x03EE, pascal)
	units := utf16.Encode([]rune(name))
	uni := make([]byte, 4, 4+2*len(units)+2)
	be.PutUint32(uni, uint32(len(units)+1)) // the count includes the terminating 0
	for _, u := range units {
		uni = be.AppendUint16(uni, u)
	}
	uni = be.AppendUint16(uni, 0)
	block(0x0415, uni)
	// Colour space 0 (RGB) white, 16 bits a component; solidity 100 %; kind 2: spot.
	display := []byte{0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 100, 2}
	block(0x03EF, append(slices.Clone(display), 0))       // 14 bytes: one byte of padding
	block(0x0435, append([]byte{0, 0, 0, 1}, display...)) // version 1, then 13 bytes
	return out.Bytes()
}

// softProof turns the canvas into the press's appearance in sRGB: every pixel goes
// to the output CMYK (as the PDF and TIFF do) and back through the proof transform,
// so the PNG shows on screen what the press will print. Alpha is kept.
func (r *Renderer) softProof(canvas *image.RGBA) {
	proof := r.print.Profile.Proof
	chunk := 64 * canvas.Stride
	forEachRowBand(canvas, r.opts.Workers, func(band []byte) {
		ink := inkMeter{p: r.print}
		cmyk := make([]byte, min(chunk, len(band)))
		rgb := make([]byte, len(cmyk))
		for len(band) > 0 {
			pix := band[:min(chunk, len(band))]
			band = band[len(pix):]
			unpremultiply(pix)
			ink.row(cmyk[:len(pix)], pix)
			if bp, ok := proof.(bulkProof); ok {
				bp.ConvertCMYK(rgb[:len(pix)], cmyk[:len(pix)])
			} else {
				for i := 0; i+3 < len(pix); i += 4 {
					rgb[i], rgb[i+1], rgb[i+2] = proof.RGB(cmyk[i], cmyk[i+1], cmyk[i+2], cmyk[i+3])
				}
			}
			for i := 0; i+3 < len(pix); i += 4 {
				a := pix[i+3]
				pix[i], pix[i+1], pix[i+2] = premulByte(rgb[i], a), premulByte(rgb[i+1], a), premulByte(rgb[i+2], a)
			}
		}
	})
}

// bulkProof is the whole-row proof of render/colour.Proof: dst receives NRGBA (alpha
// 255) for each 4 CMYK bytes of src.
type bulkProof interface {
	ConvertCMYK(dst, src []byte)
}

func premulByte(v, a uint8) uint8 { return uint8((int(v)*int(a) + 127) / 255) }

// forEachRowBand runs fn on row bands of the canvas's pixels, one band per worker.
func forEachRowBand(canvas *image.RGBA, workers int, fn func(pix []byte)) {
	h := canvas.Bounds().Dy()
	bands := max(1, min(workers, h))
	var wg sync.WaitGroup
	for i := range bands {
		y0, y1 := h*i/bands, h*(i+1)/bands
		wg.Go(func() { fn(canvas.Pix[y0*canvas.Stride : y1*canvas.Stride]) })
	}
	wg.Wait()
}
