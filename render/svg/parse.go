package svg

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
)

const svgNS = "http://www.w3.org/2000/svg"

// node is a parsed element. Only what rendering needs is kept.
type node struct {
	name     string
	attrs    map[string]string
	children []*node
	text     string // character data, kept for <style> only
}

func (n *node) attr(k string) string { return n.attrs[k] }

// limitedReader fails once more than n bytes were read, so the size cap holds
// without buffering the whole input first.
type limitedReader struct {
	r        io.Reader
	n        int64
	exceeded bool
}

var errTooLarge = errors.New("input too large")

func (l *limitedReader) Read(p []byte) (int, error) {
	if l.n < 0 {
		l.exceeded = true
		return 0, errTooLarge
	}
	if int64(len(p)) > l.n+1 {
		p = p[:l.n+1]
	}
	n, err := l.r.Read(p)
	l.n -= int64(n)
	if l.n < 0 {
		l.exceeded = true
		return n, errTooLarge
	}
	return n, err
}

// Parse reads an SVG document. Limits are enforced while streaming, before
// any structure grows past them. All errors are *Error.
func Parse(r io.Reader, lim Limits) (*Doc, error) {
	lim = lim.withDefaults()
	root, err := readTree(r, lim)
	if err != nil {
		return nil, err
	}
	p := newParser(root, lim)
	return p.build()
}

func readTree(r io.Reader, lim Limits) (*node, error) {
	lr := &limitedReader{r: r, n: lim.MaxBytes}
	dec := xml.NewDecoder(lr)
	dec.Strict = true
	// Only the five predefined entities exist: no DTD is ever read, so
	// entity expansion bombs cannot happen.
	dec.Entity = nil
	dec.CharsetReader = func(charset string, in io.Reader) (io.Reader, error) {
		switch strings.ToLower(charset) {
		case "us-ascii", "ascii":
			return in, nil
		case "iso-8859-1", "latin1", "latin-1":
			return &latin1Reader{r: in}, nil
		}
		return nil, fmt.Errorf("unsupported charset %q", charset)
	}
	var (
		root     *node
		stack    []*node
		elements int
	)
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			if lr.exceeded {
				return nil, &Error{Reason: fmt.Sprintf("larger than %d bytes", lim.MaxBytes), Err: ErrLimit}
			}
			return nil, &Error{Reason: "malformed XML: " + err.Error(), Err: ErrMalformed}
		}
		switch t := tok.(type) {
		case xml.Directive:
			d := bytes.ToUpper(bytes.TrimSpace(t))
			// A DOCTYPE naming the public SVG DTD is harmless (it is never
			// fetched); an internal subset may declare entities: refuse.
			if bytes.Contains(d, []byte("ENTITY")) || bytes.ContainsRune(d, '[') {
				return nil, &Error{Reason: "DTD internal subset or entity declarations are not accepted", Err: ErrRefused}
			}
		case xml.StartElement:
			elements++
			if elements > lim.MaxElements {
				return nil, &Error{Reason: fmt.Sprintf("more than %d elements", lim.MaxElements), Err: ErrLimit}
			}
			if len(stack) >= lim.MaxDepth {
				return nil, &Error{Reason: fmt.Sprintf("elements nested deeper than %d", lim.MaxDepth), Err: ErrLimit}
			}
			n := &node{name: t.Name.Local, attrs: make(map[string]string, len(t.Attr))}
			// Foreign elements (Inkscape, Illustrator metadata) are kept
			// as inert nodes so that their subtree is skipped.
			if t.Name.Space != "" && t.Name.Space != svgNS {
				n.name = "foreign:" + t.Name.Local
			}
			for _, a := range t.Attr {
				switch a.Name.Space {
				case "", "http://www.w3.org/1999/xlink", svgNS, "xlink":
					n.attrs[a.Name.Local] = a.Value
				}
			}
			if len(stack) == 0 {
				if root != nil {
					return nil, &Error{Reason: "more than one root element", Err: ErrMalformed}
				}
				if n.name != "svg" {
					return nil, &Error{Reason: fmt.Sprintf("root element is <%s>, not <svg>", t.Name.Local), Err: ErrMalformed}
				}
				root = n
			} else {
				parent := stack[len(stack)-1]
				parent.children = append(parent.children, n)
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) == 0 {
				break
			}
			switch top := stack[len(stack)-1]; top.name {
			case "style":
				top.text += string(t)
			case "text", "tspan":
				// Character data of text is kept as "#text" children, in order
				// with the tspans. They count as elements against the limits.
				elements++
				if elements > lim.MaxElements {
					return nil, &Error{Reason: fmt.Sprintf("more than %d elements", lim.MaxElements), Err: ErrLimit}
				}
				top.children = append(top.children, &node{name: "#text", text: string(t)})
			}
		}
	}
	if root == nil {
		return nil, &Error{Reason: "no <svg> element", Err: ErrMalformed}
	}
	return root, nil
}

