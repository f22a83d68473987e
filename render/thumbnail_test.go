package render

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"testing"

	"golang.org/x/image/draw"

	"github.com/printworker/printworker/hub/model"
)

// TestThumbnails: with thumbnails on, every export type carries an opaque preview
// fitting 512 px with the view's aspect; the png's is the print raster scaled down
// (compared with the decoded file), and the pdf's draws something (not blank).
// Without WithThumbnails there is none.
func TestThumbnails(t *testing.T) {
	base := newRenderer(t, Options{})
	for _, typ := range []string{model.ExportPNG, model.ExportPDF, model.ExportPDFSimple} {
		t.Run(typ, func(t *testing.T) {
			d := loadDesign(t, "basic.json")
			d.Views[0].Export.Type = typ
			res, err := base.RenderView(context.Background(), d, "front", DirSource(mediaDir), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if res.Thumbnail != nil {
				t.Fatal("thumbnail without WithThumbnails")
			}
			var buf bytes.Buffer
			res, err = base.WithThumbnails(DefaultThumbnailPx).RenderView(context.Background(), d, "front", DirSource(mediaDir), &buf)
			if err != nil {
				t.Fatal(err)
			}
			th := res.Thumbnail
			if th == nil {
				t.Fatal("no thumbnail")
			}
			b := th.Bounds()
			if max(b.Dx(), b.Dy()) > DefaultThumbnailPx || b.Dx() == 0 {
				t.Fatalf("thumbnail %v", b)
			}
			ar, tr := res.PageWidthPt/res.PageHeightPt, float64(b.Dx())/float64(b.Dy())
			if d := ar - tr; d > 0.02*ar || d < -0.02*ar {
				t.Errorf("aspect %.3f, view %.3f", tr, ar)
			}
			if dark := darkShare(th); dark < 0.01 {
				t.Errorf("thumbnail is blank (%.3f dark)", dark)
			}
			if typ == model.ExportPNG {
				full, err := png.Decode(&buf)
				if err != nil {
					t.Fatal(err)
				}
				if d := meanDiff(th, full); d > 12 {
					t.Errorf("png thumbnail differs from the file by %.1f levels on average", d)
				}
			}
		})
	}
}

// darkShare is the share of pixels visibly darker than white paper.
func darkShare(img image.Image) float64 {
	b, n := img.Bounds(), 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if (r+g+bl)/3 < 0xe000 {
				n++
			}
		}
	}
	return float64(n) / float64(b.Dx()*b.Dy())
}

// meanDiff compares the thumbnail with the full image sampled at the same points
// (flattened on white), in 8-bit levels.
func meanDiff(th, full image.Image) float64 {
	tb, fb := th.Bounds(), full.Bounds()
	var sum float64
	n := 0
	for y := tb.Min.Y; y < tb.Max.Y; y += 4 {
		for x := tb.Min.X; x < tb.Max.X; x += 4 {
			fx := fb.Min.X + (2*x+1)*fb.Dx()/(2*tb.Dx())
			fy := fb.Min.Y + (2*y+1)*fb.Dy()/(2*tb.Dy())
			r1, _, _, _ := th.At(x, y).RGBA()
			r2, _, _, a2 := full.At(fx, fy).RGBA()
			r2 += 0xffff - a2
			diff := float64(int(r1>>8) - int(r2>>8))
			sum += max(diff, -diff)
			n++
		}
	}
	return sum / float64(n)
}

