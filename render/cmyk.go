package render

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	"github.com/printworker/printworker/render/internal/resample"
)

// CMYK conversion of colours and pixels for the print outputs (docs/colour.md
// "Black" and "Ink limit"): sRGB through the output profile, except pure black, which
// goes to 100 % K alone unless RichBlack is set; then the total ink is capped.

// inkMeter converts colours and remembers the highest total ink coverage it produced
// (0..400 %), which the manifest reports.
type inkMeter struct {
	p   *Print
	max int // highest c+m+y+k in 0..1020
}

// bulkCMYK is the whole-row conversion of render/colour.Transform: dst receives 4
// CMYK bytes for each 4 NRGBA bytes of src (alpha ignored). ConvertNRGBASerial works
// on the calling goroutine: every caller of inkMeter.row is already one of several
// workers, each with its own band of rows.
type bulkCMYK interface {
	ConvertNRGBASerial(dst, src []byte)
}

// vector converts a vector colour (text, SVG paint, background) and reports whether
// it is pure black going to K only (which then overprints).
func (m *inkMeter) vector(c color.NRGBA) (cmyk [4]uint8, kOnly bool) {
	if c.R == 0 && c.G == 0 && c.B == 0 && !m.p.RichBlack {
		cmyk = [4]uint8{0, 0, 0, 255}
		m.note(cmyk[:])
		return cmyk, true
	}
	cc, mm, yy, kk := m.p.Profile.ToCMYK.CMYK(c.R, c.G, c.B)
	cmyk = [4]uint8{cc, mm, yy, kk}
	limitInk(cmyk[:], m.p.InkLimit)
	m.note(cmyk[:])
	return cmyk, false
}

// row converts one row of NRGBA pixels into dst (4 bytes a pixel): pure black pixels
// to K only (unless RichBlack), the others through the profile, then the ink cap. It
// returns nothing; the meter keeps the maximum.
func (m *inkMeter) row(dst, src []byte) {
	if b, ok := m.p.Profile.ToCMYK.(bulkCMYK); ok {
		b.ConvertNRGBASerial(dst, src)
	} else {
		t := m.p.Profile.ToCMYK
		for i := 0; i+3 < len(src); i += 4 {
			dst[i], dst[i+1], dst[i+2], dst[i+3] = t.CMYK(src[i], src[i+1], src[i+2])
		}
	}
	rich := m.p.RichBlack
	limit := m.p.InkLimit
	top := m.max
	for i := 0; i+3 < len(src); i += 4 {
		px := dst[i : i+4 : i+4]
		if !rich && src[i]|src[i+1]|src[i+2] == 0 {
			px[0], px[1], px[2], px[3] = 0, 0, 0, 255
		} else if limit > 0 {
			limitInk(px, limit)
		}
		if s := int(px[0]) + int(px[1]) + int(px[2]) + int(px[3]); s > top && (src[i+3] != 0) {
			top = s
		}
	}
	m.max = top
}

func (m *inkMeter) note(px []uint8) {
	if s := int(px[0]) + int(px[1]) + int(px[2]) + int(px[3]); s > m.max {
		m.max = s
	}
}

// percent is the highest total ink coverage seen, in percent.
func (m *inkMeter) percent() float64 { return math.Round(float64(m.max)*1000/255) / 10 }

// limitInk scales cyan, magenta and yellow down, keeping black, so that the total
// coverage is at most limit percent (0: no limit). Keeping K keeps text and edges.
func limitInk(px []uint8, limit float64) {
	if limit <= 0 {
		return
	}
	capv := limit / 100 * 255
	total := float64(px[0]) + float64(px[1]) + float64(px[2]) + float64(px[3])
	if total <= capv+0.5 {
		return
	}
	cmy := total - float64(px[3])
	room := math.Max(0, capv-float64(px[3]))
	f := room / cmy
	for i := range 3 {
		px[i] = uint8(math.Floor(float64(px[i]) * f))
	}
}

// nrgbaBand is n rows of img from row y (an absolute coordinate) as non-premultiplied
// RGBA bytes in band's pixels, so a picture is converted band by band without a second
// full-size copy.
func nrgbaBand(img image.Image, y, n int, band *image.RGBA) []byte {
	b := img.Bounds()
	w := b.Dx()
	dst := band.SubImage(image.Rect(0, 0, w, n)).(*image.RGBA)
	switch src := img.(type) {
	case *image.NRGBA:
		// Already non-premultiplied: copy the rows.
		for r := range n {
			off := src.PixOffset(b.Min.X, y+r)
			copy(dst.Pix[r*dst.Stride:r*dst.Stride+4*w], src.Pix[off:off+4*w])
		}
	case *image.YCbCr:
		// A decoded JPEG (the common case): opaque, so already non-premultiplied.
		// The picture path's row converter (SIMD for 4:2:0 and 4:2:2) gives the same
		// bytes as draw.Draw's conversion (TestYCCSpanMatchesConversion) at a fraction
		// of its instructions; draw.Draw was 8 % of a CMYK PDF's CPU.
		fetch := resample.YCbCrRows(src)
		for r := range n {
			fetch(y+r, b.Min.X, b.Max.X, dst.Pix[r*dst.Stride:])
		}
	default:
		draw.Draw(dst, dst.Rect, img, image.Pt(b.Min.X, y), draw.Src)
		unpremultiply(dst.Pix[:n*dst.Stride])
	}
	return dst.Pix[:n*dst.Stride]
}

// unpremultiply turns premultiplied RGBA bytes into non-premultiplied ones in place.
func unpremultiply(p []byte) {
	for i := 0; i+3 < len(p); i += 4 {
		a := p[i+3]
		if a == 255 || a == 0 {
			continue
		}
		for j := range 3 {
			p[i+j] = uint8(min(255, (int(p[i+j])*255+int(a)/2)/int(a)))
		}
	}
}