type latin1Reader struct {
	r   io.Reader
	buf []byte
}

func (l *latin1Reader) Read(p []byte) (int, error) {
	if len(p) < 2 {
		return 0, io.ErrShortBuffer
	}
	if cap(l.buf) < len(p)/2 {
		l.buf = make([]byte, len(p)/2)
	}
	n, err := l.r.Read(l.buf[:len(p)/2])
	j := 0
	for _, b := range l.buf[:n] {
		if b < 0x80 {
			p[j] = b
			j++
		} else {
			p[j], p[j+1] = 0xc0|b>>6, 0x80|b&0x3f
			j += 2
		}
	}
	return j, err
}

// parser turns the element tree into shapes.
type parser struct {
	root        *node
	lim         Limits
	ids         map[string]*node
	rules       []cssRule
	doc         *Doc
	unsupported map[string]bool
	visited     int // elements visited while rendering, <use> expansions included
	useStack    []*node
	vpW, vpH    float64 // viewport size in user units, for percentages
	// marks are the ids of the element being rendered and its ancestors (through
	// <use> too), outermost first: each shape emitted records them (Shape.Marks).
	// marksSnap is a copy of marks the shapes share until marks changes (the
	// stack's array is reused, so a shape cannot keep a slice of it).
	marks, marksSnap []string
}

func newParser(root *node, lim Limits) *parser {
	p := &parser{root: root, lim: lim, ids: map[string]*node{}, doc: &Doc{}, unsupported: map[string]bool{}}
	var walk func(n *node)
	walk = func(n *node) {
		if id := n.attr("id"); id != "" {
			if _, dup := p.ids[id]; !dup {
				p.ids[id] = n
			}
		}
		if n.name == "style" {
			p.rules = append(p.rules, parseCSS(n.text, len(p.rules), p.unsupportedf)...)
		}
		for _, c := range n.children {
			walk(c)
		}
	}
	walk(root)
	return p
}

func (p *parser) unsupportedf(feature string) {
	if !p.unsupported[feature] {
		p.unsupported[feature] = true
		p.doc.Unsupported = append(p.doc.Unsupported, feature)
	}
}

