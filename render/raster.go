package render

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"math"
	"os"
	"sync"

	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"github.com/printworker/printworker/render/internal/resample"
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
	if err := r.checkSVGCost(s); err != nil {
		return nil, err
	}
	canvas := image.NewRGBA(image.Rect(0, 0, s.WidthPx, s.HeightPx))
	toPx := s.ToPixel()
	// While pictures are being decoded on their own goroutine, the layers below them
	// (the background fill) leave that goroutine a core: it is the longer path.
	workers := r.opts.Workers
	if s.awaitMedia != nil {
		workers = max(1, workers-1)
	}
	var (
		ahead   []bool     // layers drawn ahead of the first picture, on their own goroutine
		first   = -1       // the first picture, drawn alongside them
		pending chan error // that goroutine, until joined
		drawn   bool       // a layer below the first picture was drawn
		faulted chan struct{}
	)
	join := func() error {
		if pending == nil {
			return nil
		}
		err := <-pending
		pending = nil
		return err
	}
	err := func() error {
		for i := range s.Layers {
			if err := ctx.Err(); err != nil {
				return err
			}
			l := &s.Layers[i]
			if ahead != nil && ahead[i] {
				continue
			}
			if l.Kind == LayerImage && s.awaitMedia != nil {
				if ahead == nil {
					var busy []image.Rectangle
					first = i
					ahead, busy = r.planAhead(s, canvas, i)
					done := make(chan error, 1)
					pending = done
					var touch chan struct{}
					if !drawn {
						// Nothing below the picture touched the new canvas: fault its
						// pages in now, on the core the decoder leaves idle, rather
						// than while the picture is drawn (a 600-dpi poster's canvas
						// is 34,000 page faults, tens of ms in this VM). Then the
						// layers ahead, which must not race the zero stores.
						touch = make(chan struct{})
						faulted = touch
					}
					go func(w int) {
						if touch != nil {
							touchPages(canvas.Pix)
							close(touch)
						}
						err := r.drawMarked(ctx, s, canvas, ahead, w)
						if err == nil && s.finalRows != nil {
							// Every layer but the busy ones is drawn: the rows
							// they leave alone are final.
							for _, span := range freeRows(canvas.Rect.Dy(), busy) {
								s.finalRows(canvas, span[0], span[1])
							}
						}
						done <- err
					}(workers)
				}
				if err := s.awaitMedia(); err != nil {
					return err
				}
				workers = r.opts.Workers
				if faulted != nil {
					<-faulted
					faulted = nil
				}
			}
			// Only the first picture is drawn while the layers ahead may still be: a
			// later layer may overlap one of them, which must be drawn before it.
			if first >= 0 && i > first {
				if err := join(); err != nil {
					return err
				}
			}
			if err := r.drawLayer(ctx, canvas, toPx, s, l, workers); err != nil {
				return err
			}
			drawn = true
		}
		return nil
	}()
	if jerr := join(); err == nil {
		err = jerr
	}
	if err != nil {
		return nil, err
	}
	return canvas, nil
}

// touchPages writes a zero into every memory page of p, which must be all zeros: the
// kernel maps the pages of a fresh allocation on first write.
func touchPages(p []byte) {
	step := os.Getpagesize()
	for i := 0; i < len(p); i += step {
		p[i] = 0
	}
	if len(p) > 0 {
		p[len(p)-1] = 0
	}
}

// checkSVGCost refuses a scene whose SVG layers would cost more drawing work than
// Options.MaxSVGCost (svg.DrawCost, summed over the layers at the scene's pixel
// size), before its canvas is allocated.
func (r *Renderer) checkSVGCost(s *Scene) error {
	toPx := s.ToPixel()
	canvas := image.Rect(0, 0, s.WidthPx, s.HeightPx)
	total := 0.0
	for i := range s.Layers {
		l := &s.Layers[i]
		if l.Kind != LayerSVG {
			continue
		}
		clip := pixelRect(toPx, l.Clip).Intersect(canvas)
		if clip.Empty() {
			continue
		}
		total += svg.DrawCost(l.SVG.Doc, toPx.Mul(l.Transform), clip, l.Opacity)
		if total > float64(r.opts.MaxSVGCost) {
			return inputErr(s.ViewID, l.ElementID, nil,
				"its SVG drawing would cost %.3g pixel operations at %dx%d px, over the cap of %.3g (too many or too large shapes for the output size)",
				total, s.WidthPx, s.HeightPx, float64(r.opts.MaxSVGCost))
		}
	}
	return nil
}

