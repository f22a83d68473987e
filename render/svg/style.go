package svg

import (
	"sort"
	"strings"
)

// inherited lists the properties that flow from parent to child (SVG 1.1
// property index); the others apply to the element alone.
var inherited = map[string]bool{
	"fill": true, "fill-opacity": true, "fill-rule": true,
	"stroke": true, "stroke-width": true, "stroke-opacity": true,
	"stroke-linecap": true, "stroke-linejoin": true, "stroke-miterlimit": true,
	"stroke-dasharray": true, "stroke-dashoffset": true,
	"color": true, "visibility": true, "clip-rule": true,
	"font-family": true, "font-size": true, "font-weight": true, "font-style": true,
	"text-anchor": true,
}

// notInherited are the other properties read from presentation attributes.
var notInherited = map[string]bool{
	"opacity": true, "display": true, "clip-path": true, "mask": true, "filter": true,
	"stop-color": true, "stop-opacity": true,
}

// computedStyle holds an element's inherited properties plus its own
// non-inherited ones.
type computedStyle struct {
	props map[string]string // inherited properties, after cascade
	local map[string]string // non-inherited properties of this element
}

func rootStyle() *computedStyle {
	return &computedStyle{props: map[string]string{
		"fill": "black", "stroke": "none", "color": "black",
	}, local: map[string]string{}}
}

func (c *computedStyle) get(k string) string { return c.props[k] }
func (c *computedStyle) own(k string) string { return c.local[k] }

// computeStyle applies, in increasing priority, presentation attributes,
// <style> rules by specificity then source order, and the style attribute.
func (p *parser) computeStyle(n *node, parent *computedStyle) *computedStyle {
	st := &computedStyle{props: make(map[string]string, len(parent.props)+2), local: map[string]string{}}
	for k, v := range parent.props {
		st.props[k] = v
	}
	set := func(k, v string) {
		k = strings.ToLower(strings.TrimSpace(k))
		v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "!important"))
		v = strings.TrimSpace(v)
		if v == "" {
			return
		}
		switch {
		case inherited[k]:
			if v == "inherit" {
				st.props[k] = parent.props[k]
				return
			}
			if (k == "fill" || k == "stroke") && !validPaint(v) {
				return // an invalid paint is ignored, keeping the inherited one
			}
			st.props[k] = v
		case notInherited[k]:
			if v != "inherit" {
				st.local[k] = v
			}
		}
	}
	for k, v := range n.attrs {
		if inherited[k] || notInherited[k] {
			set(k, v)
		}
	}
	if len(p.rules) > 0 {
		for _, r := range p.matching(n) {
			for _, d := range r.decls {
				set(d[0], d[1])
			}
		}
	}
	for _, d := range parseDecls(n.attr("style")) {
		set(d[0], d[1])
	}
	return st
}

func validPaint(v string) bool {
	if v == "none" || v == "currentColor" || strings.HasPrefix(v, "url(") {
		return true
	}
	_, ok := parseColor(v)
	return ok
}

// cssRule is one simple selector with its declarations.
type cssRule struct {
	tag, id string
	classes []string
	spec    int // specificity: 100 per id, 10 per class, 1 per tag
	order   int
	decls   [][2]string
}

func (r *cssRule) matches(n *node) bool {
	if r.tag != "" && r.tag != "*" && r.tag != n.name {
		return false
	}
	if r.id != "" && r.id != n.attr("id") {
		return false
	}
	if len(r.classes) > 0 {
		have := strings.Fields(n.attr("class"))
	outer:
		for _, c := range r.classes {
			for _, h := range have {
				if h == c {
					continue outer
				}
			}
			return false
		}
	}
	return true
}

func (p *parser) matching(n *node) []*cssRule {
	var out []*cssRule
	for i := range p.rules {
		if p.rules[i].matches(n) {
			out = append(out, &p.rules[i])
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].spec != out[j].spec {
			return out[i].spec < out[j].spec
		}
		return out[i].order < out[j].order
	})
	return out
}

// parseCSS reads a style sheet made of simple selectors (tag, .class, #id,
// and their compounds, comma-separated). Combinators, pseudo-classes,
// attribute selectors and at-rules are reported and skipped.
func parseCSS(css string, order int, unsupported func(string)) []cssRule {
	// Strip comments and CDATA markers.
	for {
		i := strings.Index(css, "/*")
		if i < 0 {
			break
		}
		j := strings.Index(css[i+2:], "*/")
		if j < 0 {
			css = css[:i]
			break
		}
		css = css[:i] + " " + css[i+2+j+2:]
	}
	css = strings.NewReplacer("<![CDATA[", " ", "]]>", " ").Replace(css)
	var rules []cssRule
	for {
		css = strings.TrimSpace(css)
		if css == "" {
			return rules
		}
		open := strings.IndexByte(css, '{')
		if open < 0 {
			return rules
		}
		prelude := strings.TrimSpace(css[:open])
		// Find the matching close brace (at-rules nest blocks).
		depth, end := 0, -1
		for i := open; i < len(css); i++ {
			if css[i] == '{' {
				depth++
			} else if css[i] == '}' {
				depth--
				if depth == 0 {
					end = i
					break
				}
			}
		}
		if end < 0 {
			end = len(css)
		}
		body := css[open+1 : end]
		if end < len(css) {
			css = css[end+1:]
		} else {
			css = ""
		}
		if strings.HasPrefix(prelude, "@") {
			unsupported("css at-rule")
			continue
		}
		decls := parseDecls(body)
		for _, sel := range strings.Split(prelude, ",") {
			r, ok := parseSelector(strings.TrimSpace(sel))
			if !ok {
				unsupported("css selector")
				continue
			}
			r.order = order
			order++
			r.decls = decls
			rules = append(rules, r)
		}
	}
}

func parseSelector(s string) (cssRule, bool) {
	var r cssRule
	if s == "" {
		return r, false
	}
	isName := func(c byte) bool {
		return c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
	}
	i := 0
	if s[0] == '*' {
		r.tag = "*"
		i = 1
	} else {
		for i < len(s) && isName(s[i]) {
			i++
		}
		if i > 0 {
			r.tag = s[:i]
			r.spec++
		}
	}
	for i < len(s) {
		kind := s[i]
		if kind != '.' && kind != '#' {
			return r, false
		}
		j := i + 1
		for j < len(s) && isName(s[j]) {
			j++
		}
		if j == i+1 {
			return r, false
		}
		if kind == '.' {
			r.classes = append(r.classes, s[i+1:j])
			r.spec += 10
		} else {
			if r.id != "" {
				return r, false
			}
			r.id = s[i+1 : j]
			r.spec += 100
		}
		i = j
	}
	return r, true
}

// parseDecls splits "a: b; c: d" into pairs.
func parseDecls(s string) [][2]string {
	var out [][2]string
	for _, d := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(d, ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if k != "" && v != "" {
			out = append(out, [2]string{k, v})
		}
	}
	return out
}
