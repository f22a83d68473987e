package svg

import (
	"context"
	"errors"
	"fmt"
	"image"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func parse(t *testing.T, src string) *Doc {
	t.Helper()
	d, err := Parse(strings.NewReader(src), Limits{})
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return d
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-6 }

func TestPathData(t *testing.T) {
	tests := []struct {
		d    string
		want string // ops and end points
		ok   bool
	}{
		{"M1.5.5L2-3", "M1.5,0.5 L2,-3", true},
		{"m1e-3 2E1l1 1", "M0.001,20 L1.001,21", true},
		{"M0 0 10 0 10 10z", "M0,0 L10,0 L10,10 Z", true},
		{"m1 1 2 2", "M1,1 L3,3", true},
		{"M0,0 h5 v5 H0 V0", "M0,0 L5,0 L5,5 L0,5 L0,0", true},
		{"M0 0 Q5 5 10 0 T20 0", "M0,0 Q10,0 Q20,0", true},
		{"M0 0 C0 5 5 5 5 0 S10 -5 10 0", "M0,0 C5,0 C10,0", true},
		{"M0 0 Z L5 5", "M0,0 Z M0,0 L5,5", true},
		{"M0 0 L5 5 L", "M0,0 L5,5", false},
		{"L5 5", "", false},
		{"M0 0 a5 5 0 1110 0", "M0,0 C* C*", true},
	}
	for _, tc := range tests {
		t.Run(tc.d, func(t *testing.T) {
			p, ok := parsePathData(tc.d)
			if ok != tc.ok {
				t.Errorf("ok = %v, want %v", ok, tc.ok)
			}
			var parts []string
			for _, s := range p {
				switch s.Op {
				case Close:
					parts = append(parts, "Z")
				default:
					e := s.Pts[s.Op.points()-1]
					parts = append(parts, fmt.Sprintf("%c%g,%g", "MLQCZ"[s.Op], round6(e.X), round6(e.Y)))
				}
			}
			got := strings.Join(parts, " ")
			if strings.Contains(tc.want, "*") {
				if len(p) < 3 || p[len(p)-1].Op != CubicTo || !near(p[len(p)-1].Pts[2].X, 10) {
					t.Errorf("arc path = %s", got)
				}
				return
			}
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func round6(v float64) float64 { return math.Round(v*1e6) / 1e6 }

func TestArcGeometry(t *testing.T) {
	// A half circle of radius 5 from (0,0) to (10,0), sweep=1 bulges to
	// negative y in SVG's y-down space; every flattened point lies on it.
	p, _ := parsePathData("M0 0 A5 5 0 0 1 10 0")
	for _, pl := range p.Flatten(0.001) {
		for _, q := range pl.Pts {
			if r := math.Hypot(q.X-5, q.Y); math.Abs(r-5) > 0.01 || q.Y > 1e-9 {
				t.Fatalf("point %v off the arc (r=%g)", q, r)
			}
		}
	}
}

func TestTransforms(t *testing.T) {
	tests := []struct {
		s    string
		in   Point
		want Point
		ok   bool
	}{
		{"translate(10)", Point{1, 1}, Point{11, 1}, true},
		{"translate(10 20) scale(2)", Point{1, 1}, Point{12, 22}, true},
		{"scale(2,3)", Point{1, 1}, Point{2, 3}, true},
		{"rotate(90)", Point{1, 0}, Point{0, 1}, true},
		{"rotate(180 5 5)", Point{0, 0}, Point{10, 10}, true},
		{"skewX(45)", Point{0, 1}, Point{1, 1}, true},
		{"skewY(45)", Point{1, 0}, Point{1, 1}, true},
		{"matrix(1,0,0,1,5,6)", Point{0, 0}, Point{5, 6}, true},
		{"translate(1,1),,scale(2)", Point{1, 1}, Point{3, 3}, true},
		{"frobnicate(1)", Point{1, 1}, Point{1, 1}, false},
		{"scale(1,2,3)", Point{1, 1}, Point{1, 1}, false},
	}
	for _, tc := range tests {
		m, ok := parseTransform(tc.s)
		got := m.Apply(tc.in)
		if ok != tc.ok || !near(got.X, tc.want.X) || !near(got.Y, tc.want.Y) {
			t.Errorf("%s: %v ok=%v, want %v ok=%v", tc.s, got, ok, tc.want, tc.ok)
		}
		if inv, ok := m.Invert(); ok {
			if back := inv.Apply(got); !near(back.X, tc.in.X) || !near(back.Y, tc.in.Y) {
				t.Errorf("%s: inverse maps back to %v", tc.s, back)
			}
		}
	}
}

func TestColors(t *testing.T) {
	tests := []struct {
		s    string
		want Paint
		ok   bool
	}{
		{"#f00", Paint{1, 0, 0, 1}, true},
		{"#f008", Paint{1, 0, 0, 0x88 / 255.0}, true},
		{"#00ff00", Paint{0, 1, 0, 1}, true},
		{"#0000ff80", Paint{0, 0, 1, 0x80 / 255.0}, true},
		{"rgb(255, 0, 0)", Paint{1, 0, 0, 1}, true},
		{"rgb(100%,50%,0%)", Paint{1, 0.5, 0, 1}, true},
		{"rgba(0,0,255,0.5)", Paint{0, 0, 1, 0.5}, true},
		{"RebeccaPurple", Paint{}, false},
		{"DarkSlateGrey", Paint{0x2f / 255.0, 0x4f / 255.0, 0x4f / 255.0, 1}, true},
		{"#12", Paint{}, false},
		{"#ggg", Paint{}, false},
	}
	for _, tc := range tests {
		got, ok := parseColor(tc.s)
		if ok != tc.ok || (ok && (!near(got.R, tc.want.R) || !near(got.G, tc.want.G) || !near(got.B, tc.want.B) || !near(got.A, tc.want.A))) {
			t.Errorf("%s: %v %v, want %v %v", tc.s, got, ok, tc.want, tc.ok)
		}
	}
	if len(namedColors) != 147 {
		t.Errorf("%d named colours, want 147", len(namedColors))
	}
}

func TestStyleCascade(t *testing.T) {
	d := parse(t, `<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">
<style>rect{fill:blue} .c{fill:green} #i{fill:yellow} g > rect{fill:pink} @media print{rect{fill:red}}</style>
<g fill="red" stroke="black" stroke-width="2" opacity="0.5" color="#00f">
  <rect width="1" height="1"/>
  <rect class="c" width="1" height="1"/>
  <rect class="c" id="i" width="1" height="1"/>
  <rect class="c" id="j" style="fill:#fff; stroke: none" width="1" height="1" fill="black"/>
  <path d="M0 0h1v1z" fill="currentColor" fill-opacity="0.5" opacity="0.5"/>
  <path d="M0 0h1v1z" display="none"/>
  <path d="M0 0h1v1z" visibility="hidden"/>
  <path d="M0 0h1v1z" fill="none" stroke="none"/>
  <path d="M0 0h1v1z" fill="url(#g)"/>
</g>
<linearGradient id="g"><stop offset="0" stop-color="#000"/><stop offset="1" style="stop-color:#fff"/></linearGradient>
<text><textPath href="#g">hi</textPath></text><image href="x.png"/>
</svg>`)
	want := []struct {
		fill    Paint
		stroke  bool
		opacity float64
	}{
		{Paint{0, 0, 1, 1}, true, 0.5},
		{Paint{0, 0.5019607843137255, 0, 1}, true, 0.5},
		{Paint{1, 1, 0, 1}, true, 0.5},
		{Paint{1, 1, 1, 1}, false, 0.5},
		{Paint{0, 0, 1, 0.5}, true, 0.25},
		{Paint{0.5, 0.5, 0.5, 1}, true, 0.5},
	}
	if len(d.Shapes) != len(want) {
		t.Fatalf("%d shapes, want %d", len(d.Shapes), len(want))
	}
	for i, w := range want {
		s := d.Shapes[i]
		if s.Fill == nil || *s.Fill != w.fill && !(near(s.Fill.R, w.fill.R) && near(s.Fill.A, w.fill.A)) {
			t.Errorf("shape %d fill %v, want %v", i, s.Fill, w.fill)
		}
		if (s.Stroke != nil) != w.stroke || !near(s.Opacity, w.opacity) {
			t.Errorf("shape %d stroke %v opacity %g", i, s.Stroke, s.Opacity)
		}
		if s.Stroke != nil && s.StrokeWidth != 2 {
			t.Errorf("shape %d stroke width %g", i, s.StrokeWidth)
		}
	}
	for _, f := range []string{"css selector", "css at-rule", "text", "image"} {
		if !strings.Contains(strings.Join(d.Unsupported, "|"), f) {
			t.Errorf("unsupported %v lacks %q", d.Unsupported, f)
		}
	}
	// Gradients are drawn now: no warning, and the shape carries the gradient
	// (its Fill is the mean colour, checked above).
	if strings.Contains(strings.Join(d.Unsupported, "|"), "gradient") {
		t.Errorf("unsupported %v names gradient", d.Unsupported)
	}
	if g := d.Shapes[5].FillGradient; g == nil || len(g.Stops) != 2 || g.Stops[1].Color != (Paint{1, 1, 1, 1}) {
		t.Errorf("shape 5 gradient %+v", g)
	}
	d.Recolor(Paint{1, 0, 0, 1})
	if s := d.Shapes[4]; *s.Fill != (Paint{1, 0, 0, 0.5}) {
		t.Errorf("recolor kept alpha? %v", s.Fill)
	}
}

func TestSizeAndViewBox(t *testing.T) {
	tests := []struct {
		attrs string
		w, h  float64
		pt    Point // where user point (10,10) lands
	}{
		{`width="100" height="50"`, 100, 50, Point{10, 10}},
		{`width="1in" height="72pt"`, 96, 96, Point{10, 10}},
		{`width="25.4mm" height="2.54cm"`, 96, 96, Point{10, 10}},
		{`viewBox="0 0 20 10"`, 20, 10, Point{10, 10}},
		{`width="40" viewBox="0 0 20 10"`, 40, 20, Point{20, 20}},
		{`width="40" height="40" viewBox="0 0 20 10"`, 40, 40, Point{20, 30}},
		{`width="40" height="40" viewBox="0 0 20 10" preserveAspectRatio="xMinYMin"`, 40, 40, Point{20, 20}},
		{`width="40" height="40" viewBox="0 0 20 10" preserveAspectRatio="none"`, 40, 40, Point{20, 40}},
		{`width="40" height="40" viewBox="0 0 20 10" preserveAspectRatio="xMidYMid slice"`, 40, 40, Point{20, 40}},
		{`width="50%" height="100%" viewBox="0 0 20 10"`, 10, 10, Point{5, 7.5}},
	}
	for _, tc := range tests {
		d := parse(t, `<svg xmlns="http://www.w3.org/2000/svg" `+tc.attrs+`><path d="M10 10h1v1z"/></svg>`)
		got := d.Shapes[0].Path[0].Pts[0]
		if !near(d.Width, tc.w) || !near(d.Height, tc.h) || !near(got.X, tc.pt.X) || !near(got.Y, tc.pt.Y) {
			t.Errorf("%s: size %gx%g point %v, want %gx%g %v", tc.attrs, d.Width, d.Height, got, tc.w, tc.h, tc.pt)
		}
	}
}

func TestUse(t *testing.T) {
	d := parse(t, `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="10" height="10">
<defs><rect id="r" width="1" height="1"/><g id="loop"><use href="#loop"/><use xlink:href="#r"/></g></defs>
<use xlink:href="#r" x="5" y="6"/>
<use href="#loop"/>
<use href="#missing"/>
<use href="http://example.com/x.svg#r"/>
</svg>`)
	if len(d.Shapes) != 2 {
		t.Fatalf("%d shapes, want 2", len(d.Shapes))
	}
	if p := d.Shapes[0].Path[0].Pts[0]; p != (Point{5, 6}) {
		t.Errorf("use x/y: %v", p)
	}
	u := strings.Join(d.Unsupported, "|")
	if !strings.Contains(u, "circular use") || !strings.Contains(u, "external reference") {
		t.Errorf("unsupported = %v", d.Unsupported)
	}
}

func TestParseErrors(t *testing.T) {
	lots := "<svg xmlns='http://www.w3.org/2000/svg'>" + strings.Repeat("<g/>", 30) + "</svg>"
	deep := "<svg xmlns='http://www.w3.org/2000/svg'>" + strings.Repeat("<g>", 20) + strings.Repeat("</g>", 20) + "</svg>"
	// A use-bomb: ten levels each using the previous one ten times.
	bomb := "<svg xmlns='http://www.w3.org/2000/svg'><defs><path id='l0' d='M0 0h1v1z'/>"
	for i := 1; i <= 10; i++ {
		bomb += fmt.Sprintf("<g id='l%d'>%s</g>", i, strings.Repeat(fmt.Sprintf("<use href='#l%d'/>", i-1), 10))
	}
	bomb += "</defs><use href='#l10'/></svg>"
	tests := []struct {
		name, src string
		lim       Limits
		class     error
		reason    string
	}{
		{"not xml", "hello", Limits{}, ErrMalformed, "no <svg>"},
		{"unclosed", "<svg xmlns='http://www.w3.org/2000/svg'><g>", Limits{}, ErrMalformed, "malformed"},
		{"wrong root", "<html/>", Limits{}, ErrMalformed, "not <svg>"},
		{"entity", `<!DOCTYPE svg [<!ENTITY a "aaaa">]><svg>&a;</svg>`, Limits{}, ErrRefused, "DTD"},
		{"unknown entity", `<svg>&a;</svg>`, Limits{}, ErrMalformed, "malformed"},
		{"size", lots, Limits{MaxBytes: 50}, ErrLimit, "bytes"},
		{"elements", lots, Limits{MaxElements: 10}, ErrLimit, "elements"},
		{"depth", deep, Limits{MaxDepth: 10}, ErrLimit, "deeper"},
		{"use bomb", bomb, Limits{MaxElements: 1000}, ErrLimit, "<use> expansion"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.src), tc.lim)
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, tc.class) || e.Retryable() || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("err = %v, want %v containing %q", err, tc.class, tc.reason)
			}
		})
	}
	// The public DTD declaration of SVG 1.1 files is accepted (never fetched).
	parse(t, `<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"><svg xmlns="http://www.w3.org/2000/svg"/>`)
}

