package svg

import (
	"math"
	"strings"
)

// renderText emits one shape per run of a <text> element: its own character
// data and that of its <tspan> children (nested ones too), each with its
// style. Positions: x, y, dx, dy of the element and of each tspan (the first
// number of a list). White space is collapsed as xml:space="default" does.
func (p *parser) renderText(n *node, ctm Matrix, st *computedStyle, opacity float64) error {
	first := true
	// next holds the position attributes met since the last run: the next run
	// starts there. A <text> without x or y starts at 0.
	next := Text{HasX: true, HasY: true}
	var walk func(n *node, st *computedStyle, opacity float64) error
	walk = func(n *node, st *computedStyle, opacity float64) error {
		if x, ok := firstLength(n.attr("x"), p.vpW); ok {
			next.X, next.HasX = x, true
		}
		if y, ok := firstLength(n.attr("y"), p.vpH); ok {
			next.Y, next.HasY = y, true
		}
		if dx, ok := firstLength(n.attr("dx"), p.vpW); ok {
			next.DX += dx
		}
		if dy, ok := firstLength(n.attr("dy"), p.vpH); ok {
			next.DY += dy
		}
		for _, c := range n.children {
			switch c.name {
			case "#text":
				txt := collapseSpace(c.text, first)
				if txt == "" {
					continue
				}
				first = false
				t := next
				t.Content, t.Transform = txt, ctm
				next = Text{}
				p.emitText(&t, ctm, st, opacity)
			case "textPath":
				p.unsupportedf("text")
			case "tspan":
				if err := p.visit(); err != nil {
					return err
				}
				cst := p.computeStyle(c, st)
				if cst.own("display") == "none" {
					continue
				}
				o := opacity
				if v := cst.own("opacity"); v != "" {
					o *= parseOpacity(v)
				}
				if err := walk(c, cst, o); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := walk(n, st, opacity); err != nil {
		return err
	}
	// Trailing white space of the element is dropped.
	for i := len(p.doc.Shapes) - 1; i >= 0 && p.doc.Shapes[i].Text != nil; i-- {
		t := p.doc.Shapes[i].Text
		t.Content = strings.TrimRight(t.Content, " ")
		if t.Content != "" {
			break
		}
	}
	return nil
}

// emitText adds the shape of one text run with its font and paint.
func (p *parser) emitText(t *Text, ctm Matrix, st *computedStyle, opacity float64) {
	size, ok := parseLength(st.get("font-size"), 16)
	if !ok || size <= 0 {
		size = 16
	}
	t.Size = size
	t.Family = st.get("font-family")
	switch w := strings.TrimSpace(st.get("font-weight")); w {
	case "bold", "bolder":
		t.Bold = true
	default:
		if v, err := (&numScanner{s: w}).number(); err == nil && v >= 600 {
			t.Bold = true
		}
	}
	switch strings.TrimSpace(st.get("font-style")) {
	case "italic", "oblique":
		t.Italic = true
	}
	t.Anchor = "start"
	switch a := strings.TrimSpace(st.get("text-anchor")); a {
	case "middle", "end":
		t.Anchor = a
	}
	start := len(p.doc.Shapes)
	p.emit(nil, ctm, st, opacity)
	if len(p.doc.Shapes) > start {
		p.doc.Shapes[start].Text = t
	} else {
		// Unpainted text still moves the pen for the runs after it.
		p.doc.Shapes = append(p.doc.Shapes, Shape{Text: t, FillRule: "nonzero", Opacity: 0})
	}
}

// firstLength reads the first length of a list such as x="10 20 30".
func firstLength(v string, ref float64) (float64, bool) {
	f := strings.FieldsFunc(v, func(r rune) bool { return r == ',' || isSpace(byte(r)) })
	if len(f) == 0 {
		return 0, false
	}
	l, ok := parseLength(f[0], ref)
	if !ok || math.IsNaN(l) {
		return 0, false
	}
	return l, true
}

// collapseSpace applies xml:space="default": newlines removed, tabs to spaces,
// runs of spaces to one; leading space dropped at the start of the element.
func collapseSpace(s string, atStart bool) string {
	s = strings.ReplaceAll(s, "\r", "")
	s = strings.ReplaceAll(s, "\n", "")
	s = strings.ReplaceAll(s, "\t", " ")
	var b strings.Builder
	prev := false
	for _, r := range s {
		if r == ' ' {
			if prev {
				continue
			}
			prev = true
		} else {
			prev = false
		}
		b.WriteRune(r)
	}
	out := b.String()
	if atStart {
		out = strings.TrimLeft(out, " ")
	}
	return out
}
