package render

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"image"
	"io"
	"time"

	gofpdf "codeberg.org/go-pdf/fpdf"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/internal/pngenc"
)

// Content types of the outputs (hub-gaps.md: png -> image/png, pdf and pdf-simple ->
// application/pdf, export all of png views -> a zip).
const (
	ContentTypePNG = "image/png"
	ContentTypePDF = "application/pdf"
	ContentTypeZip = "application/zip"
)

// RenderView renders one view and writes it to w as the view's export type (png, pdf or
// pdf-simple).
func (r *Renderer) RenderView(ctx context.Context, d *model.DesignDetail, viewID string, media MediaSource, w io.Writer) (*Result, error) {
	defer r.prefetchFonts(d, viewID)()
	p, err := r.PrepareView(ctx, d, viewID, media)
	if err != nil {
		return nil, err
	}
	return p.Render(ctx, w)
}

// renderScene writes a scene of design d whose media are decoded.
func (r *Renderer) renderScene(ctx context.Context, d *model.DesignDetail, s *Scene, w io.Writer) (*Result, error) {
	cw := &countingWriter{w: w}
	res := r.resultOf(s)
	switch s.Type {
	case model.ExportPNG:
		// While a picture decodes, the rows it and the layers above it leave alone
		// are compressed ahead (pngenc.Ahead, Scene.finalRows), when an opaque
		// background makes the file RGB whatever is drawn later. Not for a soft
		// proof, which rewrites every pixel after drawing.
		var ahead *pngenc.Ahead
		opaque := opaqueCanvas(s)
		if opaque && s.awaitMedia != nil && !r.print.CMYK() {
			s.finalRows = func(canvas *image.RGBA, y0, y1 int) {
				if ahead == nil {
					var err error
					if ahead, err = pngenc.NewAhead(canvas, r.pngOptions(s.DPI, opaque)); err != nil {
						// Encode reports the same error.
						return
					}
				}
				ahead.Final(y0, y1)
			}
		}
		// The preview is drawn from the scene at its own size, as for the other
		// types, rather than scaled down from the print raster: under half the CPU
		// (28 against 61 ms for a T-shirt view).
		thumb := r.thumbScene(s)
		canvas, err := r.Rasterize(ctx, s)
		if err != nil {
			if ahead != nil {
				ahead.Discard()
			}
			return nil, err
		}
		if r.hasPlates() {
			// From the art's own colours, before the soft proof.
			if res.Sidecars, err = r.pngSidecars(ctx, d, s, canvas); err != nil {
				if ahead != nil {
					ahead.Discard()
				}
				return nil, err
			}
		}
		if r.print.CMYK() {
			r.softProof(canvas)
		}
		res.Thumbnail = r.rasterThumb(ctx, thumb)
		if ahead != nil {
			err = ahead.Encode(ctx, cw)
		} else {
			err = r.encodePNG(ctx, cw, canvas, s.DPI, opaque)
		}
		if err != nil {
			return nil, fmt.Errorf("render: view %s: png: %w", s.ViewID, err)
		}
	case ExportTIFF:
		res.Thumbnail = r.thumbOfScene(ctx, s)
		var err error
		if res.Sidecars, err = r.writeTIFF(ctx, cw, d, s); err != nil {
			return nil, err
		}
	case model.ExportPDFSimple, model.ExportPDF:
		// A CMYK vector page does not rasterize the scene and makes its document
		// while its pictures are still being decoded and converted (cmykImage): its
		// thumbnail is drawn on a goroutine of its own meanwhile, once the pictures
		// are decoded (a decoding error is Render's to report), rather than holding
		// the page up.
		var thumb chan image.Image
		if s.Type == model.ExportPDF && r.print.CMYK() {
			if t := r.thumbScene(s); t != nil {
				thumb = make(chan image.Image, 1)
				await := s.awaitMedia
				go func() {
					if await != nil && await() != nil {
						thumb <- nil
						return
					}
					thumb <- r.rasterThumb(ctx, t)
				}()
			}
		} else {
			res.Thumbnail = r.thumbOfScene(ctx, s)
		}
		pdf, streams := r.newPrintPDF(d)
		err := r.addPage(ctx, pdf, streams, s)
		if err == nil {
			if err = r.writePrintPDF(pdf, streams, cw); err != nil {
				err = fmt.Errorf("render: view %s: pdf: %w", s.ViewID, err)
			}
		}
		if thumb != nil {
			res.Thumbnail = <-thumb
		}
		if err != nil {
			return nil, err
		}
	}
	res.Colour = r.colourInfo(s)
	res.Bytes = cw.n
	res.Warnings = s.Warnings
	res.EffectiveDPI = s.EffectiveDPI
	return res, nil
}

