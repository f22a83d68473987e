package render

import (
	"context"
	"github.com/printworker/printworker/render/fonts"
	"image/color"
	"math"
	"testing"

	"github.com/printworker/printworker/model"
)

func colors(entries ...model.Color) []model.Color { return entries }

func c(hex string, def bool) model.Color { return model.Color{Color: hex, Default: def} }

// Background colour rules (hub-gaps.md): the default entry, else the first; with no
// default and allowTransparant, nothing.
func TestBackgroundColour(t *testing.T) {
	yes, no := true, false
	tests := []struct {
		name   string
		colors []model.Color
		transp *bool
		want   *color.NRGBA
	}{
		{"default wins", colors(c("#ff0000", false), c("#00ff00", true)), &yes, &color.NRGBA{0, 255, 0, 255}},
		{"first without default", colors(c("#ff0000", false), c("#00ff00", false)), &no, &color.NRGBA{255, 0, 0, 255}},
		{"first, transparency not allowed", colors(c("#123", false)), nil, &color.NRGBA{0x11, 0x22, 0x33, 255}},
		{"transparent allowed, no default", colors(c("#ff0000", false)), &yes, nil},
		{"no colours", nil, &no, nil},
		{"8-digit hex keeps alpha", colors(c("#ff000080", true)), &no, &color.NRGBA{255, 0, 0, 0x80}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := loadDesign(t, "basic.json")
			v := &d.Views[0]
			v.Export.ExportTemplate = false
			v.Elements = []model.Element{{ID: "bg", Type: model.ElementBackground, Colors: tc.colors, AllowTransparant: tc.transp}}
			s, err := newRenderer(t, Options{}).BuildScene(context.Background(), d, "front", nil)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == nil {
				if len(s.Layers) != 0 {
					t.Fatalf("layers %+v, want none", s.Layers)
				}
				return
			}
			if len(s.Layers) != 1 || s.Layers[0].Kind != LayerFill || s.Layers[0].Fill.Color != *tc.want {
				t.Fatalf("layers %+v, want one fill %v", s.Layers, *tc.want)
			}
			// No area: the whole export box.
			if s.Layers[0].Fill.Rect != (Rect{0, 0, 200, 150}) {
				t.Errorf("fill rect %+v", s.Layers[0].Fill.Rect)
			}
		})
	}
}

// Layers go by ascending weight, ties in array order; export:false is left out; the
// template image is the bottom layer, stretched to the view.
func TestLayerOrder(t *testing.T) {
	d := loadDesign(t, "basic.json")
	s, err := newRenderer(t, Options{}).BuildScene(context.Background(), d, "front", DirSource(mediaDir))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range s.Layers {
		got = append(got, l.Source+":"+l.ElementID)
	}
	want := []string{"template:", "background:bg", "picture:photo", "text:title"}
	if len(got) != len(want) {
		t.Fatalf("layers %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("layers %v, want %v", got, want)
		}
	}
	if tm := s.Layers[0].Transform; tm != (Matrix{2, 0, 0, 2, 0, 0}) {
		t.Errorf("template transform %v, want a 2x stretch of the 100x75 image", tm)
	}
}