func (p *parser) build() (*Doc, error) {
	root, doc := p.root, p.doc
	if vb, ok := parseViewBox(root.attr("viewBox")); ok {
		doc.ViewBox, doc.HasViewBox = vb, true
	}
	w, wok := parseLength(root.attr("width"), doc.ViewBox[2])
	h, hok := parseLength(root.attr("height"), doc.ViewBox[3])
	if strings.HasSuffix(strings.TrimSpace(root.attr("width")), "%") && !doc.HasViewBox {
		wok = false
	}
	if strings.HasSuffix(strings.TrimSpace(root.attr("height")), "%") && !doc.HasViewBox {
		hok = false
	}
	if w <= 0 {
		wok = false
	}
	if h <= 0 {
		hok = false
	}
	switch {
	case wok && hok:
	case doc.HasViewBox && wok:
		h = w * doc.ViewBox[3] / doc.ViewBox[2]
	case doc.HasViewBox && hok:
		w = h * doc.ViewBox[2] / doc.ViewBox[3]
	case doc.HasViewBox:
		w, h = doc.ViewBox[2], doc.ViewBox[3]
	}
	base := Identity
	if doc.HasViewBox {
		base = viewBoxTransform(doc.ViewBox, 0, 0, w, h, root.attr("preserveAspectRatio"))
		p.vpW, p.vpH = doc.ViewBox[2], doc.ViewBox[3]
	} else {
		p.vpW, p.vpH = w, h
	}
	sizeKnown := (wok && hok) || doc.HasViewBox
	if !sizeKnown {
		// Neither size nor viewBox: percentages resolve against the CSS
		// default replaced-element size.
		p.vpW, p.vpH = 300, 150
	}
	st := rootStyle()
	if err := p.renderChildren(root, base, st, 1, 0); err != nil {
		return nil, err
	}
	if !sizeKnown {
		_, _, maxX, maxY := doc.Bounds()
		if !wok {
			w = math.Max(maxX, 0)
		}
		if !hok {
			h = math.Max(maxY, 0)
		}
	}
	doc.Width, doc.Height = w, h
	return doc, nil
}

func parseViewBox(s string) ([4]float64, bool) {
	var vb [4]float64
	sc := &numScanner{s: s}
	if err := sc.numbers(vb[:]); err != nil || !sc.done() || vb[2] <= 0 || vb[3] <= 0 {
		return vb, false
	}
	return vb, true
}

// viewBoxTransform maps viewBox vb into the viewport (x, y, w, h) following
// preserveAspectRatio (SVG 1.1 7.8); the default is "xMidYMid meet".
func viewBoxTransform(vb [4]float64, x, y, w, h float64, par string) Matrix {
	sx, sy := w/vb[2], h/vb[3]
	fields := strings.Fields(par)
	align, slice := "xMidYMid", false
	if len(fields) > 0 && fields[0] == "defer" {
		fields = fields[1:]
	}
	if len(fields) > 0 {
		align = fields[0]
	}
	if len(fields) > 1 && fields[1] == "slice" {
		slice = true
	}
	if align == "none" {
		return Translate(x, y).Mul(Scale(sx, sy)).Mul(Translate(-vb[0], -vb[1]))
	}
	s := math.Min(sx, sy)
	if slice {
		s = math.Max(sx, sy)
	}
	tx, ty := x-vb[0]*s, y-vb[1]*s
	extraX, extraY := w-vb[2]*s, h-vb[3]*s
	switch {
	case strings.Contains(align, "xMid"):
		tx += extraX / 2
	case strings.Contains(align, "xMax"):
		tx += extraX
	}
	switch {
	case strings.Contains(align, "YMid"):
		ty += extraY / 2
	case strings.Contains(align, "YMax"):
		ty += extraY
	}
	return Matrix{s, 0, 0, s, tx, ty}
}

// useDepthMax bounds nested <use> references; real clipart needs two or three.
const useDepthMax = 16

func (p *parser) visit() error {
	p.visited++
	if p.visited > 4*p.lim.MaxElements {
		return &Error{Reason: fmt.Sprintf("<use> expansion visits more than %d elements", 4*p.lim.MaxElements), Err: ErrLimit}
	}
	return nil
}

func (p *parser) renderChildren(n *node, ctm Matrix, st *computedStyle, opacity float64, useDepth int) error {
	for _, c := range n.children {
		if err := p.render(c, ctm, st, opacity, useDepth); err != nil {
			return err
		}
	}
	return nil
}

