package hubsim

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// Server is the simulated hub. It is safe for concurrent use.
type Server struct {
	cfg    Config
	log    *slog.Logger
	faults *injector
	knobs  knobs // WrongType and ListWithoutIDs (knobs.go)
	mux    *http.ServeMux

	mu        sync.Mutex
	stores    map[string]*Store
	orders    map[orderKey]*StoredOrder
	templates map[string][]*StoredTemplate  // by store, in creation order
	designs   map[int64]*model.DesignDetail // by configurationId
	media     map[string]*mediaFile         // by media _id
	// exports holds the stored-exports folder of each loaded design.
	exports   map[int64]fs.FS
	lastTplID int
	reqs      []LoggedRequest
}

// New builds a simulator from cfg, loading cfg.DesignsFS and cfg.DesignsDir when set.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	s := &Server{
		cfg:       cfg,
		log:       cfg.Logger,
		faults:    newInjector(cfg.Faults),
		stores:    map[string]*Store{},
		orders:    map[orderKey]*StoredOrder{},
		templates: map[string][]*StoredTemplate{},
		designs:   map[int64]*model.DesignDetail{},
		media:     map[string]*mediaFile{},
		exports:   map[int64]fs.FS{},
	}
	for i := range cfg.Stores {
		st := cfg.Stores[i]
		st.Keys = append([]Key(nil), st.Keys...)
		st.Domains = append([]string(nil), st.Domains...)
		s.stores[st.ID] = &st
	}
	if cfg.DesignsFS != nil {
		if _, err := s.LoadDesignsFS(cfg.DesignsFS); err != nil {
			return nil, err
		}
	}
	if cfg.DesignsDir != "" {
		if _, err := s.LoadDesigns(cfg.DesignsDir); err != nil {
			return nil, err
		}
	}
	s.routes()
	return s, nil
}

func (s *Server) knownStore(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stores[id] != nil
}

// SetFaults replaces the fault settings and resets their counters and rate windows.
func (s *Server) SetFaults(f Faults) error {
	if err := f.Validate(); err != nil {
		return err
	}
	s.faults.set(f)
	return nil
}

// Faults returns the fault settings in force (with defaults filled in).
func (s *Server) Faults() Faults { return s.faults.get() }

// Start serves on addr until ctx ends, then shuts down gracefully. It returns the
// bound address (useful with port 0) once listening, and a channel that yields the
// server's final error.
func (s *Server) Start(ctx context.Context, addr string) (net.Addr, <-chan error, error) {
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("hubsim: listen %s: %w", addr, err)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() {
		err := srv.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		done <- err
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	return ln.Addr(), done, nil
}

// LoggedRequest is one entry of the request log.
type LoggedRequest struct {
	Time    time.Time
	Method  string
	Path    string
	Query   string
	Version hub.Version // "" for media and unknown paths
	Store   string      // as sent in the version's store header
	Key     string      // as sent in the version's API key header
	// SignatureOK is true when the store, key and signature were all accepted.
	SignatureOK bool
	// Status is the answer's status: 0 when the connection was dropped before
	// handling, the handler's status when it was dropped or truncated after, 499 when
	// the caller left during added latency.
	Status int
	// Fault names the injected fault: "", "error", "fail-first", "rate-limit", "drop",
	// "truncate".
	Fault    string
	Duration time.Duration
}

// Requests returns a copy of the request log, oldest first.
func (s *Server) Requests() []LoggedRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]LoggedRequest(nil), s.reqs...)
}

// ResetRequests empties the request log.
func (s *Server) ResetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reqs = nil
}

func (s *Server) logRequest(e LoggedRequest) {
	s.mu.Lock()
	if len(s.reqs) >= s.cfg.MaxLogged {
		n := copy(s.reqs, s.reqs[len(s.reqs)-s.cfg.MaxLogged+1:])
		s.reqs = s.reqs[:n]
	}
	s.reqs = append(s.reqs, e)
	s.mu.Unlock()
	s.log.Info("hubsim request", "method", e.Method, "path", e.Path, "version", string(e.Version),
		"store", e.Store, "status", e.Status, "signature_ok", e.SignatureOK, "fault", e.Fault,
		"duration", e.Duration)
}

// Headers returns the authentication header names the simulator expects for v.
func (s *Server) Headers(v hub.Version) hub.Headers { return hub.HeadersFor(v, s.cfg.Words[v]) }

type entryKey struct{}

// entry returns the log entry of the request being served.
func entry(r *http.Request) *LoggedRequest {
	e, _ := r.Context().Value(entryKey{}).(*LoggedRequest)
	if e == nil {
		return &LoggedRequest{}
	}
	return e
}

