package render

import (
	"errors"
	"fmt"
	"image/color"
	"strings"

	"github.com/printworker/printworker/hub/model"
	"github.com/printworker/printworker/render/fonts"
	"github.com/printworker/printworker/render/svg"
	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// fabric.js text metrics (hub-gaps.md "Rendering conventions"): a line's unit height
// is 1.13 x fontsize, and the first baseline sits 0.879 x fontsize below the box top.
const (
	fabricLineUnit = 1.13
	fabricBaseline = 0.879
	// defaultFontSize is fabric.js's default fontSize, for text elements without one.
	defaultFontSize = 40
)

func (b *sceneBuilder) text(e *model.Element) error {
	if e.Value == nil {
		return nil
	}
	tr, err := e.Value.Translations()
	if err != nil {
		return inputErr(b.view.ID, e.ID, err, "text value")
	}
	s := tr.Pick(b.r.opts.Lang)
	if strings.TrimSpace(s) == "" {
		return nil
	}
	clip, err := b.clip(e)
	if err != nil {
		return err
	}
	f, err := b.fontFor(e)
	if err != nil {
		return err
	}
	size := float64(defaultFontSize)
	if e.Fontsize != nil && *e.Fontsize > 0 {
		size = *e.Fontsize
	}
	col := color.NRGBA{A: 255}
	if hex := e.ElementColor(); hex != "" {
		if col, err = parseHexColor(hex); err != nil {
			return inputErr(b.view.ID, e.ID, err, "text colour")
		}
	}
	align := "center"
	if e.Align != nil && *e.Align != "" {
		align = *e.Align
	}
	tl, missing, err := layoutText(f, s, size, e.CharSpacing(), LineHeight(e), align)
	if err != nil {
		return inputErr(b.view.ID, e.ID, err, "text layout")
	}
	tl.Color = col
	if len(missing) > 0 {
		b.warn(WarnMissingGlyph, e.ID, "font %s %s has no glyph for %q", f.Family, f.Style, string(missing))
	}
	if clip.Empty() {
		b.warn(WarnClipped, e.ID, "the text lies entirely outside the export box and is not printed")
		return nil
	}
	var px, py, rot float64
	if e.PositionX != nil {
		px = *e.PositionX
	}
	if e.PositionY != nil {
		py = *e.PositionY
	}
	if e.Rotation != nil {
		rot = *e.Rotation
	}
	fx, fy := originFractions(e.Origin())
	m := svg.Translate(px, py).Mul(svg.Rotate(rot)).Mul(svg.Translate(-fx*tl.Width, -fy*tl.Height))
	b.checkClipped(e, m, Rect{0, 0, tl.Width, tl.Height})
	b.scene.Layers = append(b.scene.Layers, Layer{
		Kind: LayerText, ElementID: e.ID, Source: e.Type, Transform: m, Clip: clip, Opacity: 1, Text: tl,
	})
	return nil
}

// layoutText lays out s as fabric.js does: lines split on newline, no wrapping, box
// width = widest line, height = U x (lineHeight x (n-1) + 1), line i's baseline at
// U x lineHeight x i + 0.879 x size, each line aligned inside the box width, kerning on,
// charSpacing (1/1000 em) after every character but a line's last. It returns the runes
// the font lacks.
func layoutText(f *fonts.Font, s string, size, charSpacing, lineHeight float64, align string) (*TextLayer, []rune, error) {
	var buf sfnt.Buffer
	upem := f.SFNT.UnitsPerEm()
	ppem := fixed.Int26_6(upem) << 6 // metrics in font units, scaled below
	k := size / float64(upem)
	unit := func(v fixed.Int26_6) float64 { return float64(v) / 64 * k }
	tl := &TextLayer{Font: f, Size: size, CharSpacing: charSpacing / 1000 * size}
	var missing []rune
	seen := map[rune]bool{}
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	for _, text := range strings.Split(s, "\n") {
		line := TextLine{Text: text}
		pen := 0.0
		prev, havePrev := sfnt.GlyphIndex(0), false
		runes := []rune(text)
		for i, r := range runes {
			if r == '\t' {
				r = ' '
			}
			gi, err := f.SFNT.GlyphIndex(&buf, r)
			if err != nil {
				return nil, nil, fmt.Errorf("glyph for %q: %w", r, err)
			}
			if gi == 0 && !seen[r] {
				seen[r] = true
				missing = append(missing, r)
			}
			if havePrev {
				kern, err := f.SFNT.Kern(&buf, prev, gi, ppem, font.HintingNone)
				if err == nil {
					pen += unit(kern)
				} else if !errors.Is(err, sfnt.ErrNotFound) {
					return nil, nil, fmt.Errorf("kerning: %w", err)
				}
			}
			adv, err := f.SFNT.GlyphAdvance(&buf, gi, ppem, font.HintingNone)
			if err != nil {
				return nil, nil, fmt.Errorf("advance of %q: %w", r, err)
			}
			line.Glyphs = append(line.Glyphs, Glyph{Rune: r, Index: gi, X: pen, Advance: unit(adv)})
			pen += unit(adv)
			if i < len(runes)-1 {
				pen += tl.CharSpacing
			}
			prev, havePrev = gi, true
		}
		line.Width = pen
		tl.Width = max(tl.Width, pen)
		tl.Lines = append(tl.Lines, line)
	}
	u := fabricLineUnit * size
	n := float64(len(tl.Lines))
	tl.Height = u * (lineHeight*(n-1) + 1)
	for i := range tl.Lines {
		l := &tl.Lines[i]
		switch align {
		case "left":
		case "right":
			l.X = tl.Width - l.Width
		default:
			l.X = (tl.Width - l.Width) / 2
		}
		l.Baseline = u*lineHeight*float64(i) + fabricBaseline*size
		for j := range l.Glyphs {
			l.Glyphs[j].X += l.X
		}
	}
	return tl, missing, nil
}
