package shopfloor

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	_ "image/png" // decodes downloaded png files for their thumbnails
	"io"
	"path"
	"strings"

	"golang.org/x/image/draw"

	"github.com/printworker/printworker/render"
)

// Thumbnails next to each print file (docs/shop-floor.md): a JPEG whose longest
// side is render.DefaultThumbnailPx, listed in the file's record.

const (
	// thumbSuffix replaces a print file's extension in its thumbnail's key.
	thumbSuffix = ".thumb.jpg"
	// MaxPreviewSource bounds a downloaded file decoded for its thumbnail: larger ones
	// (and pdf) get none, so a hostile export cannot make the worker decode a bomb.
	MaxPreviewSource    = 16 << 20
	maxThumbSourcePixel = 40_000_000
)

// ThumbnailKey is the key of the thumbnail of the file at key: same folder, same base
// name.
func ThumbnailKey(key string) string {
	return strings.TrimSuffix(key, path.Ext(key)) + thumbSuffix
}

// ThumbnailJPEG encodes a preview as the thumbnail's JPEG.
func ThumbnailJPEG(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 82}); err != nil {
		return nil, fmt.Errorf("thumbnail: %w", err)
	}
	return buf.Bytes(), nil
}

// Capture keeps a copy of the first max bytes read through it, for the preview of a
// file streamed elsewhere; once the stream is longer the copy is released.
type Capture struct {
	r    io.Reader
	buf  bytes.Buffer
	max  int
	over bool
}

// NewCapture reads through r, keeping up to max bytes.
func NewCapture(r io.Reader, max int) *Capture {
	return &Capture{r: r, max: max}
}

func (c *Capture) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	if !c.over {
		if c.buf.Len()+n > c.max {
			c.over = true
			c.buf = bytes.Buffer{}
		} else {
			c.buf.Write(p[:n])
		}
	}
	return n, err
}

// Preview decodes the captured PNG or JPEG when it is small enough to preview; nil for
// anything else (pdf, too large, undecodable, a nil Capture): the staff page shows a
// placeholder.
func (c *Capture) Preview() image.Image {
	if c == nil || c.over {
		return nil
	}
	data := c.buf.Bytes()
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || int64(cfg.Width)*int64(cfg.Height) > maxThumbSourcePixel {
		return nil
	}
	src, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	return scaleThumb(src, render.DefaultThumbnailPx)
}

// scaleThumb fits src into px x px on white, never enlarging.
func scaleThumb(src image.Image, px int) image.Image {
	b := src.Bounds()
	k := min(1, float64(px)/float64(max(b.Dx(), b.Dy())))
	w, h := max(1, int(float64(b.Dx())*k+0.5)), max(1, int(float64(b.Dy())*k+0.5))
	dst := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(dst, dst.Bounds(), image.White, image.Point{}, draw.Src)
	draw.CatmullRom.Scale(dst, dst.Bounds(), src, b, draw.Over, nil)
	return dst
}
