package hubsim

import (
	"archive/zip"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"unicode"

	"github.com/jung-kurt/gofpdf"
	"github.com/jung-kurt/gofpdf/contrib/gofpdi"

	"github.com/printworker/printworker/hub"
)

// Exporter renders one view of a design into w and returns the file's content type
// (image/png or application/pdf). The renderer plugs in here; without one the
// simulator serves stored files (DirExporter).
type Exporter interface {
	ExportView(ctx context.Context, d *hub.DesignDetail, viewID string, media MediaOpener, w io.Writer) (contentType string, err error)
}

// ExporterFunc adapts a function to Exporter, e.g. a renderer's RenderView:
//
//	hubsim.ExporterFunc(func(ctx context.Context, d *hub.DesignDetail, view string, m hubsim.MediaOpener, w io.Writer) (string, error) {
//		res, err := renderer.RenderView(ctx, d, view, m, w)
//		if err != nil {
//			return "", err
//		}
//		return res.ContentType, nil
//	})
type ExporterFunc func(ctx context.Context, d *hub.DesignDetail, viewID string, media MediaOpener, w io.Writer) (string, error)

// ExportView calls f.
func (f ExporterFunc) ExportView(ctx context.Context, d *hub.DesignDetail, viewID string, media MediaOpener, w io.Writer) (string, error) {
	return f(ctx, d, viewID, media, w)
}

// StoredExporter serves stored export files from FS: <configurationId>/<viewId>.png
// for png views, .pdf for pdf and pdf-simple views. Designs loaded from a fixture
// folder use its exports/ subfolder.
type StoredExporter struct{ FS fs.FS }

// ExportView copies the stored file of the view.
func (x StoredExporter) ExportView(ctx context.Context, d *hub.DesignDetail, viewID string, _ MediaOpener, w io.Writer) (string, error) {
	v, ok := d.ViewByID(viewID)
	if !ok {
		return "", fmt.Errorf("design %d has no view %q: %w", d.ConfigurationID, viewID, ErrNotFound)
	}
	ct, ext := exportType(v.Export.Type)
	f, err := x.FS.Open(strconv.FormatInt(d.ConfigurationID, 10) + "/" + viewID + ext)
	if err != nil {
		return "", fmt.Errorf("stored export: %w", err)
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return "", fmt.Errorf("stored export: %w", err)
	}
	return ct, ctx.Err()
}

// exportType maps a view export type to its content type and file extension
// (hub-gaps.md: png -> image/png; pdf and pdf-simple -> application/pdf).
func exportType(t string) (contentType, ext string) {
	if t == hub.ExportPNG {
		return "image/png", ".png"
	}
	return "application/pdf", ".pdf"
}

// viewFile renders one view with the configured exporter, or the design's stored files.
func (s *Server) viewFile(ctx context.Context, d *hub.DesignDetail, viewID string) ([]byte, string, error) {
	ex := s.cfg.Exporter
	if ex == nil {
		s.mu.Lock()
		stored := s.exports[d.ConfigurationID]
		s.mu.Unlock()
		if stored == nil {
			return nil, "", fmt.Errorf("design %d: no exporter is configured and the design has no stored exports", d.ConfigurationID)
		}
		ex = StoredExporter{FS: stored}
	}
	var buf bytes.Buffer
	ct, err := ex.ExportView(ctx, d, viewID, s, &buf)
	if err != nil {
		return nil, "", fmt.Errorf("export of design %d view %s: %w", d.ConfigurationID, viewID, err)
	}
	if ct == "" {
		v, _ := d.ViewByID(viewID)
		ct, _ = exportType(v.Export.Type)
	}
	return buf.Bytes(), ct, nil
}

func (s *Server) exportView(w http.ResponseWriter, r *http.Request, c call) {
	d, ok := s.design(w, r, c)
	if !ok {
		return
	}
	v, ok := d.ViewByID(r.PathValue("view"))
	if !ok {
		writeError(w, http.StatusNotFound, "view not found", "")
		return
	}
	data, ct, err := s.viewFile(r.Context(), d, v.ID)
	if err != nil {
		writeExportError(w, err)
		return
	}
	_, ext := exportType(v.Export.Type)
	writeFile(w, ct, exportName(d, v)+ext, data)
}

// exportAll answers the whole design: a single-view design as that view's file; a
// multi-view design whose views are all pdf or pdf-simple as one PDF with the pages of
// every view in ascending weight; any other multi-view design as a zip holding one file
// per view.
func (s *Server) exportAll(w http.ResponseWriter, r *http.Request, c call) {
	d, ok := s.design(w, r, c)
	if !ok {
		return
	}
	views := make([]*hub.View, len(d.Views))
	allPDF := true
	for i := range d.Views {
		views[i] = &d.Views[i]
		allPDF = allPDF && views[i].Export.Type != hub.ExportPNG
	}
	sort.SliceStable(views, func(i, j int) bool { return views[i].Weight < views[j].Weight })
	if len(views) == 0 {
		writeError(w, http.StatusNotFound, "design has no views", "")
		return
	}
	files := make([][]byte, len(views))
	types := make([]string, len(views))
	for i, v := range views {
		data, ct, err := s.viewFile(r.Context(), d, v.ID)
		if err != nil {
			writeExportError(w, err)
			return
		}
		files[i], types[i] = data, ct
	}
	base := exportName(d, views[0])
	switch {
	case len(views) == 1:
		_, ext := exportType(views[0].Export.Type)
		writeFile(w, types[0], base+ext, files[0])
	case allPDF:
		merged, err := mergePDFs(files)
		if err != nil {
			writeError(w, http.StatusInternalServerError, err.Error(), "")
			return
		}
		writeFile(w, "application/pdf", base+".pdf", merged)
	default:
		var buf bytes.Buffer
		zw := zip.NewWriter(&buf)
		for i, v := range views {
			_, ext := exportType(v.Export.Type)
			fw, err := zw.Create(exportName(d, v) + "-" + sanitizeName(v.ID) + ext)
			if err == nil {
				_, err = fw.Write(files[i])
			}
			if err != nil {
				writeError(w, http.StatusInternalServerError, "zip: "+err.Error(), "")
				return
			}
		}
		if err := zw.Close(); err != nil {
			writeError(w, http.StatusInternalServerError, "zip: "+err.Error(), "")
			return
		}
		writeFile(w, "application/zip", base+".zip", buf.Bytes())
	}
}

