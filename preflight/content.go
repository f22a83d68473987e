package preflight

import (
	"bytes"
	"errors"
	"io"
	"math"
)

// The content scan walks a page's content streams and the form XObjects they draw,
// following the graphics state (q/Q, cm) far enough to know where each fill, stroke
// and picture lands, and records what the checks need: device colour spaces used,
// spot colour names, the highest CMYK total painted inside the BleedBox, pictures'
// effective resolution, and what could not be measured.

type matrix [6]float64

var identity = matrix{1, 0, 0, 1, 0, 0}

func (m matrix) mul(n matrix) matrix { // m then n
	return matrix{
		m[0]*n[0] + m[1]*n[2], m[0]*n[1] + m[1]*n[3],
		m[2]*n[0] + m[3]*n[2], m[2]*n[1] + m[3]*n[3],
		m[4]*n[0] + m[5]*n[2] + n[4], m[4]*n[1] + m[5]*n[3] + n[5],
	}
}

func (m matrix) apply(x, y float64) (float64, float64) {
	return x*m[0] + y*m[2] + m[4], x*m[1] + y*m[3] + m[5]
}

// colourSpace is what the scan knows of a colour space.
type colourSpace struct {
	family string // DeviceRGB, DeviceCMYK, DeviceGray, ICCBased, Separation, DeviceN, Pattern, Indexed, Lab, CalRGB, CalGray
	n      int    // components
	spots  []string
	base   *colourSpace // Indexed's base
}

// pageScan is what the scan found on one page.
type pageScan struct {
	device     map[string]bool // device families painted with (DeviceRGB, DeviceCMYK, DeviceGray)
	deviceAt   map[string]string
	spots      map[string]bool
	fonts      map[any]bool // font dictionaries (references) used by Tf
	tacMax     float64      // percent, inside the BleedBox
	tacSeen    bool
	cmykSeen   bool     // some CMYK colour was counted (not only gray)
	tacPartial []string // what the TAC could not include
	minDPI     float64  // lowest effective resolution of a picture inside the BleedBox (0: none)
	thinLine   float64  // thinnest process-ink stroke inside the BleedBox, in points (-1: none)
	textEdge   float64  // nearest text origin to the trim edge, inside the trim, in points (-1: none)
	extg       []dict   // graphics state dictionaries used by gs
	groups     []dict   // transparency groups of forms drawn
	err        error
}

type scanner struct {
	f     *pdfFile
	bleed rect
	trim  *rect // the TrimBox, nil without one
	ps    *pageScan
	forms map[any]bool
	// pictures are the densest pixel sums of the pictures decoded on this page
	// (-1: none counted), so a picture drawn many times is decoded once.
	pictures map[*stream]int
}

type gstate struct {
	ctm                matrix
	tm, tlm            matrix // text and text line matrices
	leading            float64
	lineWidth          float64
	fill, stroke       *colourSpace
	fillVal, strokeVal []float64
}

var (
	csGray = &colourSpace{family: "DeviceGray", n: 1}
	csRGB  = &colourSpace{family: "DeviceRGB", n: 3}
	csCMYK = &colourSpace{family: "DeviceCMYK", n: 4}
)