// RenderAll writes the hub's "export all" packaging of the design: when every view
// exports a PDF type, one PDF with a page per view in weight order; otherwise a zip
// with one file per view named by FileNames. A design with a single view yields that
// view's file as RenderView does.
func (r *Renderer) RenderAll(ctx context.Context, d *model.DesignDetail, media MediaSource, w io.Writer) (*Result, error) {
	views := Views(d)
	if len(views) == 0 {
		return nil, inputErr("", "", nil, "design %s has no views", d.ID)
	}
	if len(views) == 1 {
		return r.RenderView(ctx, d, views[0].ID, media, w)
	}
	allPDF := true
	for _, v := range views {
		allPDF = allPDF && (v.Export.Type == model.ExportPDF || v.Export.Type == model.ExportPDFSimple)
	}
	cw := &countingWriter{w: w}
	res := &Result{}
	if allPDF {
		res.Type, res.ContentType = model.ExportPDF, ContentTypePDF
		pdf, streams := r.newPrintPDF(d)
		scenes := make([]*Scene, 0, len(views))
		for _, v := range views {
			s, err := r.BuildScene(ctx, d, v.ID, media)
			if err != nil {
				return nil, err
			}
			if err := r.addPage(ctx, pdf, streams, s); err != nil {
				return nil, err
			}
			scenes = append(scenes, s)
		}
		if err := r.writePrintPDF(pdf, streams, cw); err != nil {
			return nil, fmt.Errorf("render: pdf: %w", err)
		}
		// Only once written: a CMYK page's pictures add their ink coverage to its
		// scene when their streams are in (addVectorPage).
		for _, s := range scenes {
			vr := r.resultOf(s)
			vr.Warnings = s.Warnings
			vr.EffectiveDPI = s.EffectiveDPI
			res.EffectiveDPI = minPositive(res.EffectiveDPI, s.EffectiveDPI)
			vr.Colour = r.colourInfo(s)
			res.Colour = mergeColour(res.Colour, vr.Colour)
			res.Views = append(res.Views, *vr)
			res.Warnings = append(res.Warnings, s.Warnings...)
		}
		res.Bytes = cw.n
		return res, nil
	}
	res.Type, res.ContentType = "zip", ContentTypeZip
	zw := zip.NewWriter(cw)
	modified := designTime(d)
	names := FileNames(d, views)
	for i, v := range views {
		// Each entry is rendered straight into the zip: one view in memory at a time.
		// PNG is stored, being compressed already.
		hdr := &zip.FileHeader{Name: names[i], Method: zip.Store, Modified: modified}
		if v.Export.Type != model.ExportPNG {
			hdr.Method = zip.Deflate
		}
		ew, err := zw.CreateHeader(hdr)
		if err != nil {
			return nil, fmt.Errorf("render: zip: %w", err)
		}
		vr, err := r.RenderView(ctx, d, v.ID, media, ew)
		if err != nil {
			return nil, err
		}
		for _, sc := range vr.Sidecars {
			hdr := &zip.FileHeader{Name: SidecarName(names[i], sc), Method: zip.Deflate, Modified: modified}
			sw, err := zw.CreateHeader(hdr)
			if err != nil {
				return nil, fmt.Errorf("render: zip: %w", err)
			}
			if _, err := sw.Write(sc.Data); err != nil {
				return nil, fmt.Errorf("render: zip: %w", err)
			}
		}
		res.Views = append(res.Views, *vr)
		res.Warnings = append(res.Warnings, vr.Warnings...)
		res.EffectiveDPI = minPositive(res.EffectiveDPI, vr.EffectiveDPI)
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("render: zip: %w", err)
	}
	res.Bytes = cw.n
	return res, nil
}