// render draws element n under the current transform, the parent's computed
// style and the accumulated group opacity.
func (p *parser) render(n *node, ctm Matrix, parent *computedStyle, opacity float64, useDepth int) error {
	if err := p.visit(); err != nil {
		return err
	}
	switch n.name {
	case "defs", "symbol", "title", "desc", "metadata", "style", "script",
		"linearGradient", "radialGradient", "stop", "clipPath", "mask", "pattern", "marker", "filter":
		// Never rendered in place; referenced ones are reported where used.
		return nil
	case "textPath", "tspan":
		p.unsupportedf("text")
		return nil
	case "image":
		p.unsupportedf("image")
		return nil
	case "foreignObject":
		p.unsupportedf("foreignObject")
		return nil
	case "animate", "animateMotion", "animateTransform", "animateColor", "set":
		p.unsupportedf("animation")
		return nil
	}
	if strings.HasPrefix(n.name, "foreign:") {
		return nil
	}
	st := p.computeStyle(n, parent)
	if st.own("display") == "none" {
		return nil
	}
	if id := n.attr("id"); id != "" {
		p.marks, p.marksSnap = append(p.marks, id), nil
		defer func() { p.marks, p.marksSnap = p.marks[:len(p.marks)-1], nil }()
	}
	var clipRef *node
	if v := st.own("clip-path"); v != "" && v != "none" {
		if clipRef = p.clipTarget(v); clipRef == nil {
			p.unsupportedf("clipPath")
		}
	}
	if v := st.own("mask"); v != "" && v != "none" {
		p.unsupportedf("mask")
	}
	if v := st.own("filter"); v != "" && v != "none" {
		p.unsupportedf("filter")
	}
	if v := st.own("opacity"); v != "" {
		opacity *= parseOpacity(v)
	}
	if opacity <= 0 {
		return nil
	}
	ctm = p.withTransform(ctm, n)
	if clipRef == nil {
		return p.renderContent(n, ctm, st, opacity, useDepth)
	}
	// The content is drawn first: an objectBoundingBox clip needs its extent.
	start := len(p.doc.Shapes)
	if err := p.renderContent(n, ctm, st, opacity, useDepth); err != nil {
		return err
	}
	return p.applyClip(clipRef, ctm, start)
}

// withTransform returns ctm followed by n's transform attribute (an invalid
// one is reported and ignored).
func (p *parser) withTransform(ctm Matrix, n *node) Matrix {
	t := n.attr("transform")
	if t == "" {
		return ctm
	}
	m, ok := parseTransform(t)
	if !ok {
		p.unsupportedf("invalid transform")
	}
	return ctm.Mul(m)
}

// renderContent draws element n itself, its transform and style already applied.
func (p *parser) renderContent(n *node, ctm Matrix, st *computedStyle, opacity float64, useDepth int) error {
	switch n.name {
	case "svg":
		// A nested viewport: position it and map its viewBox. Its clipping
		// is not applied.
		x, _ := parseLength(n.attr("x"), p.vpW)
		y, _ := parseLength(n.attr("y"), p.vpH)
		w, wok := parseLength(n.attr("width"), p.vpW)
		h, hok := parseLength(n.attr("height"), p.vpH)
		if !wok {
			w = p.vpW
		}
		if !hok {
			h = p.vpH
		}
		m := Translate(x, y)
		saveW, saveH := p.vpW, p.vpH
		if vb, ok := parseViewBox(n.attr("viewBox")); ok {
			m = viewBoxTransform(vb, x, y, w, h, n.attr("preserveAspectRatio"))
			p.vpW, p.vpH = vb[2], vb[3]
		} else {
			p.vpW, p.vpH = w, h
		}
		err := p.renderChildren(n, ctm.Mul(m), st, opacity, useDepth)
		p.vpW, p.vpH = saveW, saveH
		return err
	case "g", "a":
		return p.renderChildren(n, ctm, st, opacity, useDepth)
	case "switch":
		// No conditional attribute is evaluated: the first child renders.
		for _, c := range n.children {
			if !strings.HasPrefix(c.name, "foreign:") {
				return p.render(c, ctm, st, opacity, useDepth)
			}
		}
		return nil
	case "use":
		return p.renderUse(n, ctm, st, opacity, useDepth)
	case "text":
		return p.renderText(n, ctm, st, opacity)
	}
	path, ok := p.shapePath(n)
	if !ok {
		return nil
	}
	p.emit(path, ctm, st, opacity)
	return nil
}

