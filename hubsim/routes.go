package hubsim

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/printworker/printworker/hub"
)

// versions the simulator serves; every resource exists under each (hub-gaps.md).
var versions = [...]hub.Version{hub.V1, hub.V2022, hub.V2023}

func (s *Server) routes() {
	m := http.NewServeMux()
	for _, v := range versions {
		ob := hub.OrderPath(v, "")
		m.Handle("POST "+ob, s.signed(v, orderCreateParts, s.createOrder))
		m.Handle("POST "+ob+"/{id}", s.signed(v, pathParts("id"), s.updateOrder))
		m.Handle("DELETE "+ob+"/{id}", s.signed(v, pathParts("id"), s.deleteOrder))

		tb := hub.TemplatePath(v, "")
		m.Handle("GET "+tb, s.signed(v, pathParts(), s.listTemplates))
		m.Handle("POST "+tb, s.signed(v, pathParts(), s.createTemplate))
		m.Handle("GET "+tb+"/{tid}", s.signed(v, pathParts("tid"), s.getTemplate))
		m.Handle("POST "+tb+"/{tid}", s.signed(v, pathParts("tid"), s.updateTemplate))
		m.Handle("DELETE "+tb+"/{tid}", s.signed(v, pathParts("tid"), s.deleteTemplate))

		details, all, view := designPatterns(v)
		m.Handle("GET "+details, s.signed(v, pathParts("id", "token"), s.getDesign))
		m.Handle("GET "+all, s.signed(v, pathParts("id", "token"), s.exportAll))
		m.Handle("GET "+view, s.signed(v, pathParts("id", "token", "view"), s.exportView))
	}
	mp := strings.ReplaceAll(s.cfg.MediaPath, "{_id}", "{id}")
	m.HandleFunc("GET "+mp, s.serveMedia)
	m.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.Method+" "+r.URL.Path, "")
	})
	s.mux = m
}

// designPatterns returns the mux patterns of design details, export all and export one
// view for v (spec 4.3 rule 2).
func designPatterns(v hub.Version) (details, all, view string) {
	switch v {
	case hub.V1:
		b := "/v1/configuration/{id}/{token}"
		return b, b + "/export", b + "/view/{view}/export"
	case hub.V2022:
		return "/2022-08/customizations/{id}/{token}", "/2022-08/export/{id}/{token}", "/2022-08/export/{id}/{token}/view/{view}"
	}
	p := "/" + string(v)
	return p + "/designs/{id}/{token}", p + "/export/{id}/{token}", p + "/export/{id}/{token}/view/{view}"
}

// partsFunc returns the verification string parts after the store ID; an error means
// the request cannot name what it signs (a create body without orderId).
type partsFunc func(r *http.Request) ([]string, error)

// pathParts signs the store ID followed by the named path values.
func pathParts(names ...string) partsFunc {
	return func(r *http.Request) ([]string, error) {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = r.PathValue(n)
		}
		return out, nil
	}
}

// orderCreateParts signs store + orderId; on create the orderId is only in the body,
// which is buffered before (see bufferBody).
func orderCreateParts(r *http.Request) ([]string, error) {
	var o struct {
		OrderID *string `json:"orderId"`
	}
	if err := json.Unmarshal(bodyOf(r), &o); err != nil {
		return nil, badField("", "body must be a JSON order object")
	}
	if o.OrderID == nil {
		return nil, badField("orderId", "required (it is part of the signature)")
	}
	return []string{*o.OrderID}, nil
}

// call is an authenticated request.
type call struct {
	v     hub.Version
	store *Store
	h     hub.Headers
}

type handlerFunc func(w http.ResponseWriter, r *http.Request, c call)

// signed checks the store, key and signature of the version's headers, then calls h.
// Failures answer 401 (missing header, unknown store or key, bad signature) or 403
// (known but disabled key) with a JSON error.
func (s *Server) signed(v hub.Version, parts partsFunc, h handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := bufferBody(r, s.cfg.MaxBody); err != nil {
			status := http.StatusBadRequest
			if errors.Is(err, errTooLarge) {
				status = http.StatusRequestEntityTooLarge
			}
			writeError(w, status, err.Error(), "")
			return
		}
		hd := s.Headers(v)
		storeID, key, sig := r.Header.Get(hd.Store), r.Header.Get(hd.APIKey), r.Header.Get(hd.Signature)
		for _, m := range []struct{ name, val string }{{hd.Store, storeID}, {hd.APIKey, key}, {hd.Signature, sig}} {
			if m.val == "" {
				writeError(w, http.StatusUnauthorized, "missing header "+m.name, "")
				return
			}
		}
		st, k, ok := s.lookupKey(storeID, key)
		if st == nil {
			writeError(w, http.StatusUnauthorized, "unknown store", "")
			return
		}
		if !ok {
			writeError(w, http.StatusUnauthorized, "unknown API key for this store", "")
			return
		}
		signed, err := parts(r)
		if err != nil {
			writeValidation(w, err)
			return
		}
		if !hub.VerifySignature(k.Secret, s.cfg.Encoding, sig, append([]string{storeID}, signed...)...) {
			writeError(w, http.StatusUnauthorized, "invalid signature", "")
			return
		}
		if k.Disabled {
			writeError(w, http.StatusForbidden, "API key is disabled", "")
			return
		}
		entry(r).SignatureOK = true
		h(w, r, call{v: v, store: st, h: hd})
	})
}

// lookupKey finds the store and a copy of its key (keys can be disabled at run time).
func (s *Server) lookupKey(storeID, key string) (*Store, Key, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stores[storeID]
	if st == nil {
		return nil, Key{}, false
	}
	for _, k := range st.Keys {
		if k.Key == key {
			return st, k, true
		}
	}
	return st, Key{}, false
}

// SetKeyDisabled disables or re-enables a store's API key at run time.
func (s *Server) SetKeyDisabled(storeID, key string, disabled bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.stores[storeID]; st != nil {
		for i := range st.Keys {
			if st.Keys[i].Key == key {
				st.Keys[i].Disabled = disabled
				return nil
			}
		}
	}
	return fmt.Errorf("hubsim: store %q has no key %q", storeID, key)
}

// bodyBuf is a request body read whole (bounded) so that signing can look into it
// before the handler decodes it.
type bodyBuf struct {
	*bytes.Reader
	b []byte
}

func (bodyBuf) Close() error { return nil }

var errTooLarge = errors.New("request body too large")

func bufferBody(r *http.Request, max int64) error {
	if r.Body == nil || r.Body == http.NoBody {
		r.Body = bodyBuf{Reader: bytes.NewReader(nil)}
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, max+1))
	if err != nil {
		return fmt.Errorf("reading the body: %w", err)
	}
	if int64(len(b)) > max {
		return fmt.Errorf("%w (%d bytes)", errTooLarge, max)
	}
	r.Body = bodyBuf{Reader: bytes.NewReader(b), b: b}
	return nil
}

// bodyOf returns the buffered body.
func bodyOf(r *http.Request) []byte {
	if b, ok := r.Body.(bodyBuf); ok {
		return b.b
	}
	return nil
}
