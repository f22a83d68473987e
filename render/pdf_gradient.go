package render

import (
	"crypto/sha1"
	"fmt"
	"image/color"
	"math"
	"strconv"
	"strings"

	"github.com/printworker/printworker/render/svg"
)

// SVG gradients in the vector PDF: each gradient-painted fill or stroke is drawn as a
// real PDF shading (ShadingType 2 axial or 3 radial) whose colour function stitches
// one type-2 function per stop interval (type 3), and, for reflect and repeat, one
// such function per period. Stop opacity that varies goes through a soft mask: a
// luminosity group painting the same shading in DeviceGray with the stops' alphas.
//
// gofpdf has no API for shading objects with more than two colours, so they travel
// through its raw-object hook (ImportObjects / ImportObjPos / ImportTemplates, made
// for gofpdi): each gradient becomes a Form XObject that carries its shading inline in
// its own resources and is drawn with Do inside a clip to the shape's outline.

// pdfMaxPeriods caps the periods a reflect or repeat gradient is unrolled into; beyond
// them the last colour pads (a shape spanning more than 512 periods shows stripes
// finer than print can hold anyway).
const pdfMaxPeriods = 512

// pdfMaxCoord bounds the numbers written: PDF readers handle reals to about 3.4e38,
// poppler far less precisely. A gradient needing more is drawn in its mean colour.
const pdfMaxCoord = 1e7

// gradientStrokeTol is the flattening tolerance of a gradient stroke's outline, in
// natural SVG units (1/96 in): a thousandth of a millimetre at 1:1.
const gradientStrokeTol = 0.004

// svgGradient paints path (in layer-local, natural SVG coordinates) with g: clip to the
// path (even-odd when evenOdd), then the gradient's form. alpha is the constant opacity
// (layer x shape x fill- or stroke-opacity). It reports false when the gradient cannot
// be written (degenerate or out-of-range numbers); the caller then paints the fallback.
func (v *vectorPage) svgGradient(path svg.Path, evenOdd bool, g *svg.Gradient, alpha float64) bool {
	inv, ok := g.Transform.Invert()
	if !ok {
		return true // a singular gradient transform paints nothing, as in the raster
	}
	x0, y0, x1, y1, ok := gradientBox(path, inv)
	if !ok {
		return false
	}
	form, ok := gradientForm(g, x0, y0, x1, y1, v.ink)
	if !ok {
		return false
	}
	name := v.importForm(form)
	m := g.Transform
	cm := []float64{m[0], -m[1], m[2], -m[3], m[4], v.h - m[5]}
	for _, c := range cm {
		if !finiteIn(c, pdfMaxCoord) {
			return false
		}
	}
	v.setAlpha(alpha * form.alpha)
	v.pdf.RawWriteStr("q")
	v.path(path)
	if evenOdd {
		v.pdf.RawWriteStr("W* n")
	} else {
		v.pdf.RawWriteStr("W n")
	}
	v.pdf.RawWriteStr(pdfNums(cm...) + " cm " + name + " Do Q")
	return true
}

// gradientBox returns the bounds of path in gradient space (through inv), a little
// enlarged so that the form's bounding box never cuts the clip's antialiased edge.
func gradientBox(path svg.Path, inv svg.Matrix) (x0, y0, x1, y1 float64, ok bool) {
	x0, y0, x1, y1 = math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
	for _, s := range path {
		for j := 0; j < segPoints(s.Op); j++ {
			q := inv.Apply(s.Pts[j])
			x0, y0, x1, y1 = math.Min(x0, q.X), math.Min(y0, q.Y), math.Max(x1, q.X), math.Max(y1, q.Y)
		}
	}
	if !(x0 <= x1 && y0 <= y1) {
		return 0, 0, 0, 0, false
	}
	pad := 0.01*math.Max(x1-x0, y1-y0) + 1e-6
	x0, y0, x1, y1 = x0-pad, y0-pad, x1+pad, y1+pad
	for _, c := range []float64{x0, y0, x1, y1} {
		if !finiteIn(c, pdfMaxCoord) {
			return 0, 0, 0, 0, false
		}
	}
	return x0, y0, x1, y1, true
}

func segPoints(op svg.Op) int {
	switch op {
	case svg.MoveTo, svg.LineTo:
		return 1
	case svg.QuadTo:
		return 2
	case svg.CubicTo:
		return 3
	}
	return 0
}

func finiteIn(v, lim float64) bool { return !math.IsNaN(v) && math.Abs(v) <= lim }

// pdfForm is a gradient's Form XObject (and its soft mask group, if any) before import.
type pdfForm struct {
	body  string // the form's dictionary and stream, with mask references as placeholders
	mask  string // the soft mask group object, "" when the stops' alpha is constant
	alpha float64
}

// maskRef stands for the mask group's object number in body until gofpdf writes it:
// ImportObjPos replaces 40 bytes at its position by the number, space padded.
const maskRef = "MASKMASKMASKMASKMASKMASKMASKMASKMASKMASK"

