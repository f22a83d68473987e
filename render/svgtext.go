package render

import (
	"fmt"
	"strings"

	"github.com/printworker/printworker/render/fonts"
	"github.com/printworker/printworker/render/svg"
)

// maxSVGTextRunes bounds the characters of an SVG's text drawn as outlines: the
// outlines are kept as paths (about 50 segments of 56 bytes a glyph, twice while
// mapped: some 20 MB at this bound), so past it the rest of the text is left out and
// reported. Clipart text is a few words.
const maxSVGTextRunes = 4000

// svgText fills the paths of an SVG's text runs (svg.Shape.Text) with their glyph
// outlines, laid out by the same engine as text elements (shaping, fallback faces,
// synthetic styles), so that PNG and PDF draw them as the SVG's other shapes:
// filled and stroked with the run's paint, clipped, in paint order. Each run starts
// at its x, y (the baseline) or where the previous run ended; text-anchor aligns
// each chunk (the runs from one with an x to the next).
func (r *Renderer) svgText(doc *svg.Doc) {
	type run struct {
		shape   *svg.Shape
		glyphs  []Glyph
		advance float64
	}
	var runs []run
	budget := maxSVGTextRunes
	for i := range doc.Shapes {
		s := &doc.Shapes[i]
		t := s.Text
		if t == nil {
			continue
		}
		n := len([]rune(t.Content))
		if n > budget {
			doc.Unsupported = append(doc.Unsupported, fmt.Sprintf("text beyond %d characters", maxSVGTextRunes))
			break
		}
		budget -= n
		f, st := r.svgFont(t)
		tl, _, err := r.shapers.layoutText(t.Content, textRequest{primary: f, style: st, reg: r.fonts, size: t.Size, lineHeight: 1, align: "left"})
		if err != nil || len(tl.Lines) == 0 {
			continue
		}
		line := tl.Lines[0]
		runs = append(runs, run{s, line.Glyphs, line.Ink})
	}
	sh := r.shapers.get()
	defer r.shapers.put(sh)
	var pts []svg.Point
	var penX, penY float64
	for i := 0; i < len(runs); {
		// A chunk: run i and the runs after it without an x of their own.
		j := i + 1
		for j < len(runs) && !runs[j].shape.Text.HasX {
			j++
		}
		width := 0.0
		for _, ru := range runs[i:j] {
			width += ru.advance + ru.shape.Text.DX
		}
		shift := 0.0
		switch runs[i].shape.Text.Anchor {
		case "middle":
			shift = -width / 2
		case "end":
			shift = -width
		}
		for k, ru := range runs[i:j] {
			t := ru.shape.Text
			if t.HasX {
				penX = t.X
			}
			if t.HasY {
				penY = t.Y
			}
			penX += t.DX
			penY += t.DY
			if k == 0 {
				penX += shift
			}
			var path svg.Path
			for _, g := range ru.glyphs {
				g.X += penX
				var gp svg.Path
				gp, pts = glyphPath(sh.face(g.Font), g, t.Size, penY, pts)
				path = append(path, gp...)
			}
			ru.shape.Path = path.Transform(t.Transform)
			penX += ru.advance
		}
		i = j
	}
}

// svgFont picks the face of a text run: the first family of its font-family list
// that is installed (the generic serif and sans-serif as DejaVu), else the default.
func (r *Renderer) svgFont(t *svg.Text) (*fonts.Font, fonts.Style) {
	st := fonts.Regular
	switch {
	case t.Bold && t.Italic:
		st = fonts.BoldItalic
	case t.Bold:
		st = fonts.Bold
	case t.Italic:
		st = fonts.Italic
	}
	for _, fam := range strings.Split(t.Family, ",") {
		fam = strings.Trim(strings.TrimSpace(fam), `"'`)
		switch strings.ToLower(fam) {
		case "serif":
			fam = "DejaVu Serif"
		case "sans-serif", "system-ui":
			fam = fonts.DefaultFamily
		}
		if f, m := r.fonts.Lookup(fam, st); m != fonts.Fallback {
			return f, st
		}
	}
	f, _ := r.fonts.Lookup(fonts.DefaultFamily, st)
	return f, st
}
