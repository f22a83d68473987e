package render

import (
	"context"
	"image"
	"math"
	"slices"

	"github.com/printworker/printworker/model"
)

// Thumbnails (docs/shop-floor.md): a small opaque preview of each rendered view, for
// job tickets and staff pages. Every export type's preview is its scene rasterized
// once more at the preview's size: at most thumbPx x thumbPx pixels, well under 1% of
// a print raster. For a png view that costs under half of scaling its 300-dpi canvas
// down (the canvas is 83 MB to read for a T-shirt front: 28 against 61 ms of CPU),
// and the print file's raster pipeline stays untouched.

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

// thumbOfScene rasterizes the scene at the thumbnail's size. A failure only costs
// the preview: the print file decides the task.
func (r *Renderer) thumbOfScene(ctx context.Context, s *Scene) image.Image {
	return r.rasterThumb(ctx, r.thumbScene(s))
}

// thumbScene is s at the thumbnail's size, nil without thumbnails. The layers are
// copied because rasterizing drops each picture after drawing it, and the print
// file still needs them. It does not wait for pictures still being decoded: its
// caller does (a CMYK vector PDF's thumbnail goroutine; renderScene draws a png's
// preview after the print raster, which waited for them, so the copy taken before
// still holds the pictures). It has none of the scene's warnings, so that it may be
// drawn while the scene's backend adds to them, and nothing to compress ahead.
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
	t.awaitMedia, t.finalRows, t.Warnings = nil, nil, nil
	return &t
}

// rasterThumb draws a thumbScene, soft-proofed like the print raster where that is
// (a CMYK profile's PNG), flattened on white.
func (r *Renderer) rasterThumb(ctx context.Context, t *Scene) image.Image {
	if t == nil {
		return nil
	}
	canvas, err := r.Rasterize(ctx, t)
	if err != nil {
		return nil
	}
	if t.Type == model.ExportPNG && r.print.CMYK() {
		r.softProof(canvas)
	}
	flattenOnWhite(canvas)
	return canvas
}
