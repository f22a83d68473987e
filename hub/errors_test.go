package hub_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

func TestStatusClassification(t *testing.T) {
	cases := []struct {
		status    int
		retryable bool
	}{
		{400, false}, {401, false}, {403, false}, {404, false}, {405, false}, {409, false},
		{410, false}, {413, false}, {422, false}, {302, false},
		{408, true}, {425, true}, {429, true}, {500, true}, {502, true}, {503, true}, {504, true}, {599, true},
	}
	// Multi-byte and long: the reason kept is printable ASCII, cut to 160 bytes.
	long := strings.Repeat("é", 2000)
	for _, tc := range cases {
		t.Run(fmt.Sprint(tc.status), func(t *testing.T) {
			f := newFakeHub(t)
			f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, `{"error":"`+long+`"}`)
			})
			_, err := f.client(t, hub.V2023).GetDesign(context.Background(), testRef)
			var he *hub.Error
			if !errors.As(err, &he) {
				t.Fatalf("err = %v, want *hub.Error", err)
			}
			if he.Status != tc.status || he.Retryable() != tc.retryable || !hub.IsStatus(err, tc.status) {
				t.Errorf("status %d retryable %v, want %d %v", he.Status, he.Retryable(), tc.status, tc.retryable)
			}
			if he.Op != hub.OpGetDesign || he.Method != "GET" || !strings.HasSuffix(he.URL, "/2023-10/designs/1042/3fa8…") {
				t.Errorf("op %q method %q url %q", he.Op, he.Method, he.URL)
			}
			if len(he.Body) != 160 || !strings.HasPrefix(he.Body, "???") || !strings.HasSuffix(he.Body, "...") || strings.Contains(he.Body, `"error"`) {
				t.Errorf("body excerpt %d bytes: %.40q", len(he.Body), he.Body)
			}
			if hub.IsStatus(err, tc.status+1) {
				t.Error("IsStatus matched another status")
			}
		})
	}
	if hub.IsStatus(errors.New("plain"), 404) || hub.IsStatus(nil, 404) {
		t.Error("IsStatus matched a non-hub error")
	}
}

func TestRetryAfter(t *testing.T) {
	future := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
	past := time.Now().Add(-time.Hour).UTC().Format(http.TimeFormat)
	cases := []struct {
		name     string
		status   int
		header   string
		min, max time.Duration
	}{
		{"seconds", 429, "120", 120 * time.Second, 120 * time.Second},
		{"zero", 429, "0", 0, 0},
		{"negative", 429, "-5", 0, 0},
		{"http date", 429, future, 59 * time.Minute, time.Hour},
		{"past date", 503, past, 0, 0},
		{"garbage", 429, "soon", 0, 0},
		{"absent", 429, "", 0, 0},
		{"on 503", 503, "7", 7 * time.Second, 7 * time.Second},
		{"absurd seconds are capped", 429, "999999999999", 24 * time.Hour, 24 * time.Hour},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeHub(t)
			f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
				if tc.header != "" {
					w.Header().Set("Retry-After", tc.header)
				}
				w.WriteHeader(tc.status)
			})
			err := f.client(t, hub.V2022).DeleteTemplate(context.Background(), "tpl-1")
			var he *hub.Error
			if !errors.As(err, &he) || !he.Retryable() {
				t.Fatalf("err = %v, want a retryable *hub.Error", err)
			}
			if d := he.RetryAfter(); d < tc.min || d > tc.max {
				t.Errorf("RetryAfter = %s, want in [%s, %s]", d, tc.min, tc.max)
			}
			// The worker reaches it through an interface, as docs/architecture.md says.
			var ra interface{ RetryAfter() time.Duration }
			if !errors.As(fmt.Errorf("job: %w", err), &ra) || ra.RetryAfter() != he.Retry {
				t.Error("RetryAfter not reachable through wrapping")
			}
		})
	}
}

