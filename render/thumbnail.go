package render

import (
	"context"
	"image"
	"math"
	"slices"

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
	t := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.CatmullRom.Scale(t, t.Bounds(), canvas, b, draw.Src, nil)
	flattenOnWhite(t)
	return t
}

// thumbOfScene rasterizes the scene at the thumbnail's size. The layers are copied
// because rasterizing drops each picture after drawing it, and the print file still
// needs them. A failure only costs the preview: the print file decides the task.
func (r *Renderer) thumbOfScene(ctx context.Context, s *Scene) image.Image {
	if r.thumbPx <= 0 {
		return nil
	}
	t := *s
	t.Layers = slices.Clone(s.Layers)
	t.WidthPx, t.HeightPx = r.thumbSize(s.PageWidthPt, s.PageHeightPt)
	if t.WidthPx == 0 {
		return nil
	}
	canvas, err := r.Rasterize(ctx, &t)
	if err != nil {
		return nil
	}
	flattenOnWhite(canvas)
	return canvas
}