func (p *parser) renderUse(n *node, ctm Matrix, st *computedStyle, opacity float64, useDepth int) error {
	href := strings.TrimSpace(n.attr("href"))
	if !strings.HasPrefix(href, "#") {
		if href != "" {
			p.unsupportedf("external reference")
		}
		return nil
	}
	ref := p.ids[href[1:]]
	if ref == nil {
		return nil
	}
	if useDepth >= useDepthMax {
		p.unsupportedf("deeply nested use")
		return nil
	}
	for _, a := range p.useStack {
		if a == ref {
			p.unsupportedf("circular use")
			return nil
		}
	}
	x, _ := parseLength(n.attr("x"), p.vpW)
	y, _ := parseLength(n.attr("y"), p.vpH)
	ctm = ctm.Mul(Translate(x, y))
	p.useStack = append(p.useStack, ref)
	defer func() { p.useStack = p.useStack[:len(p.useStack)-1] }()
	if ref.name == "symbol" {
		if err := p.visit(); err != nil {
			return err
		}
		sst := p.computeStyle(ref, st)
		if sst.own("display") == "none" {
			return nil
		}
		if vb, ok := parseViewBox(ref.attr("viewBox")); ok {
			w, wok := parseLength(n.attr("width"), p.vpW)
			h, hok := parseLength(n.attr("height"), p.vpH)
			if !wok {
				w = vb[2]
			}
			if !hok {
				h = vb[3]
			}
			ctm = ctm.Mul(viewBoxTransform(vb, 0, 0, w, h, ref.attr("preserveAspectRatio")))
		}
		return p.renderChildren(ref, ctm, sst, opacity, useDepth+1)
	}
	return p.render(ref, ctm, st, opacity, useDepth+1)
}

// shapePath builds the path of a basic shape or <path> in user units.
func (p *parser) shapePath(n *node) (Path, bool) {
	diag := math.Hypot(p.vpW, p.vpH) / math.Sqrt2
	lx := func(k string) float64 { v, _ := parseLength(n.attr(k), p.vpW); return v }
	ly := func(k string) float64 { v, _ := parseLength(n.attr(k), p.vpH); return v }
	switch n.name {
	case "path":
		path, ok := parsePathData(n.attr("d"))
		if !ok {
			p.unsupportedf("invalid path data")
		}
		return path, len(path) > 0
	case "rect":
		x, y, w, h := lx("x"), ly("y"), lx("width"), ly("height")
		if w <= 0 || h <= 0 {
			return nil, false
		}
		rx, rxok := parseLength(n.attr("rx"), p.vpW)
		ry, ryok := parseLength(n.attr("ry"), p.vpH)
		switch {
		case rxok && !ryok:
			ry = rx
		case ryok && !rxok:
			rx = ry
		}
		rx, ry = math.Min(math.Max(rx, 0), w/2), math.Min(math.Max(ry, 0), h/2)
		if rx == 0 || ry == 0 {
			return Path{
				{Op: MoveTo, Pts: [3]Point{{x, y}}},
				{Op: LineTo, Pts: [3]Point{{x + w, y}}},
				{Op: LineTo, Pts: [3]Point{{x + w, y + h}}},
				{Op: LineTo, Pts: [3]Point{{x, y + h}}},
				{Op: Close},
			}, true
		}
		path := Path{{Op: MoveTo, Pts: [3]Point{{x + rx, y}}}, {Op: LineTo, Pts: [3]Point{{x + w - rx, y}}}}
		path = arcToCubics(path, Point{x + w - rx, y}, rx, ry, 0, false, true, Point{x + w, y + ry})
		path = append(path, Segment{Op: LineTo, Pts: [3]Point{{x + w, y + h - ry}}})
		path = arcToCubics(path, Point{x + w, y + h - ry}, rx, ry, 0, false, true, Point{x + w - rx, y + h})
		path = append(path, Segment{Op: LineTo, Pts: [3]Point{{x + rx, y + h}}})
		path = arcToCubics(path, Point{x + rx, y + h}, rx, ry, 0, false, true, Point{x, y + h - ry})
		path = append(path, Segment{Op: LineTo, Pts: [3]Point{{x, y + ry}}})
		path = arcToCubics(path, Point{x, y + ry}, rx, ry, 0, false, true, Point{x + rx, y})
		return append(path, Segment{Op: Close}), true
	case "circle", "ellipse":
		cx, cy := lx("cx"), ly("cy")
		var rx, ry float64
		if n.name == "circle" {
			rx, _ = parseLength(n.attr("r"), diag)
			ry = rx
		} else {
			rx, ry = lx("rx"), ly("ry")
		}
		if rx <= 0 || ry <= 0 {
			return nil, false
		}
		return ellipsePath(cx, cy, rx, ry), true
	case "line":
		return Path{
			{Op: MoveTo, Pts: [3]Point{{lx("x1"), ly("y1")}}},
			{Op: LineTo, Pts: [3]Point{{lx("x2"), ly("y2")}}},
		}, true
	case "polyline", "polygon":
		sc := &numScanner{s: n.attr("points")}
		var path Path
		for !sc.done() {
			x, err := sc.number()
			if err != nil {
				break
			}
			y, err := sc.number()
			if err != nil {
				break // an odd coordinate count drops the last one
			}
			op := LineTo
			if len(path) == 0 {
				op = MoveTo
			}
			path = append(path, Segment{Op: op, Pts: [3]Point{{x, y}}})
		}
		if len(path) == 0 {
			return nil, false
		}
		if n.name == "polygon" {
			path = append(path, Segment{Op: Close})
		}
		return path, true
	}
	p.unsupportedf("element <" + n.name + ">")
	return nil, false
}

