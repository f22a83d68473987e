package hubsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"github.com/printworker/printworker/model"
)

// StoredTemplate is a template as the simulator holds it.
type StoredTemplate struct {
	ID       string // the hub's _id
	Store    string
	Template model.Template
	Created  time.Time
	Updated  time.Time
}

// Templates returns a deep copy of the store's templates in creation order.
func (s *Server) Templates(store string) []StoredTemplate {
	s.mu.Lock()
	var out []StoredTemplate
	for _, t := range s.templates[store] {
		out = append(out, *t)
	}
	s.mu.Unlock()
	for i := range out {
		out[i].Template = clone(out[i].Template)
	}
	return out
}

// findTemplate finds a store's template by _id, else by productId (the spec addresses
// get and delete by template ID and update by productId; the simulator accepts both
// everywhere). The caller holds s.mu.
func (s *Server) findTemplate(store, id string) (int, *StoredTemplate) {
	list := s.templates[store]
	for i, t := range list {
		if t.ID == id {
			return i, t
		}
	}
	for i, t := range list {
		if t.Template.ProductID == id {
			return i, t
		}
	}
	return -1, nil
}

// templateJSON is a stored template as get, create and update answer it: the
// template's own fields plus _id, _created and _updated.
func templateJSON(t *StoredTemplate) (map[string]json.RawMessage, error) {
	b, err := json.Marshal(t.Template)
	if err != nil {
		return nil, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range map[string]string{"_id": t.ID, "_created": stamp(t.Created), "_updated": stamp(t.Updated)} {
		m[k], _ = json.Marshal(v)
	}
	return m, nil
}

func stamp(t time.Time) string { return t.UTC().Format(TimeLayout) }

func (s *Server) writeTemplate(w http.ResponseWriter, status int, t *StoredTemplate) {
	m, err := templateJSON(t)
	if err != nil {
		writeError(w, http.StatusInternalServerError, "encoding the template: "+err.Error(), "")
		return
	}
	writeJSON(w, status, m)
}

func (s *Server) listTemplates(w http.ResponseWriter, r *http.Request, c call) {
	skip := 0
	if q := r.URL.Query().Get("skip"); q != "" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 0 {
			writeValidation(w, badField("skip", "%q is not a non-negative integer", q))
			return
		}
		skip = n
	}
	s.mu.Lock()
	list := s.templates[c.store.ID]
	out := model.TemplateList{Total: len(list), Results: []model.TemplateSummary{}}
	for i := skip; i < len(list) && i < skip+s.cfg.PageSize; i++ {
		sum := s.summary(list[i])
		if s.knobs.listWithoutIDs() {
			sum.ID = ""
		}
		out.Results = append(out.Results, sum)
	}
	s.mu.Unlock()
	out.Count = len(out.Results)
	writeJSON(w, http.StatusOK, out)
}

// summary builds a list entry; its `template` is the media of the active view (else
// the first). The caller holds s.mu.
func (s *Server) summary(t *StoredTemplate) model.TemplateSummary {
	sum := model.TemplateSummary{
		ID: t.ID, Name: t.Template.Name, ProductID: t.Template.ProductID,
		Shopify: json.RawMessage("null"), Static: t.Template.Static,
		Created: stamp(t.Created), Updated: stamp(t.Updated),
	}
	views := t.Template.Views
	if len(views) == 0 {
		return sum
	}
	v := views[0]
	for _, x := range views {
		if x.Active {
			v = x
			break
		}
	}
	sum.Template.ID = v.Template.MediaID()
	if mf := s.media[sum.Template.ID]; mf != nil {
		sum.Template.Token = mf.m.Token
	}
	return sum
}

func (s *Server) getTemplate(w http.ResponseWriter, r *http.Request, c call) {
	s.mu.Lock()
	_, t := s.findTemplate(c.store.ID, r.PathValue("tid"))
	var cp StoredTemplate
	if t != nil {
		cp = *t
	}
	s.mu.Unlock()
	if t == nil {
		writeError(w, http.StatusNotFound, "template not found", "")
		return
	}
	s.writeTemplate(w, http.StatusOK, &cp)
}