func TestNetworkAndContextErrors(t *testing.T) {
	ctx := context.Background()

	t.Run("connection refused", func(t *testing.T) {
		f := newFakeHub(t)
		c := f.client(t, hub.V2022)
		f.srv.Close()
		err := c.CreateOrder(ctx, testOrder(t))
		var he *hub.Error
		if !errors.As(err, &he) || he.Status != 0 || !he.Retryable() || he.Op != hub.OpCreateOrder {
			t.Errorf("err = %v, want retryable network error", err)
		}
	})

	t.Run("dropped connection", func(t *testing.T) {
		f := newFakeHub(t)
		f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		})
		_, err := f.client(t, hub.V2022).ListTemplates(ctx, 0)
		var he *hub.Error
		if !errors.As(err, &he) || he.Status != 0 || !he.Retryable() {
			t.Errorf("err = %v, want retryable network error", err)
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		f := newFakeHub(t)
		arrived := make(chan struct{})
		f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
			close(arrived)
			<-r.Context().Done()
		})
		cctx, cancel := context.WithCancel(ctx)
		go func() {
			<-arrived // cancel once the request has reached the hub
			cancel()
		}()
		_, err := f.client(t, hub.V2023).GetDesign(cctx, testRef)
		var he *hub.Error
		if !errors.As(err, &he) || he.Retryable() || !errors.Is(err, context.Canceled) {
			t.Errorf("err = %v, want a permanent cancelled error", err)
		}
	})

	t.Run("per-call timeout", func(t *testing.T) {
		f := newFakeHub(t)
		f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) { <-r.Context().Done() })
		c := f.client(t, hub.V2023, func(cfg *hub.Config) { cfg.Timeout = 20 * time.Millisecond })
		for name, call := range map[string]func() error{
			"json":   func() error { _, err := c.GetDesign(ctx, testRef); return err },
			"export": func() error { _, err := c.ExportDesign(ctx, testRef); return err },
		} {
			err := call()
			var he *hub.Error
			if !errors.As(err, &he) || !he.Retryable() || !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%s: err = %v, want a retryable deadline error", name, err)
			}
		}
	})
}

// hijackWrite answers with raw bytes and closes the connection: the way to send a
// body shorter than its Content-Length.
func hijackWrite(w http.ResponseWriter, raw string) {
	conn, buf, err := w.(http.Hijacker).Hijack()
	if err != nil {
		return
	}
	_, _ = buf.WriteString(raw)
	_ = buf.Flush()
	conn.Close()
}

func TestJSONAnswers(t *testing.T) {
	design := string(fixture("design.json"))
	cases := []struct {
		name      string
		answer    func(w http.ResponseWriter)
		cap       int64
		is        error
		retryable bool
		msg       string
	}{
		{name: "too large, announced", cap: 1024, is: hub.ErrTooLarge, msg: "announced",
			answer: func(w http.ResponseWriter) {
				w.Header().Set("Content-Length", fmt.Sprint(len(design)))
				_, _ = io.WriteString(w, design)
			}},
		{name: "too large, chunked", cap: 1024, is: hub.ErrTooLarge, msg: "more than 1024 bytes",
			answer: func(w http.ResponseWriter) {
				for i := 0; i < len(design); i += 100 {
					_, _ = io.WriteString(w, design[i:min(i+100, len(design))])
					w.(http.Flusher).Flush()
				}
			}},
		{name: "truncated against Content-Length", is: io.ErrUnexpectedEOF, retryable: true,
			answer: func(w http.ResponseWriter) {
				hijackWrite(w, fmt.Sprintf("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(design), design[:300]))
			}},
		{name: "truncated JSON, complete HTTP", is: io.ErrUnexpectedEOF, retryable: true, msg: "body ends after 300 bytes",
			answer: func(w http.ResponseWriter) { _, _ = io.WriteString(w, design[:300]) }},
		{name: "HTML instead of JSON", is: hub.ErrBadResponse, msg: "expected a JSON object",
			answer: func(w http.ResponseWriter) { _, _ = io.WriteString(w, "<html>maintenance</html>") }},
		{name: "wrong shape", is: hub.ErrBadResponse, msg: "configurationId",
			answer: func(w http.ResponseWriter) { _, _ = io.WriteString(w, `{"configurationId":"x"}`) }},
		{name: "empty body", is: hub.ErrBadResponse,
			answer: func(w http.ResponseWriter) {}},
		{name: "array", is: hub.ErrBadResponse, msg: "expected a JSON object",
			answer: func(w http.ResponseWriter) { _, _ = io.WriteString(w, `[1,2]`) }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeHub(t)
			f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) { tc.answer(w) })
			c := f.client(t, hub.V2023, func(cfg *hub.Config) { cfg.MaxJSONBytes = tc.cap })
			d, err := c.GetDesign(context.Background(), testRef)
			var he *hub.Error
			if !errors.As(err, &he) || !errors.Is(err, tc.is) || he.Retryable() != tc.retryable {
				t.Fatalf("GetDesign = %v, %v; want an error wrapping %v, retryable %v", d, err, tc.is, tc.retryable)
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.Contains(err.Error(), "design.get") {
				t.Errorf("error %q does not say %q", err, tc.msg)
			}
		})
	}
}

