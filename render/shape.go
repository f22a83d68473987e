package render

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/go-text/typesetting/bidi"
	"github.com/go-text/typesetting/di"
	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"github.com/go-text/typesetting/language"
	"github.com/go-text/typesetting/segmenter"
	"github.com/go-text/typesetting/shaping"
	"github.com/printworker/printworker/render/fonts"
	"golang.org/x/image/math/fixed"
	xbidi "golang.org/x/text/unicode/bidi"
)

// Text shaping (docs/text.md): every line goes through the Unicode bidi algorithm with
// the paragraph direction taken from the text, is split into script and font runs (the
// element's font, else the fallback chain), and each run is shaped by HarfBuzz
// (go-text/typesetting) with kerning and standard ligatures, as the browser's designer
// does. Runs are then placed in visual order and fabric.js's box rules applied.

// Limits on hostile text (bounded time and memory).
const (
	// maxTextRunes caps one text element: a designer field holds a name or a
	// sentence, and 20,000 characters shape in a few milliseconds.
	maxTextRunes = 20_000
	// maxClusterMarks caps combining marks on one base, as Unicode's stream-safe text
	// format does (30 non-starters); more cannot be drawn legibly anyway.
	maxClusterMarks = 30
)

// shaper is one goroutine's shaping state; Renderer keeps a pool of them because the
// HarfBuzz shaper caches fonts and plans.
type shaper struct {
	hb    shaping.HarfbuzzShaper
	seg   shaping.Segmenter
	gseg  segmenter.Segmenter
	para  bidi.Paragraph
	parts []shaping.Input
	// faces are this shaper's faces of each font: a Face caches cmap lookups and
	// extents (not safe for concurrent use, and sized by the glyph count, so worth
	// keeping across texts).
	faces map[*font.Font]*font.Face
}

// shaperPool keeps idle shapers. A buffered channel rather than a sync.Pool: the
// pool is emptied at every garbage collection, and a render of print-size pictures
// collects often, which would rebuild the fonts' HarfBuzz tables for every text.
type shaperPool struct{ idle chan *shaper }

func newShaperPool(n int) *shaperPool { return &shaperPool{idle: make(chan *shaper, n)} }

func (sp *shaperPool) get() *shaper {
	select {
	case s := <-sp.idle:
		return s
	default:
		return &shaper{faces: map[*font.Font]*font.Face{}}
	}
}

func (sp *shaperPool) put(s *shaper) {
	select {
	case sp.idle <- s:
	default:
	}
}

// face returns the shaper's face of f.
func (sh *shaper) face(f *fonts.Font) *font.Face {
	fc := sh.faces[f.Face]
	if fc == nil {
		fc = font.NewFace(f.Face)
		sh.faces[f.Face] = fc
	}
	return fc
}

// textRequest is what layoutText needs besides the string.
type textRequest struct {
	primary     *fonts.Font
	style       fonts.Style
	reg         *fonts.Registry
	size        float64
	charSpacing float64 // 1/1000 em
	lineHeight  float64
	align       string
	lang        string
	// textLang is the language the design gives the text (its translation's key),
	// which picks between Chinese and Japanese CJK faces (cjkOrder).
	textLang  string
	direction string // Options.TextDirection ("" as "auto")
}

// shapeReport tells the caller what to warn about.
type shapeReport struct {
	missing      []rune        // characters no face covers (drawn as .notdef)
	fallbacks    []*fonts.Font // fallback faces used, in order of first use
	fallbackErrs []error       // fallback font files that could not be read
	trimmedMarks int           // combining marks dropped beyond maxClusterMarks
	replacement  bool          // the text held U+FFFD (invalid UTF-8 or surrogates)
	bidiControls bool          // the text held explicit bidi controls
}

// fontmap resolves a face per rune: the element's font when it has the glyph, else the
// first fallback family that has it, else the element's font (its .notdef). It
// implements shaping.Fontmap.
type fontmap struct {
	req    *textRequest
	sh     *shaper
	byFace map[*font.Face]*fonts.Font
	chain  []*fonts.Font // resolved lazily; nil entries: not installed
	loaded int
	// order maps a place in the chain as this text tries it to the registry's
	// fallback index (cjkOrder); nil: the registry's order.
	order []int
	// covered are the faces the coverage fallback gave, in order of first use.
	covered []*fonts.Font
	report  *shapeReport
	primary *font.Face
}