func (r *Renderer) resultOf(s *Scene) *Result {
	res := &Result{
		ViewID: s.ViewID, Type: s.Type, DPI: s.DPI,
		PageWidthPt: s.PageWidthPt, PageHeightPt: s.PageHeightPt,
	}
	if s.Type == model.ExportPDF || s.Type == model.ExportPDFSimple {
		// The page is the MediaBox: grown by the crop marks' slug (cropmarks.go).
		m := r.slugPt()
		res.PageWidthPt, res.PageHeightPt = res.PageWidthPt+2*m, res.PageHeightPt+2*m
	}
	if s.Type == model.ExportPNG {
		res.ContentType = ContentTypePNG
	} else if s.Type == ExportTIFF {
		res.ContentType = ContentTypeTIFF
	} else {
		res.ContentType = ContentTypePDF
	}
	if s.Type != model.ExportPDF {
		res.WidthPx, res.HeightPx = s.WidthPx, s.HeightPx
	}
	return res
}

// designTime is the design's creation time, used as the files' dates so that the same
// design always yields the same bytes.
func designTime(d *model.DesignDetail) time.Time {
	for _, s := range []string{d.Created, d.Updated} {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC()
		}
	}
	return time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
}

func newPDF(d *model.DesignDetail) *gofpdf.Fpdf {
	pdf := gofpdf.NewCustom(&gofpdf.InitType{UnitStr: "pt", Size: gofpdf.SizeType{Wd: 595, Ht: 842}})
	pdf.SetAutoPageBreak(false, 0)
	pdf.SetMargins(0, 0, 0)
	pdf.SetCompression(true)
	// Fonts and the page's image list in a fixed order instead of fpdf's map order:
	// the same design gives the same bytes (TestPDFReproducible).
	pdf.SetCatalogSort(true)
	t := designTime(d)
	pdf.SetCreationDate(t)
	pdf.SetModificationDate(t)
	pdf.SetCreator("printworker", true)
	pdf.SetTitle(d.Name, true)
	return pdf
}

// addPage adds the view's page: the vector drawing for pdf, the raster for pdf-simple.
// streams holds the CMYK picture streams spliced in at output (nil for sRGB).
func (r *Renderer) addPage(ctx context.Context, pdf *gofpdf.Fpdf, streams *splicedStreams, s *Scene) error {
	var (
		err error
		pl  *plates
	)
	switch {
	case s.Type == model.ExportPDF:
		// The plates come from the view rasterized at their own resolution,
		// before the vector page takes the pictures.
		if r.hasPlates() {
			if pl, err = r.vectorPlates(ctx, s); err != nil {
				return err
			}
		}
		err = r.addVectorPage(ctx, pdf, streams, s)
	case r.print.CMYK():
		ink := r.inkMeter()
		pl, err = r.addRasterPageCMYK(ctx, pdf, streams, s, ink)
		ink.report(s)
	default:
		pl, err = r.addRasterPage(ctx, pdf, s)
	}
	if err == nil && pl != nil {
		err = r.drawPlates(pdf, s, pl, r.slugPt())
	}
	if err == nil && r.print != nil {
		setPageBoxes(pdf, s, r.slugPt())
	}
	return err
}