// TestBoxShrink: each output pixel is the rounded mean of its f x f box, also for a
// sub-image canvas (offset bounds), and partial boxes at the edge are dropped.
func TestBoxShrink(t *testing.T) {
	full := image.NewRGBA(image.Rect(0, 0, 23, 17))
	for i := range full.Pix {
		full.Pix[i] = uint8(i * 37 % 251)
	}
	for _, tc := range []struct {
		name string
		src  *image.RGBA
		f    int
	}{
		{"whole, f=2", full, 2},
		{"whole, f=5", full, 5},
		{"sub-image, f=3", full.SubImage(image.Rect(4, 3, 20, 16)).(*image.RGBA), 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := boxShrink(tc.src, tc.f)
			b := tc.src.Bounds()
			if got.Rect.Dx() != b.Dx()/tc.f || got.Rect.Dy() != b.Dy()/tc.f {
				t.Fatalf("size %v from %v / %d", got.Rect, b, tc.f)
			}
			for y := 0; y < got.Rect.Dy(); y++ {
				for x := 0; x < got.Rect.Dx(); x++ {
					var sum [4]int
					for sy := 0; sy < tc.f; sy++ {
						for sx := 0; sx < tc.f; sx++ {
							c := tc.src.RGBAAt(b.Min.X+x*tc.f+sx, b.Min.Y+y*tc.f+sy)
							sum[0] += int(c.R)
							sum[1] += int(c.G)
							sum[2] += int(c.B)
							sum[3] += int(c.A)
						}
					}
					n := tc.f * tc.f
					c := got.RGBAAt(x, y)
					want := [4]uint8{uint8((sum[0] + n/2) / n), uint8((sum[1] + n/2) / n), uint8((sum[2] + n/2) / n), uint8((sum[3] + n/2) / n)}
					if [4]uint8{c.R, c.G, c.B, c.A} != want {
						t.Fatalf("(%d,%d) = %v, want %v", x, y, c, want)
					}
				}
			}
		})
	}
}

// TestThumbOfLargeCanvas: a print-sized canvas takes the box pre-shrink, and the
// result stays within a level or two of filtering the whole canvas directly.
func TestThumbOfLargeCanvas(t *testing.T) {
	canvas := image.NewRGBA(image.Rect(0, 0, 4167, 5000))
	for y := 0; y < 5000; y++ {
		for x := 0; x < 4167; x++ {
			i := canvas.PixOffset(x, y)
			a := uint8(255)
			if (x/300+y/300)%3 == 0 {
				a = 0 // transparent squares: flattened on white
			}
			r, g, b := uint8(x*255/4167), uint8(y*255/5000), uint8((x+y)%256)
			canvas.Pix[i], canvas.Pix[i+1], canvas.Pix[i+2], canvas.Pix[i+3] = uint8(int(r)*int(a)/255), uint8(int(g)*int(a)/255), uint8(int(b)*int(a)/255), a
		}
	}
	r := (&Renderer{}).WithThumbnails(DefaultThumbnailPx)
	got := r.thumbOfCanvas(canvas)
	want := image.NewRGBA(got.Bounds())
	draw.CatmullRom.Scale(want, want.Bounds(), canvas, canvas.Bounds(), draw.Src, nil)
	flattenOnWhite(want)
	if d := meanDiff(got, want); d > 2 {
		t.Errorf("box pre-shrunk thumbnail differs from the direct scale by %.2f levels on average", d)
	}
}

// BenchmarkThumbOfCanvas: the thumbnail of a T-shirt-front-sized canvas, with the box
// pre-shrink (as rendered) and by a Catmull-Rom scale of the whole canvas (as before);
// cpu-ms/op is the process's CPU time per thumbnail.
func BenchmarkThumbOfCanvas(b *testing.B) {
	canvas := image.NewRGBA(image.Rect(0, 0, 4167, 5000))
	for i := range canvas.Pix {
		canvas.Pix[i] = uint8(i)
	}
	r := (&Renderer{}).WithThumbnails(DefaultThumbnailPx)
	for _, bc := range []struct {
		name  string
		thumb func()
	}{
		{"box+catmullrom", func() { r.thumbOfCanvas(canvas) }},
		{"catmullrom", func() {
			w, h := r.thumbSize(4167, 5000)
			t := image.NewRGBA(image.Rect(0, 0, w, h))
			draw.CatmullRom.Scale(t, t.Bounds(), canvas, canvas.Bounds(), draw.Src, nil)
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			c0 := cpuTime(b)
			for b.Loop() {
				bc.thumb()
			}
			b.ReportMetric(float64(cpuTime(b)-c0)/1e6/float64(b.N), "cpu-ms/op")
		})
	}
}