func newFontmap(req *textRequest, rep *shapeReport, sh *shaper) *fontmap {
	fm := &fontmap{req: req, sh: sh, byFace: map[*font.Face]*fonts.Font{}, report: rep}
	fm.primary = fm.face(req.primary)
	if req.reg != nil {
		fm.order = cjkOrder(req.reg, req.textLang)
	}
	return fm
}

func (fm *fontmap) face(f *fonts.Font) *font.Face {
	fc := fm.sh.face(f)
	fm.byFace[fc] = f
	return fc
}

func (fm *fontmap) ResolveFace(r rune) *font.Face {
	if _, ok := fm.primary.NominalGlyph(r); ok {
		return fm.primary
	}
	for i := 0; fm.req.reg != nil && i < fm.req.reg.FallbackLen(); i++ {
		if i == fm.loaded {
			j := i
			if fm.order != nil {
				j = fm.order[i]
			}
			f, err := fm.req.reg.FallbackFace(j, fm.req.style)
			if err != nil {
				fm.report.fallbackErrs = append(fm.report.fallbackErrs, err)
			}
			fm.chain = append(fm.chain, f)
			fm.loaded++
		}
		f := fm.chain[i]
		if f == nil || f == fm.req.primary {
			continue
		}
		fc := fm.face(f)
		if _, ok := fc.NominalGlyph(r); ok {
			return fc
		}
	}
	if f := fm.coverageFace(r); f != nil {
		return fm.face(f)
	}
	return fm.primary
}

// coverageFace asks the registry's coverage fallback (docs/text.md "Font fallback")
// for a face having r, after the explicit chain.
func (fm *fontmap) coverageFace(r rune) *fonts.Font {
	if fm.req.reg == nil || ignorable(r) {
		return nil
	}
	for _, f := range fm.covered {
		if _, ok := fm.face(f).NominalGlyph(r); ok {
			return f
		}
	}
	f, errs := fm.req.reg.CoverageFace(r, fm.req.style)
	fm.report.fallbackErrs = append(fm.report.fallbackErrs, errs...)
	if f != nil {
		fm.covered = append(fm.covered, f)
	}
	return f
}

// single is a Fontmap answering the element's face for every rune, so that the
// segmenter splits by direction and script only.
func (fm *fontmap) single() shaping.Fontmap { return singleFace{fm.primary} }

type singleFace struct{ f *font.Face }

func (s singleFace) ResolveFace(rune) *font.Face { return s.f }

// splitByCluster splits a script run where the face changes, choosing per cluster (a
// character with its marks and joiners) the first face that has every character of
// it, as the browser's font fallback does: spaces and punctuation stay in the
// element's font, and a base letter never parts from its marks.
func (fm *fontmap) splitByCluster(in shaping.Input) []shaping.Input {
	var out []shaping.Input
	cur := in
	cur.Face = nil
	for i := in.RunStart; i < in.RunEnd; {
		j := i + 1
		for j < in.RunEnd && continuesCluster(in.Text[j-1], in.Text[j]) {
			j++
		}
		f := fm.resolveCluster(in.Text[i:j])
		if cur.Face != nil && f != cur.Face {
			cur.RunEnd = i
			out = append(out, cur)
			cur.RunStart = i
		}
		cur.Face = f
		i = j
	}
	cur.RunEnd = in.RunEnd
	return append(out, cur)
}

// continuesCluster reports whether r belongs to the cluster of the character before it.
func continuesCluster(prev, r rune) bool {
	return prev == 0x200D || unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc) || ignorable(r)
}

// ignorable reports characters drawn as nothing (joiners, variation selectors, bidi
// controls), which a face need not have.
func ignorable(r rune) bool {
	return r == 0x200C || r == 0x200D || r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF ||
		r >= 0x200E && r <= 0x200F || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r == 0xFEFF
}

func (fm *fontmap) resolveCluster(cl []rune) *font.Face {
	var f *font.Face
	for _, r := range cl {
		if ignorable(r) {
			continue
		}
		if f == nil {
			f = fm.ResolveFace(r)
			continue
		}
		if _, ok := f.NominalGlyph(r); !ok {
			// The face of the base lacks a mark: take the first face having all.
			return fm.resolveAll(cl)
		}
	}
	if f == nil {
		return fm.primary
	}
	return f
}

