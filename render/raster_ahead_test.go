package render

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"testing"

	"github.com/printworker/printworker/render/svg"
)

// aheadScene is the text golden's scene with a picture over the box's left half drawn
// right after the background, a fill inside the picture's area (which must wait for
// it) and a fill outside it (which may be drawn ahead) above the texts.
func aheadScene(t *testing.T, r *Renderer) (s *Scene, inside, outside int) {
	t.Helper()
	s, err := r.BuildScene(context.Background(), loadDesign(t, "text.json"), "words", DirSource(mediaDir))
	if err != nil {
		t.Fatal(err)
	}
	pic := image.NewRGBA(image.Rect(0, 0, 37, 23))
	for i := range pic.Pix {
		pic.Pix[i] = byte(i*7 + i/97)
	}
	for i := 3; i < len(pic.Pix); i += 4 {
		pic.Pix[i] = 255
	}
	b := s.Box
	half := Rect{X: b.X, Y: b.Y, W: b.W / 2, H: b.H}
	picture := Layer{
		Kind: LayerImage, Source: "picture", ElementID: "pic", Clip: half, Opacity: 1,
		Transform: svg.Translate(half.X, half.Y).Mul(svg.Scale(half.W/37, half.H/23)),
		Image:     &ImageLayer{Image: pic, Width: 37, Height: 23},
	}
	fill := func(id string, rc Rect, c color.NRGBA) Layer {
		return Layer{Kind: LayerFill, ElementID: id, Source: "background", Clip: rc, Opacity: 0.5, Transform: svg.Identity,
			Fill: &FillLayer{Rect: rc, Color: c}}
	}
	layers := append([]Layer{s.Layers[0], picture}, s.Layers[1:]...)
	inside = len(layers)
	layers = append(layers, fill("in", Rect{X: b.X + b.W/8, Y: b.Y + b.H/8, W: b.W / 8, H: b.H / 8}, color.NRGBA{200, 10, 10, 255}))
	outside = len(layers)
	layers = append(layers, fill("out", Rect{X: b.X + b.W*5/8, Y: b.Y + b.H/8, W: b.W / 4, H: b.H / 4}, color.NRGBA{10, 10, 200, 255}))
	s.Layers = layers
	return s, inside, outside
}

// Drawing ahead of a picture still being decoded leaves the canvas byte for byte as
// drawing in order; a layer that touches the picture's pixels waits for it.
func TestDrawAheadSameCanvas(t *testing.T) {
	r := newRenderer(t, Options{})
	inOrder, _, _ := aheadScene(t, r)
	want, err := r.Rasterize(context.Background(), inOrder)
	if err != nil {
		t.Fatal(err)
	}

	s, inside, outside := aheadScene(t, r)
	canvas := image.NewRGBA(image.Rect(0, 0, s.WidthPx, s.HeightPx))
	ahead, _ := r.planAhead(s, canvas, 1)
	if ahead[inside] || !ahead[outside] {
		t.Errorf("drawn ahead: fill inside the picture %v (want false), outside %v (want true)", ahead[inside], ahead[outside])
	}

	s, _, _ = aheadScene(t, r)
	sameCanvas(t, r, s, want)

	// With the picture as the lowest layer, the canvas's pages are faulted in (zero
	// stores) while it decodes, before the layers ahead are drawn.
	inOrder, _, _ = aheadScene(t, r)
	inOrder.Layers = inOrder.Layers[1:]
	want, err = r.Rasterize(context.Background(), inOrder)
	if err != nil {
		t.Fatal(err)
	}
	s, _, _ = aheadScene(t, r)
	s.Layers = s.Layers[1:]
	sameCanvas(t, r, s, want)
}

