package render

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"image"
	"image/color"
	"io"
	"math"

	"github.com/printworker/printworker/model"
)

// PreparedView is a view whose scene is built and whose media files are read and
// measured by their own headers, but not decoded yet. Plan says what rendering it will
// take, from the files themselves rather than the sizes the design declares; Render
// decodes and draws. A caller that budgets memory admits Plan().PeakBytes() between
// the two: a 15000 x 15000 picture declared 200 x 200 in its media meta is then
// counted at its true size, before a byte of it is decoded.
type PreparedView struct {
	r       *Renderer
	design  *model.DesignDetail
	scene   *Scene
	plan    Plan
	pending []*pendingDecode
}

// PrepareView builds the view's scene and reads its media files, decoding only their
// headers (and SVG documents, which are parsed under their own caps). Errors are those
// of BuildScene.
func (r *Renderer) PrepareView(ctx context.Context, d *model.DesignDetail, viewID string, media MediaSource) (*PreparedView, error) {
	if err := CheckViews(d); err != nil {
		return nil, err
	}
	v, ok := d.ViewByID(viewID)
	if !ok {
		return nil, inputErr(viewID, "", nil, "no such view in design %s", d.ID)
	}
	s, p, pending, err := r.buildScene(ctx, v, media)
	if err != nil {
		return nil, err
	}
	p.SourceBytes = s.svgBytes
	for _, pd := range pending {
		p.SourceBytes += pd.bytes
	}
	return &PreparedView{r: r, design: d, scene: s, plan: p, pending: pending}, nil
}

// Plan is the view's plan with SourceBytes measured from the media files' headers:
// the decoded pixels at the decoder's own layout (16-bit PNG at 8 bytes a pixel, JPEG
// planes, progressive JPEG coefficients), the 8-bit copy the renderer converts to,
// a recoloured copy, and the file bytes themselves; and for SVG files their bytes and
// the memory their paths and drawing hold (svg.Doc.DrawBytes: a stroke of 600k
// segments holds gigabytes while it is drawn).
func (p *PreparedView) Plan() Plan { return p.plan }

// Render decodes the measured media and writes the view to w as its export type. Only
// the files measured by PrepareView are decoded, each refused if it decodes larger than
// its header said. A PreparedView renders once.
func (p *PreparedView) Render(ctx context.Context, w io.Writer) (*Result, error) {
	if p.scene == nil {
		return nil, errors.New("render: prepared view rendered twice")
	}
	s := p.scene
	p.scene = nil
	cmykPDF := s.Type == model.ExportPDF && p.r.print.CMYK()
	if (s.Type != model.ExportPNG && !cmykPDF) || len(p.pending) == 0 {
		if err := p.decode(ctx); err != nil {
			return nil, err
		}
		return p.r.renderScene(ctx, p.design, s, w)
	}
	// A raster: decode the pictures on their own goroutine while the canvas is
	// allocated and the layers below the first picture are drawn (the background
	// fill, on the other workers); Rasterize waits for them before the first picture,
	// so the decode leaves the critical path. A CMYK vector PDF likewise: its
	// page registers a JPEG before its pixels are decoded and converts them once they
	// are (cmykImage), while the page's other layers and fonts are made; other
	// pictures wait for the decoding. The decoding is waited for before returning, so
	// nothing writes to the scene afterwards, and its error wins.
	switch {
	case !cmykPDF:
		limitRows(s, p.pending)
	case !p.r.wholePictures:
		p.r.limitRowsCMYKPDF(s, p.pending)
	}
	done := make(chan struct{})
	var decErr error
	go func() {
		defer close(done)
		decErr = p.decode(ctx)
	}()
	// Safe on several goroutines (the CMYK pictures' wait too): decErr is read only
	// after done is closed.
	s.awaitMedia = func() error {
		<-done
		return decErr
	}
	res, err := p.r.renderScene(ctx, p.design, s, w)
	if derr := s.awaitMedia(); derr != nil {
		return nil, derr
	}
	return res, err
}

// decode decodes the pending files and lets go of them: the layers hold the pixels
// from here on, and Rasterize releases each layer's once drawn.
func (p *PreparedView) decode(ctx context.Context) error {
	pending := p.pending
	p.pending = nil
	for _, pd := range pending {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := pd.decode(ctx); err != nil {
			var ie *InputError
			if errors.As(err, &ie) {
				ie.ViewID = p.plan.ViewID
			}
			return err
		}
	}
	return nil
}

// limitRows sets, for each pending JPEG of a raster scene, how many of its stored
// pixel rows the drawing reads: the rows down to the bottom of the part its layers'
// clips let through (visiblePixels, as the CMYK PDF crops), plus the resampling
// kernel's reach, so that the decoder skips the rows below (the reference T-shirt's
// photo loses its bottom sixth to the export box). The margin is the Catmull-Rom
// support (2 source pixels, 2/scale when shrinking) and the clip edge's rounding to
// whole output pixels (1/scale), tripled and padded, since the canvas pixels the
// clip lets through are all the rasterizer draws. A picture drawn by a layer whose
// reach cannot be worked out is decoded whole.
func limitRows(s *Scene, pending []*pendingDecode) {
	for _, pd := range pending {
		if pd.kind == kindJPEG {
			pd.rows = rowsRead(s, pd.il)
		}
	}
}