func (fm *fontmap) resolveAll(cl []rune) *font.Face {
	has := func(f *font.Face) bool {
		for _, r := range cl {
			if _, ok := f.NominalGlyph(r); !ok && !ignorable(r) {
				return false
			}
		}
		return true
	}
	if has(fm.primary) {
		return fm.primary
	}
	for i := range fm.loaded {
		if f := fm.chain[i]; f != nil && has(fm.face(f)) {
			return fm.face(f)
		}
	}
	for _, f := range fm.covered {
		if has(fm.face(f)) {
			return fm.face(f)
		}
	}
	return fm.ResolveFace(cl[0])
}

// layoutText lays out s as fabric.js does (lines split on newline, no wrapping, box
// width = widest line, height = U x (lineHeight x (n-1) + 1), line i's baseline at
// U x lineHeight x i + 0.879 x size, each line aligned inside the box width), with
// every line shaped (see the file comment) and charSpacing added between grapheme
// clusters.
func (sp *shaperPool) layoutText(s string, req textRequest) (*TextLayer, shapeReport, error) {
	var rep shapeReport
	s = strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\r", "\n")
	if n := utf8.RuneCountInString(s); n > maxTextRunes {
		return nil, rep, fmt.Errorf("text of %d characters exceeds the limit of %d", n, maxTextRunes)
	}
	sh := sp.get()
	defer sp.put(sh)
	fm := newFontmap(&req, &rep, sh)
	tl := &TextLayer{Font: req.primary, Size: req.size, CharSpacing: req.charSpacing / 1000 * req.size}
	lines := strings.Split(s, "\n")
	textDir := firstStrong([]rune(s))
	seenMissing := map[rune]bool{}
	seenFallback := map[*fonts.Font]bool{}
	for _, text := range lines {
		runes := sanitizeRunes(text, &rep)
		line := TextLine{Text: text}
		dir := paragraphDirection(req.direction, runes, textDir)
		glyphs, width := sh.shapeLine(runes, dir == xbidi.RightToLeft, fm, tl.CharSpacing, &req)
		for _, g := range glyphs {
			if g.ID == 0 && g.Text != "" {
				for _, r := range g.Text {
					if !seenMissing[r] && !unicode.IsSpace(r) && !unicode.Is(unicode.Mn, r) {
						seenMissing[r] = true
						rep.missing = append(rep.missing, r)
					}
				}
			}
			if g.Font != req.primary && !seenFallback[g.Font] {
				seenFallback[g.Font] = true
				rep.fallbacks = append(rep.fallbacks, g.Font)
			}
		}
		line.Glyphs, line.Ink = glyphs, width
		line.Width = sh.fabricWidth(runes, fm, tl.CharSpacing, &req)
		tl.Width = max(tl.Width, line.Width)
		tl.Lines = append(tl.Lines, line)
	}
	placeLines(tl, req.size, req.lineHeight, req.align, req.direction == TextDirectionRTL)
	return tl, rep, nil
}

// paragraphDirection is a line's bidi paragraph direction: fabric.js's direction
// ("ltr", "rtl"), or with "auto" the line's first strong letter, else the element's
// (textDir), else left to right.
func paragraphDirection(mode string, runes []rune, textDir xbidi.Direction) xbidi.Direction {
	switch mode {
	case TextDirectionLTR:
		return xbidi.LeftToRight
	case TextDirectionRTL:
		return xbidi.RightToLeft
	}
	dir := firstStrong(runes)
	if dir == xbidi.Neutral {
		dir = textDir
	}
	return dir
}

