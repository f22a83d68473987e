package hubsim

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"net/http"
	"sync"

	"codeberg.org/go-pdf/fpdf"

	"github.com/printworker/printworker/model"
)

// Behaviours of real hubs that Faults (random shares, global counts) cannot express,
// kept in this file apart from the fault injector:
//
//   - WrongType: the hub answers a view's export with a file of another type (a PNG
//     for a pdf view), as a hub whose export settings drifted from the template does.
//   - ListWithoutIDs: the template list leaves out each template's _id (the spec shows
//     it, some hubs omit it); clients must address templates by productId.
//
// (A hub failing the first N calls of every path is Faults.FailFirst.)

// WrongType makes the simulator answer exports of views whose export type is
// ViewType with a file of type Serve ("png" or "pdf"). ContentType is the header sent:
// "" sends Serve's own type (image/png, application/pdf); "application/octet-stream"
// leaves the client only the magic bytes. The file is the configured Exporter's
// rendering of the view as Serve, or, without an Exporter, a small valid placeholder
// of that type (the stored exports hold only each view's own type). The zero value
// disables it.
type WrongType struct {
	ViewType, Serve, ContentType string
}

// knobs hold the settings above.
type knobs struct {
	mu        sync.Mutex
	wrongType WrongType
	noListIDs bool
}

// SetListWithoutIDs makes the template list omit every template's _id (true) or send
// it (false, the default). Get, update and delete still accept the productId.
func (s *Server) SetListWithoutIDs(omit bool) {
	s.knobs.mu.Lock()
	defer s.knobs.mu.Unlock()
	s.knobs.noListIDs = omit
}

func (k *knobs) listWithoutIDs() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.noListIDs
}

// SetWrongType replaces the setting; WrongType{} restores correct answers.
func (s *Server) SetWrongType(w WrongType) error {
	if w.ViewType != "" && w.Serve != model.ExportPNG && w.Serve != model.ExportPDF {
		return fmt.Errorf("hubsim: wrong type: serve %q, want png or pdf", w.Serve)
	}
	s.knobs.mu.Lock()
	defer s.knobs.mu.Unlock()
	s.knobs.wrongType = w
	return nil
}

// wrongTypeFor returns the setting when it applies to v.
func (k *knobs) wrongTypeFor(v *model.View) (WrongType, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	w := k.wrongType
	return w, w.ViewType != "" && v.Export.Type == w.ViewType
}

// wrongFile renders view viewID of d as wt.Serve: through the configured Exporter on a
// copy of the design whose view says wt.Serve, else a placeholder of that type.
func (s *Server) wrongFile(r *http.Request, d *model.DesignDetail, viewID string, wt WrongType) ([]byte, string, error) {
	ct, _ := exportType(wt.Serve)
	if wt.ContentType != "" {
		ct = wt.ContentType
	}
	if s.cfg.Exporter != nil {
		cp := *d
		cp.Views = append([]model.View(nil), d.Views...)
		v, _ := cp.ViewByID(viewID)
		v.Export.Type = wt.Serve
		var buf bytes.Buffer
		if _, err := s.cfg.Exporter.ExportView(r.Context(), &cp, viewID, s, &buf); err != nil {
			return nil, "", fmt.Errorf("export of design %d view %s: %w", d.ConfigurationID, viewID, err)
		}
		return buf.Bytes(), ct, nil
	}
	var buf bytes.Buffer
	if wt.Serve == model.ExportPNG {
		if err := png.Encode(&buf, image.NewGray(image.Rect(0, 0, 8, 8))); err != nil {
			return nil, "", err
		}
		return buf.Bytes(), ct, nil
	}
	pdf := fpdf.NewCustom(&fpdf.InitType{UnitStr: "pt", Size: fpdf.SizeType{Wd: 72, Ht: 72}})
	pdf.AddPage()
	if err := pdf.Output(&buf); err != nil {
		return nil, "", err
	}
	return buf.Bytes(), ct, nil
}
