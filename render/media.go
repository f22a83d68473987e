package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/gif"
	"image/png"
	"io"

	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/internal/jpegdec"
	"github.com/printworker/printworker/render/svg"
	"golang.org/x/image/webp"
)

// source is a decoded media file: a raster image or an SVG document.
type source struct {
	img *ImageLayer
	doc *svg.Doc
	// orient maps the stored pixels to the displayed picture (EXIF orientation).
	orient svg.Matrix
	// w, h is the displayed (natural) size.
	w, h float64
}

func (s *source) size() (w, h float64) { return s.w, s.h }

func (s *source) fill(l *Layer) {
	if s.doc != nil {
		l.Kind, l.SVG = LayerSVG, &SVGLayer{Doc: s.doc}
		return
	}
	l.Kind, l.Image = LayerImage, s.img
}

func (s *source) unsupported() []string {
	if s.doc == nil {
		return nil
	}
	return s.doc.Unsupported
}

// mediaCache reads and measures each media file once per view; the same file
// recoloured in two ways is decoded twice (the recoloured pixels differ). Raster files
// are decoded later, from pending, once their measured size is admitted.
type mediaCache struct {
	r       *Renderer
	src     MediaSource
	viewID  string
	byKey   map[string]*source
	pending []*pendingDecode
	// svgBytes is the memory of the SVG documents read: their files and what
	// drawing them holds (svg.Doc.DrawBytes).
	svgBytes int64
}

func newMediaCache(r *Renderer, src MediaSource, viewID string) *mediaCache {
	return &mediaCache{r: r, src: src, viewID: viewID, byKey: map[string]*source{}}
}

func (c *mediaCache) get(ctx context.Context, m model.Media, tint string) (*source, error) {
	key := m.ID + "\x00" + tint
	if s, ok := c.byKey[key]; ok {
		return s, nil
	}
	if c.src == nil {
		return nil, fmt.Errorf("render: view %s: media %s needed but no media source given", c.viewID, m.ID)
	}
	data, err := c.read(ctx, m)
	if err != nil {
		return nil, err
	}
	s, p, err := c.r.measureMedia(data, m, tint)
	if err != nil {
		var ie *InputError
		if errors.As(err, &ie) {
			ie.ViewID = c.viewID
		}
		return nil, err
	}
	c.byKey[key] = s
	if p != nil {
		c.pending = append(c.pending, p)
	}
	if s.doc != nil {
		c.svgBytes += int64(len(data)) + s.doc.DrawBytes()
	}
	return s, nil
}

func (c *mediaCache) read(ctx context.Context, m model.Media) ([]byte, error) {
	rc, err := c.src.OpenMedia(ctx, m)
	if err != nil {
		return nil, fmt.Errorf("render: open media %s: %w", m.ID, err)
	}
	defer rc.Close()
	limit := c.r.opts.MaxMediaBytes
	data, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if err != nil {
		return nil, fmt.Errorf("render: read media %s: %w", m.ID, err)
	}
	if int64(len(data)) > limit {
		return nil, inputErr(c.viewID, "", nil, "media %s is larger than the cap of %d bytes", m.ID, limit)
	}
	return data, nil
}

// Media kinds by magic bytes.
const (
	kindPNG  = "image/png"
	kindJPEG = "image/jpeg"
	kindGIF  = "image/gif"
	kindWebP = "image/webp"
	kindSVG  = "image/svg+xml"
)

// rasterCodec returns the codec of a raster kind. Each kind uses its own codec (not
// image.Decode's registry), so the sniffed magic bytes decide and nothing else.
// Designers also take GIF (the first frame is printed) and WebP uploads. JPEGs are
// decoded by jpegdec, image/jpeg's fork that gives the same pixels with its inverse
// DCT on a second core and can stop below the rows a render needs (pendingDecode.rows).
func rasterCodec(kind string) (config func(io.Reader) (image.Config, error), decode func(io.Reader) (image.Image, error), ok bool) {
	switch kind {
	case kindPNG:
		return png.DecodeConfig, png.Decode, true
	case kindJPEG:
		return jpegdec.DecodeConfig, jpegdec.Decode, true
	case kindGIF:
		return gif.DecodeConfig, gif.Decode, true
	case kindWebP:
		return webp.DecodeConfig, webp.Decode, true
	}
	return nil, nil, false
}

