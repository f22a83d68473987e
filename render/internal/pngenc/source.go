package pngenc

import (
	"encoding/binary"
	"image"
	"image/color"
	"sync"
)

// PNG colour types written by this package (PNG spec 11.2.2).
const (
	colorGray = 0
	colorRGB  = 2
	colorRGBA = 6
)

// source yields the raw (unfiltered) PNG scanlines of an image, 8 bits per sample.
type source struct {
	width, height int
	bpp           int  // bytes per pixel: 1 (gray), 3 (RGB) or 4 (RGBA)
	colorType     byte // colorGray, colorRGB or colorRGBA
	// row returns scanline y (0-based from the top of the bounds). It returns either a
	// slice of the caller's pixel buffer, when the memory layout already matches (no
	// copy), or scratch filled in. scratch has width*bpp bytes. The returned slice is
	// only read, never written.
	row func(y int, scratch []byte) []byte
	// check, when set, reports whether row y agrees with the colour type; it runs
	// right after row, while the row is in cache (declaredOpaqueSource).
	check func(y int) bool
}

// newSource picks the row reader for img: fast paths for the types a renderer produces,
// a generic per-pixel conversion through color.NRGBAModel otherwise.
func newSource(img image.Image, workers int) source {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	s := source{width: w, height: h}
	switch m := img.(type) {
	case *image.RGBA:
		if opaqueParallel(m.Pix, m.Stride, w, h, workers) {
			return opaqueRGBASource(m)
		}
		s.bpp, s.colorType = 4, colorRGBA
		s.row = func(y int, dst []byte) []byte {
			off := y * m.Stride
			unpremultiply(dst, m.Pix[off:off+4*w])
			return dst
		}
	case *image.NRGBA:
		if opaqueParallel(m.Pix, m.Stride, w, h, workers) {
			s.bpp, s.colorType = 3, colorRGB
			s.row = func(y int, dst []byte) []byte {
				off := y * m.Stride
				rgbaToRGB(dst, m.Pix[off:off+4*w])
				return dst
			}
		} else {
			s.bpp, s.colorType = 4, colorRGBA
			s.row = func(y int, _ []byte) []byte {
				off := y * m.Stride
				return m.Pix[off : off+4*w]
			}
		}
	case *image.Gray:
		s.bpp, s.colorType = 1, colorGray
		s.row = func(y int, _ []byte) []byte {
			off := y * m.Stride
			return m.Pix[off : off+w]
		}
	case *image.Gray16:
		// 16-bit samples keep their high byte, which is what color.GrayModel and
		// color.NRGBAModel do for 16-bit grays.
		s.bpp, s.colorType = 1, colorGray
		s.row = func(y int, dst []byte) []byte {
			src := m.Pix[y*m.Stride:]
			for x := range dst {
				dst[x] = src[2*x]
			}
			return dst
		}
	default:
		s.bpp, s.colorType = 4, colorRGBA
		if o, ok := img.(interface{ Opaque() bool }); ok && o.Opaque() {
			s.bpp, s.colorType = 3, colorRGB
		}
		bpp := s.bpp
		s.row = func(y int, dst []byte) []byte {
			for x := 0; x < w; x++ {
				c := color.NRGBAModel.Convert(img.At(b.Min.X+x, b.Min.Y+y)).(color.NRGBA)
				d := dst[x*bpp:]
				d[0], d[1], d[2] = c.R, c.G, c.B
				if bpp == 4 {
					d[3] = c.A
				}
			}
			return dst
		}
	}
	return s
}

// opaqueRGBASource reads an *image.RGBA whose pixels are all opaque as RGB.
func opaqueRGBASource(m *image.RGBA) source {
	w, h := m.Rect.Dx(), m.Rect.Dy()
	return source{
		width: w, height: h, bpp: 3, colorType: colorRGB,
		row: func(y int, dst []byte) []byte {
			off := y * m.Stride
			rgbaToRGB(dst, m.Pix[off:off+4*w])
			return dst
		},
	}
}

// declaredOpaqueSource is opaqueRGBASource for an image the caller declares opaque
// (Options.Opaque), each row checked as it is read.
func declaredOpaqueSource(m *image.RGBA) source {
	s := opaqueRGBASource(m)
	w := m.Rect.Dx()
	s.check = func(y int) bool { return opaqueRows(m.Pix, m.Stride, w, y, y+1, nil) }
	return s
}

