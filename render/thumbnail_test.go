package render

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/printworker/printworker/internal/testcpu"
	"github.com/printworker/printworker/model"
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

// BenchmarkThumbnailTShirt: the reference T-shirt front's preview drawn from its scene
// at the preview's size. (Scaling the 300-dpi canvas down instead took 61 ms of CPU
// against 28 on the same machine.)
func BenchmarkThumbnailTShirt(b *testing.B) {
	d := loadBenchDesign(b, "tshirt-front.json")
	r := newRenderer(b, Options{}).WithThumbnails(DefaultThumbnailPx)
	s, err := r.BuildScene(context.Background(), d, "front", DirSource("../testdata/bench/media"))
	if err != nil {
		b.Fatal(err)
	}
	thumb := r.thumbScene(s)
	c0 := testcpu.Time(b)
	for b.Loop() {
		// A copy each time: rasterizing lets go of the pictures it draws.
		if r.rasterThumb(context.Background(), r.thumbScene(thumb)) == nil {
			b.Fatal("no thumbnail")
		}
	}
	testcpu.PerOp(b, c0)
}

func loadBenchDesign(tb testing.TB, name string) *model.DesignDetail {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join("../testdata/bench/designs", name))
	if err != nil {
		tb.Skipf("reference design: %v", err)
	}
	var d model.DesignDetail
	if err := json.Unmarshal(b, &d); err != nil {
		tb.Fatal(err)
	}
	return &d
}