// drawLayer draws one layer into the canvas; a fill uses up to workers goroutines.
// A picture's band workers and an SVG's rasterizer stop once ctx ends, and the layer
// returns its error; fills and text are bounded by the canvas and checked between
// layers.
func (r *Renderer) drawLayer(ctx context.Context, canvas *image.RGBA, toPx Matrix, s *Scene, l *Layer, workers int) error {
	clip := pixelRect(toPx, l.Clip).Intersect(canvas.Bounds())
	if clip.Empty() {
		return nil
	}
	m := toPx.Mul(l.Transform)
	switch l.Kind {
	case LayerFill:
		drawFill(canvas, clip, m, l, workers)
	case LayerImage:
		r.pictures.Draw(ctx, canvas, resample.Rect(bounds(toPx, l.Clip)), m, l.Image.Image, l.Image.Width, l.Image.Height, l.Opacity)
		l.Image = nil
		if err := ctx.Err(); err != nil {
			return err // the picture's bands stopped part way
		}
	case LayerSVG:
		if err := svg.Draw(ctx, canvas, l.SVG.Doc, m, clip, l.Opacity); err != nil {
			return fmt.Errorf("render: view %s: element %s: %w", s.ViewID, l.ElementID, err)
		}
	case LayerText:
		sh := r.shapers.get()
		err := drawText(canvas, clip, m, l, sh)
		r.shapers.put(sh)
		if err != nil {
			return fmt.Errorf("render: view %s: element %s: %w", s.ViewID, l.ElementID, err)
		}
	}
	return nil
}

// planAhead marks the layers above layer k (the first picture) that are not pictures
// and touch no pixel of a layer between k and them. Every layer composites pixel by
// pixel, so such a layer commutes with the layers whose pixels it does not touch:
// drawn while the picture decodes and then while it is drawn, the canvas ends up byte
// for byte as when drawn in order, and the badge and texts above a photo leave the
// critical path (the T-shirt's canvas is complete 14 ms sooner after its photo decodes).
// busy bounds the pixels of the layers from k on that are not marked.
func (r *Renderer) planAhead(s *Scene, canvas *image.RGBA, k int) (ahead []bool, busy []image.Rectangle) {
	toPx := s.ToPixel()
	ahead = make([]bool, len(s.Layers))
	busy = []image.Rectangle{r.layerPixels(canvas, toPx, &s.Layers[k])}
	for j := k + 1; j < len(s.Layers); j++ {
		l := &s.Layers[j]
		a := r.layerPixels(canvas, toPx, l)
		free := l.Kind != LayerImage
		for _, b := range busy {
			free = free && !a.Overlaps(b)
		}
		if free {
			ahead[j] = true
		} else {
			busy = append(busy, a)
		}
	}
	return ahead, busy
}

// freeRows returns the spans [y0, y1) of rows 0..h that none of the rectangles
// touches, top to bottom.
func freeRows(h int, busy []image.Rectangle) [][2]int {
	taken := make([]bool, h+1)
	for _, b := range busy {
		if b.Empty() {
			continue
		}
		for y := max(0, b.Min.Y); y < min(h, b.Max.Y); y++ {
			taken[y] = true
		}
	}
	var spans [][2]int
	for y := 0; y < h; {
		for y < h && taken[y] {
			y++
		}
		y0 := y
		for y < h && !taken[y] {
			y++
		}
		if y > y0 {
			spans = append(spans, [2]int{y0, y})
		}
	}
	return spans
}