// writeExportError answers a failed export: 404 when the exporter found nothing
// (ErrNotFound), else 500, as a hub whose export service failed.
func writeExportError(w http.ResponseWriter, err error) {
	status := http.StatusInternalServerError
	if errors.Is(err, ErrNotFound) {
		status = http.StatusNotFound
	}
	writeError(w, status, err.Error(), "")
}

func writeFile(w http.ResponseWriter, contentType, name string, data []byte) {
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Disposition", contentDisposition(name))
	_, _ = w.Write(data)
}

// contentDisposition writes `attachment; filename="name"`, with an RFC 2231 form for
// names outside printable ASCII.
func contentDisposition(name string) string {
	for _, r := range name {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return mime.FormatMediaType("attachment", map[string]string{"filename": name})
		}
	}
	return `attachment; filename="` + name + `"`
}

// exportName expands a view's export filename pattern (2.8; default "[id]-[title]"):
// [id] design id, [date] the design's creation date (yyyy-mm-dd), [title] design name,
// [product] productId; then sanitizes it.
func exportName(d *hub.DesignDetail, v *hub.View) string {
	p := v.Export.Filename
	if p == "" {
		p = "[id]-[title]"
	}
	date := d.Created
	if len(date) >= 10 {
		date = date[:10]
	}
	name := strings.NewReplacer("[id]", strconv.FormatInt(d.ConfigurationID, 10), "[date]", date,
		"[title]", d.Name, "[product]", d.ProductID).Replace(p)
	if n := sanitizeName(name); n != "" {
		return n
	}
	return "design-" + strconv.FormatInt(d.ConfigurationID, 10)
}

// sanitizeName drops path separators, reserved and control characters and turns runs
// of white space into one '-'.
func sanitizeName(s string) string {
	var b strings.Builder
	space := false
	for _, r := range s {
		switch {
		case unicode.IsSpace(r):
			space = true
			continue
		case strings.ContainsRune(`/\:*?"<>|`, r) || unicode.IsControl(r):
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte('-')
		}
		space = false
		b.WriteRune(r)
	}
	out := []rune(strings.Trim(b.String(), "-."))
	if len(out) > 120 {
		out = out[:120]
	}
	return string(out)
}

// mergePDFs concatenates the pages of several PDFs into one, each page keeping its
// size, by importing them as form XObjects (gofpdi) into a new document.
func mergePDFs(files [][]byte) (out []byte, err error) {
	defer func() {
		// gofpdi panics on PDFs it cannot parse.
		if p := recover(); p != nil {
			out, err = nil, fmt.Errorf("merging PDFs: %v", p)
		}
	}()
	pdf := gofpdf.NewCustom(&gofpdf.InitType{UnitStr: "pt", Size: gofpdf.SizeType{Wd: 100, Ht: 100}})
	pdf.SetAutoPageBreak(false, 0)
	pdf.SetCompression(true)
	imp := gofpdi.NewImporter()
	readers := make([]io.ReadSeeker, len(files))
	for i, f := range files {
		if !bytes.HasPrefix(f, []byte("%PDF-")) {
			return nil, fmt.Errorf("merging PDFs: file %d is not a PDF", i+1)
		}
		readers[i] = bytes.NewReader(f)
		first := imp.ImportPageFromStream(pdf, &readers[i], 1, "/MediaBox")
		sizes := imp.GetPageSizes()
		for page := 1; page <= len(sizes); page++ {
			tpl := first
			if page > 1 {
				tpl = imp.ImportPageFromStream(pdf, &readers[i], page, "/MediaBox")
			}
			box := sizes[page]["/MediaBox"]
			wd, ht := box["w"], box["h"]
			if wd <= 0 || ht <= 0 {
				return nil, fmt.Errorf("merging PDFs: file %d page %d has no media box", i+1, page)
			}
			pdf.AddPageFormat("P", gofpdf.SizeType{Wd: wd, Ht: ht})
			imp.UseImportedTemplate(pdf, tpl, 0, 0, wd, ht)
		}
	}
	var buf bytes.Buffer
	if err := pdf.Output(&buf); err != nil {
		return nil, fmt.Errorf("merging PDFs: %w", err)
	}
	return buf.Bytes(), nil
}

// expandMediaPath fills a media path pattern.
func expandMediaPath(pattern, id, token string) string {
	return strings.NewReplacer("{_id}", id, "{token}", token).Replace(pattern)
}