// limitRowsCMYKPDF is limitRows for a CMYK vector PDF, which reads a picture's pixels
// twice: the page embeds the visible part at native resolution (cmykImage,
// visiblePixels: its rows plus visibleIn's one-pixel margin) and the thumbnail
// rasterizes the scene at its own small scale (rowsRead of the thumbnail's scene,
// whose margin grows as the scale shrinks). The decoder stops below the larger of the
// two; the reference T-shirt's photo loses its bottom sixth, the same share of its
// decoding. The sRGB PDF embeds its JPEGs' bytes whole and the whole-picture mode
// converts every row, so neither limits.
func (r *Renderer) limitRowsCMYKPDF(s *Scene, pending []*pendingDecode) {
	thumb := r.thumbScene(s)
	for _, pd := range pending {
		if pd.kind != kindJPEG {
			continue
		}
		pd.rows = visibleRows(s, pd.il)
		if pd.rows > 0 && thumb != nil {
			if t := rowsRead(thumb, pd.il); t == 0 {
				pd.rows = 0
			} else {
				pd.rows = max(pd.rows, t)
			}
		}
	}
}

// visibleRows is how many stored rows of il from the top the layers showing it embed
// at native resolution (visibleIn), 0 when all of them.
func visibleRows(s *Scene, il *ImageLayer) int {
	need := 0
	for i := range s.Layers {
		l := &s.Layers[i]
		if l.Kind != LayerImage || l.Image != il {
			continue
		}
		need = max(need, visibleIn(l, image.Rect(0, 0, il.Width, il.Height)).Max.Y)
	}
	if need <= 0 || need >= il.Height {
		return 0
	}
	return need
}

// rowsRead is how many stored rows of il from the top the scene's layers read, 0 when
// all of them (or unknown).
func rowsRead(s *Scene, il *ImageLayer) int {
	toPx := s.ToPixel()
	need := 0
	for i := range s.Layers {
		l := &s.Layers[i]
		if l.Kind != LayerImage || l.Image != il {
			continue
		}
		// The pixels are not decoded yet; their bounds are the picture's size.
		vis := visibleIn(l, image.Rect(0, 0, il.Width, il.Height))
		// Output pixels per source pixel, the smaller of the two axes' (as Rasterize
		// maps the layer: toPx times its transform).
		m := toPx.Mul(l.Transform)
		scale := math.Min(math.Hypot(m[0], m[1]), math.Hypot(m[2], m[3]))
		margin := 3*math.Max(1, 1/scale) + 8
		if !(scale > 0) || !(margin < float64(il.Height)) {
			return 0
		}
		need = max(need, vis.Max.Y+int(math.Ceil(margin)))
	}
	if need >= il.Height {
		return 0
	}
	return need
}

// decodedBytes estimates the memory of decoding one raster file of the given header
// into the layer image: the decoder's output, its working buffers that scale with the
// picture, the NRGBA copy normalize makes of the types the resampler does not read
// directly, and the recoloured copy. It errs high; the file's own bytes are added by
// the caller.
func decodedBytes(kind string, cfg image.Config, data []byte, tint bool) int64 {
	px := int64(cfg.Width) * int64(cfg.Height)
	var perPx2 int64 // bytes per pixel, doubled (4:2:0 planes are 1.5 bytes a pixel)
	convert := false // normalize copies it to NRGBA
	switch kind {
	case kindPNG:
		switch cfg.ColorModel {
		case color.GrayModel:
			perPx2 = 2
		case color.Gray16Model:
			perPx2, convert = 4, true
		case color.RGBAModel, color.NRGBAModel:
			perPx2 = 8
		case color.RGBA64Model, color.NRGBA64Model:
			perPx2, convert = 16, true
		default: // paletted
			perPx2, convert = 2, true
		}
		if pngInterlaced(data) {
			perPx2 *= 2 // the passes are decoded into images of their own, then merged
		}
	case kindJPEG:
		comps := int64(3)
		switch cfg.ColorModel {
		case color.GrayModel:
			comps = 1
		case color.CMYKModel:
			comps, convert = 5, true // CMYK pixels plus the decoder's separate K plane
		}
		perPx2 = 2 * comps // planes at full resolution: 4:4:4 is the worst case
		if jpegProgressive(data) {
			perPx2 += 2 * 4 * comps // the coefficients of every block are kept to the end
		}
	case kindGIF:
		perPx2, convert = 2, true // the first frame only, paletted
	case kindWebP:
		switch cfg.ColorModel {
		case color.YCbCrModel:
			perPx2 = 3
		case color.NYCbCrAModel:
			perPx2, convert = 5, true
		default: // lossless: ARGB words, then NRGBA
			perPx2 = 16
		}
	default:
		perPx2, convert = 8, true
	}
	n := px * perPx2 / 2
	if convert {
		n += 4 * px
	}
	if tint {
		n += 4 * px
	}
	return n
}

// pngInterlaced reports the Adam7 flag of a PNG's IHDR (byte 28 of the file).
func pngInterlaced(data []byte) bool {
	return len(data) > 28 && string(data[12:16]) == "IHDR" && data[28] == 1
}

// jpegProgressive reports whether a JPEG's frame header is progressive (SOF2, SOF6,
// SOF10, SOF14), walking the marker segments up to the first frame header.
func jpegProgressive(data []byte) bool {
	if !bytes.HasPrefix(data, []byte{0xff, 0xd8}) {
		return false
	}
	for i := 2; i+4 <= len(data); {
		if data[i] != 0xff {
			return false
		}
		marker := data[i+1]
		switch {
		case marker == 0xff: // fill byte
			i++
			continue
		case marker == 0xd8 || (marker >= 0xd0 && marker <= 0xd7) || marker == 0x01:
			i += 2
			continue
		case marker == 0xda || marker == 0xd9:
			return false
		case marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc:
			return marker&0x03 == 0x02
		}
		n := int(binary.BigEndian.Uint16(data[i+2:]))
		if n < 2 {
			return false
		}
		i += 2 + n
	}
	return false
}
