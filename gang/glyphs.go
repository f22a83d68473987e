package gang

import (
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

// Labels use basicfont's 7x13 bitmap face: small, crisp when scaled by whole pixels,
// and built in (no font file at run time).
const (
	glyphW = 7
	glyphH = 13
)

// glyphs holds one bitmask per row of each printable ASCII character (bit gx set =
// ink at column gx); other bytes print as '?'.
type glyphs [128][glyphH]uint8

func newGlyphs() glyphs {
	var g glyphs
	face := basicfont.Face7x13
	for ch := 32; ch < 127; ch++ {
		dr, mask, mp, _, ok := face.Glyph(fixed.P(0, face.Ascent), rune(ch))
		if !ok {
			continue
		}
		for y := dr.Min.Y; y < dr.Max.Y; y++ {
			for x := dr.Min.X; x < dr.Max.X; x++ {
				if y < 0 || y >= glyphH || x < 0 || x >= glyphW {
					continue
				}
				if _, _, _, a := mask.At(mp.X+x-dr.Min.X, mp.Y+y-dr.Min.Y).RGBA(); a > 0x7fff {
					g[ch][y] |= 1 << x
				}
			}
		}
	}
	return g
}

func (g *glyphs) row(ch byte, y int) uint8 {
	if ch < 32 || ch >= 127 {
		ch = '?'
	}
	if y < 0 || y >= glyphH {
		return 0
	}
	return g[ch][y]
}