func sniff(data []byte, mime string) string {
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		return kindPNG
	case bytes.HasPrefix(data, []byte{0xff, 0xd8, 0xff}):
		return kindJPEG
	case bytes.HasPrefix(data, []byte("GIF87a")), bytes.HasPrefix(data, []byte("GIF89a")):
		return kindGIF
	case len(data) >= 12 && string(data[:4]) == "RIFF" && string(data[8:12]) == "WEBP":
		return kindWebP
	}
	head := data[:min(len(data), 1024)]
	if mime == kindSVG || bytes.Contains(head, []byte("<svg")) || bytes.HasPrefix(bytes.TrimSpace(head), []byte("<?xml")) {
		return kindSVG
	}
	return ""
}

// decodeMedia measures and decodes a media file at once (measureMedia, then decode).
func (r *Renderer) decodeMedia(data []byte, m model.Media, tint string) (*source, error) {
	s, p, err := r.measureMedia(data, m, tint)
	if err != nil || p == nil {
		return s, err
	}
	if err := p.decode(context.Background()); err != nil {
		return nil, err
	}
	return s, nil
}

// measureMedia reads a media file's header and returns its source sized by that
// header, refusing bombs before anything is decoded. An SVG is parsed (and recoloured
// when tint is set) at once; a raster file is returned with its pixels still to decode
// (the pendingDecode), so a caller can admit the decoded size before paying for it.
func (r *Renderer) measureMedia(data []byte, m model.Media, tint string) (*source, *pendingDecode, error) {
	kind := sniff(data, m.MimeType)
	switch kind {
	case kindSVG:
		doc, err := svg.Parse(bytes.NewReader(data), r.opts.SVG)
		if err != nil {
			return nil, nil, inputErr("", "", err, "media %s", m.ID)
		}
		r.svgText(doc)
		if tint != "" {
			c, _ := parseHexColor(tint)
			doc.Recolor(svg.Paint{R: float64(c.R) / 255, G: float64(c.G) / 255, B: float64(c.B) / 255, A: float64(c.A) / 255})
		}
		return &source{doc: doc, orient: svg.Identity, w: doc.Width, h: doc.Height}, nil, nil
	}
	decodeConfig, _, ok := rasterCodec(kind)
	if !ok {
		return nil, nil, inputErr("", "", nil, "media %s (%s): not a PNG, JPEG, GIF, WebP or SVG file", m.ID, m.MimeType)
	}
	cfg, err := decodeConfig(bytes.NewReader(data))
	if err != nil {
		return nil, nil, inputErr("", "", err, "media %s: unreadable %s header", m.ID, kind)
	}
	if px := float64(cfg.Width) * float64(cfg.Height); px > float64(r.opts.MaxSourcePixels) {
		return nil, nil, inputErr("", "", nil, "media %s declares %dx%d px (%.3g megapixels), over the cap of %.3g megapixels",
			m.ID, cfg.Width, cfg.Height, px/1e6, float64(r.opts.MaxSourcePixels)/1e6)
	}
	il := &ImageLayer{Width: cfg.Width, Height: cfg.Height, MimeType: kind}
	if tint == "" {
		// Known before the pixels: a CMYK PDF names and registers a JPEG by its file
		// while it is still being decoded (cmykImage).
		il.Data = data
	}
	src := &source{img: il}
	o := 1
	if kind == kindJPEG {
		o = jpegOrientation(data)
	}
	src.orient, src.w, src.h = orientation(o, float64(cfg.Width), float64(cfg.Height))
	p := &pendingDecode{id: m.ID, kind: kind, data: data, tint: tint, cfg: cfg, il: il, maxScans: r.opts.MaxJPEGScans}
	p.bytes = decodedBytes(kind, cfg, data, tint != "") + int64(len(data))
	return src, p, nil
}