func (s *Server) createTemplate(w http.ResponseWriter, r *http.Request, c call) {
	tpl, err := decodeTemplate(bodyOf(r), c.store.ID)
	if err != nil {
		writeValidation(w, err)
		return
	}
	now := s.cfg.Now()
	s.mu.Lock()
	if _, dup := s.findTemplateByProduct(c.store.ID, tpl.ProductID); dup != nil {
		s.mu.Unlock()
		writeError(w, http.StatusConflict, fmt.Sprintf("a template with productId %q exists", tpl.ProductID), "productId")
		return
	}
	s.lastTplID++
	t := &StoredTemplate{ID: fmt.Sprintf("65a0%020x", s.lastTplID), Store: c.store.ID, Template: tpl, Created: now, Updated: now}
	s.templates[c.store.ID] = append(s.templates[c.store.ID], t)
	cp := *t
	s.mu.Unlock()
	s.writeTemplate(w, http.StatusCreated, &cp)
}

func (s *Server) findTemplateByProduct(store, productID string) (int, *StoredTemplate) {
	for i, t := range s.templates[store] {
		if t.Template.ProductID == productID {
			return i, t
		}
	}
	return -1, nil
}

func (s *Server) updateTemplate(w http.ResponseWriter, r *http.Request, c call) {
	tpl, err := decodeTemplate(bodyOf(r), c.store.ID)
	if err != nil {
		writeValidation(w, err)
		return
	}
	id := r.PathValue("tid")
	s.mu.Lock()
	_, t := s.findTemplateByProduct(c.store.ID, id)
	if t == nil {
		_, t = s.findTemplate(c.store.ID, id)
	}
	if t == nil {
		s.mu.Unlock()
		writeError(w, http.StatusNotFound, fmt.Sprintf("template %q not found", id), "")
		return
	}
	if _, other := s.findTemplateByProduct(c.store.ID, tpl.ProductID); other != nil && other != t {
		s.mu.Unlock()
		writeError(w, http.StatusConflict, fmt.Sprintf("another template has productId %q", tpl.ProductID), "productId")
		return
	}
	t.Template, t.Updated = tpl, s.cfg.Now()
	cp := *t
	s.mu.Unlock()
	s.writeTemplate(w, http.StatusOK, &cp)
}

// deleteTemplate removes the template and the media documents it references (spec
// 4.2 rule 1); designs made from it stay.
func (s *Server) deleteTemplate(w http.ResponseWriter, r *http.Request, c call) {
	s.mu.Lock()
	i, t := s.findTemplate(c.store.ID, r.PathValue("tid"))
	if t != nil {
		list := s.templates[c.store.ID]
		s.templates[c.store.ID] = append(list[:i:i], list[i+1:]...)
		for _, id := range templateMedia(t.Template.Views) {
			delete(s.media, id)
		}
	}
	s.mu.Unlock()
	if t == nil {
		writeError(w, http.StatusNotFound, "template not found", "")
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"_id": t.ID, "productId": t.Template.ProductID, "result": "deleted"})
}

// templateMedia lists the media ids a template references: view templates and the
// values of picture and illustration elements (defaults included).
func templateMedia(views []model.View) []string {
	var ids []string
	add := func(e *model.Element) {
		if e != nil && e.Value != nil && (e.Type == model.ElementPicture || e.Type == model.ElementIllustration) {
			if id := e.Value.MediaID(); id != "" {
				ids = append(ids, id)
			}
		}
	}
	for _, v := range views {
		if id := v.Template.MediaID(); id != "" {
			ids = append(ids, id)
		}
		for i := range v.Elements {
			add(&v.Elements[i])
		}
		add(v.AddPicture)
		add(v.AddArtwork)
	}
	return ids
}

// decodeTemplate decodes and checks a template body (2.5).
func decodeTemplate(body []byte, store string) (model.Template, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(body, &top); err != nil || top == nil {
		return model.Template{}, badField("", "body must be a JSON template object")
	}
	for _, f := range []string{"name", "productId", "views"} {
		if v, ok := top[f]; !ok || bytes.Equal(bytes.TrimSpace(v), []byte("null")) {
			return model.Template{}, badField(f, "required")
		}
	}
	var t model.Template
	if err := json.Unmarshal(body, &t); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return model.Template{}, badField(te.Field, "must be a JSON %s", te.Type)
		}
		return model.Template{}, badField("", "decoding the template: %v", err)
	}
	if t.ProductID == "" {
		return model.Template{}, badField("productId", "must not be empty")
	}
	if t.Shop != store {
		return model.Template{}, badField("shop", "%q is not the calling store %q", t.Shop, store)
	}
	if err := ValidateViews(t.Views); err != nil {
		return model.Template{}, err
	}
	return t, nil
}