// drawMarked draws the marked layers in order.
func (r *Renderer) drawMarked(ctx context.Context, s *Scene, canvas *image.RGBA, marked []bool, workers int) error {
	toPx := s.ToPixel()
	for j := range s.Layers {
		if !marked[j] {
			continue
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := r.drawLayer(ctx, canvas, toPx, s, &s.Layers[j], workers); err != nil {
			return err
		}
	}
	return nil
}

// layerPixels bounds the canvas pixels drawLayer may change for l.
func (r *Renderer) layerPixels(canvas *image.RGBA, toPx Matrix, l *Layer) image.Rectangle {
	clip := pixelRect(toPx, l.Clip).Intersect(canvas.Bounds())
	if clip.Empty() {
		return image.Rectangle{}
	}
	m := toPx.Mul(l.Transform)
	switch l.Kind {
	case LayerFill:
		return pixelRect(m, l.Fill.Rect).Intersect(clip)
	case LayerImage:
		// resample.Drawer.Draw cuts the picture to the clip's fractional edges: the
		// pixels it touches lie within the clip rounded outwards, plus one pixel each
		// side for the rounding of the cut polygon's points.
		b := bounds(toPx, l.Clip)
		out := image.Rect(int(math.Floor(b.X))-1, int(math.Floor(b.Y))-1, int(math.Ceil(b.X+b.W))+1, int(math.Ceil(b.Y+b.H))+1)
		return out.Intersect(canvas.Bounds())
	case LayerText:
		sh := r.shapers.get()
		var u image.Rectangle
		eachGlyph(clip, m, l.Text, sh, func(_ []font.Segment, _ []svg.Point, area image.Rectangle) { u = u.Union(area) })
		r.shapers.put(sh)
		return u
	}
	return clip
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

func drawFill(dst *image.RGBA, clip image.Rectangle, m Matrix, l *Layer, workers int) {
	rect := pixelRect(m, l.Fill.Rect).Intersect(clip)
	src := image.NewUniform(premul(l.Fill.Color, l.Opacity))
	// A print-size background is tens of MB of stores (5 % of a 300-dpi render on
	// one core): split it into row bands across the workers, as the pictures are.
	bands := min(workers, max(1, rect.Dx()*rect.Dy()/fillBandPixels))
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
	src := image.NewUniform(premul(l.Text.Color, l.Opacity))
	var z vector.Rasterizer
	eachGlyph(clip, m, l.Text, sh, func(segs []font.Segment, pts []svg.Point, area image.Rectangle) {
		z.Reset(area.Dx(), area.Dy())
		ox, oy := float64(area.Min.X), float64(area.Min.Y)
		at := func(i int) (float32, float32) { return float32(pts[i].X - ox), float32(pts[i].Y - oy) }
		i := 0
		for _, sg := range segs {
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
	})
	return nil
}

// eachGlyph calls fn for every glyph of the text with an outline: its segments, their
// points mapped to output pixels through m, and the pixels within clip the points
// bound (the control points bound the outline).
func eachGlyph(clip image.Rectangle, m Matrix, t *TextLayer, sh *shaper, fn func(segs []font.Segment, pts []svg.Point, area image.Rectangle)) {
	var pts []svg.Point
	for _, line := range t.Lines {
		for _, g := range line.Glyphs {
			fc := sh.face(g.Font)
			outline, ok := fc.GlyphDataOutline(font.GID(g.ID))
			if !ok || len(outline.Segments) == 0 {
				continue // a space, or a bitmap-only glyph
			}
			k := t.Size / float64(g.Font.Face.Upem())
			// Map every point once (synthetic oblique and bold applied; synth.go).
			pts = glyphPoints(pts[:0], outline.Segments, g.Synth, k, t.Size)
			x0, y0, x1, y1 := math.Inf(1), math.Inf(1), math.Inf(-1), math.Inf(-1)
			for i, p := range pts {
				q := m.Apply(svg.Point{X: g.X + p.X, Y: line.Baseline + g.Y + p.Y})
				pts[i] = q
				x0, y0, x1, y1 = math.Min(x0, q.X), math.Min(y0, q.Y), math.Max(x1, q.X), math.Max(y1, q.Y)
			}
			area := image.Rect(int(math.Floor(x0)), int(math.Floor(y0)), int(math.Ceil(x1)), int(math.Ceil(y1))).Intersect(clip)
			if !area.Empty() {
				fn(outline.Segments, pts, area)
			}
		}
	}
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
