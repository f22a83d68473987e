package worker

import (
	"context"
	"fmt"
	"strconv"

	"github.com/printworker/printworker/filenames"
	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/storage"
)

// objectKey is the storage key of a view's file named name, of export type typ.
func (w *Worker) objectKey(x viewExport, name, typ string) (string, error) {
	key, err := w.cfg.Layout.Key(storage.KeyVars{
		Store: x.p.Store, Domain: x.p.Domain, Order: x.p.OrderID, Design: strconv.FormatInt(x.ref.ID, 10), View: x.v.ID,
		Product: x.d.ProductID, Filename: name, Type: typ, Date: x.orderDate,
	})
	if err != nil {
		return "", &PermanentError{Reason: fmt.Sprintf("object key: %v", err)}
	}
	return key, nil
}

// followKind makes a downloaded file's name, key, manifest type and content type
// follow the bytes the hub sent, before anything is stored: a hub that answers a pdf
// view with a PNG gets its PNG stored as ….png with type png, never as ….pdf. The kind
// is the hub client's (the Content-Type, else the magic bytes). A kind the client
// cannot tell keeps the view's type. The mismatch stays in the manifest as a warning,
// since the shop asked for something else.
func (w *Worker) followKind(ctx context.Context, x viewExport, dl *hub.Download, obj *storage.Object, rec *FileRecord) error {
	want := kindOf(x.v.Export.Type)
	if dl.Kind == "" || dl.Kind == hub.KindUnknown || dl.Kind == want {
		return nil
	}
	name := filenames.WithExt(w.cfg.Filenames, x.name, filenames.Ext(x.v.Export.Type), filenames.Ext(dl.Kind))
	name, key, err := w.reserveKey(ctx, x, name, dl.Kind)
	if err != nil {
		return err
	}
	ct := kindContentType(dl.Kind)
	if ct == "" {
		ct = dl.ContentType
	}
	rec.Filename, rec.Key, rec.URL, rec.Type, rec.ContentType = name, key, w.objectURL(key), dl.Kind, ct
	// The planned sizes describe the view as it would have been rendered, not this file.
	rec.WidthPx, rec.HeightPx, rec.PageWidthPt, rec.PageHeightPt = 0, 0, 0, 0
	obj.Key, obj.Filename, obj.ContentType = key, name, ct
	rec.Warnings = append(rec.Warnings, render.Warning{Code: profiles.WarnTypeMismatch, ViewID: x.v.ID,
		Message: fmt.Sprintf("the hub sent a %s file for a %s view; stored as %s", dl.Kind, x.v.Export.Type, name)})
	return nil
}

// kindContentType is the content type stored for a file kind, "" for none known.
func kindContentType(kind string) string {
	switch kind {
	case hub.KindPNG:
		return "image/png"
	case hub.KindPDF:
		return "application/pdf"
	case hub.KindZIP:
		return "application/zip"
	case hub.KindJPEG:
		return "image/jpeg"
	case hub.KindGIF:
		return "image/gif"
	case hub.KindWebP:
		return "image/webp"
	case hub.KindSVG:
		return "image/svg+xml"
	}
	return ""
}
