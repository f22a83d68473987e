package worker

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"path"

	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/shopfloor"
	"github.com/printworker/printworker/storage"
)

// kindThumbnail labels the uploads of thumbnails (docs/shop-floor.md) in the metrics.
const kindThumbnail = "thumbnail"

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

// putThumbnail stores img as the JPEG thumbnail of rec's file, in the file's bucket,
// and records its key.
func (w *Worker) putThumbnail(ctx context.Context, rec *FileRecord, img image.Image) error {
	b, err := shopfloor.ThumbnailJPEG(img)
	if err != nil {
		return fmt.Errorf("thumbnail of %s: %w", rec.Key, err)
	}
	key := shopfloor.ThumbnailKey(rec.Key)
	_, err = w.uploadTo(ctx, w.storageOf(rec.Bucket), kindThumbnail, storage.Object{Key: key, ContentType: "image/jpeg",
		Filename: path.Base(key), Size: int64(len(b))}, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("write thumbnail: %w", err)
	}
	rec.Thumbnail = key
	return nil
}