// fabricWidth is the width fabric.js gives a line's box (Text._measureLine and
// _measureChar, fabric.js 6.9): the line is split into grapheme clusters
// (Intl.Segmenter), the first measured alone and each next one as the width of the
// pair it forms with the one before, less the width of that one alone, each string
// measured by the browser (measureText: shaped whole, kerning, ligatures and joining
// inside it); charSpacing is added after every cluster but the last. A line whose
// shaping joins or ligates across clusters is so given a box narrower or wider than
// its ink, and fabric.js aligns the line by that box while drawing the shaped line
// from the box's start; printworker does the same so that the print matches the
// designer's preview (docs/text.md "Line box").
func (sh *shaper) fabricWidth(runes []rune, fm *fontmap, spacing float64, req *textRequest) float64 {
	if len(runes) == 0 {
		return 0
	}
	sh.gseg.Init(runes)
	it := sh.gseg.GraphemeIterator()
	memo := map[string]float64{}
	lang := language.NewLanguage(req.lang)
	measure := func(rs []rune) float64 {
		k := string(rs)
		if w, ok := memo[k]; ok {
			return w
		}
		w, ok := sh.measureOneScript(rs, fm, lang, req.size)
		if !ok {
			_, w = sh.shapeLine(rs, false, fm, 0, req)
		}
		memo[k] = w
		return w
	}
	var prev []rune
	width := 0.0
	n := 0
	for it.Next() {
		g := it.Grapheme().Text
		if prev == nil {
			width += measure(g)
		} else {
			pair := make([]rune, 0, len(prev)+len(g))
			pair = append(append(pair, prev...), g...)
			width += measure(pair) - measure(prev)
		}
		prev = g
		n++
	}
	return max(0, width+spacing*float64(n-1))
}

// measureOneScript is the shaped width of a string of one script and direction (a
// grapheme or a pair of them), shaped as one run per face without the bidi and script
// itemization of shapeLine, which costs more than the shaping of so short a string;
// ok is false for a string mixing scripts or directions (shapeLine measures those).
func (sh *shaper) measureOneScript(rs []rune, fm *fontmap, lang language.Language, size float64) (float64, bool) {
	script := language.Common
	dir := di.DirectionLTR
	for i, r := range rs {
		sc := language.LookupScript(r)
		if !sc.Strong() {
			continue
		}
		if script != language.Common && sc != script {
			return 0, false
		}
		script = sc
		if d := firstStrong(rs[i : i+1]); d == xbidi.RightToLeft {
			dir = di.DirectionRTL
		}
	}
	if firstStrong(rs) == xbidi.Neutral && len(rs) > 1 {
		// Neutrals only (spaces, digits, punctuation): digits are weak, leave them to
		// shapeLine.
		return 0, false
	}
	in := shaping.Input{Text: rs, RunStart: 0, RunEnd: len(rs), Direction: dir, Script: script, Language: lang}
	w := 0.0
	for _, p := range fm.splitByCluster(in) {
		f := fm.byFace[p.Face]
		p.Size = fixed.I(int(f.Face.Upem()))
		out := sh.hb.Shape(p)
		w += float64(out.Advance) / 64 * size / float64(f.Face.Upem())
	}
	return w, true
}

// placeLines applies fabric.js's box: line i's baseline and alignment of its box
// (fabricWidth) inside the widest line's. The shaped glyphs are drawn from the box's
// start, as fabric.js's fillText of the whole line does: its left end, or with
// direction rtl its right end (fabric.js draws right-aligned at the box's right edge).
func placeLines(tl *TextLayer, size, lineHeight float64, align string, rtl bool) {
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
		start := l.X
		if rtl {
			start = l.X + l.Width - l.Ink
		}
		for j := range l.Glyphs {
			l.Glyphs[j].X += start
		}
	}
}

// sanitizeRunes decodes a line (invalid UTF-8 becomes U+FFFD), turns tabs into spaces
// and drops combining marks beyond maxClusterMarks on one base.
func sanitizeRunes(text string, rep *shapeReport) []rune {
	out := make([]rune, 0, len(text))
	marks := 0
	for _, r := range text {
		switch {
		case r == '\t':
			r = ' '
		case r == utf8.RuneError:
			rep.replacement = true
		case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
			rep.bidiControls = true
		}
		if unicode.In(r, unicode.Mn, unicode.Me) {
			marks++
			if marks > maxClusterMarks {
				rep.trimmedMarks++
				continue
			}
		} else {
			marks = 0
		}
		out = append(out, r)
	}
	return out
}

// firstStrong is the direction of the first strong character (rules P2 and P3 of the
// bidi algorithm, isolates skipped), Neutral when there is none.
func firstStrong(runes []rune) xbidi.Direction {
	isolate := 0
	for _, r := range runes {
		p, _ := xbidi.LookupRune(r)
		switch p.Class() {
		case xbidi.LRI, xbidi.RLI, xbidi.FSI:
			isolate++
		case xbidi.PDI:
			if isolate > 0 {
				isolate--
			}
		case xbidi.L:
			if isolate == 0 {
				return xbidi.LeftToRight
			}
		case xbidi.R, xbidi.AL:
			if isolate == 0 {
				return xbidi.RightToLeft
			}
		}
	}
	return xbidi.Neutral
}