func TestRasterRulesAgree(t *testing.T) {
	// On a simple (non self-intersecting) outline both rasterizers must
	// give the same coverage within anti-aliasing noise.
	src := `<svg xmlns="http://www.w3.org/2000/svg" width="50" height="50"><path fill-rule="%s" d="M5 5 C40 0 50 20 45 45 L10 40 Q0 25 5 5z"/></svg>`
	a := renderGolden(t, fmt.Sprintf(src, "nonzero"), 3)
	b := renderGolden(t, fmt.Sprintf(src, "evenodd"), 3)
	comparePixels(t, a, b, 24, 0.01)
}

func TestBounds(t *testing.T) {
	d := parse(t, `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><circle cx="50" cy="50" r="10" stroke="red" stroke-width="4"/></svg>`)
	x0, y0, x1, y1 := d.Bounds()
	for _, c := range [][2]float64{{x0, 38}, {y0, 38}, {x1, 62}, {y1, 62}} {
		if math.Abs(c[0]-c[1]) > 0.1 {
			t.Errorf("bounds %g %g %g %g, want 38 38 62 62", x0, y0, x1, y1)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, tc := range goldenCases {
		f.Add([]byte(tc.svg))
	}
	f.Add([]byte(`<svg><path d="M0 0 a1e308 1e308 0 1 1 1e308 0 z" stroke="red" stroke-dasharray="1e-9"/></svg>`))
	f.Add([]byte(`<svg><g transform="scale(1e300)"><rect width="1e300" height="1" stroke="#000"/></g></svg>`))
	// Gradients: every feature, and the hostile shapes of TestHostileGradients.
	f.Add([]byte(readSVG("clip")))
	f.Add([]byte(readSVG("stroke-scale")))
	f.Add([]byte(readSVG("text")))
	f.Add([]byte(`<svg><text x="1e308 2" y="NaN" dx="-1e308" font-size="1e300" text-anchor="end" fill="url(#q)">a<tspan dy="1e308"><tspan x="">b</tspan></tspan><textPath>c</textPath>  </text></svg>`))
	f.Add([]byte(`<svg><g transform="scale(1e-300 1e300) skewX(89.9999)"><path d="M0 0 L9 9 Q1 5 3 3" stroke="red" stroke-width="1e300" stroke-dasharray="1e-300"/></g></svg>`))
	f.Add([]byte(`<svg><clipPath id="c" clipPathUnits="objectBoundingBox" transform="scale(1e308)"><use href="#c"/><rect width="1e308" height="NaN"/></clipPath><g clip-path="url(#c)"><line x2="9" stroke="red" clip-path="url(#c)"/></g></svg>`))
	for _, tc := range gradientCases {
		f.Add([]byte(tc.svg))
	}
	f.Add([]byte(`<svg><linearGradient id="a" href="#b" x2="1e-300" spreadMethod="repeat"><stop offset="NaN"/><stop offset="1" stop-opacity=".5"/></linearGradient><radialGradient id="b" href="#a" fr="2" fx="9" gradientTransform="scale(0 1)"/><rect width="9" height="9" fill="url(#a)" stroke="url(#b)"/></svg>`))
	lim := Limits{MaxBytes: 1 << 16, MaxElements: 200, MaxDepth: 16}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Parse(strings.NewReader(string(data)), lim)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error not *Error: %v", err)
			}
			return
		}
		if len(d.Shapes) > 4*lim.MaxElements {
			t.Fatalf("%d shapes beyond the cap", len(d.Shapes))
		}
		img := image.NewRGBA(image.Rect(0, 0, 32, 32))
		if err := Draw(context.Background(), img, d, Identity, img.Bounds(), 1); err != nil {
			t.Fatal(err)
		}
	})
}