func (s *scanner) colourSpace(o any, res dict, depth int) *colourSpace {
	if depth > 4 {
		return nil
	}
	o = s.f.get(o)
	switch v := o.(type) {
	case name:
		switch v {
		case "DeviceRGB", "RGB":
			return csRGB
		case "DeviceCMYK", "CMYK":
			return csCMYK
		case "DeviceGray", "G":
			return csGray
		case "Pattern":
			return &colourSpace{family: "Pattern"}
		}
		if csd := s.f.dictOf(res["ColorSpace"]); csd != nil {
			if x, ok := csd[v]; ok {
				return s.colourSpace(x, nil, depth+1)
			}
		}
		return nil
	case array:
		if len(v) == 0 {
			return nil
		}
		fam, _ := s.f.get(v[0]).(name)
		cs := &colourSpace{family: string(fam)}
		switch fam {
		case "ICCBased":
			if len(v) > 1 {
				n, _ := s.f.num(s.f.dictOf(v[1])["N"])
				cs.n = int(n)
			}
		case "Separation":
			cs.n = 1
			if len(v) > 1 {
				if sp, ok := s.f.get(v[1]).(name); ok {
					cs.spots = []string{string(sp)}
				}
			}
		case "DeviceN":
			if len(v) > 1 {
				for _, x := range s.f.arrayOf(v[1]) {
					if sp, ok := s.f.get(x).(name); ok {
						cs.spots = append(cs.spots, string(sp))
					}
				}
				cs.n = len(cs.spots)
			}
		case "Indexed", "I":
			cs.family = "Indexed"
			cs.n = 1
			if len(v) > 1 {
				cs.base = s.colourSpace(v[1], res, depth+1)
			}
		case "Pattern":
			if len(v) > 1 {
				cs.base = s.colourSpace(v[1], res, depth+1)
			}
		case "Lab":
			cs.n = 3
		case "CalRGB":
			cs.n = 3
		case "CalGray":
			cs.n = 1
		default:
			return s.colourSpace(fam, res, depth+1)
		}
		return cs
	}
	return nil
}

// use records that a colour space is painted with, at the given place.
func (s *scanner) use(cs *colourSpace, where string) {
	for d := 0; cs != nil && d < 4; d++ {
		switch cs.family {
		case "DeviceRGB", "DeviceCMYK", "DeviceGray":
			if !s.ps.device[cs.family] {
				s.ps.device[cs.family] = true
				s.ps.deviceAt[cs.family] = where
			}
		}
		for _, sp := range cs.spots {
			s.ps.spots[sp] = true
		}
		cs = cs.base
	}
}

// scanPage scans the page's content.
func (f *pdfFile) scanPage(page dict, bleed rect, trim *rect) *pageScan {
	ps := &pageScan{device: map[string]bool{}, deviceAt: map[string]string{}, spots: map[string]bool{}, fonts: map[any]bool{}, thinLine: -1, textEdge: -1}
	s := &scanner{f: f, bleed: bleed, trim: trim, ps: ps, forms: map[any]bool{}, pictures: map[*stream]int{}}
	res := f.dictOf(page["Resources"])
	var content []byte
	switch c := f.get(page["Contents"]).(type) {
	case *stream:
		b, err := f.decode(c)
		if err != nil {
			s.fail(err)
			return ps
		}
		content = b
	case array:
		for _, x := range c {
			st, ok := f.get(x).(*stream)
			if !ok {
				continue
			}
			b, err := f.decode(st)
			if err != nil {
				s.fail(err)
				return ps
			}
			content = append(append(content, b...), '\n')
		}
	}
	s.run(content, res, gstate{ctm: identity, fill: csGray, stroke: csGray, fillVal: []float64{0}, strokeVal: []float64{0}, lineWidth: 1}, 0)
	return ps
}

func (s *scanner) fail(err error) {
	if s.ps.err == nil {
		s.ps.err = err
	}
}

// tac records a CMYK total painted over the box b (in page space).
func (s *scanner) tac(cs *colourSpace, val []float64, b rect, what string) {
	if !overlaps(b, s.bleed) {
		return
	}
	switch {
	case cs == nil:
	case cs.family == "DeviceCMYK" || (cs.family == "ICCBased" && cs.n == 4):
		if len(val) == 4 {
			t := (val[0] + val[1] + val[2] + val[3]) * 100
			s.ps.tacSeen, s.ps.cmykSeen = true, true
			s.ps.tacMax = max(s.ps.tacMax, t)
		}
	case cs.family == "Separation" || cs.family == "DeviceN":
		// spot inks: not part of C+M+Y+K (docs/preflight.md "Total ink")
	case cs.family == "Pattern" || cs.family == "Indexed":
		s.partial(what + " in " + cs.family)
	case cs.family == "DeviceGray" && len(val) == 1:
		s.ps.tacSeen = true
		s.ps.tacMax = max(s.ps.tacMax, (1-val[0])*100)
	}
}

func (s *scanner) partial(what string) {
	for _, p := range s.ps.tacPartial {
		if p == what {
			return
		}
	}
	if len(s.ps.tacPartial) < 8 {
		s.ps.tacPartial = append(s.ps.tacPartial, what)
	}
}