// gradientForm writes the form drawing g over the gradient-space box.
// With a CMYK output (ink non-nil) the stops are converted through the output profile
// and the shading is DeviceCMYK, so a PDF/X-4 file carries no RGB colour; the colour
// between two stops is then interpolated in CMYK, as a RIP does.
func gradientForm(g *svg.Gradient, x0, y0, x1, y1 float64, ink *inkMeter) (pdfForm, bool) {
	stops := g.Stops
	// Degenerate geometry paints the last stop's colour (SVG 1.1 13.2.2, 13.2.3).
	geomOK := true
	if g.Radial {
		geomOK = g.R > 0
	} else {
		geomOK = g.X1 != g.X2 || g.Y1 != g.Y2
	}
	if !geomOK {
		last := stops[len(stops)-1]
		stops = []svg.Stop{{Offset: 0, Color: last.Color}, {Offset: 1, Color: last.Color}}
	}
	t0, t1 := 0.0, 1.0
	if g.Spread != "pad" && geomOK {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, q := range [4]svg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x0, Y: y1}, {X: x1, Y: y1}} {
			if t, ok := g.Param(q); ok {
				lo, hi = math.Min(lo, t), math.Max(hi, t)
			}
		}
		if g.Radial {
			lo = 0 // t is smallest at the focus, inside the box or not
		}
		if lo <= hi {
			t0, t1 = math.Floor(lo), math.Max(math.Ceil(hi), math.Floor(lo)+1)
			// Each period repeats the stops' function: keep the text near 1 MB.
			per := len(stopsFunction(stops, func(svg.Paint) []float64 { return []float64{0.5, 0.5, 0.5} }))
			maxN := float64(min(pdfMaxPeriods, max(1, (1<<20)/per)))
			if t1-t0 > maxN {
				t1 = t0 + maxN
			}
		}
	}
	// One shading per period, each over its own Domain [0 1]: poppler samples a
	// shading's function at a fixed number of points over its whole domain, so one
	// shading spanning many periods would show steps.
	n := int(t1 - t0)
	coordsAt := func(a, b float64) []float64 {
		if !geomOK {
			if g.Radial {
				return []float64{0, 0, 0, 0, 0, 1}
			}
			return []float64{0, 0, 1, 0}
		}
		if g.Radial {
			return []float64{g.FX + a*(g.CX-g.FX), g.FY + a*(g.CY-g.FY), math.Max(0, g.FR+a*(g.R-g.FR)),
				g.FX + b*(g.CX-g.FX), g.FY + b*(g.CY-g.FY), math.Max(0, g.FR+b*(g.R-g.FR))}
		}
		dx, dy := g.X2-g.X1, g.Y2-g.Y1
		return []float64{g.X1 + a*dx, g.Y1 + a*dy, g.X1 + b*dx, g.Y1 + b*dy}
	}
	for _, c := range append(coordsAt(t0, t1), x0, y0, x1, y1) {
		if !finiteIn(c, pdfMaxCoord) {
			return pdfForm{}, false
		}
	}
	alphaConst, alpha := true, stops[0].Color.A
	for _, s := range stops {
		if s.Color.A != alpha {
			alphaConst = false
		}
	}
	shType := 2
	if g.Radial {
		shType = 3
	}
	reversed := reverseStops(stops)
	shadings := func(cs string, comp func(svg.Paint) []float64) (res, content string) {
		fwd, back := stopsFunction(stops, comp), stopsFunction(reversed, comp)
		var rb, cb strings.Builder
		for i := range n {
			k := t0 + float64(i)
			fn := fwd
			if g.Spread == "reflect" && int(k)%2 != 0 {
				fn = back
			}
			ext0, ext1 := i == 0, i == n-1
			fmt.Fprintf(&rb, "/Sh%d << /ShadingType %d /ColorSpace /%s /Coords [%s] /Domain [0 1] /Extend [%t %t] /Function %s >> ",
				i, shType, cs, pdfNums(coordsAt(k, k+1)...), ext0, ext1, fn)
			fmt.Fprintf(&cb, "/Sh%d sh ", i)
		}
		return "/Shading << " + rb.String() + ">>", strings.TrimSpace(cb.String())
	}
	rgb := func(c svg.Paint) []float64 { return []float64{clamp01(c.R), clamp01(c.G), clamp01(c.B)} }
	bbox := pdfNums(x0, y0, x1, y1)
	var f pdfForm
	cs, comp := "DeviceRGB", rgb
	if ink != nil {
		cs, comp = "DeviceCMYK", func(c svg.Paint) []float64 {
			px, _ := ink.vector(color.NRGBA{R: unit8(c.R), G: unit8(c.G), B: unit8(c.B), A: 255})
			return []float64{float64(px[0]) / 255, float64(px[1]) / 255, float64(px[2]) / 255, float64(px[3]) / 255}
		}
	}
	res, content := shadings(cs, comp)
	if alphaConst {
		f.alpha = clamp01(alpha)
	} else {
		f.alpha = 1
		res += " /ExtGState << /GS0 << /Type /ExtGState /SMask << /Type /Mask /S /Luminosity /G " + maskRef + " 0 R >> >> >>"
		content = "/GS0 gs " + content
		grey := func(c svg.Paint) []float64 { return []float64{clamp01(c.A)} }
		mres, mcontent := shadings("DeviceGray", grey)
		f.mask = formObject(bbox, "/Group << /Type /Group /S /Transparency /CS /DeviceGray >> ", mres, mcontent)
	}
	f.body = formObject(bbox, "", res, content)
	return f, true
}