func BenchmarkDraw600Paths(b *testing.B) {
	// 600 curved, stroked and filled paths on an A4 page at 300 dpi
	// (2480x3508 px): clipart-heavy print designs.
	rng := rand.New(rand.NewPCG(1, 2))
	var sb strings.Builder
	sb.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="210mm" height="297mm" viewBox="0 0 210 297">`)
	for i := 0; i < 600; i++ {
		x, y := rng.Float64()*190, rng.Float64()*277
		s := 5 + rng.Float64()*20
		rule := "nonzero"
		if i%3 == 0 {
			rule = "evenodd"
		}
		fmt.Fprintf(&sb, `<path fill-rule="%s" fill="#%06x" stroke="#222" stroke-width="0.5" d="M%.1f %.1f c%.1f -%.1f %.1f %.1f %.1f %.1f s-%.1f %.1f -%.1f 0z"/>`,
			rule, rng.IntN(1<<24), x, y, s/2, s, s, s/2, s, s, s/2, s, s)
	}
	sb.WriteString(`</svg>`)
	d, err := Parse(strings.NewReader(sb.String()), Limits{})
	if err != nil {
		b.Fatal(err)
	}
	scale := 300 / 25.4 * 25.4 / 96 // natural px -> 300 dpi
	w, h := int(d.Width*scale+0.5), int(d.Height*scale+0.5)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	b.ResetTimer()
	for b.Loop() {
		if err := Draw(context.Background(), img, d, Scale(scale, scale), img.Bounds(), 1); err != nil {
			b.Fatal(err)
		}
	}
}

// TestMarked: Doc.Marked finds the shapes an element draws, itself or inside it,
// through groups and <use>; an element that paints nothing or is not there has none.
func TestMarked(t *testing.T) {
	t.Parallel()
	doc, err := Parse(strings.NewReader(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="100" height="100">
  <defs><rect id="tpl" width="10" height="10" fill="red"/></defs>
  <g id="outer" transform="translate(10 0)">
    <path id="die" d="M0 0 L50 0 L50 50 Z" fill="blue"/>
    <circle cx="5" cy="5" r="5" fill="green"/>
  </g>
  <use id="copy" xlink:href="#tpl" x="70" y="70"/>
  <path id="ghost" d="M0 0 L9 9" fill="none" stroke="none"/>
</svg>`), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id    string
		n     int
		first Point // the first point of the first path, transforms applied
	}{
		{"die", 1, Point{10, 0}},
		{"outer", 2, Point{10, 0}},
		{"copy", 1, Point{70, 70}},
		{"tpl", 1, Point{70, 70}},
		{"ghost", 0, Point{}},
		{"none", 0, Point{}},
	} {
		got := doc.Marked(tc.id)
		if len(got) != tc.n {
			t.Errorf("Marked(%q): %d paths, want %d", tc.id, len(got), tc.n)
			continue
		}
		if tc.n > 0 && got[0][0].Pts[0] != tc.first {
			t.Errorf("Marked(%q) starts at %v, want %v", tc.id, got[0][0].Pts[0], tc.first)
		}
	}
}