// overlaps: a and b share an area (or a line of a zero-width box inside b).
func overlaps(a, b rect) bool {
	const eps = 0.01
	return a.x0 < b.x1-eps && a.x1 > b.x0+eps && a.y0 < b.y1-eps && a.y1 > b.y0+eps
}

func bbox(pts [][2]float64) rect {
	r := rect{math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)}
	for _, p := range pts {
		r.x0, r.y0 = min(r.x0, p[0]), min(r.y0, p[1])
		r.x1, r.y1 = max(r.x1, p[0]), max(r.y1, p[1])
	}
	return r
}

// run interprets one content stream.
func (s *scanner) run(content []byte, res dict, g gstate, depth int) {
	if depth > 12 {
		return
	}
	l := &lexer{data: content}
	var stack []gstate
	var ops []any
	var path [][2]float64
	fonts := s.f.dictOf(res["Font"])
	for {
		s.f.budget.ops++
		if s.f.budget.ops > s.f.budget.MaxOps {
			s.fail(errBudget)
			return
		}
		t, err := l.next()
		if err == io.EOF {
			return
		}
		if err != nil {
			continue // a stray delimiter: readers skip it
		}
		kw, isOp := t.(keyword)
		if !isOp || kw == "[" || kw == "<<" || kw == "true" || kw == "false" || kw == "null" {
			o, err := l.objectFrom(t, 1)
			if err != nil {
				ops = ops[:0]
				continue
			}
			if len(ops) < 64 {
				ops = append(ops, o)
			}
			continue
		}
		nums := func(n int) ([]float64, bool) {
			if len(ops) < n {
				return nil, false
			}
			out := make([]float64, n)
			for i, o := range ops[len(ops)-n:] {
				switch v := o.(type) {
				case int64:
					out[i] = float64(v)
				case float64:
					out[i] = v
				default:
					return nil, false
				}
			}
			return out, true
		}
		allNums := func() []float64 {
			var out []float64
			for _, o := range ops {
				switch v := o.(type) {
				case int64:
					out = append(out, float64(v))
				case float64:
					out = append(out, v)
				}
			}
			return out
		}
		addPt := func(x, y float64) {
			px, py := g.ctm.apply(x, y)
			if len(path) < 1<<16 {
				path = append(path, [2]float64{px, py})
			}
		}
		switch kw {
		case "q":
			if len(stack) < 256 {
				stack = append(stack, g)
			}
		case "Q":
			if len(stack) > 0 {
				g = stack[len(stack)-1]
				stack = stack[:len(stack)-1]
			}
		case "cm":
			if v, ok := nums(6); ok {
				g.ctm = matrix{v[0], v[1], v[2], v[3], v[4], v[5]}.mul(g.ctm)
			}
		case "m", "l":
			if v, ok := nums(2); ok {
				addPt(v[0], v[1])
			}
		case "c":
			if v, ok := nums(6); ok {
				addPt(v[0], v[1])
				addPt(v[2], v[3])
				addPt(v[4], v[5])
			}
		case "v", "y":
			if v, ok := nums(4); ok {
				addPt(v[0], v[1])
				addPt(v[2], v[3])
			}
		case "re":
			if v, ok := nums(4); ok {
				addPt(v[0], v[1])
				addPt(v[0]+v[2], v[1])
				addPt(v[0]+v[2], v[1]+v[3])
				addPt(v[0], v[1]+v[3])
			}
		case "h":
		case "n":
			path = path[:0]
		case "f", "F", "f*":
			s.use(g.fill, "a fill")
			s.tac(g.fill, g.fillVal, bbox(path), "a fill")
			path = path[:0]
		case "S", "s":
			s.use(g.stroke, "a stroke")
			s.tac(g.stroke, g.strokeVal, strokeBox(g, bbox(path)), "a stroke")
			s.line(g, bbox(path))
			path = path[:0]
		case "B", "B*", "b", "b*":
			s.use(g.fill, "a fill")
			s.use(g.stroke, "a stroke")
			s.tac(g.fill, g.fillVal, bbox(path), "a fill")
			s.tac(g.stroke, g.strokeVal, strokeBox(g, bbox(path)), "a stroke")
			s.line(g, bbox(path))
			path = path[:0]
		case "w":
			if v, ok := nums(1); ok {
				g.lineWidth = v[0]
			}
		case "g":
			g.fill, g.fillVal = csGray, allNums()
		case "G":
			g.stroke, g.strokeVal = csGray, allNums()
		case "rg":
			g.fill, g.fillVal = csRGB, allNums()
		case "RG":
			g.stroke, g.strokeVal = csRGB, allNums()
		case "k":
			g.fill, g.fillVal = csCMYK, allNums()
		case "K":
			g.stroke, g.strokeVal = csCMYK, allNums()
		case "cs", "CS":
			if len(ops) > 0 {
				cs := s.colourSpace(ops[len(ops)-1], res, 0)
				if kw == "cs" {
					g.fill, g.fillVal = cs, nil
				} else {
					g.stroke, g.strokeVal = cs, nil
				}
			}
		case "sc", "scn":
			g.fillVal = allNums()
		case "SC", "SCN":
			g.strokeVal = allNums()
		case "Tf":
			if len(ops) >= 2 {
				if n, ok := ops[len(ops)-2].(name); ok && fonts != nil {
					if fr, ok := fonts[n]; ok {
						s.ps.fonts[fontKey(fr)] = true
					}
				}
			}
		case "BT":
			g.tm, g.tlm = identity, identity
		case "Tm":
			if v, ok := nums(6); ok {
				g.tm = matrix{v[0], v[1], v[2], v[3], v[4], v[5]}
				g.tlm = g.tm
			}
		case "Td", "TD":
			if v, ok := nums(2); ok {
				g.tlm = matrix{1, 0, 0, 1, v[0], v[1]}.mul(g.tlm)
				g.tm = g.tlm
				if kw == "TD" {
					g.leading = -v[1]
				}
			}
		case "TL":
			if v, ok := nums(1); ok {
				g.leading = v[0]
			}
		case "T*":
			g.tlm = matrix{1, 0, 0, 1, 0, -g.leading}.mul(g.tlm)
			g.tm = g.tlm
		case "Tj", "TJ", "'", "\"":
			s.use(g.fill, "text")
			// Text counts where it starts: a point's square of 1 pt around the
			// text origin (glyph extents are not measured).
			x, y := g.tm.mul(g.ctm).apply(0, 0)
			s.tac(g.fill, g.fillVal, rect{x - 0.5, y - 0.5, x + 0.5, y + 0.5}, "text")
			if t := s.trim; t != nil && x > t.x0 && x < t.x1 && y > t.y0 && y < t.y1 {
				d := min(x-t.x0, t.x1-x, y-t.y0, t.y1-y)
				if s.ps.textEdge < 0 || d < s.ps.textEdge {
					s.ps.textEdge = d
				}
			}
		case "gs":
			if len(ops) > 0 {
				if n, ok := ops[len(ops)-1].(name); ok {
					if d := s.f.dictOf(s.f.dictOf(res["ExtGState"])[n]); d != nil && len(s.ps.extg) < 256 {
						s.ps.extg = append(s.ps.extg, d)
					}
				}
			}
		case "sh":
			if len(ops) > 0 {
				if n, ok := ops[len(ops)-1].(name); ok {
					sh := s.f.dictOf(s.f.dictOf(res["Shading"])[n])
					cs := s.colourSpace(sh["ColorSpace"], res, 0)
					s.use(cs, "a shading")
					s.partial("a shading")
				}
			}
		case "BI":
			s.inlineImage(l, res, g)
		case "Do":
			if len(ops) > 0 {
				if n, ok := ops[len(ops)-1].(name); ok {
					s.xobject(s.f.dictOf(res["XObject"])[n], res, g, depth)
				}
			}
		case "d0", "d1", "ET", "Tc", "Tw", "Tz", "Tr", "Ts",
			"J", "j", "M", "d", "ri", "i", "W", "W*", "BDC", "BMC", "EMC", "MP", "DP", "BX", "EX":
		}
		ops = ops[:0]
	}
}