// reverseStops mirrors the stops (offset o becomes 1 - o), for the odd periods of
// a reflected gradient.
func reverseStops(stops []svg.Stop) []svg.Stop {
	out := make([]svg.Stop, len(stops))
	for i, s := range stops {
		out[len(stops)-1-i] = svg.Stop{Offset: 1 - s.Offset, Color: s.Color}
	}
	return out
}

// formObject is the text of a Form XObject object (dictionary, stream, endobj), as
// gofpdf's import hook writes it after "n 0 obj".
func formObject(bbox, extra, resources, content string) string {
	return fmt.Sprintf("<< /Type /XObject /Subtype /Form /BBox [%s] %s/Resources << %s >> /Length %d >>\nstream\n%s\nendstream\nendobj",
		bbox, extra, resources, len(content), content)
}

// stopsFunction maps [0, 1] to the stops' colours: a type-2 (linear) function per
// interval of positive width, stitched by a type-3 function. Equal offsets (hard
// stops) leave no interval, so the colour jumps there.
func stopsFunction(stops []svg.Stop, comp func(svg.Paint) []float64) string {
	type span struct {
		a, b   float64
		c0, c1 svg.Paint
	}
	full := make([]svg.Stop, 0, len(stops)+2)
	if stops[0].Offset > 0 {
		full = append(full, svg.Stop{Offset: 0, Color: stops[0].Color})
	}
	full = append(full, stops...)
	if last := stops[len(stops)-1]; last.Offset < 1 {
		full = append(full, svg.Stop{Offset: 1, Color: last.Color})
	}
	var spans []span
	for i := 0; i+1 < len(full); i++ {
		if full[i+1].Offset > full[i].Offset {
			spans = append(spans, span{full[i].Offset, full[i+1].Offset, full[i].Color, full[i+1].Color})
		}
	}
	lin := func(s span) string {
		return fmt.Sprintf("<< /FunctionType 2 /Domain [0 1] /C0 [%s] /C1 [%s] /N 1 >>", pdfNums(comp(s.c0)...), pdfNums(comp(s.c1)...))
	}
	if len(spans) == 1 {
		return lin(spans[0])
	}
	var fns, bounds, encode strings.Builder
	for i, s := range spans {
		fns.WriteString(lin(s) + " ")
		if i > 0 {
			bounds.WriteString(pdfNum(s.a) + " ")
		}
		encode.WriteString("0 1 ")
	}
	return fmt.Sprintf("<< /FunctionType 3 /Domain [0 1] /Functions [%s] /Bounds [%s] /Encode [%s] >>",
		strings.TrimSpace(fns.String()), strings.TrimSpace(bounds.String()), strings.TrimSpace(encode.String()))
}

// importForm hands the form (and its mask group) to gofpdf's import hook and returns
// the XObject name to draw it with. Objects are keyed by their content's hash, so a
// gradient drawn twice is written once.
func (v *vectorPage) importForm(f pdfForm) string {
	objs := map[string][]byte{}
	pos := map[string]map[int]string{}
	body := f.body
	if f.mask != "" {
		mk := fmt.Sprintf("%x", sha1.Sum([]byte(f.mask)))
		objs[mk] = []byte(f.mask)
		body = strings.Replace(body, maskRef, mk, 1)
		pos[fmt.Sprintf("%x", sha1.Sum([]byte(body)))] = map[int]string{strings.Index(body, mk): mk}
	}
	key := fmt.Sprintf("%x", sha1.Sum([]byte(body)))
	objs[key] = []byte(body)
	v.pdf.ImportObjects(objs)
	if len(pos) > 0 {
		v.pdf.ImportObjPos(pos)
	}
	name := "/PWG" + key[:16]
	v.pdf.ImportTemplates(map[string]string{name: key})
	return name
}

func pdfNum(v float64) string {
	s := strconv.FormatFloat(v, 'f', 6, 64)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "-0" || s == "" {
		return "0"
	}
	return s
}

func pdfNums(vs ...float64) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = pdfNum(v)
	}
	return strings.Join(parts, " ")
}

func clamp01(v float64) float64 { return math.Max(0, math.Min(1, v)) }

// unit8 maps a 0..1 colour component to 0..255, rounding.
func unit8(f float64) uint8 { return uint8(math.Round(clamp01(f) * 255)) }