// visualRun is a shaped run with its bidi level.
type visualRun struct {
	out   shaping.Output
	level int
	font  *fonts.Font
	// script is the run's script; joining scripts take no spacing inside a run.
	script language.Script
}

// shapeLine shapes one line and returns its glyphs in visual order, pen positions from
// the line's left (x grows right, y offsets down), and the line's width.
func (sh *shaper) shapeLine(runes []rune, rtl bool, fm *fontmap, spacing float64, req *textRequest) ([]Glyph, float64) {
	if len(runes) == 0 {
		return nil, 0
	}
	paraLevel := 0
	def := bidi.LeftToRight
	if rtl {
		paraLevel, def = 1, bidi.RightToLeft
	}
	levels := sh.levelRuns(runes, def, paraLevel)
	var features []shaping.FontFeature
	if spacing != 0 {
		// CSS: no optional ligatures where letter spacing is not zero (the browser and
		// fabric.js's per-character drawing agree). Required ligatures stay.
		features = []shaping.FontFeature{{Tag: ot.MustNewTag("liga"), Value: 0}, {Tag: ot.MustNewTag("clig"), Value: 0}}
	}
	lang := language.NewLanguage(req.lang)
	var runs []visualRun
	for _, lr := range levels {
		dir := di.DirectionLTR
		if lr.level%2 == 1 {
			dir = di.DirectionRTL
		}
		in := shaping.Input{Text: runes, RunStart: lr.start, RunEnd: lr.end, Direction: dir, Language: lang, FontFeatures: features}
		// Script runs come in logical order; rule L2 below reverses right-to-left ones.
		// The segmenter's own face split keeps spaces and punctuation in the face of
		// the letters around them; the browser takes them from the first font that has
		// them, so faces are chosen per cluster below instead.
		sh.parts = append(sh.parts[:0], sh.seg.Split(in, fm.single())...)
		for _, sp := range sh.parts {
			for _, p := range fm.splitByCluster(sp) {
				f := fm.byFace[p.Face]
				p.Size = fixed.I(int(f.Face.Upem()))
				p.FontFeatures = features
				out := sh.hb.Shape(p)
				runs = append(runs, visualRun{out: out, level: lr.level, font: f, script: p.Script})
			}
		}
	}
	reorderRuns(runs)
	return placeRuns(runes, runs, spacing, req.size, req.style)
}

// levelRun is a maximal range of one bidi level.
type levelRun struct{ start, end, level int }

// levelRuns runs the bidi algorithm. go-text's bidi reports runs of one direction with
// the level of their first character; in a left-to-right paragraph a number after
// right-to-left text (level 2) and the left-to-right text after it (level 0) share a
// direction and so a run, which would misorder them: such a run is split after its
// leading number.
func (sh *shaper) levelRuns(runes []rune, def bidi.Direction, paraLevel int) []levelRun {
	rs := sh.para.Segment(runes, def)
	var out []levelRun
	for i := range rs.NumRuns() {
		r := rs.Run(i)
		lv := int(r.Level)
		if paraLevel == 0 && lv == 2 {
			n := numberPrefix(runes[r.Start:r.End])
			if n > 0 && r.Start+n < r.End {
				out = append(out, levelRun{r.Start, r.Start + n, 2}, levelRun{r.Start + n, r.End, 0})
				continue
			}
		}
		out = append(out, levelRun{r.Start, r.End, lv})
	}
	return out
}

// numberPrefix is the length of the leading number (digits with their separators and
// terminators) of rs.
func numberPrefix(rs []rune) int {
	n := 0
	for i, r := range rs {
		p, _ := xbidi.LookupRune(r)
		switch p.Class() {
		case xbidi.EN, xbidi.AN:
			n = i + 1
		case xbidi.ES, xbidi.ET, xbidi.CS, xbidi.NSM, xbidi.BN:
		default:
			return n
		}
	}
	return n
}

func reverseRuns(rs []visualRun) {
	for i, j := 0, len(rs)-1; i < j; i, j = i+1, j-1 {
		rs[i], rs[j] = rs[j], rs[i]
	}
}