// strokeWidth is the stroke's width on the page, through the current
// transformation.
func strokeWidth(g gstate) float64 {
	det := g.ctm[0]*g.ctm[3] - g.ctm[1]*g.ctm[2]
	return g.lineWidth * math.Sqrt(math.Abs(det))
}

// strokeBox is the box a stroke along a path of box b paints: b grown by half the
// line width (a straight line's path has no area of its own).
func strokeBox(g gstate, b rect) rect {
	h := strokeWidth(g) / 2
	return rect{b.x0 - h, b.y0 - h, b.x1 + h, b.y1 + h}
}

// line records a stroke's width when it paints process ink inside the BleedBox:
// spot strokes (a cut contour's hairline) are not printed.
func (s *scanner) line(g gstate, b rect) {
	if g.stroke != nil && (g.stroke.family == "Separation" || g.stroke.family == "DeviceN") {
		return
	}
	if !overlaps(strokeBox(g, b), s.bleed) {
		return
	}
	if w := strokeWidth(g); s.ps.thinLine < 0 || w < s.ps.thinLine {
		s.ps.thinLine = w
	}
}

// fontKey identifies a font resource: its reference, or the dictionary's address.
func fontKey(o any) any {
	if r, ok := o.(ref); ok {
		return r
	}
	return o
}

