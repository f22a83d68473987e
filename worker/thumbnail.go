package worker

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/jpeg"
	_ "image/png" // decodes downloaded png files for their thumbnails
	"io"
	"path"
	"strings"

	"golang.org/x/image/draw"

	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/storage"
)

// Thumbnails next to each print file (docs/shop-floor.md): a JPEG whose longest
// side is render.DefaultThumbnailPx, listed in the file's record.

const (
	kindThumbnail = "thumbnail"
	// thumbSuffix replaces a print file's extension in its thumbnail's key.
	thumbSuffix = ".thumb.jpg"
	// maxThumbSource bounds a downloaded file decoded for its thumbnail: larger ones
	// (and pdf) get none, so a hostile export cannot make the worker decode a bomb.
	maxThumbSource      = 16 << 20
	maxThumbSourcePixel = 40_000_000
)

// thumbnailer is the optional part of a renderer that makes previews (*render.Renderer).
type thumbnailer interface {
	WithThumbnails(px int) *render.Renderer
}

// withThumbnails makes r attach previews when thumbnails are on and it can.
func (w *Worker) withThumbnails(r Renderer) Renderer {
	if t, ok := r.(thumbnailer); ok && !w.cfg.ShopFloor.NoThumbnails {
		return t.WithThumbnails(render.DefaultThumbnailPx)
	}
	return r
}

// thumbKey is the key of the thumbnail of the file at key: same folder, same base name.
func thumbKey(key string) string {
	return strings.TrimSuffix(key, path.Ext(key)) + thumbSuffix
}

// putThumbnail stores img as the JPEG thumbnail of rec's file, in the file's bucket,
// and records its key.
func (w *Worker) putThumbnail(ctx context.Context, rec *FileRecord, img image.Image) error {
	var buf bytes.Buffer
	if err := jpeg.Encode(&buf, img, &jpeg.Options{Quality: 82}); err != nil {
		return fmt.Errorf("thumbnail of %s: %w", rec.Key, err)
	}
	key := thumbKey(rec.Key)
	_, err := w.uploadTo(ctx, w.storageOf(rec.Bucket), kindThumbnail, storage.Object{Key: key, ContentType: "image/jpeg",
		Filename: path.Base(key), Size: int64(buf.Len())}, &buf)
	if err != nil {
		return fmt.Errorf("write thumbnail: %w", err)
	}
	rec.Thumbnail = key
	return nil
}

// capture keeps a copy of the first max bytes read through it; over is set when the
// stream was longer (the copy is then useless and released).
type capture struct {
	r    io.Reader
	buf  bytes.Buffer
	max  int
	over bool
}

func (c *capture) Read(p []byte) (int, error) {
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

// downloadThumb decodes a downloaded PNG or JPEG small enough to preview; nil for
// anything else (pdf, too large, undecodable): the staff page shows a placeholder.
func downloadThumb(c *capture) image.Image {
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