// rawSource reads tightly or loosely packed 8-bit pixels (bpp bytes each) from pix.
func rawSource(pix []byte, width, height, stride, bpp int, colorType byte) source {
	n := width * bpp
	return source{
		width: width, height: height, bpp: bpp, colorType: colorType,
		row: func(y int, _ []byte) []byte {
			off := y * stride
			return pix[off : off+n]
		},
	}
}

// rgbaToRGB drops the alpha byte of opaque 4-byte pixels.
func rgbaToRGB(dst, src []byte) {
	n := len(src) / 4
	dst = dst[:3*n]
	src = src[:4*n]
	// Four pixels per PSHUFB on amd64 (rgb_amd64.s), then the rest in Go.
	k := rgbBlocks(n)
	rgbaToRGBBlocks(dst, src, k)
	i, j := 16*k, 12*k
	// Two pixels per 64-bit load; the 8-byte store spills two bytes that the next
	// iteration overwrites, so stop while 8 bytes of dst remain.
	for ; i+8 <= len(src) && j+8 <= len(dst); i, j = i+8, j+6 {
		v := binary.LittleEndian.Uint64(src[i:])
		binary.LittleEndian.PutUint64(dst[j:], v&0xffffff|(v>>8)&0xffffff000000)
	}
	for ; i < len(src); i, j = i+4, j+3 {
		s := src[i : i+3 : i+3]
		d := dst[j : j+3 : j+3]
		d[0], d[1], d[2] = s[0], s[1], s[2]
	}
}

// unpremultiply converts premultiplied RGBA to straight alpha with the exact arithmetic
// of color.NRGBAModel, so a decoder that reads the file back as *image.NRGBA sees the
// same pixels that color.NRGBAModel.Convert would produce from the input.
func unpremultiply(dst, src []byte) {
	n := len(src) / 4
	dst = dst[:4*n]
	src = src[:4*n]
	for i := 0; i < len(src); i += 4 {
		s := src[i : i+4 : i+4]
		d := dst[i : i+4 : i+4]
		switch a := s[3]; a {
		case 0xff:
			d[0], d[1], d[2], d[3] = s[0], s[1], s[2], 0xff
		case 0:
			d[0], d[1], d[2], d[3] = 0, 0, 0, 0
		default:
			a16 := uint32(a) * 0x101
			d[0] = uint8((uint32(s[0]) * 0x101 * 0xffff / a16) >> 8)
			d[1] = uint8((uint32(s[1]) * 0x101 * 0xffff / a16) >> 8)
			d[2] = uint8((uint32(s[2]) * 0x101 * 0xffff / a16) >> 8)
			d[3] = a
		}
	}
}

// opaqueParallel reports whether every pixel of a 4-byte-per-pixel buffer has alpha
// 0xff, scanning row bands on up to workers goroutines. A band that finds a
// translucent pixel stops the others early: renders with a transparent background
// answer at their first pixel.
func opaqueParallel(pix []byte, stride, w, h, workers int) bool {
	const minRowsPerBand = 64
	bands := min(workers, (h+minRowsPerBand-1)/minRowsPerBand)
	if bands <= 1 {
		return opaqueRows(pix, stride, w, 0, h, nil)
	}
	var (
		wg     sync.WaitGroup
		mu     sync.Mutex
		found  bool
		stop   = make(chan struct{})
		closed bool
	)
	per := (h + bands - 1) / bands
	for y0 := 0; y0 < h; y0 += per {
		y1 := min(y0+per, h)
		wg.Go(func() {
			if !opaqueRows(pix, stride, w, y0, y1, stop) {
				mu.Lock()
				found = true
				if !closed {
					closed = true
					close(stop)
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return !found
}

// opaqueRows checks rows [y0,y1). A closed stop channel ends the scan early (the result
// is then irrelevant).
func opaqueRows(pix []byte, stride, w, y0, y1 int, stop <-chan struct{}) bool {
	const alphaMask = 0xff000000_ff000000 // alpha bytes of two little-endian pixels
	for y := y0; y < y1; y++ {
		if stop != nil && y&63 == 0 {
			select {
			case <-stop:
				return true
			default:
			}
		}
		row := pix[y*stride : y*stride+4*w]
		// 64 bytes per step on amd64 (rgb_amd64.s), the rest two words at a time.
		i := alphaBlocks(len(row))
		if !alphaOpaque64(row[:i]) {
			return false
		}
		for ; i+16 <= len(row); i += 16 {
			a := binary.LittleEndian.Uint64(row[i:]) & binary.LittleEndian.Uint64(row[i+8:])
			if a&alphaMask != alphaMask {
				return false
			}
		}
		for i += 3; i < len(row); i += 4 {
			if row[i] != 0xff {
				return false
			}
		}
	}
	return true
}