func ellipsePath(cx, cy, rx, ry float64) Path {
	// Four quarter cubics with the standard kappa.
	const k = 0.5522847498307936
	kx, ky := k*rx, k*ry
	return Path{
		{Op: MoveTo, Pts: [3]Point{{cx + rx, cy}}},
		{Op: CubicTo, Pts: [3]Point{{cx + rx, cy + ky}, {cx + kx, cy + ry}, {cx, cy + ry}}},
		{Op: CubicTo, Pts: [3]Point{{cx - kx, cy + ry}, {cx - rx, cy + ky}, {cx - rx, cy}}},
		{Op: CubicTo, Pts: [3]Point{{cx - rx, cy - ky}, {cx - kx, cy - ry}, {cx, cy - ry}}},
		{Op: CubicTo, Pts: [3]Point{{cx + kx, cy - ry}, {cx + rx, cy - ky}, {cx + rx, cy}}},
		{Op: Close},
	}
}

// emit appends the shape for path under ctm with the computed style.
func (p *parser) emit(path Path, ctm Matrix, st *computedStyle, opacity float64) {
	if v := st.get("visibility"); v == "hidden" || v == "collapse" {
		return
	}
	fillOp, strokeOp := parseOpacity(st.get("fill-opacity")), parseOpacity(st.get("stroke-opacity"))
	fill, fillGrad := p.paint(st.get("fill"), st, fillOp)
	stroke, strokeGrad := p.paint(st.get("stroke"), st, strokeOp)
	var fg, sg *Gradient
	if fillGrad != nil {
		if fg = fillGrad.instantiate(path, ctm, fillOp); fg == nil {
			fill = nil
		}
	}
	if strokeGrad != nil {
		if sg = strokeGrad.instantiate(path, ctm, strokeOp); sg == nil {
			stroke = nil
		}
	}
	scale := ctm.meanScale()
	diag := math.Hypot(p.vpW, p.vpH) / math.Sqrt2
	sw, ok := parseLength(st.get("stroke-width"), diag)
	if !ok || sw < 0 {
		sw = 1
	}
	if sw == 0 {
		stroke = nil
	}
	if fill == nil && stroke == nil {
		return
	}
	s := Shape{
		Path:        path.Transform(ctm),
		Fill:        fill,
		FillRule:    "nonzero",
		Stroke:      stroke,
		StrokeWidth: sw * scale,
		Pen:         penOf(ctm, scale),
		LineCap:     "butt",
		LineJoin:    "miter",
		MiterLimit:  4,
		Opacity:     opacity,
	}
	if len(p.marks) > 0 {
		if p.marksSnap == nil {
			p.marksSnap = slices.Clone(p.marks)
		}
		s.Marks = p.marksSnap
	}
	if fill != nil {
		s.FillGradient = fg
	}
	if stroke != nil {
		s.StrokeGradient = sg
	}
	if st.get("fill-rule") == "evenodd" {
		s.FillRule = "evenodd"
	}
	switch v := st.get("stroke-linecap"); v {
	case "round", "square":
		s.LineCap = v
	}
	switch v := st.get("stroke-linejoin"); v {
	case "round", "bevel":
		s.LineJoin = v
	case "miter-clip", "arcs":
		p.unsupportedf("stroke-linejoin " + v)
	}
	if v, err := (&numScanner{s: st.get("stroke-miterlimit")}).number(); err == nil && v >= 1 {
		s.MiterLimit = v
	}
	if stroke != nil {
		s.Dashes = parseDashes(st.get("stroke-dasharray"), diag, scale)
		if s.Dashes != nil {
			off, _ := parseLength(st.get("stroke-dashoffset"), diag)
			s.DashOffset = off * scale
		}
	}
	p.doc.Shapes = append(p.doc.Shapes, s)
}

