package render

import (
	"bytes"
	"context"
	"image"
	"os"
	"testing"

	"github.com/printworker/printworker/render/internal/jpegdec"
	"github.com/printworker/printworker/render/svg"
)

// TestRowsReadCoversDrawing shows that the rows limitRows lets the JPEG decoder skip
// are never read by the drawing: a picture cropped at the bottom by its clip is drawn
// once decoded whole and once with every row from rowsRead on overwritten with a
// loud colour, enlarged, shrunk five and twenty times, rotated by 30° and 90°, and
// the canvases must be the same bytes. It also wants rowsRead to leave rows out in
// the cropped cases, so that it checks something.
func TestRowsReadCoversDrawing(t *testing.T) {
	data, err := os.ReadFile("internal/jpegdec/testdata/gen-420.jpg") // 331 x 517, 4:2:0
	if err != nil {
		t.Fatal(err)
	}
	img, err := jpegdec.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	src := img.(*image.YCbCr)
	w, h := float64(src.Rect.Dx()), float64(src.Rect.Dy())
	r := newRenderer(t, Options{Workers: 2})
	for _, tc := range []struct {
		name string
		// scale is output pixels per source pixel; deg the rotation; clipH the clip's
		// height as a share of the drawn picture's.
		scale, deg, clipH float64
		wantCut           bool
	}{
		{"enlarged", 1.58, 0, 0.6, true},
		{"native", 1, 0, 0.84, true},
		{"shrunk5", 0.2, 0, 0.5, true},
		{"shrunk20", 0.05, 0, 0.5, true},
		{"rotated30", 1.2, 30, 0.5, true},
		{"rotated90", 1, 90, 0.5, false}, // rows run across the clip: a left-right crop
		{"uncropped", 1, 0, 1.2, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// Template units are output pixels (Box = canvas): the picture is centred
			// horizontally, its top at y = 10; the clip is the top clipH of it.
			cw := int(w*tc.scale*1.6) + 40
			ch := int(h*tc.scale*1.6) + 40
			m := svg.Translate(float64(cw)/2, 10+h*tc.scale/2).Mul(svg.Rotate(tc.deg)).Mul(svg.Scale(tc.scale, tc.scale)).Mul(svg.Translate(-w/2, -h/2))
			clip := Rect{0, 0, float64(cw), 10 + h*tc.scale*tc.clipH}
			if tc.deg == 90 {
				clip = Rect{0, 0, float64(cw) / 2, float64(ch)}
			}
			scene := func(pic image.Image) *Scene {
				return &Scene{WidthPx: cw, HeightPx: ch, Box: Rect{0, 0, float64(cw), float64(ch)}, Layers: []Layer{{
					Kind: LayerImage, Transform: m, Clip: clip, Opacity: 1,
					Image: &ImageLayer{Image: pic, Width: src.Rect.Dx(), Height: src.Rect.Dy()},
				}}}
			}
			s := scene(nil)
			rows := rowsRead(s, s.Layers[0].Image)
			if cut := rows > 0 && rows < src.Rect.Dy(); cut != tc.wantCut {
				t.Fatalf("rowsRead %d of %d rows", rows, src.Rect.Dy())
			}
			want, err := r.Rasterize(context.Background(), scene(src))
			if err != nil {
				t.Fatal(err)
			}
			if rows == 0 {
				return
			}
			loud := *src
			loud.Y, loud.Cb, loud.Cr = bytes.Clone(src.Y), bytes.Clone(src.Cb), bytes.Clone(src.Cr)
			for y := rows; y < src.Rect.Dy(); y++ {
				for x := range src.Rect.Dx() {
					loud.Y[loud.YOffset(x, y)] = 255
					loud.Cb[loud.COffset(x, y)], loud.Cr[loud.COffset(x, y)] = 0, 255
				}
			}
			got, err := r.Rasterize(context.Background(), scene(&loud))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Pix, want.Pix) {
				t.Errorf("rows from %d of %d are drawn", rows, src.Rect.Dy())
			}
		})
	}
}