// sameCanvas rasterizes s as with a picture still being decoded and compares the
// canvas with want.
func sameCanvas(t *testing.T, r *Renderer, s *Scene, want *image.RGBA) {
	t.Helper()
	waits := 0
	s.awaitMedia = func() error { waits++; return nil }
	got, err := r.Rasterize(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if waits == 0 {
		t.Fatal("Rasterize never waited for the media")
	}
	if !bytes.Equal(got.Pix, want.Pix) {
		n := 0
		for i := range got.Pix {
			if got.Pix[i] != want.Pix[i] {
				n++
			}
		}
		t.Errorf("%d bytes differ from the canvas drawn in order", n)
	}
}

// The rows Rasterize declares final (Scene.finalRows) while a picture decodes are
// never written again: their bytes when declared equal the finished canvas's; the
// picture's rows are never among them.
func TestFinalRowsStayFinal(t *testing.T) {
	r := newRenderer(t, Options{})
	for _, lowest := range []bool{false, true} {
		s, _, _ := aheadScene(t, r)
		if lowest {
			s.Layers = s.Layers[1:]
		}
		pic := &s.Layers[0]
		if !lowest {
			pic = &s.Layers[1]
		}
		// The picture over the top left quarter only: the rows below it are free.
		b := s.Box
		pic.Clip = Rect{X: b.X, Y: b.Y, W: b.W / 2, H: b.H / 2}
		pic.Transform = svg.Translate(b.X, b.Y).Mul(svg.Scale(b.W/2/37, b.H/2/23))
		canvasPic := pixelRect(s.ToPixel(), pic.Clip)
		type snap struct {
			y0, y1 int
			pix    []byte
		}
		var snaps []snap
		s.awaitMedia = func() error { return nil }
		s.finalRows = func(c *image.RGBA, y0, y1 int) {
			snaps = append(snaps, snap{y0, y1, bytes.Clone(c.Pix[y0*c.Stride : y1*c.Stride])})
		}
		got, err := r.Rasterize(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		if len(snaps) == 0 {
			t.Fatalf("lowest %v: no rows declared final", lowest)
		}
		rows := 0
		for _, sn := range snaps {
			rows += sn.y1 - sn.y0
			if sn.y0 < canvasPic.Max.Y && sn.y1 > canvasPic.Min.Y {
				t.Errorf("lowest %v: rows %d..%d declared final overlap the picture's %d..%d", lowest, sn.y0, sn.y1, canvasPic.Min.Y, canvasPic.Max.Y)
			}
			if !bytes.Equal(got.Pix[sn.y0*got.Stride:sn.y1*got.Stride], sn.pix) {
				t.Errorf("lowest %v: rows %d..%d changed after they were declared final", lowest, sn.y0, sn.y1)
			}
		}
		t.Logf("lowest %v: %d of %d rows final before the picture was drawn", lowest, rows, got.Rect.Dy())
	}
}

// A PNG whose strips were partly compressed while its picture decoded is byte for
// byte the PNG of the finished canvas.
func TestPNGAheadSameBytes(t *testing.T) {
	r := newRenderer(t, Options{})
	for _, tc := range []struct{ design, view string }{{"basic.json", "front"}, {"pictures.json", "main"}} {
		d := loadDesign(t, tc.design)
		var got bytes.Buffer
		if _, err := r.RenderView(context.Background(), d, tc.view, DirSource(mediaDir), &got); err != nil {
			t.Fatal(err)
		}
		s, err := r.BuildScene(context.Background(), d, tc.view, DirSource(mediaDir))
		if err != nil {
			t.Fatal(err)
		}
		canvas, err := r.Rasterize(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := r.encodePNG(context.Background(), &want, canvas, s.DPI, false); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Errorf("%s: RenderView wrote %d bytes differing from the finished canvas's %d", tc.design, got.Len(), want.Len())
		}
	}
}

// opaqueCanvas: an opaque fill over the whole canvas, wherever it is in the layers,
// makes it opaque; a translucent, faded or partial fill does not.
func TestOpaqueCanvas(t *testing.T) {
	r := newRenderer(t, Options{})
	base, _, _ := aheadScene(t, r)
	b := base.Box
	fill := func(rc Rect, c color.NRGBA, opacity float64) Layer {
		return Layer{Kind: LayerFill, Clip: b, Opacity: opacity, Transform: svg.Identity, Fill: &FillLayer{Rect: rc, Color: c}}
	}
	opaque, translucent := color.NRGBA{10, 20, 30, 255}, color.NRGBA{10, 20, 30, 254}
	for _, tc := range []struct {
		name   string
		layers []Layer
		want   bool
	}{
		{"opaque fill over the box", []Layer{fill(b, opaque, 1)}, true},
		{"opaque fill above a picture", []Layer{base.Layers[1], fill(b, opaque, 1)}, true},
		{"translucent colour", []Layer{fill(b, translucent, 1)}, false},
		{"layer opacity", []Layer{fill(b, opaque, 0.99)}, false},
		{"a strip short", []Layer{fill(Rect{X: b.X, Y: b.Y, W: b.W, H: b.H * 0.98}, opaque, 1)}, false},
		{"no fill", []Layer{base.Layers[1]}, false},
	} {
		s := *base
		s.Layers = tc.layers
		if got := opaqueCanvas(&s); got != tc.want {
			t.Errorf("%s: opaqueCanvas = %v, want %v", tc.name, got, tc.want)
		}
		if !tc.want {
			continue
		}
		canvas, err := r.Rasterize(context.Background(), &s)
		if err != nil {
			t.Fatal(err)
		}
		for i := 3; i < len(canvas.Pix); i += 4 {
			if canvas.Pix[i] != 255 {
				t.Fatalf("%s: pixel %d has alpha %d", tc.name, i/4, canvas.Pix[i])
			}
		}
	}
}