// ServeHTTP applies faults, routes the request, and logs it. The log entry is written
// before the answer leaves, so a caller that got an answer (or lost its connection)
// finds its request in Requests().
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := s.cfg.Now()
	e := &LoggedRequest{Time: start, Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery}
	first, _, _ := strings.Cut(strings.TrimPrefix(r.URL.Path, "/"), "/")
	if v, err := hub.ParseVersion(first); err == nil {
		h := s.Headers(v)
		e.Version, e.Store, e.Key = v, r.Header.Get(h.Store), r.Header.Get(h.APIKey)
	}
	logged := func(status int, f fault) {
		e.Status, e.Fault = status, string(f)
		e.Duration = s.cfg.Now().Sub(start)
		s.logRequest(*e)
	}

	if f := s.faults.get(); f.Latency > 0 {
		t := time.NewTimer(f.Latency)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			logged(499, faultNone) // the caller went away (nginx's code for it)
			return
		}
	}
	limited := ""
	if s.knownStore(e.Store) {
		limited = e.Store
	}
	switch f, wait := s.faults.before(limited, r.URL.Path, start); f {
	case faultRateLimit:
		logged(http.StatusTooManyRequests, f)
		w.Header().Set("Retry-After", strconv.Itoa(retryAfterSeconds(wait)))
		writeError(w, http.StatusTooManyRequests, "rate limit exceeded for store "+e.Store, "")
		return
	case faultDrop:
		logged(0, f)
		dropConnection(w)
		return
	case faultError, faultFailFirst:
		status := s.faults.get().ErrorStatus
		logged(status, f)
		writeError(w, status, "injected server error", "")
		return
	}

	rec := &recorder{header: http.Header{}, direct: w}
	s.mux.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), entryKey{}, e)))
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	if rec.streamed {
		// Already sent (Config.StreamExports): nothing is left to spoil.
		logged(rec.status, faultNone)
		return
	}
	switch f := s.faults.after(); f {
	case faultDrop:
		logged(rec.status, f)
		dropConnection(w)
		return
	case faultTruncate:
		if rec.body.Len() > 1 {
			logged(rec.status, f)
			truncate(w, rec)
			return
		}
	}
	logged(rec.status, faultNone)
	for k, vs := range rec.header {
		w.Header()[k] = vs
	}
	w.Header().Set("Content-Length", strconv.Itoa(rec.body.Len()))
	w.WriteHeader(rec.status)
	_, _ = w.Write(rec.body.Bytes())
}

// recorder buffers a handler's answer so faults can spoil it afterwards. Simulator
// answers are small (fixture files), so buffering costs little. A streamed export
// (Config.StreamExports) sets stream: its writes go to direct as they come.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer

	direct   http.ResponseWriter
	stream   bool // pass writes through to direct
	streamed bool // the status and headers went out on direct
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	if r.stream {
		if !r.streamed {
			for k, vs := range r.header {
				r.direct.Header()[k] = vs
			}
			r.direct.WriteHeader(r.status)
			r.streamed = true
		}
		return r.direct.Write(b)
	}
	return r.body.Write(b)
}
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}

// dropConnection closes the connection without answering. Without a hijackable
// connection (HTTP/2) the handler aborts, which resets the stream.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	_ = conn.Close()
}

// truncate sends the status and headers with the full Content-Length, then half the
// body, then closes the connection: the client sees an unexpected EOF mid-body.
func truncate(w http.ResponseWriter, rec *recorder) {
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		for k, vs := range rec.header {
			w.Header()[k] = vs
		}
		w.Header().Set("Content-Length", strconv.Itoa(rec.body.Len()))
		w.WriteHeader(rec.status)
		_, _ = w.Write(rec.body.Bytes()[:rec.body.Len()/2])
		panic(http.ErrAbortHandler)
	}
	defer conn.Close()
	bw := bufio.NewWriter(conn)
	if buf != nil {
		bw = buf.Writer
	}
	fmt.Fprintf(bw, "HTTP/1.1 %d %s\r\n", rec.status, http.StatusText(rec.status))
	rec.header.Set("Content-Length", strconv.Itoa(rec.body.Len()))
	rec.header.Set("Connection", "close")
	_ = rec.header.Write(bw)
	_, _ = bw.WriteString("\r\n")
	_, _ = bw.Write(rec.body.Bytes()[:rec.body.Len()/2])
	_ = bw.Flush()
}

// apiError is the JSON error body of every failure: a message and, for validation
// failures, the path of the offending field (e.g. "billingDetails.zip").
type apiError struct {
	Error string `json:"error"`
	Field string `json:"field,omitempty"`
}

func writeError(w http.ResponseWriter, status int, msg, field string) {
	writeJSON(w, status, apiError{Error: msg, Field: field})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		status = http.StatusInternalServerError
		b = []byte(`{"error":"encoding the answer failed"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(b, '\n'))
}

// fieldError is a validation failure naming the offending field.
type fieldError struct {
	field, msg string
}

func (e *fieldError) Error() string { return e.field + ": " + e.msg }

func badField(field, format string, args ...any) *fieldError {
	return &fieldError{field: field, msg: fmt.Sprintf(format, args...)}
}

// writeValidation answers 400 naming the field.
func writeValidation(w http.ResponseWriter, err error) {
	var fe *fieldError
	if errors.As(err, &fe) {
		writeError(w, http.StatusBadRequest, fe.Error(), fe.field)
		return
	}
	writeError(w, http.StatusBadRequest, err.Error(), "")
}