// Picture placement (hub-gaps.md): natural size x fill/fit/none x scale, centred at the
// position, rotated clockwise about it.
func TestPicturePlacement(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name       string
		autoResize string
		scale      *float64
		rotation   float64
		origin     string
		scaleArea  string
		// wantCorner is where the image's top-left pixel corner lands.
		wantCorner [2]float64
		wantScale  float64
	}{
		// Area print is 120x90, photo 160x100, position (100, 75).
		{name: "fit", autoResize: "fit", wantScale: 0.75, wantCorner: [2]float64{100 - 60, 75 - 37.5}},
		{name: "fill", autoResize: "fill", wantScale: 0.9, wantCorner: [2]float64{100 - 72, 75 - 45}},
		{name: "none", autoResize: "none", wantScale: 1, wantCorner: [2]float64{20, 25}},
		{name: "fit x scale", autoResize: "fit", scale: f(2), wantScale: 1.5, wantCorner: [2]float64{-20, 0}},
		// scaleArea (60x45) wins over the element's area for sizing, not for clipping.
		{name: "scaleArea", autoResize: "fit", scaleArea: "small", wantScale: 0.375, wantCorner: [2]float64{100 - 30, 75 - 18.75}},
		{name: "zero scale is 1", autoResize: "none", scale: f(0), wantScale: 1, wantCorner: [2]float64{20, 25}},
		{name: "top-left origin", autoResize: "none", origin: "top-left", wantScale: 1, wantCorner: [2]float64{100, 75}},
		// 90 degrees clockwise: the top-left corner goes to the top-right.
		{name: "rotated 90", autoResize: "none", rotation: 90, wantScale: 1, wantCorner: [2]float64{100 + 50, 75 - 80}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := loadDesign(t, "basic.json")
			e := &d.Views[0].Elements[3]
			e.AutoResize, e.Scale, e.Rotation = &tc.autoResize, tc.scale, &tc.rotation
			if tc.origin != "" {
				e.OriginRaw = []byte(`"` + tc.origin + `"`)
			}
			d.Views[0].Areas = append(d.Views[0].Areas, model.Area{ID: "small", X: 0, Y: 0, Width: 60, Height: 45})
			if tc.scaleArea != "" {
				e.ScaleArea = &tc.scaleArea
			}
			s, err := newRenderer(t, Options{}).BuildScene(context.Background(), d, "front", DirSource(mediaDir))
			if err != nil {
				t.Fatal(err)
			}
			var l *Layer
			for i := range s.Layers {
				if s.Layers[i].ElementID == "photo" {
					l = &s.Layers[i]
				}
			}
			m := l.Transform
			if k := math.Sqrt(math.Abs(m.Det())); math.Abs(k-tc.wantScale) > 1e-9 {
				t.Errorf("scale %g, want %g", k, tc.wantScale)
			}
			if math.Abs(m[4]-tc.wantCorner[0]) > 1e-9 || math.Abs(m[5]-tc.wantCorner[1]) > 1e-9 {
				t.Errorf("top-left corner at (%g, %g), want %v", m[4], m[5], tc.wantCorner)
			}
			if l.Clip != (Rect{40, 30, 120, 90}) {
				t.Errorf("clip %+v, want the print area", l.Clip)
			}
		})
	}
}

// Text layout follows fabric.js (hub-gaps.md): U = 1.13 x size, height =
// U x (lineHeight x (n-1) + 1), baseline i = U x lineHeight x i + 0.879 x size.
func TestTextLayout(t *testing.T) {
	// No fallback chain and no coverage fallback: the last case needs a character no
	// font has.
	r := newRenderer(t, Options{FontFallback: []string{}, NoCoverageFallback: true})
	f, _ := r.Fonts().Lookup("DejaVu Sans", 0)
	layoutText := func(f *fonts.Font, s string, size, cs, lh float64, align string) (*TextLayer, []rune, error) {
		tl, rep, err := r.shapers.layoutText(s, textRequest{primary: f, reg: r.fonts, size: size, charSpacing: cs, lineHeight: lh, align: align})
		return tl, rep.missing, err
	}
	tl, missing, err := layoutText(f, "ab\nabcd", 100, 0, 1.16, "right")
	if err != nil || len(missing) != 0 {
		t.Fatal(err, missing)
	}
	u := 113.0
	if want := u * (1.16 + 1); math.Abs(tl.Height-want) > 1e-9 {
		t.Errorf("height %g, want %g", tl.Height, want)
	}
	if tl.Lines[0].Baseline != 87.9 || math.Abs(tl.Lines[1].Baseline-(u*1.16+87.9)) > 1e-9 {
		t.Errorf("baselines %g %g", tl.Lines[0].Baseline, tl.Lines[1].Baseline)
	}
	if tl.Width != tl.Lines[1].Width || tl.Lines[1].X != 0 || math.Abs(tl.Lines[0].X+tl.Lines[0].Width-tl.Width) > 1e-9 {
		t.Errorf("right alignment: width %g, lines %+v", tl.Width, tl.Lines)
	}
	// charSpacing 1000/1000 em adds one em after every character but the last.
	plain, _, _ := layoutText(f, "abc", 100, 0, 1.16, "left")
	spaced, _, _ := layoutText(f, "abc", 100, 1000, 1.16, "left")
	if d := spaced.Width - plain.Width; math.Abs(d-200) > 1e-9 {
		t.Errorf("charSpacing added %g, want 200 (2 gaps of 1 em)", d)
	}
	// Kerning tightens AV.
	av, _, _ := layoutText(f, "AV", 100, 0, 1.16, "left")
	a, _, _ := layoutText(f, "A", 100, 0, 1.16, "left")
	v, _, _ := layoutText(f, "V", 100, 0, 1.16, "left")
	if av.Width >= a.Width+v.Width {
		t.Errorf("AV = %g, A + V = %g: no kerning", av.Width, a.Width+v.Width)
	}
	_, missing, _ = layoutText(f, "a\u4e16b", 10, 0, 1.16, "left")
	if string(missing) != "\u4e16" {
		t.Errorf("missing = %q", string(missing))
	}
}