func (s *scanner) xobject(o any, res dict, g gstate, depth int) {
	x, ok := s.f.get(o).(*stream)
	if !ok {
		return
	}
	switch s.f.get(x.dict["Subtype"]) {
	case name("Image"):
		s.image(x.dict, x, res, g)
	case name("Form"):
		m := identity
		if a := s.f.arrayOf(x.dict["Matrix"]); len(a) == 6 {
			for i := range m {
				m[i], _ = s.f.num(a[i])
			}
		}
		g.ctm = m.mul(g.ctm)
		if grp := s.f.dictOf(x.dict["Group"]); grp != nil && len(s.ps.groups) < 256 {
			s.ps.groups = append(s.ps.groups, grp)
		}
		key := fontKey(o)
		if s.forms[key] { // drawn before on this page: its colours are known, and
			return // a form drawing forms many times over would cost without bound
		}
		s.forms[key] = true
		b, err := s.f.decode(x)
		if err != nil {
			s.fail(err)
			return
		}
		fres := s.f.dictOf(x.dict["Resources"])
		if fres == nil {
			fres = res
		}
		s.run(b, fres, g, depth+1)
	}
}

// image records a picture: its colour space, its effective resolution and the
// highest CMYK total of its pixels (8-bit DeviceCMYK pictures the checker decodes).
func (s *scanner) image(d dict, x *stream, res dict, g gstate) {
	corners := [][2]float64{}
	for _, p := range [][2]float64{{0, 0}, {1, 0}, {0, 1}, {1, 1}} {
		px, py := g.ctm.apply(p[0], p[1])
		corners = append(corners, [2]float64{px, py})
	}
	box := bbox(corners)
	mask, _ := s.f.get(d["ImageMask"]).(bool)
	if mask {
		s.use(g.fill, "a stencil mask")
		s.tac(g.fill, g.fillVal, box, "a stencil mask")
		return
	}
	cs := s.colourSpace(d["ColorSpace"], res, 0)
	if cs == nil && d["ColorSpace"] == nil {
		s.partial("a picture with its own colour space (JPX)")
	}
	s.use(cs, "a picture")
	if !overlaps(box, s.bleed) {
		return
	}
	w, _ := s.f.num(d["Width"])
	h, _ := s.f.num(d["Height"])
	sx := math.Hypot(g.ctm[0], g.ctm[1])
	sy := math.Hypot(g.ctm[2], g.ctm[3])
	if w > 0 && h > 0 && sx > 0 && sy > 0 {
		dpi := min(w*72/sx, h*72/sy)
		if s.ps.minDPI == 0 || dpi < s.ps.minDPI {
			s.ps.minDPI = dpi
		}
	}
	if x == nil {
		return
	}
	bpc, _ := s.f.num(d["BitsPerComponent"])
	if cs == nil || !(cs.family == "DeviceCMYK" || (cs.family == "ICCBased" && cs.n == 4)) {
		if cs != nil && cs.family != "DeviceRGB" && cs.family != "DeviceGray" && cs.family != "ICCBased" {
			s.partial("a picture in " + cs.family)
		}
		return
	}
	invert, ok := s.decodeArray(d["Decode"])
	if bpc != 8 || !ok {
		s.partial("a CMYK picture that is not plain 8-bit")
		return
	}
	if best, ok := s.pictures[x]; ok {
		s.pictureTAC(best)
		return
	}
	px, err := s.f.decode(x)
	if err != nil {
		if errors.Is(err, errBudget) {
			s.fail(err)
		}
		s.partial("a CMYK picture the checker does not decode")
		return
	}
	var alpha []byte
	if sm, ok := s.f.get(d["SMask"]).(*stream); ok {
		if a, err := s.f.decode(sm); err == nil {
			aw, _ := s.f.num(sm.dict["Width"])
			ah, _ := s.f.num(sm.dict["Height"])
			if abpc, _ := s.f.num(sm.dict["BitsPerComponent"]); abpc == 8 && aw == w && ah == h && float64(len(a)) >= w*h {
				alpha = a
			}
		}
	}
	n := min(len(px)/4, int(w*h))
	best := -1
	for i := 0; i < n; i++ {
		if alpha != nil && alpha[i] == 0 {
			continue
		}
		t := int(px[4*i]) + int(px[4*i+1]) + int(px[4*i+2]) + int(px[4*i+3])
		if invert {
			t = 4*255 - t
		}
		best = max(best, t)
	}
	s.pictures[x] = best
	s.pictureTAC(best)
}

