package svg

import (
	"image"
	"math"
	"slices"
	"strings"
)

// clipTarget returns the <clipPath> a clip-path value names (url(#id)), nil
// when it names none (basic shapes, external or missing references).
func (p *parser) clipTarget(v string) *node {
	v = strings.TrimSpace(v)
	if !strings.HasPrefix(v, "url(") {
		return nil
	}
	end := strings.IndexByte(v, ')')
	if end < 0 {
		return nil
	}
	ref := strings.Trim(strings.TrimSpace(v[4:end]), `"'`)
	if !strings.HasPrefix(ref, "#") {
		p.unsupportedf("external reference")
		return nil
	}
	if n := p.ids[ref[1:]]; n != nil && n.name == "clipPath" {
		return n
	}
	return nil
}

// applyClip builds the clip of clipPath cp for an element whose user space
// is ctm and whose shapes are p.doc.Shapes[start:], and adds it to them.
func (p *parser) applyClip(cp *node, ctm Matrix, start int) error {
	shapes := p.doc.Shapes[start:]
	if len(shapes) == 0 {
		return nil
	}
	m := p.withTransform(ctm, cp)
	clip := &Clip{}
	build := true
	if strings.TrimSpace(cp.attr("clipPathUnits")) == "objectBoundingBox" {
		// The clip's units are fractions of the element's bounding box in its
		// own user space (its geometry, strokes left out).
		x0, y0, x1, y1, ok := userBox(shapes, ctm)
		if ok && x1 > x0 && y1 > y0 {
			m = m.Mul(Translate(x0, y0)).Mul(Scale(x1-x0, y1-y0))
		} else {
			build = false // an empty box clips everything away
		}
	}
	if build {
		st := p.computeStyle(cp, rootStyle())
		for _, c := range cp.children {
			if err := p.clipPart(clip, c, m, st, 0); err != nil {
				return err
			}
		}
	}
	for i := range shapes {
		shapes[i].Clips = append(slices.Clip(shapes[i].Clips), clip)
	}
	return nil
}

// clipPart adds the geometry of clipPath child c (a shape, or a <use> of
// one) to clip. Paint, stroke and opacity do not matter; display,
// visibility, transform and clip-rule do.
func (p *parser) clipPart(clip *Clip, c *node, m Matrix, parent *computedStyle, useDepth int) error {
	if err := p.visit(); err != nil {
		return err
	}
	switch c.name {
	case "text":
		p.unsupportedf("text")
		return nil
	case "path", "rect", "circle", "ellipse", "line", "polyline", "polygon", "use":
	default:
		return nil
	}
	st := p.computeStyle(c, parent)
	if st.own("display") == "none" {
		return nil
	}
	m = p.withTransform(m, c)
	if c.name == "use" {
		href := strings.TrimSpace(c.attr("href"))
		ref := p.ids[strings.TrimPrefix(href, "#")]
		if !strings.HasPrefix(href, "#") || ref == nil || ref.name == "use" || useDepth > 0 {
			return nil // only a direct reference to a shape may clip (SVG 1.1 14.3.5)
		}
		x, _ := parseLength(c.attr("x"), p.vpW)
		y, _ := parseLength(c.attr("y"), p.vpH)
		return p.clipPart(clip, ref, m.Mul(Translate(x, y)), st, useDepth+1)
	}
	if v := st.get("visibility"); v == "hidden" || v == "collapse" {
		return nil
	}
	path, ok := p.shapePath(c)
	if !ok {
		return nil
	}
	clip.Parts = append(clip.Parts, ClipPart{Path: path.Transform(m), EvenOdd: st.get("clip-rule") == "evenodd"})
	return nil
}

// userBox returns the extent of the shapes' geometry in the user space that
// ctm maps to natural-size coordinates.
func userBox(shapes []Shape, ctm Matrix) (x0, y0, x1, y1 float64, ok bool) {
	inv, ok := ctm.Invert()
	if !ok {
		return 0, 0, 0, 0, false
	}
	x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, s := range shapes {
		for _, pl := range s.Path.Transform(inv).Flatten(0.01) {
			for _, q := range pl.Pts {
				x0, y0 = math.Min(x0, q.X), math.Min(y0, q.Y)
				x1, y1 = math.Max(x1, q.X), math.Max(y1, q.Y)
			}
		}
	}
	return x0, y0, x1, y1, x0 <= x1 && !math.IsNaN(x0+y0+x1+y1)
}

// clipEdges is a Clip flattened to device pixels: the edges of each part and
// the pixels the clip can reach.
type clipEdges struct {
	parts [][]edge
	odd   []bool
	box   image.Rectangle
}

// prepareClip flattens c mapped by m. A clip without parts gets an empty box:
// nothing it clips is drawn.
func prepareClip(c *Clip, m Matrix) *clipEdges {
	ce := &clipEdges{}
	r := &rasterizer{}
	x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, pt := range c.Parts {
		r.edges = nil
		for _, pl := range pt.Path.Transform(m).Flatten(drawTol) {
			for _, q := range pl.Pts {
				if finite(q) {
					x0, y0 = math.Min(x0, q.X), math.Min(y0, q.Y)
					x1, y1 = math.Max(x1, q.X), math.Max(y1, q.Y)
				}
			}
			r.addPolygon(pl.Pts)
		}
		if len(r.edges) > 0 {
			ce.parts = append(ce.parts, r.edges)
			ce.odd = append(ce.odd, pt.EvenOdd)
		}
	}
	if len(ce.parts) > 0 {
		ce.box, _ = pixelBox(image.Rect(-1e9, -1e9, 1e9, 1e9), x0, y0, x1, y1)
	}
	return ce
}

// applyClips multiplies the band's coverage mask (r.mask) by the coverage of
// every clip of the shape: each clip is the union (the largest coverage) of
// its parts' fills.
func (r *rasterizer) applyClips(band image.Rectangle) error {
	if len(r.clips) == 0 {
		return nil
	}
	if r.clipR == nil {
		r.clipR = &rasterizer{ctx: r.ctx}
	}
	cr := r.clipR
	n := len(r.mask.Pix)
	if cap(r.clipMask) < n {
		r.clipMask = make([]uint8, n)
	}
	union := r.clipMask[:n]
	for _, ce := range r.clips {
		clear(union)
		for i, edges := range ce.parts {
			cr.edges = edges
			if cap(cr.mask.Pix) < n {
				cr.mask.Pix = make([]uint8, n)
			}
			cr.mask.Pix, cr.mask.Stride, cr.mask.Rect = cr.mask.Pix[:n], r.mask.Stride, r.mask.Rect
			var err error
			if ce.odd[i] {
				err = cr.evenOdd(band)
			} else {
				err = cr.nonZero(band)
			}
			if err != nil {
				return err
			}
			for j, v := range cr.mask.Pix {
				union[j] = max(union[j], v)
			}
		}
		for j, v := range union {
			r.mask.Pix[j] = uint8((uint32(r.mask.Pix[j])*uint32(v) + 127) / 255)
		}
	}
	return nil
}
