package render

import (
	"image"
	"runtime"
	"testing"

	"github.com/printworker/printworker/model"
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

// The copy PeakBytes counts bounds what a rotated draw allocates: a picture with
// transparency is converted to one 4-byte-a-pixel copy (also past 45°, where pass 1
// reads it transposed: converted and transposed at once), plus band buffers; an
// opaque one (a decoded JPEG) is read span by span with no copy, so its draw
// allocates only the band buffers, under the copy PeakBytes counts for it. The band
// buffers depend on the output band and the shrink, not on the source: here (a 4x
// shrink) about 1.6 MB for the float ring of a transparent picture, 1.6 to 2.1 MB for
// an opaque one's wider integer ring.
func TestRotatedDrawAllocatesOneSourceCopy(t *testing.T) {
	const w, h = 1000, 800
	ycc := image.NewYCbCr(image.Rect(0, 0, w, h), image.YCbCrSubsampleRatio420)
	nrgba := image.NewNRGBA(image.Rect(0, 0, w, h)) // all transparent
	dst := image.NewRGBA(image.Rect(0, 0, 400, 400))
	copyBytes := uint64(4 * w * h)
	for _, tc := range []struct {
		name   string
		src    image.Image
		lo, hi uint64 // bounds of the bytes the draw allocates
	}{
		{"opaque YCbCr, no copy", ycc, 0, copyBytes * 3 / 4},
		{"transparent NRGBA, one copy", nrgba, copyBytes, copyBytes + 2<<20},
	} {
		for _, deg := range []float64{30, 60, 120} {
			m := svg.Translate(200, 200).Mul(svg.Rotate(deg)).Mul(svg.Scale(0.25, 0.25)).Mul(svg.Translate(-w/2, -h/2))
			poly := clipPolygon(placedQuad(m, w, h), Rect{0, 0, 400, 400})
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			drawTransformed(dst, dst.Rect, poly, tc.src, m, 1, 1, bandEnv{})
			runtime.ReadMemStats(&after)
			got := after.TotalAlloc - before.TotalAlloc
			t.Logf("%s %g°: %d bytes", tc.name, deg, got)
			if got < tc.lo || got > tc.hi {
				t.Errorf("%s %g°: draw allocated %d bytes, want %d to %d (one source copy: %d)", tc.name, deg, got, tc.lo, tc.hi, copyBytes)
			}
		}
	}
}