// pendingDecode is a raster media file measured by its header and not decoded yet.
type pendingDecode struct {
	id, kind, tint string
	data           []byte
	cfg            image.Config
	// il is the layer image the scene already points at; decode fills its pixels.
	il *ImageLayer
	// bytes estimates the memory the decoded file holds at its peak, file included.
	bytes int64
	// rows, when > 0, is how many of a JPEG's stored pixel rows from the top the
	// drawing reads (limitRows); the rows below are left undecoded.
	rows int
	// maxScans caps a JPEG's scans (Options.MaxJPEGScans).
	maxScans int
}

// decode decodes the file into the layer image. The decoder reads the same bytes whose
// header was measured; a decoded image larger than that header (a codec that trusts
// something else than the header) is refused rather than drawn, since its memory was
// never admitted. A JPEG's decoding stops with ctx's error once ctx ends, and is
// refused past maxScans scans; the other codecs' work is bounded by the picture's
// size (MaxSourcePixels).
func (p *pendingDecode) decode(ctx context.Context) error {
	_, decode, _ := rasterCodec(p.kind)
	if p.kind == kindJPEG {
		decode = func(r io.Reader) (image.Image, error) {
			return jpegdec.DecodeContext(ctx, r, jpegdec.Options{Rows: p.rows, MaxScans: p.maxScans})
		}
	}
	img, err := decode(bytes.NewReader(p.data))
	if err != nil {
		if cerr := ctx.Err(); cerr != nil && errors.Is(err, cerr) {
			return fmt.Errorf("render: media %s: decoding stopped: %w", p.id, err)
		}
		return inputErr("", "", err, "media %s: cannot decode %s", p.id, p.kind)
	}
	if b := img.Bounds(); b.Dx() > p.cfg.Width || b.Dy() > p.cfg.Height {
		return inputErr("", "", nil, "media %s decodes to %dx%d px, larger than its header's %dx%d",
			p.id, b.Dx(), b.Dy(), p.cfg.Width, p.cfg.Height)
	}
	il := p.il
	il.Image, il.HasAlpha = normalize(img)
	if p.tint != "" {
		c, _ := parseHexColor(p.tint)
		il.Image = tinted(il.Image, c)
		il.HasAlpha = true
	}
	// il.Data was set by measureMedia (nil when tinted): not written here, as the
	// page may read it while the pixels are decoded.
	return nil
}

// normalize returns an 8-bit image type the resampler has fast paths for, with bounds
// at (0,0), and whether it may hold non-opaque pixels. 16-bit and palette images are
// converted (the output is 8-bit); the others are used as decoded.
func normalize(img image.Image) (image.Image, bool) {
	b := img.Bounds()
	switch m := img.(type) {
	case *image.YCbCr:
		// Kept as decoded (1.5 to 3 bytes a pixel instead of 4): the resampler converts
		// each row once.
		if b.Min == (image.Point{}) {
			return m, false
		}
	case *image.Gray:
		if b.Min == (image.Point{}) {
			return m, false
		}
	case *image.RGBA:
		if b.Min == (image.Point{}) {
			return m, !m.Opaque()
		}
	case *image.NRGBA:
		if b.Min == (image.Point{}) {
			return m, !m.Opaque()
		}
	}
	out := image.NewNRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	return out, !out.Opaque()
}

// tinted gives every pixel colour c, keeping its alpha (raster clipart recolouring).
func tinted(img image.Image, c color.NRGBA) *image.NRGBA {
	b := img.Bounds()
	out := image.NewNRGBA(b)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		row := out.Pix[(y-b.Min.Y)*out.Stride:]
		for x := b.Min.X; x < b.Max.X; x++ {
			_, _, _, a := img.At(x, y).RGBA()
			i := (x - b.Min.X) * 4
			row[i], row[i+1], row[i+2] = c.R, c.G, c.B
			row[i+3] = uint8(uint32(a>>8) * uint32(c.A) / 255)
		}
	}
	return out
}