func TestRedirectsStayOnHost(t *testing.T) {
	var leaked bool
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		leaked = r.Header.Get("X-Service-Api-Signature") != ""
	}))
	defer other.Close()
	f := newFakeHub(t)
	f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
		http.Redirect(w, r, other.URL+"/steal", http.StatusFound)
	})
	_, err := f.client(t, hub.V2023).GetDesign(context.Background(), testRef)
	if leaked {
		t.Fatal("signed headers followed a redirect to another host")
	}
	var he *hub.Error
	if !errors.As(err, &he) || he.Status != http.StatusFound || he.Retryable() {
		t.Errorf("err = %v, want a permanent 302", err)
	}
}

// TestInvalidArgumentsArePermanent: arguments that cannot make a request fail before
// sending, with a classified, permanent error (an unclassified error would be retried).
func TestInvalidArgumentsArePermanent(t *testing.T) {
	f := newFakeHub(t)
	c := f.client(t, hub.V2023)
	ctx := context.Background()
	badRef := model.DesignRef{ID: 5, Token: "../x"}
	cases := map[string]func() error{
		"list negative skip": func() error { _, err := c.ListTemplates(ctx, -1); return err },
		"get empty id":       func() error { _, err := c.GetTemplate(ctx, ""); return err },
		"create nil":         func() error { return c.CreateTemplate(ctx, nil) },
		"update empty id":    func() error { return c.UpdateTemplate(ctx, "", &model.Template{}) },
		"delete empty id":    func() error { return c.DeleteTemplate(ctx, "") },
		"design bad ref":     func() error { _, err := c.GetDesign(ctx, badRef); return err },
		"export bad ref":     func() error { _, err := c.ExportDesign(ctx, model.DesignRef{}); return err },
		"view bad ref":       func() error { _, err := c.ExportView(ctx, badRef, "front"); return err },
		"view empty id":      func() error { _, err := c.ExportView(ctx, testRef, ""); return err },
		"media without id":   func() error { _, err := c.OpenMedia(ctx, model.Media{Token: "t"}); return err },
	}
	for name, call := range cases {
		err := call()
		var he *hub.Error
		if !errors.As(err, &he) || he.Retryable() || !errors.Is(err, hub.ErrInvalidRequest) {
			t.Errorf("%s: %v, want a permanent ErrInvalidRequest", name, err)
		}
	}
	for name, call := range map[string]func() error{
		"create order nil":        func() error { return c.CreateOrder(ctx, nil) },
		"update order no id":      func() error { return c.UpdateOrder(ctx, &model.Order{}) },
		"delete order no id":      func() error { return c.DeleteOrder(ctx, "", "shop.example.com") },
		"delete order bad domain": func() error { return c.DeleteOrder(ctx, "1", "a\nb") },
		"push update nil order":   func() error { _, err := c.PushOrderUpdate(ctx, nil); return err },
	} {
		var ve *hub.ValidationError
		if err := call(); !errors.As(err, &ve) || ve.Retryable() {
			t.Errorf("%s: %v, want a *ValidationError", name, err)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests sent for invalid arguments", n)
	}
}

func TestRedirectLoopIsPermanent(t *testing.T) {
	f := newFakeHub(t)
	f.setRespond(func(w http.ResponseWriter, r *http.Request, s seen) {
		http.Redirect(w, r, r.URL.String(), http.StatusTemporaryRedirect)
	})
	_, err := f.client(t, hub.V2023).GetDesign(context.Background(), testRef)
	var he *hub.Error
	if !errors.As(err, &he) || he.Retryable() || !strings.Contains(err.Error(), "redirects") {
		t.Errorf("err = %v, want a permanent redirect-loop error", err)
	}
	if n := len(f.requests()); n != 5 {
		t.Errorf("%d requests, want 5", n)
	}
}