// pictureTAC counts a picture's densest pixel sum (of 4 x 255; -1: none).
func (s *scanner) pictureTAC(best int) {
	if best >= 0 {
		s.ps.tacSeen, s.ps.cmykSeen = true, true
		s.ps.tacMax = max(s.ps.tacMax, float64(best)*100/255)
	}
}

// decodeArray reads a CMYK picture's Decode array: none or [0 1 ...] as it is,
// [1 0 ...] inverted (as Adobe's CMYK JPEGs and fpdf write them); ok false for
// any other mapping.
func (s *scanner) decodeArray(o any) (invert, ok bool) {
	a := s.f.arrayOf(o)
	if a == nil {
		return false, true
	}
	if len(a) != 8 {
		return false, false
	}
	first, _ := s.f.num(a[0])
	for i := 0; i < 8; i += 2 {
		lo, _ := s.f.num(a[i])
		hi, _ := s.f.num(a[i+1])
		if lo != first || hi != 1-first || (lo != 0 && lo != 1) {
			return false, false
		}
	}
	return first == 1, true
}

// inlineImage reads BI ... ID data EI: the dictionary, then skips the data.
func (s *scanner) inlineImage(l *lexer, res dict, g gstate) {
	d := dict{}
	for {
		t, err := l.next()
		if err != nil {
			return
		}
		if t == keyword("ID") {
			break
		}
		k, ok := t.(name)
		if !ok {
			return
		}
		o, err := l.object(1)
		if err != nil {
			return
		}
		d[k] = o
	}
	l.pos++ // the single white-space byte after ID
	// The data ends at "EI" between white space.
	for l.pos < len(l.data) {
		i := bytes.Index(l.data[l.pos:], []byte("EI"))
		if i < 0 {
			l.pos = len(l.data)
			break
		}
		at := l.pos + i
		l.pos = at + 2
		if at > 0 && isWhite(l.data[at-1]) && (at+2 == len(l.data) || isWhite(l.data[at+2])) {
			break
		}
	}
	for _, k := range [][2]name{{"CS", "ColorSpace"}, {"W", "Width"}, {"H", "Height"}, {"BPC", "BitsPerComponent"}, {"IM", "ImageMask"}, {"D", "Decode"}} {
		if v, ok := d[k[0]]; ok {
			d[k[1]] = v
		}
	}
	if _, ok := d["ColorSpace"]; !ok && d["ImageMask"] != true {
		d["ColorSpace"] = name("DeviceGray")
	}
	s.image(d, nil, res, g)
}
