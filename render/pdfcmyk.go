package render

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"image"
	"image/color"

	gofpdf "codeberg.org/go-pdf/fpdf"
	"github.com/klauspost/compress/zlib"
)

// The CMYK side of the vector PDF backend (docs/colour.md): colours are written as
// DeviceCMYK operators ("k", "K") from the output profile, never as RGB; pure black
// text and paint go to K alone and overprint; pictures are converted to CMYK and
// embedded Flate-compressed at their native resolution.

// setFill sets the fill colour: RGB for sRGB output, else the profile's CMYK (pure
// black as K only, overprinting when opaque).
func (v *vectorPage) setFill(c color.NRGBA) {
	if v.ink == nil {
		v.pdf.SetFillColor(int(c.R), int(c.G), int(c.B))
		return
	}
	px, kOnly := v.ink.vector(c)
	v.pdf.RawWriteStr(cmykOp(px, "k"))
	v.overprintIf(kOnly)
}

// setStroke sets the stroke colour as setFill does the fill colour.
func (v *vectorPage) setStroke(c color.NRGBA) {
	if v.ink == nil {
		v.pdf.SetDrawColor(int(c.R), int(c.G), int(c.B))
		return
	}
	px, kOnly := v.ink.vector(c)
	v.pdf.RawWriteStr(cmykOp(px, "K"))
	v.overprintIf(kOnly)
}

// setTextColour sets the colour text is filled with. fpdf writes no colour for text
// when it believes the fill colour equals the text colour; after a layer's Q that
// belief can be stale, so for RGB both are set. In CMYK neither is ever set through
// fpdf (both stay its initial black, so it writes no colour of its own) and the
// operator is written directly.
func (v *vectorPage) setTextColour(c color.NRGBA) {
	if v.ink == nil {
		v.pdf.SetTextColor(int(c.R), int(c.G), int(c.B))
		v.pdf.SetFillColor(int(c.R), int(c.G), int(c.B))
		return
	}
	v.setFill(c)
}

// overprintIf turns overprint on for opaque K-only black; anything else knocks out.
func (v *vectorPage) overprintIf(kOnly bool) {
	if kOnly && v.alpha == 1 {
		if !v.overprint {
			v.pdf.SetAlpha(1, blendOverprint)
			v.overprint = true
		}
		return
	}
	v.knockout()
}

// knockout turns overprint off when it is on (setAlpha's graphics states do not
// mention overprint, so they would leave it on).
func (v *vectorPage) knockout() {
	if v.overprint {
		v.pdf.SetAlpha(1, blendKnockout)
		v.overprint = false
	}
}

func cmykOp(px [4]uint8, op string) string {
	return fmt.Sprintf("%.4g %.4g %.4g %.4g %s\n", float64(px[0])/255, float64(px[1])/255, float64(px[2])/255, float64(px[3])/255, op)
}

// cmykImage embeds the layer's picture converted to CMYK at its native pixel size,
// with its alpha as a soft mask.
func (v *vectorPage) cmykImage(l *Layer) error {
	im := l.Image
	raw, err := cmykRaw(im.Image, im.HasAlpha, v.ink)
	if err != nil {
		return fmt.Errorf("render: view %s: element %s: %w", v.viewID, l.ElementID, err)
	}
	name := fmt.Sprintf("cmyk%x", sha256.Sum256(raw.data))[:40]
	if v.pdf.GetImageInfo(carriedName(name)) == nil {
		if err := registerRawImage(v.pdf, name, raw); err != nil {
			return err
		}
	}
	v.setAlpha(l.Opacity)
	v.pdf.ImageOptions(carriedName(name), 0, 0, float64(im.Width), float64(im.Height), false, gofpdf.ImageOptions{}, 0, "")
	return nil
}

// cmykRaw converts an image to an inverted-CMYK Flate stream (see rawImage) and,
// when it has alpha, a soft mask.
func cmykRaw(img image.Image, hasAlpha bool, ink *inkMeter) (rawImage, error) {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	var data, mask bytes.Buffer
	zd, _ := zlib.NewWriterLevel(&data, zlib.BestSpeed)
	var zm *zlib.Writer
	if hasAlpha {
		zm, _ = zlib.NewWriterLevel(&mask, zlib.BestSpeed)
	}
	cmyk := make([]byte, 4*w*64)
	alpha := make([]byte, 1+w)
	var werr error
	nrgbaRows(img, 64, func(_ int, pix []byte) {
		if werr != nil {
			return
		}
		out := cmyk[:len(pix)]
		ink.row(out, pix)
		for i := range out {
			out[i] = 255 - out[i] // stored inverted: fpdf declares Decode [1 0 1 0 1 0 1 0]
		}
		if _, err := zd.Write(out); err != nil {
			werr = err
			return
		}
		if zm != nil {
			for r := 0; r < len(pix)/(4*w); r++ {
				alpha[0] = 0 // PNG filter "none" for the soft mask's predictor
				for x := range w {
					alpha[1+x] = pix[r*4*w+4*x+3]
				}
				if _, err := zm.Write(alpha); err != nil {
					werr = err
					return
				}
			}
		}
	})
	if werr != nil {
		return rawImage{}, werr
	}
	if err := zd.Close(); err != nil {
		return rawImage{}, err
	}
	raw := rawImage{w: w, h: h, cs: "DeviceCMYK", data: data.Bytes()}
	if zm != nil {
		if err := zm.Close(); err != nil {
			return rawImage{}, err
		}
		raw.smask = mask.Bytes()
	}
	return raw, nil
}

// addRasterPageCMYK is pdf-simple in CMYK: the view rasterized, flattened on white
// paper and converted to CMYK, one Flate image filling the page.
func (r *Renderer) addRasterPageCMYK(ctx context.Context, pdf *gofpdf.Fpdf, s *Scene, ink *inkMeter) error {
	canvas, err := r.Rasterize(ctx, s)
	if err != nil {
		return err
	}
	flattenOnWhite(canvas)
	raw, err := cmykRaw(canvas, false, ink)
	if err != nil {
		return fmt.Errorf("render: view %s: raster page: %w", s.ViewID, err)
	}
	name := fmt.Sprintf("view%x", sha256.Sum256([]byte(s.ViewID)))[:24]
	pdf.AddPageFormat("P", gofpdf.SizeType{Wd: s.PageWidthPt, Ht: s.PageHeightPt})
	if err := registerRawImage(pdf, name, raw); err != nil {
		return fmt.Errorf("render: view %s: raster page: %w", s.ViewID, err)
	}
	pdf.ImageOptions(carriedName(name), 0, 0, s.PageWidthPt, s.PageHeightPt, false, gofpdf.ImageOptions{}, 0, "")
	if err := pdf.Error(); err != nil {
		return fmt.Errorf("render: view %s: raster page: %w", s.ViewID, err)
	}
	return nil
}

// paintColour is an SVG paint (0..1 channels) as an opaque 8-bit colour.
func paintColour(r, g, b float64) color.NRGBA {
	return color.NRGBA{uint8(paintByte(r)), uint8(paintByte(g)), uint8(paintByte(b)), 255}
}

// inkMeter returns a converter for a CMYK output, nil for sRGB.
func (r *Renderer) inkMeter() *inkMeter {
	if !r.print.CMYK() {
		return nil
	}
	return &inkMeter{p: r.print}
}

// report records the highest ink coverage in the scene (for the result).
func (m *inkMeter) report(s *Scene) {
	if m != nil {
		s.MaxInkPercent = max(s.MaxInkPercent, m.percent())
	}
}
