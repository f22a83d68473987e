package render

import (
	"math"
	"unicode/utf8"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"github.com/printworker/printworker/render/fonts"
	"github.com/printworker/printworker/render/svg"
)

// Shaped text in the vector PDF (docs/text.md "PDF").
//
// gofpdf embeds TrueType fonts as subsets addressed by Unicode code point (its CIDs are
// code points, its ToUnicode map the identity), so it can place exactly the glyphs a
// code point maps to through the font's cmap. Those glyphs, the bulk of Latin, Hebrew,
// Greek or Cyrillic text, are written as real text in the embedded subset font at
// their shaped positions. A cluster the cmap cannot express (a ligature, an Arabic
// contextual form, a Devanagari conjunct, a mark moved by the shaper, a glyph of a
// CFF or collection font gofpdf cannot embed) is drawn as its outlines, and the
// cluster's characters are laid over it as invisible text (rendering mode 3) in the
// embedded DejaVu Sans, stretched to the cluster's width: copy, search and pdftotext
// give the design's text, and what prints is exactly what was shaped.

// text draws the layer's shaped lines.
func (v *vectorPage) text(l *Layer) {
	t := l.Text
	v.setAlpha(l.Opacity * float64(t.Color.A) / 255)
	// Text and outlines take the fill colour (CMYK when the output is; pdfcmyk.go).
	v.setTextColour(t.Color)
	sh := v.shapers.get()
	defer v.shapers.put(sh)
	pt := pdfText{v: v, size: t.Size, sh: sh}
	for _, line := range t.Lines {
		pt.line(line)
	}
}

type pdfText struct {
	v    *vectorPage
	size float64
	sh   *shaper
	font *fonts.Font // gofpdf's current font, nil before the first
	// The pending run of real text: glyphs of one font whose positions follow from
	// the previous glyph's advance.
	run     []rune
	runFont *fonts.Font
	runX    float64
	next    float64
	pts     []svg.Point // outline scratch
}

func (p *pdfText) face(f *fonts.Font) *font.Face { return p.sh.face(f) }

func (p *pdfText) line(line TextLine) {
	gs := line.Glyphs
	for i := 0; i < len(gs); {
		j := i + 1
		for j < len(gs) && gs[j].Text == "" {
			j++
		}
		cluster := gs[i:j]
		if r, ok := p.plain(cluster); ok {
			p.addRune(r, cluster[0], line.Baseline)
		} else {
			p.flush(line.Baseline)
			p.outlined(cluster, line.Baseline)
		}
		i = j
	}
	p.flush(line.Baseline)
}

// plain reports whether a cluster is one glyph that gofpdf can write as its
// character: an embeddable font, one character, the glyph its cmap names, unmoved.
func (p *pdfText) plain(cluster []Glyph) (rune, bool) {
	g := cluster[0]
	if len(cluster) != 1 || !g.Font.Embeddable || g.Y != 0 || g.ID == 0 || g.Synth != 0 {
		return 0, false
	}
	r, n := utf8.DecodeRuneInString(g.Text)
	if n != len(g.Text) || r > 0xFFFF || r == utf8.RuneError {
		return 0, false
	}
	gid, ok := p.face(g.Font).NominalGlyph(r)
	return r, ok && uint32(gid) == g.ID
}

// addRune appends a character to the pending run, starting a new run when the font
// changes or the position does not follow (kerning, charSpacing, a gofpdf width that
// differs from the shaped advance by more than its 1/1000 em rounding).
func (p *pdfText) addRune(r rune, g Glyph, baseline float64) {
	tol := p.size / 1000
	if len(p.run) > 0 && (g.Font != p.runFont || math.Abs(g.X-p.next) > tol) {
		p.flush(baseline)
	}
	if len(p.run) == 0 {
		p.runFont, p.runX = g.Font, g.X
	}
	p.run = append(p.run, r)
	// gofpdf advances by the glyph's own width; the shaped advance may hold kerning.
	p.next = g.X + float64(p.face(g.Font).HorizontalAdvance(font.GID(g.ID)))*p.size/float64(g.Font.Face.Upem())
}