func parseDashes(v string, diag, scale float64) []float64 {
	v = strings.TrimSpace(v)
	if v == "" || v == "none" {
		return nil
	}
	var out []float64
	total := 0.0
	for _, f := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || isSpace(byte(r)) }) {
		d, ok := parseLength(f, diag)
		if !ok || d < 0 {
			return nil // invalid list: solid, per SVG
		}
		out = append(out, d*scale)
		total += d
	}
	if total <= 0 {
		return nil
	}
	if len(out)%2 == 1 {
		out = append(out, out...)
	}
	return out
}

// paint turns a fill or stroke value into a paint, nil for none. A gradient
// reference also returns its template; the paint is then the gradient's mean
// colour, for backends that draw no gradients.
func (p *parser) paint(v string, st *computedStyle, alpha float64) (*Paint, *gradientTemplate) {
	v = strings.TrimSpace(v)
	if strings.HasPrefix(v, "url(") {
		if end := strings.IndexByte(v, ')'); end >= 0 {
			ref := strings.Trim(strings.TrimSpace(v[4:end]), `"'`)
			if strings.HasPrefix(ref, "#") {
				if g := p.ids[ref[1:]]; g != nil && (g.name == "linearGradient" || g.name == "radialGradient") {
					t, ok := p.resolveGradient(g)
					if !ok {
						// No stops: painted as none (SVG 1.1 13.2.4).
						return nil, nil
					}
					c := t.mean
					c.A *= alpha
					return &c, &t
				}
			}
		}
	}
	return p.resolvePaint(v, st, alpha), nil
}

// resolvePaint turns a fill or stroke value into a solid paint, nil for none.
func (p *parser) resolvePaint(v string, st *computedStyle, alpha float64) *Paint {
	v = strings.TrimSpace(v)
	mk := func(c Paint) *Paint { c.A *= alpha; return &c }
	switch {
	case v == "" || v == "none":
		return nil
	case v == "currentColor":
		c, ok := parseColor(st.get("color"))
		if !ok {
			c = Paint{0, 0, 0, 1}
		}
		return mk(c)
	case strings.HasPrefix(v, "url("):
		end := strings.IndexByte(v, ')')
		if end < 0 {
			return nil
		}
		ref := strings.Trim(strings.TrimSpace(v[4:end]), `"'`)
		fallback := strings.TrimSpace(v[end+1:])
		var target *node
		if strings.HasPrefix(ref, "#") {
			target = p.ids[ref[1:]]
		} else {
			p.unsupportedf("external reference")
		}
		if target != nil {
			switch target.name {
			case "linearGradient", "radialGradient":
				// Handled by paint; reached only as a fallback value.
			case "pattern":
				p.unsupportedf("pattern")
			}
		}
		if fallback != "" && fallback != "none" {
			return p.resolvePaint(fallback, st, alpha)
		}
		return nil
	}
	c, ok := parseColor(v)
	if !ok {
		return nil
	}
	return mk(c)
}

