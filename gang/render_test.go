package gang

import (
	"bytes"
	"context"
	"errors"
	"image"
	"image/png"
	"strings"
	"testing"

	"github.com/printworker/printworker/render"
)

// srcPixel is the file pixel that sheet pixel (x, y) of placement p shows.
func srcPixel(p Placement, x, y int) image.Point {
	u, v := x-p.X, y-p.Y
	if p.Rotation == 0 {
		return image.Pt(p.Src.Min.X+u, p.Src.Min.Y+v)
	}
	return image.Pt(p.Src.Min.X+v, p.Src.Max.Y-1-u)
}

// TestRenderPixels renders small sheets (labels, cut marks, rotation on and off),
// decodes them with image/png and compares every pixel: inside a copy the design's
// exact pixel, elsewhere transparent unless labels or cut marks are on, and those
// only in the gap, never on artwork.
func TestRenderPixels(t *testing.T) {
	ds := synthSet{name: "r", seed: 9, designs: 12, minIn: 0.3, maxIn: 1.2, minQty: 1, maxQty: 3}.build(100)
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"plain", Config{DPI: 100, Width: 300, MaxLength: 400, Gap: 6, Margin: 4}},
		{"rotate labels marks", Config{DPI: 100, Width: 250, MaxLength: 500, Gap: 10, Margin: 6, Rotate: true, Label: 15, CutMarks: true}},
		{"fixed sheets", Config{DPI: 100, Width: 260, MaxLength: 260, Gap: 8, Margin: 8, Rotate: true, Sheets: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, err := Plan(ds, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			checkLayout(t, ds, l)
			ld := newSynthLoader(ds)
			rotated := 0
			defer func() {
				if tc.cfg.Rotate && rotated == 0 {
					t.Error("no copy turned: the rotated path went untested")
				}
			}()
			for i, s := range l.Sheets {
				var buf bytes.Buffer
				if err := Render(context.Background(), &buf, l, i, ld, render.PNGOptions{StripRows: 16, Workers: 2}); err != nil {
					t.Fatal(err)
				}
				img, err := png.Decode(&buf)
				if err != nil {
					t.Fatal(err)
				}
				n, ok := img.(*image.NRGBA)
				if !ok || n.Rect != image.Rect(0, 0, s.Width, s.Length) {
					t.Fatalf("decoded %T %v, want NRGBA %dx%d", img, img.Bounds(), s.Width, s.Length)
				}
				covered := make([]bool, s.Width*s.Length)
				for _, p := range s.Placements {
					if p.Rotation != 0 {
						rotated++
					}
					src := synthImage(ds[p.Design])
					for y := p.Y; y < p.Y+p.H; y++ {
						for x := p.X; x < p.X+p.W; x++ {
							sp := srcPixel(p, x, y)
							a := n.Pix[n.PixOffset(x, y):][:4]
							b := src.Pix[src.PixOffset(sp.X, sp.Y):][:4]
							if !bytes.Equal(a, b) {
								t.Fatalf("sheet %d %s copy %d rot %d at (%d,%d): %v, file %v at %v", i, ds[p.Design].Key, p.Copy, p.Rotation, x, y, a, b, sp)
							}
							covered[y*s.Width+x] = true
						}
					}
				}
				ink := 0
				for y := 0; y < s.Length; y++ {
					for x := 0; x < s.Width; x++ {
						if covered[y*s.Width+x] {
							continue
						}
						if a := n.Pix[n.PixOffset(x, y)+3]; a != 0 {
							if tc.cfg.Label == 0 && !tc.cfg.CutMarks {
								t.Fatalf("sheet %d: pixel (%d,%d) outside every copy has alpha %d", i, x, y, a)
							}
							ink++
						}
					}
				}
				if (tc.cfg.Label > 0 || tc.cfg.CutMarks) && ink == 0 {
					t.Fatal("labels or cut marks asked for, none drawn")
				}
			}
		})
	}
}

// TestRenderDeterministic: re-building gives byte-identical PNG output.
func TestRenderDeterministic(t *testing.T) {
	ds := synthSets[0].build(30) // 30 dpi keeps it small
	c := Config{DPI: 30, Width: 660, MaxLength: 3000, Gap: 6, Margin: 6, Rotate: true, Label: 14, CutMarks: true}
	var outs [2][]byte
	for k := range outs {
		l, err := Plan(ds, c)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := Render(context.Background(), &buf, l, 0, newSynthLoader(ds), render.PNGOptions{Workers: 1 + k}); err != nil {
			t.Fatal(err)
		}
		outs[k] = buf.Bytes()
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Fatal("two builds differ")
	}
}

type failLoader struct{}

func (failLoader) Load(context.Context, string) (image.Image, error) {
	return nil, errors.New("file vanished")
}

// TestRenderLoadError: a design that cannot be loaded at render time stops the
// sheet with an error naming it, not a sheet with a hole.
func TestRenderLoadError(t *testing.T) {
	ds := synthSets[0].build(30)
	l, err := Plan(ds, Config{DPI: 30, Width: 660, MaxLength: 3000, Gap: 6})
	if err != nil {
		t.Fatal(err)
	}
	err = Render(context.Background(), &bytes.Buffer{}, l, 0, failLoader{}, render.PNGOptions{})
	if err == nil || !strings.Contains(err.Error(), "file vanished") || !strings.Contains(err.Error(), "mixed-50/") {
		t.Fatalf("error %v", err)
	}
}
