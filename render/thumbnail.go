package render

import (
	"context"
	"image"
	"math"
	"runtime"
	"slices"
	"sync"

	"golang.org/x/image/draw"
)

// Thumbnails (docs/shop-floor.md): a small opaque preview of each rendered view, for
// job tickets and staff pages. A png view's preview is scaled down from the canvas
// already in memory (no second render). Vector pdf has no raster in memory, so its
// scene is rasterized once more at the preview's size: at most thumbPx x thumbPx
// pixels, well under 1% of a print raster. pdf-simple and tiff take the same path so
// the raster pipeline of the print file stays untouched.

// DefaultThumbnailPx is the longest side of a thumbnail.
const DefaultThumbnailPx = 512

// WithThumbnails returns a copy of the renderer whose results carry a Thumbnail whose
// longest side is px (px <= 0: none).
func (r *Renderer) WithThumbnails(px int) *Renderer {
	c := *r
	c.thumbPx = max(px, 0)
	return &c
}

// thumbSize fits w x h into the thumbnail's square, never enlarging.
func (r *Renderer) thumbSize(w, h float64) (int, int) {
	if w <= 0 || h <= 0 {
		return 0, 0
	}
	k := math.Min(1, float64(r.thumbPx)/math.Max(w, h))
	return max(1, int(math.Round(w*k))), max(1, int(math.Round(h*k)))
}

// thumbOfCanvas scales the rendered canvas down, flattened on white (the canvas is
// left as it is: it is still to be encoded).
func (r *Renderer) thumbOfCanvas(canvas *image.RGBA) image.Image {
	if r.thumbPx <= 0 {
		return nil
	}
	b := canvas.Bounds()
	w, h := r.thumbSize(float64(b.Dx()), float64(b.Dy()))
	if w == 0 {
		return nil
	}
	// A Catmull-Rom scale straight from a 300-dpi canvas (20 Mpx for a T-shirt
	// front) cost more CPU than encoding the print file itself (38 % of the worker's
	// CPU in the render-mode pipeline benchmark, docs/benchmarks.md). Averaging whole
	// boxes of pixels first (one pass over the canvas, on every core) leaves 1 to 2
	// times the thumbnail's size for the filter, which then only smooths.
	src := canvas
	if f := int(min(float64(b.Dx())/float64(w), float64(b.Dy())/float64(h)) / 1.5); f >= 2 {
		src = boxShrink(canvas, f)
		b = src.Bounds()
	}
	t := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(t, t.Bounds(), src, b, draw.Src, nil)
	flattenOnWhite(t)
	return t
}

// boxShrink averages f x f boxes of src (premultiplied, so averaging is exact for
// colour and alpha alike) into an image f times smaller, dropping the last partial
// row and column of boxes (under f pixels of a canvas thousands wide). Rows of boxes
// are split between GOMAXPROCS goroutines.
func boxShrink(src *image.RGBA, f int) *image.RGBA {
	sb := src.Bounds()
	w, h := sb.Dx()/f, sb.Dy()/f
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	n := f * f
	rows := func(y0, y1 int) {
		sum := make([]uint32, 4*w)
		for y := y0; y < y1; y++ {
			clear(sum)
			for sy := 0; sy < f; sy++ {
				off := (sb.Min.Y+y*f+sy-src.Rect.Min.Y)*src.Stride + (sb.Min.X-src.Rect.Min.X)*4
				row := src.Pix[off : off+4*w*f]
				for x := 0; x < w; x++ {
					px := row[4*x*f : 4*(x+1)*f]
					var r, g, b, a uint32
					for i := 0; i < len(px); i += 4 {
						r += uint32(px[i])
						g += uint32(px[i+1])
						b += uint32(px[i+2])
						a += uint32(px[i+3])
					}
					s := sum[4*x : 4*x+4]
					s[0] += r
					s[1] += g
					s[2] += b
					s[3] += a
				}
			}
			out := dst.Pix[y*dst.Stride : y*dst.Stride+4*w]
			for i, v := range sum {
				out[i] = uint8((v + uint32(n)/2) / uint32(n))
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), h)
	var wg sync.WaitGroup
	for i := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rows(h*i/workers, h*(i+1)/workers)
		}()
	}
	wg.Wait()
	return dst
}

// thumbOfScene rasterizes the scene at the thumbnail's size. A failure only costs
// the preview: the print file decides the task.
func (r *Renderer) thumbOfScene(ctx context.Context, s *Scene) image.Image {
	return r.rasterThumb(ctx, r.thumbScene(s))
}

// thumbScene is s at the thumbnail's size, nil without thumbnails. The layers are
// copied because rasterizing drops each picture after drawing it, and the print
// file still needs them. It does not wait for pictures still being decoded: its
// caller does (a CMYK vector PDF's thumbnail goroutine, renderScene). It has none
// of the scene's warnings, so that it may be drawn while the scene's backend adds to
// them.
func (r *Renderer) thumbScene(s *Scene) *Scene {
	if r.thumbPx <= 0 {
		return nil
	}
	t := *s
	t.Layers = slices.Clone(s.Layers)
	t.WidthPx, t.HeightPx = r.thumbSize(s.PageWidthPt, s.PageHeightPt)
	if t.WidthPx == 0 {
		return nil
	}
	t.awaitMedia, t.Warnings = nil, nil
	return &t
}

// rasterThumb draws a thumbScene, flattened on white.
func (r *Renderer) rasterThumb(ctx context.Context, t *Scene) image.Image {
	if t == nil {
		return nil
	}
	canvas, err := r.Rasterize(ctx, t)
	if err != nil {
		return nil
	}
	flattenOnWhite(canvas)
	return canvas
}
