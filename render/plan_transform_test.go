package render

import (
	"image"
	"runtime"
	"testing"

	"github.com/printworker/printworker/hub/model"
	"github.com/printworker/printworker/render/svg"
)

// A rotated picture's draw copies its source (4 bytes a pixel): PeakBytes counts that
// copy for raster outputs, once (pictures are drawn one at a time), and not for
// unrotated pictures, whole turns or vector pdf (issue 13 item 5).
func TestPlanCountsRotatedPictureCopy(t *testing.T) {
	const photo = 4 * 160 * 100 // basic.json's photo, 160x100 by its meta
	for _, tc := range []struct {
		name     string
		typ      string
		rotation *float64
		want     int64
	}{
		{"png unrotated", model.ExportPNG, nil, 0},
		{"png 0°", model.ExportPNG, ptr(0.0), 0},
		{"png 30°", model.ExportPNG, ptr(30.0), photo},
		{"png 90°", model.ExportPNG, ptr(90.0), photo},
		{"png -720°", model.ExportPNG, ptr(-720.0), 0},
		{"pdf-simple 30°", model.ExportPDFSimple, ptr(30.0), photo},
		{"vector pdf 30°", model.ExportPDF, ptr(30.0), 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := loadDesign(t, "basic.json")
			d.Views[0].Export.Type = tc.typ
			v := &d.Views[0]
			for i := range v.Elements {
				if v.Elements[i].ID == "photo" {
					v.Elements[i].Rotation = tc.rotation
				}
			}
			p, err := newRenderer(t, Options{}).Plan(d, "front")
			if err != nil {
				t.Fatal(err)
			}
			if p.TransformBytes != tc.want {
				t.Errorf("TransformBytes = %d, want %d", p.TransformBytes, tc.want)
			}
			want := p.CanvasBytes + p.SourceBytes + tc.want + p.CanvasBytes/10
			switch tc.typ {
			case model.ExportPDFSimple:
				want = p.CanvasBytes + p.SourceBytes + tc.want + p.CanvasBytes/2
			case model.ExportPDF:
				want = 2 * p.SourceBytes
			}
			if got := p.PeakBytes(); got != want {
				t.Errorf("PeakBytes = %d, want %d", got, want)
			}
		})
	}
}

// The copy PeakBytes counts is what a rotated draw allocates: one 4-byte-a-pixel copy
// of a decoded JPEG (YCbCr) source, also past 45° where pass 1 reads a transposed
// copy (it used to convert, then transpose: two copies), plus band buffers well
// under it.
func TestRotatedDrawAllocatesOneSourceCopy(t *testing.T) {
	const w, h = 1000, 800
	src := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	dst := image.NewRGBA(image.Rect(0, 0, 400, 400))
	for _, deg := range []float64{30, 60, 120} {
		m := svg.Translate(200, 200).Mul(svg.Rotate(deg)).Mul(svg.Scale(0.25, 0.25)).Mul(svg.Translate(-w/2, -h/2))
		poly := clipPolygon(placedQuad(m, w, h), Rect{0, 0, 400, 400})
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		drawTransformed(dst, dst.Rect, poly, src, m, 1, 1)
		runtime.ReadMemStats(&after)
		got, copyBytes := after.TotalAlloc-before.TotalAlloc, uint64(4*w*h)
		if got < copyBytes || got > copyBytes*3/2 {
			t.Errorf("%g°: draw allocated %d bytes, want the %d of one source copy (plus under half of it)", deg, got, copyBytes)
		}
	}
}