func (p *pdfText) flush(baseline float64) {
	if len(p.run) == 0 {
		return
	}
	p.use(p.runFont)
	p.v.pdf.Text(p.runX, baseline, string(p.run))
	p.run = p.run[:0]
}

// use makes f gofpdf's current font, embedding it on first use.
func (p *pdfText) use(f *fonts.Font) {
	if p.font == f {
		return
	}
	name := pdfFontFamily(f)
	p.v.pdf.AddUTF8FontFromBytes(name, "", f.Data)
	p.v.pdf.SetFont(name, "", p.size)
	p.font = f
}

// outlined fills a cluster's glyph outlines and lays its text over them invisibly.
func (p *pdfText) outlined(cluster []Glyph, baseline float64) {
	x0, x1 := math.Inf(1), math.Inf(-1)
	for _, g := range cluster {
		x0, x1 = math.Min(x0, g.X), math.Max(x1, g.X+g.Advance)
		if path := p.outline(g, baseline); len(path) > 0 {
			p.v.path(path)
			p.v.pdf.DrawPath("F")
		}
	}
	p.invisible(cluster[0].Text, x0, x1, baseline)
}

// outline is a glyph's outline in the layer's local coordinates (y down).
func (p *pdfText) outline(g Glyph, baseline float64) svg.Path {
	var path svg.Path
	path, p.pts = glyphPath(p.face(g.Font), g, p.size, baseline, p.pts)
	return path
}

// glyphPath is glyph g's outline at size, its origin at (g.X, baseline+g.Y) (y
// down), synthetic oblique and bold applied as the raster draws them (synth.go);
// pts is scratch space, returned for reuse.
func glyphPath(face *font.Face, g Glyph, size, baseline float64, pts []svg.Point) (svg.Path, []svg.Point) {
	o, ok := face.GlyphDataOutline(font.GID(g.ID))
	if !ok {
		return nil, pts
	}
	k := size / float64(g.Font.Face.Upem())
	pts = glyphPoints(pts[:0], o.Segments, g.Synth, k, size)
	i := 0
	var path svg.Path
	for _, s := range o.Segments {
		seg := svg.Segment{}
		switch s.Op {
		case ot.SegmentOpMoveTo:
			seg.Op = svg.MoveTo
		case ot.SegmentOpLineTo:
			seg.Op = svg.LineTo
		case ot.SegmentOpQuadTo:
			seg.Op = svg.QuadTo
		case ot.SegmentOpCubeTo:
			seg.Op = svg.CubicTo
		}
		for j := range segArgs(s.Op) {
			q := pts[i]
			seg.Pts[j] = svg.Point{X: g.X + q.X, Y: baseline + g.Y + q.Y}
			i++
		}
		if s.Op == ot.SegmentOpMoveTo && len(path) > 0 {
			path = append(path, svg.Segment{Op: svg.Close})
		}
		path = append(path, seg)
	}
	if len(path) > 0 {
		path = append(path, svg.Segment{Op: svg.Close})
	}
	return path, pts
}

// invisible writes text in rendering mode 3 over [x0, x1] in the embedded default
// font, scaled horizontally to that width so that text extraction sees the
// characters where the glyphs are.
func (p *pdfText) invisible(text string, x0, x1, baseline float64) {
	rs := []rune(text)
	for i, r := range rs {
		// gofpdf's codes are 16-bit; a character beyond the BMP cannot be written.
		if r > 0xFFFF {
			rs[i] = utf8.RuneError
		}
	}
	text = string(rs)
	if text == "" {
		return
	}
	p.use(p.v.textFallback)
	w := p.v.pdf.GetStringWidth(text)
	if w <= 0 || x1 <= x0 {
		return
	}
	p.v.pdf.SetTextRenderingMode(3)
	p.v.pdf.TransformBegin()
	p.v.pdf.TransformScale((x1-x0)/w*100, 100, x0, baseline)
	p.v.pdf.Text(x0, baseline, text)
	p.v.pdf.TransformEnd()
	p.v.pdf.SetTextRenderingMode(0)
}
