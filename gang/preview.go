package gang

import (
	"hash/fnv"
	"image"
	"image/color"
	"image/draw"
	"path"
)

// Preview draws sheet i of l at most maxW pixels wide for print staff: the sheet in
// light grey, each copy as a box coloured by its order (rotated copies hatched) with
// the order number, or the file name for loose files, when it fits.
func (l *Layout) Preview(i, maxW int) *image.NRGBA {
	s := l.Sheets[i]
	scale := min(1, float64(maxW)/float64(s.Width))
	px := func(v int) int { return int(float64(v) * scale) }
	w, h := max(1, px(s.Width)), max(1, px(s.Length))
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Rect, image.NewUniform(color.NRGBA{0xee, 0xee, 0xee, 0xff}), image.Point{}, draw.Src)
	g := newGlyphs()
	for _, p := range s.Placements {
		d := l.Designs[p.Design]
		r := image.Rect(px(p.X), px(p.Y), max(px(p.X)+1, px(p.X+p.W)), max(px(p.Y)+1, px(p.Y+p.H)))
		fill := orderColour(d.OrderID + "\x00" + d.Key)
		draw.Draw(img, r, image.NewUniform(fill), image.Point{}, draw.Src)
		outline(img, r, color.NRGBA{0x33, 0x33, 0x33, 0xff})
		if p.Rotation != 0 {
			for y := r.Min.Y; y < r.Max.Y; y++ {
				for x := r.Min.X; x < r.Max.X; x++ {
					if (x+y)%8 == 0 {
						img.SetNRGBA(x, y, color.NRGBA{0x55, 0x55, 0x55, 0xff})
					}
				}
			}
		}
		text := path.Base(d.Key)
		if d.OrderID != "" {
			text = d.OrderID
		}
		drawText(img, &g, r.Min.X+2, r.Min.Y+2, text, r)
	}
	return img
}

// orderColour is a light colour fixed by the text's hash: the copies of one order
// share it.
func orderColour(s string) color.NRGBA {
	h := fnv.New32a()
	h.Write([]byte(s))
	v := h.Sum32()
	return color.NRGBA{0x90 + uint8(v)%0x60, 0x90 + uint8(v>>8)%0x60, 0x90 + uint8(v>>16)%0x60, 0xff}
}

func outline(img *image.NRGBA, r image.Rectangle, c color.NRGBA) {
	for x := r.Min.X; x < r.Max.X; x++ {
		img.SetNRGBA(x, r.Min.Y, c)
		img.SetNRGBA(x, r.Max.Y-1, c)
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		img.SetNRGBA(r.Min.X, y, c)
		img.SetNRGBA(r.Max.X-1, y, c)
	}
}

// drawText writes text in the 7x13 face at (x, y), clipped to clip; characters that
// do not fit whole are left out.
func drawText(img *image.NRGBA, g *glyphs, x, y int, text string, clip image.Rectangle) {
	if y+glyphH > clip.Max.Y {
		return
	}
	for i := 0; i < len(text); i++ {
		if x+glyphW > clip.Max.X {
			return
		}
		for gy := 0; gy < glyphH; gy++ {
			bits := g.row(text[i], gy)
			for gx := 0; gx < glyphW; gx++ {
				if bits&(1<<gx) != 0 {
					img.SetNRGBA(x+gx, y+gy, color.NRGBA{0, 0, 0, 0xff})
				}
			}
		}
		x += glyphW
	}
}
