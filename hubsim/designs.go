package hubsim

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"sort"
	"strconv"

	"github.com/printworker/printworker/model"
)

// mediaFile is a media document and its bytes.
type mediaFile struct {
	m    model.Media
	data []byte
}

// ErrNotFound is returned by OpenMedia for an unknown media id or a wrong token.
var ErrNotFound = errors.New("hubsim: not found")

// MediaOpener opens the bytes of a media object of a design. The simulator implements
// it over its media store; an Exporter gets it to read templates and pictures.
type MediaOpener interface {
	OpenMedia(ctx context.Context, m model.Media) (io.ReadCloser, error)
}

// OpenMedia returns the media document's bytes when id and token match.
func (s *Server) OpenMedia(ctx context.Context, m model.Media) (io.ReadCloser, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	mf := s.media[m.ID]
	s.mu.Unlock()
	if mf == nil || subtle.ConstantTimeCompare([]byte(mf.m.Token), []byte(m.Token)) != 1 {
		return nil, fmt.Errorf("media %s: %w", m.ID, ErrNotFound)
	}
	return io.NopCloser(bytes.NewReader(mf.data)), nil
}

// AddMedia stores a media document; m.ID and m.Token are required, and m.Size is set
// from data.
func (s *Server) AddMedia(m model.Media, data []byte) error {
	if m.ID == "" || m.Token == "" {
		return errors.New("hubsim: media needs an _id and a token")
	}
	m.Size = int64(len(data))
	s.mu.Lock()
	defer s.mu.Unlock()
	s.media[m.ID] = &mediaFile{m: m, data: data}
	return nil
}

// HasMedia reports whether a media document is stored.
func (s *Server) HasMedia(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.media[id] != nil
}

// MediaPath returns the path a media object is served at.
func (s *Server) MediaPath(m model.Media) string {
	return expandMediaPath(s.cfg.MediaPath, m.ID, m.Token)
}

// AddDesign stores a design, replacing one with the same configurationId. Its views
// must satisfy the template rules; Config.DesignStore, when set, becomes its shop.
// Media it references are added with AddMedia (LoadDesigns does both).
func (s *Server) AddDesign(d model.DesignDetail) error {
	ref := model.DesignRef{ID: d.ConfigurationID, Token: d.Token}
	if err := ref.Validate(); err != nil {
		return fmt.Errorf("hubsim: design %q: %w", d.ID, err)
	}
	if err := ValidateViews(d.Views); err != nil {
		return fmt.Errorf("hubsim: design %d: %w", d.ConfigurationID, err)
	}
	if s.cfg.DesignStore != "" {
		d.Shop = s.cfg.DesignStore
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.designs[d.ConfigurationID] = &d
	return nil
}

// Design returns a deep copy of a stored design.
func (s *Server) Design(id int64) (model.DesignDetail, bool) {
	s.mu.Lock()
	d, ok := s.designs[id]
	s.mu.Unlock()
	if !ok {
		return model.DesignDetail{}, false
	}
	return clone(*d), true
}

// clone deep-copies a hub model through its JSON form, which round-trips exactly.
// Stored values are never mutated in place (they are replaced), so reading them
// without the lock is safe.
func clone[T any](v T) T {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("hubsim: clone: %v", err)) // the models always encode
	}
	var out T
	if err := json.Unmarshal(b, &out); err != nil {
		panic(fmt.Sprintf("hubsim: clone: %v", err))
	}
	return out
}