// reorderRuns applies rule L2: from the highest level down to the lowest odd level,
// reverse every maximal sequence of runs at that level or higher.
func reorderRuns(rs []visualRun) {
	hi, lo := 0, 1<<30
	for _, r := range rs {
		hi = max(hi, r.level)
		if r.level%2 == 1 {
			lo = min(lo, r.level)
		}
	}
	for lv := hi; lv >= lo && lv > 0; lv-- {
		for i := 0; i < len(rs); {
			if rs[i].level < lv {
				i++
				continue
			}
			j := i
			for j < len(rs) && rs[j].level >= lv {
				j++
			}
			reverseRuns(rs[i:j])
			i = j
		}
	}
}

// joiningScript reports scripts whose letters connect: spacing inside a run of them
// would break the joins (browsers do not add it there either).
func joiningScript(s language.Script) bool {
	switch s {
	case language.Arabic, language.Syriac, language.Nko, language.Mongolian, language.Mandaic,
		language.Manichaean, language.Psalter_Pahlavi, language.Adlam, language.Hanifi_Rohingya, language.Sogdian:
		return true
	}
	return false
}

// placeRuns lays the shaped runs side by side, adding spacing after every cluster but
// the line's last and except between two clusters of one joining-script run.
func placeRuns(runes []rune, runs []visualRun, spacing, size float64, style fonts.Style) ([]Glyph, float64) {
	var glyphs []Glyph
	pen := 0.0
	first, joinedPrev := true, false
	for _, run := range runs {
		syn := synthesisFor(style, run.font)
		k := size / float64(run.font.Face.Upem())
		unit := func(v fixed.Int26_6) float64 { return float64(v) / 64 * k }
		gs := run.out.Glyphs
		for i := 0; i < len(gs); {
			// One cluster: consecutive glyphs with the same cluster index.
			j := i + 1
			for j < len(gs) && gs[j].TextIndex() == gs[i].TextIndex() {
				j++
			}
			if !first && spacing != 0 && !joinedPrev {
				pen += spacing
			}
			first = false
			start := gs[i].TextIndex()
			text := string(runes[start : start+max(1, gs[i].RunesCount())])
			for g := i; g < j; g++ {
				gl := Glyph{
					Font: run.font, ID: uint32(gs[g].GlyphID),
					X: pen + unit(gs[g].XOffset), Y: -unit(gs[g].YOffset), Advance: unit(gs[g].Advance),
					Synth: syn,
				}
				if g == i {
					gl.Text = text
				}
				glyphs = append(glyphs, gl)
				pen += unit(gs[g].Advance)
			}
			joinedPrev = joiningScript(run.script) && j < len(gs) &&
				!strings.ContainsFunc(text, unicode.IsSpace) && !unicode.IsSpace(runes[gs[j].TextIndex()])
			i = j
		}
	}
	return glyphs, pen
}

// cjkOrder is the order in which a text in language lang tries the fallback chain:
// the chain's own, except that a Chinese text (zh, Simplified: not zh-Hant, -TW,
// -HK, -MO) takes a "CJK SC" family before a "CJK JP" one and a Japanese text (ja)
// the reverse, swapping the two where the chain lists them the other way. The CJK
// families share the Han and punctuation code points but not their shapes (a full
// stop sits in the corner in Japanese, centred in Chinese). nil: the chain's order.
func cjkOrder(reg *fonts.Registry, lang string) []int {
	lang = strings.ToLower(lang)
	var want, other string
	switch {
	case lang == "ja" || strings.HasPrefix(lang, "ja-") || strings.HasPrefix(lang, "ja_"):
		want, other = " jp", " sc"
	case lang == "zh" || strings.HasPrefix(lang, "zh-") || strings.HasPrefix(lang, "zh_"):
		for _, t := range []string{"hant", "tw", "hk", "mo"} {
			if strings.Contains(lang, t) {
				return nil
			}
		}
		want, other = " sc", " jp"
	default:
		return nil
	}
	n := reg.FallbackLen()
	wi, oi := -1, -1
	for i := range n {
		name := strings.ToLower(reg.FallbackFamily(i))
		if !strings.Contains(name, "cjk") {
			continue
		}
		if strings.HasSuffix(name, want) && wi < 0 {
			wi = i
		}
		if strings.HasSuffix(name, other) && oi < 0 {
			oi = i
		}
	}
	if wi < 0 || oi < 0 || wi < oi {
		return nil
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	order[wi], order[oi] = oi, wi
	return order
}
