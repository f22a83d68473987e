package render

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"sync"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"github.com/printworker/printworker/render/svg"
	"golang.org/x/image/vector"
)

// Rasterize draws the scene into a new RGBA canvas of WidthPx x HeightPx, transparent
// where nothing is drawn. Every layer is drawn straight into the final canvas (one
// resample per picture, from source pixels to output pixels) and each layer's decoded
// image is released once drawn, so peak memory is the canvas plus the sources.
func (r *Renderer) Rasterize(ctx context.Context, s *Scene) (*image.RGBA, error) {
	if float64(s.WidthPx)*float64(s.HeightPx) > float64(r.opts.MaxPixels) {
		return nil, inputErr(s.ViewID, "", nil, "output %dx%d px exceeds the cap", s.WidthPx, s.HeightPx)
	}
	canvas := image.NewRGBA(image.Rect(0, 0, s.WidthPx, s.HeightPx))
	toPx := s.ToPixel()
	for i := range s.Layers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		l := &s.Layers[i]
		if l.Kind == LayerImage && s.awaitMedia != nil {
			if err := s.awaitMedia(); err != nil {
				return nil, err
			}
		}
		clip := pixelRect(toPx, l.Clip).Intersect(canvas.Bounds())
		if clip.Empty() {
			continue
		}
		m := toPx.Mul(l.Transform)
		switch l.Kind {
		case LayerFill:
			r.drawFill(canvas, clip, m, l)
		case LayerImage:
			r.drawPicture(canvas, bounds(toPx, l.Clip), m, l)
			l.Image = nil
		case LayerSVG:
			svg.Draw(canvas, l.SVG.Doc, m, clip, l.Opacity)
		case LayerText:
			sh := r.shapers.get()
			err := drawText(canvas, clip, m, l, sh)
			r.shapers.put(sh)
			if err != nil {
				return nil, fmt.Errorf("render: view %s: element %s: %w", s.ViewID, l.ElementID, err)
			}
		}
	}
	return canvas, nil
}

// pixelRect maps a template rectangle to the pixels whose centres it covers.
func pixelRect(toPx Matrix, r Rect) image.Rectangle {
	b := bounds(toPx, r)
	return image.Rect(int(math.Round(b.X)), int(math.Round(b.Y)), int(math.Round(b.X+b.W)), int(math.Round(b.Y+b.H)))
}

func premul(c color.NRGBA, opacity float64) color.RGBA {
	a := float64(c.A) * opacity
	return color.RGBA{
		R: uint8(math.Round(float64(c.R) * a / 255)), G: uint8(math.Round(float64(c.G) * a / 255)),
		B: uint8(math.Round(float64(c.B) * a / 255)), A: uint8(math.Round(a)),
	}
}

func (r *Renderer) drawFill(dst *image.RGBA, clip image.Rectangle, m Matrix, l *Layer) {
	rect := pixelRect(m, l.Fill.Rect).Intersect(clip)
	src := image.NewUniform(premul(l.Fill.Color, l.Opacity))
	// A print-size background is tens of MB of stores (5 % of a 300-dpi render on
	// one core): split it into row bands across the workers, as the pictures are.
	bands := min(r.opts.Workers, max(1, rect.Dx()*rect.Dy()/fillBandPixels))
	var wg sync.WaitGroup
	for i := range bands {
		band := image.Rect(rect.Min.X, rect.Min.Y+rect.Dy()*i/bands, rect.Max.X, rect.Min.Y+rect.Dy()*(i+1)/bands)
		wg.Go(func() { draw.Draw(dst, band, src, image.Point{}, draw.Over) })
	}
	wg.Wait()
}

// fillBandPixels is the smallest fill band worth a goroutine: a few hundred
// microseconds of stores.
const fillBandPixels = 1 << 18

// drawText fills the glyph outlines one glyph at a time, with a rasterizer sized to the
// glyph's pixels (not the line's or the canvas's): large text at print dpi costs the
// area of one glyph at a time.
func drawText(dst *image.RGBA, clip image.Rectangle, m Matrix, l *Layer, sh *shaper) error {
	t := l.Text
	src := image.NewUniform(premul(t.Color, l.Opacity))
	var z vector.Rasterizer
	var pts []svg.Point
	for _, line := range t.Lines {
		for _, g := range line.Glyphs {
			fc := sh.face(g.Font)
			outline, ok := fc.GlyphDataOutline(font.GID(g.ID))
			if !ok || len(outline.Segments) == 0 {
				continue // a space, or a bitmap-only glyph
			}
			k := t.Size / float64(g.Font.Face.Upem())
			// Map every point once; the control points bound the outline.
			pts = pts[:0]
			x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
			for _, sg := range outline.Segments {
				for _, a := range sg.Args[:segArgs(sg.Op)] {
					q := m.Apply(svg.Point{X: g.X + float64(a.X)*k, Y: line.Baseline + g.Y - float64(a.Y)*k})
					pts = append(pts, q)
					x0, y0, x1, y1 = math.Min(x0, q.X), math.Min(y0, q.Y), math.Max(x1, q.X), math.Max(y1, q.Y)
				}
			}
			area := image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1)), int(math.Ceil(y1))).Intersect(clip)
			if area.Empty() {
				continue
			}
			z.Reset(area.Dx(), area.Dy())
			ox, oy := float64(area.Min.X), float64(area.Min.Y)
			at := func(i int) (float32, float32) { return float32(pts[i].X - ox), float32(pts[i].Y - oy) }
			i := 0
			for _, sg := range outline.Segments {
				switch sg.Op {
				case ot.SegmentOpMoveTo:
					// The rasterizer does not close a contour on MoveTo.
					z.ClosePath()
					z.MoveTo(at(i))
				case ot.SegmentOpLineTo:
					z.LineTo(at(i))
				case ot.SegmentOpQuadTo:
					ax, ay := at(i)
					bx, by := at(i + 1)
					z.QuadTo(ax, ay, bx, by)
				case ot.SegmentOpCubeTo:
					ax, ay := at(i)
					bx, by := at(i + 1)
					cx, cy := at(i + 2)
					z.CubeTo(ax, ay, bx, by, cx, cy)
				}
				i += segArgs(sg.Op)
			}
			z.ClosePath()
			z.Draw(dst, area, src, image.Point{})
		}
	}
	return nil
}

// segArgs is the number of points a segment carries.
func segArgs(op ot.SegmentOp) int {
	switch op {
	case ot.SegmentOpQuadTo:
		return 2
	case ot.SegmentOpCubeTo:
		return 3
	}
	return 1
}
