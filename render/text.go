package render

import (
	"image/color"
	"strings"
	"sync"

	"github.com/go-text/typesetting/segmenter"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/fonts"
	"github.com/printworker/printworker/render/svg"
)

// fabric.js text metrics (hub-gaps.md "Rendering conventions"): a line's unit height
// is 1.13 x fontsize, and the first baseline sits 0.879 x fontsize below the box top.
const (
	fabricLineUnit = 1.13
	fabricBaseline = 0.879
	// defaultFontSize is fabric.js's default fontSize, for text elements without one.
	defaultFontSize = 40
)

// elementFace is the family a text element names ("" for none) and its style.
func elementFace(e *model.Element) (string, fonts.Style) {
	fam := e.DefaultFont()
	if fam == "" {
		if fs := e.Fonts(); len(fs) > 0 {
			fam = fs[0]
		}
	}
	return fam, fonts.StyleOf(e.Bold != nil && *e.Bold, e.Italic != nil && *e.Italic)
}

// prefetchFonts looks up, one goroutine per face, the faces the view's texts name, so
// that the embedded faces (parsed on first lookup, 3 to 8 ms each) are parsed on the
// other cores while the scene build reads the media; the scene build's own lookups
// then wait for them at most. The returned wait is for the goroutines to end.
func (r *Renderer) prefetchFonts(d *model.DesignDetail, viewID string) (wait func()) {
	var wg sync.WaitGroup
	v, ok := d.ViewByID(viewID)
	if !ok {
		return wg.Wait
	}
	type face struct {
		fam string
		st  fonts.Style
	}
	seen := map[face]bool{}
	for i := range v.Elements {
		e := &v.Elements[i]
		if e.Type != model.ElementText || !e.Exported() || e.Value == nil {
			continue
		}
		fam, st := elementFace(e)
		if fam == "" {
			fam = fonts.DefaultFamily
		}
		if k := (face{fam, st}); !seen[k] {
			seen[k] = true
			wg.Go(func() { r.fonts.Lookup(fam, st) })
		}
	}
	return wg.Wait
}

func (b *sceneBuilder) text(e *model.Element) error {
	if e.Value == nil {
		return nil
	}
	tr, err := e.Value.Translations()
	if err != nil {
		return inputErr(b.view.ID, e.ID, err, "text value")
	}
	s := tr.Pick(b.r.opts.Lang)
	textLang := b.r.opts.Lang
	if _, ok := tr.Get(textLang); !ok || textLang == "" {
		textLang = ""
		if ls := tr.Langs(); len(ls) > 0 {
			textLang = ls[0] // the language Pick took
		}
	}
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
	if err := textNumbers(b.view.ID, e, size); err != nil {
		return err
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
	tl, rep, err := b.r.shapers.layoutText(s, textRequest{
		primary: f, style: fonts.StyleOf(e.Bold != nil && *e.Bold, e.Italic != nil && *e.Italic),
		reg: b.r.fonts, size: size, charSpacing: e.CharSpacing(), lineHeight: LineHeight(e),
		align: align, lang: b.r.opts.Lang, textLang: textLang, direction: b.r.opts.TextDirection,
	})
	if err != nil {
		return inputErr(b.view.ID, e.ID, err, "text layout")
	}
	tl.Color = col
	if err := b.reportShaping(e, f, s, rep); err != nil {
		return err
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

// reportShaping turns what shaping found into preflight warnings, or a permanent
// error in strict mode for characters no face has.
func (b *sceneBuilder) reportShaping(e *model.Element, f *fonts.Font, s string, rep shapeReport) error {
	for _, fb := range rep.fallbacks {
		b.warn(WarnFontFallback, e.ID, "font %s %s lacks some characters; drawn with fallback font %s %s", f.Family, f.Style, fb.Family, fb.Style)
	}
	for _, err := range rep.fallbackErrs {
		b.warn(WarnFontFallback, e.ID, "fallback font not readable: %v", err)
	}
	if len(rep.missing) > 0 {
		if b.r.opts.Strict {
			return inputErr(b.view.ID, e.ID, nil, "no font (%s %s or the fallback chain) has a glyph for %q (strict mode)", f.Family, f.Style, string(rep.missing))
		}
		b.warn(WarnMissingGlyph, e.ID, "no font (%s %s or the fallback chain) has a glyph for %q; drawn as a box", f.Family, f.Style, string(rep.missing))
	}
	if rep.replacement {
		b.warn(WarnTextInput, e.ID, "the text holds invalid characters (bad UTF-8 or unpaired surrogates), drawn as U+FFFD")
	}
	if rep.trimmedMarks > 0 {
		b.warn(WarnTextInput, e.ID, "%d combining marks beyond %d on one letter were dropped", rep.trimmedMarks, maxClusterMarks)
	}
	if rep.bidiControls {
		b.warn(WarnTextInput, e.ID, "the text holds explicit bidi embedding or isolate controls; check the order of the printed text")
	}
	if e.MaxCharacters != nil && *e.MaxCharacters > 0 {
		if n := graphemeCount(s); n > *e.MaxCharacters {
			b.warn(WarnTextInput, e.ID, "the text has %d characters, more than the element's maxCharacters %d", n, *e.MaxCharacters)
		}
	}
	return nil
}

// graphemeCount counts user-perceived characters (extended grapheme clusters), so a
// letter with its accents, a Devanagari conjunct or a flag counts once. Line breaks
// do not count.
func graphemeCount(s string) int {
	var seg segmenter.Segmenter
	rs := []rune(strings.ReplaceAll(strings.ReplaceAll(s, "\r", ""), "\n", ""))
	seg.Init(rs)
	it := seg.GraphemeIterator()
	n := 0
	for it.Next() {
		n++
	}
	return n
}