func hasStops(g *node) bool {
	for _, c := range g.children {
		if c.name == "stop" {
			return true
		}
	}
	return false
}

func parseOpacity(v string) float64 {
	v = strings.TrimSpace(v)
	if v == "" {
		return 1
	}
	pct := strings.HasSuffix(v, "%")
	sc := &numScanner{s: strings.TrimSuffix(v, "%")}
	f, err := sc.number()
	if err != nil {
		return 1
	}
	if pct {
		f /= 100
	}
	return clamp01(f)
}

// parseLength reads a length with an optional unit; percentages are of ref.
// Unitless numbers are user units (px).
func parseLength(s string, ref float64) (float64, bool) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, false
	}
	sc := &numScanner{s: s}
	v, err := sc.number()
	if err != nil {
		return 0, false
	}
	unit := strings.TrimSpace(s[sc.pos:])
	var f float64
	switch strings.ToLower(unit) {
	case "", "px":
		f = 1
	case "pt":
		f = 96.0 / 72
	case "pc":
		f = 16
	case "mm":
		f = 96 / 25.4
	case "cm":
		f = 96 / 2.54
	case "in":
		f = 96
	case "em", "rem":
		f = 16 // no font context: the CSS initial font size
	case "ex":
		f = 8
	case "%":
		f = ref / 100
	default:
		return 0, false
	}
	r := v * f
	if math.IsInf(r, 0) || math.IsNaN(r) {
		return 0, false
	}
	return r, true
}

// parseTransform reads an SVG transform list. An invalid list yields the
// identity and false, as browsers ignore the attribute then.
func parseTransform(s string) (Matrix, bool) {
	m := Identity
	rest := strings.TrimSpace(s)
	for rest != "" {
		open := strings.IndexByte(rest, '(')
		closeIdx := strings.IndexByte(rest, ')')
		if open < 0 || closeIdx < open {
			return Identity, false
		}
		name := strings.TrimSpace(rest[:open])
		sc := &numScanner{s: rest[open+1 : closeIdx]}
		var a []float64
		for !sc.done() {
			v, err := sc.number()
			if err != nil {
				return Identity, false
			}
			a = append(a, v)
		}
		var t Matrix
		switch {
		case name == "matrix" && len(a) == 6:
			t = Matrix{a[0], a[1], a[2], a[3], a[4], a[5]}
		case name == "translate" && len(a) == 1:
			t = Translate(a[0], 0)
		case name == "translate" && len(a) == 2:
			t = Translate(a[0], a[1])
		case name == "scale" && len(a) == 1:
			t = Scale(a[0], a[0])
		case name == "scale" && len(a) == 2:
			t = Scale(a[0], a[1])
		case name == "rotate" && len(a) == 1:
			t = Rotate(a[0])
		case name == "rotate" && len(a) == 3:
			t = Translate(a[1], a[2]).Mul(Rotate(a[0])).Mul(Translate(-a[1], -a[2]))
		case name == "skewX" && len(a) == 1:
			t = SkewX(a[0])
		case name == "skewY" && len(a) == 1:
			t = SkewY(a[0])
		default:
			return Identity, false
		}
		m = m.Mul(t)
		rest = strings.TrimLeft(rest[closeIdx+1:], " \t\r\n,")
	}
	return m, true
}