// addRasterPage adds one page of the scene's size holding its raster at the export dpi.
// The raster goes in as an opaque 8-bit PNG flattened on white paper: gofpdf copies an
// opaque PNG's compressed data as is (lossless, no re-encoding), while a transparent one
// costs seconds and hundreds of MB, and JPEG would blur text edges.
// The plates, when the renderer makes any, come from the same raster.
func (r *Renderer) addRasterPage(ctx context.Context, pdf *gofpdf.Fpdf, s *Scene) (*plates, error) {
	buf, pl, err := r.opaquePNG(ctx, s)
	if err != nil {
		return nil, err
	}
	name := "view-" + s.ViewID
	opt := gofpdf.ImageOptions{ImageType: "PNG"}
	pdf.AddPageFormat("P", gofpdf.SizeType{Wd: s.PageWidthPt, Ht: s.PageHeightPt})
	pdf.RegisterImageOptionsReader(name, opt, buf)
	pdf.ImageOptions(name, 0, 0, s.PageWidthPt, s.PageHeightPt, false, opt, 0, "")
	if err := pdf.Error(); err != nil {
		return nil, fmt.Errorf("render: view %s: raster page: %w", s.ViewID, err)
	}
	return pl, nil
}

// opaquePNG rasterizes the scene flattened on white and encodes it, with the
// plates of the raster before flattening (nil when the renderer makes none); the
// canvas is released when this returns, before gofpdf copies the encoded bytes.
func (r *Renderer) opaquePNG(ctx context.Context, s *Scene) (*bytes.Buffer, *plates, error) {
	canvas, err := r.Rasterize(ctx, s)
	if err != nil {
		return nil, nil, err
	}
	var pl *plates
	if r.hasPlates() {
		if pl, err = r.makePlates(ctx, s, canvas); err != nil {
			return nil, nil, err
		}
	}
	flattenOnWhite(canvas)
	var buf bytes.Buffer
	if err := r.encodePNG(ctx, &buf, canvas, s.DPI, true); err != nil {
		return nil, nil, fmt.Errorf("render: view %s: raster page: %w", s.ViewID, err)
	}
	return &buf, pl, nil
}

// opaqueCanvas reports whether the scene's raster is opaque in every pixel because
// one of its layers is an opaque fill over the whole canvas: every layer composites
// Over, which never lowers a pixel's alpha, so what the fill made opaque stays so
// whatever is drawn after it (pngenc checks each row as it encodes it all the same).
func opaqueCanvas(s *Scene) bool {
	toPx := s.ToPixel()
	all := image.Rect(0, 0, s.WidthPx, s.HeightPx)
	for i := range s.Layers {
		l := &s.Layers[i]
		if l.Kind != LayerFill || l.Fill == nil || l.Fill.Color.A != 255 || l.Opacity != 1 {
			continue
		}
		clip := pixelRect(toPx, l.Clip).Intersect(all)
		if all.In(pixelRect(toPx.Mul(l.Transform), l.Fill.Rect).Intersect(clip)) {
			return true
		}
	}
	return false
}

// flattenOnWhite composites the canvas over white in place, leaving it opaque.
func flattenOnWhite(img *image.RGBA) {
	p := img.Pix
	for i := 0; i+3 < len(p); i += 4 {
		if a := p[i+3]; a != 255 {
			w := 255 - a
			p[i] += w
			p[i+1] += w
			p[i+2] += w
			p[i+3] = 255
		}
	}
}

// encodePNG writes img as an 8-bit PNG (RGB when every pixel is opaque, RGBA
// otherwise) with its dpi in a pHYs chunk, compressing row strips on all workers.
// opaque declares every pixel opaque (opaqueCanvas), sparing the encoder a scan of
// the whole image.
func (r *Renderer) encodePNG(ctx context.Context, w io.Writer, img image.Image, dpi float64, opaque bool) error {
	return pngenc.EncodeContext(ctx, w, img, r.pngOptions(dpi, opaque))
}

// pngOptions are the encoder's settings for a PNG at dpi.
func (r *Renderer) pngOptions(dpi float64, opaque bool) pngenc.Options {
	opt := pngenc.Options{DPI: dpi, Workers: r.opts.Workers, SRGB: r.print.CMYK(), Opaque: opaque}
	if r.opts.PNGSpeed == PNGSpeedFastest {
		opt.Level = pngenc.LevelHuffmanOnly
	}
	return opt
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += int64(n)
	return n, err
}

// minPositive is the lower of two resolutions, 0 standing for none.
func minPositive(a, b float64) float64 {
	if a == 0 || (b != 0 && b < a) {
		return b
	}
	return a
}