// Designs lists the stored designs' references in ascending id order.
func (s *Server) Designs() []model.DesignRef {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]model.DesignRef, 0, len(s.designs))
	for _, d := range s.designs {
		out = append(out, model.DesignRef{ID: d.ConfigurationID, Token: d.Token})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// LoadDesigns loads a fixture folder (layout in testdata/README.md):
//
//	<dir>/*.json                      one design detail (2.14) per file
//	<dir>/media/<_id>.<ext>           the media files the designs reference
//	<dir>/exports/<id>/<viewId>.<ext> stored exports (png or pdf), served when no
//	                                  Exporter is configured
//
// Every media object a design references must have its file, of the size its object
// states. It returns the number of designs loaded.
func (s *Server) LoadDesigns(dir string) (int, error) {
	n, err := s.LoadDesignsFS(os.DirFS(dir))
	if err != nil {
		return 0, fmt.Errorf("%w (folder %s)", err, dir)
	}
	return n, nil
}

// LoadDesignsFS loads fixtures laid out as for LoadDesigns from a file system, such
// as SampleFixtures()'s "designs" folder.
func (s *Server) LoadDesignsFS(fsys fs.FS) (int, error) {
	files, err := fs.Glob(fsys, "*.json")
	if err != nil {
		return 0, fmt.Errorf("hubsim: %w", err)
	}
	if len(files) == 0 {
		return 0, errors.New("hubsim: no design fixtures (*.json)")
	}
	exports, err := fs.Sub(fsys, "exports")
	if err != nil {
		return 0, fmt.Errorf("hubsim: %w", err)
	}
	for _, f := range files {
		b, err := fs.ReadFile(fsys, f)
		if err != nil {
			return 0, fmt.Errorf("hubsim: %w", err)
		}
		var d model.DesignDetail
		if err := json.Unmarshal(b, &d); err != nil {
			return 0, fmt.Errorf("hubsim: %s: %w", f, err)
		}
		for _, m := range DesignMedia(&d) {
			data, err := readMediaFile(fsys, m)
			if err != nil {
				return 0, fmt.Errorf("hubsim: %s: %w", f, err)
			}
			if err := s.AddMedia(m, data); err != nil {
				return 0, err
			}
		}
		if err := s.AddDesign(d); err != nil {
			return 0, fmt.Errorf("%w (%s)", err, f)
		}
		s.mu.Lock()
		s.exports[d.ConfigurationID] = exports
		s.mu.Unlock()
	}
	return len(files), nil
}

// readMediaFile reads media/<_id>.* and checks its size against the media object.
func readMediaFile(fsys fs.FS, m model.Media) ([]byte, error) {
	matches, err := fs.Glob(fsys, "media/"+m.ID+".*")
	if err != nil || len(matches) != 1 {
		return nil, fmt.Errorf("media %s (%s): want one file media/%s.*", m.ID, m.OriginalName, m.ID)
	}
	data, err := fs.ReadFile(fsys, matches[0])
	if err != nil {
		return nil, err
	}
	if int64(len(data)) != m.Size {
		return nil, fmt.Errorf("media %s: file has %d bytes, the media object says %d", matches[0], len(data), m.Size)
	}
	return data, nil
}

// DesignMedia lists the media objects a design references: every view's template and
// the value of every picture and illustration element, each once.
func DesignMedia(d *model.DesignDetail) []model.Media {
	var out []model.Media
	seen := map[string]bool{}
	add := func(v *model.Value) {
		if v == nil {
			return
		}
		if m, ok, _ := v.Media(); ok && !seen[m.ID] {
			seen[m.ID] = true
			out = append(out, m)
		}
	}
	for i := range d.Views {
		v := &d.Views[i]
		add(&v.Template)
		for j := range v.Elements {
			if t := v.Elements[j].Type; t == model.ElementPicture || t == model.ElementIllustration {
				add(v.Elements[j].Value)
			}
		}
	}
	return out
}

func (s *Server) serveMedia(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	mf := s.media[r.PathValue("id")]
	s.mu.Unlock()
	if mf == nil || subtle.ConstantTimeCompare([]byte(mf.m.Token), []byte(r.PathValue("token"))) != 1 {
		writeError(w, http.StatusNotFound, "media not found", "")
		return
	}
	w.Header().Set("Content-Type", mf.m.MimeType)
	_, _ = w.Write(mf.data)
}

// design resolves the design of a signed design call: unknown id, wrong token or a
// design of another store is 404.
func (s *Server) design(w http.ResponseWriter, r *http.Request, c call) (*model.DesignDetail, bool) {
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	var d *model.DesignDetail
	if err == nil {
		s.mu.Lock()
		if x := s.designs[id]; x != nil {
			cp := *x
			d = &cp
		}
		s.mu.Unlock()
	}
	if d == nil || subtle.ConstantTimeCompare([]byte(d.Token), []byte(r.PathValue("token"))) != 1 || d.Shop != c.store.ID {
		writeError(w, http.StatusNotFound, "design not found", "")
		return nil, false
	}
	return d, true
}

func (s *Server) getDesign(w http.ResponseWriter, r *http.Request, c call) {
	if d, ok := s.design(w, r, c); ok {
		writeJSON(w, http.StatusOK, d)
	}
}
