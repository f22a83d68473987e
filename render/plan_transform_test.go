package render

import (
	"testing"

	"github.com/printworker/printworker/model"
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
