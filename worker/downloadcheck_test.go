package worker_test

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hibiken/asynq"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/worker"
)

// wrongExports answers the hub's view exports (not other calls, not S3) with what
// serve makes of the real answer, for the first bad tries of each view (-1: every
// try); the rest go through.
type wrongExports struct {
	next  http.RoundTripper
	serve func(real []byte, ct string) ([]byte, string)
	bad   int
	mu    sync.Mutex
	tries map[string]int
}

func (x *wrongExports) RoundTrip(r *http.Request) (*http.Response, error) {
	if !strings.Contains(r.URL.Path, "/export/") || !strings.Contains(r.URL.Path, "/view/") {
		return x.next.RoundTrip(r)
	}
	x.mu.Lock()
	x.tries[r.URL.Path]++
	n := x.tries[r.URL.Path]
	x.mu.Unlock()
	resp, err := x.next.RoundTrip(r)
	if err != nil || resp.StatusCode != http.StatusOK || (x.bad >= 0 && n > x.bad) {
		return resp, err
	}
	real, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	b, ct := x.serve(real, resp.Header.Get("Content-Type"))
	resp.Body = io.NopCloser(bytes.NewReader(b))
	resp.ContentLength = int64(len(b))
	resp.Header.Set("Content-Length", "")
	resp.Header.Del("Content-Length")
	resp.Header.Set("Content-Type", ct)
	return resp, nil
}

var brokenPDF = []byte("%PDF-1.7\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n")

// pngOf encodes a w x h picture.
func pngOf(t *testing.T, w, h int) []byte {
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewNRGBA(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestDownloadChecked: in download mode, a hub export that is not the view's file
// (an HTML page with status 200, an empty body, a PNG cut short, a PNG of another
// size, a PDF for a PNG view without saying so) is never stored: the export is
// retried, then archived on its DownloadTries-th attempt with a reason that says
// what was wrong, and the order gets no manifest. A hub that answers badly once and
// then well gets its file stored.
func TestDownloadChecked(t *testing.T) {
	t.Parallel()
	html := []byte("<html><body>Service temporarily down</body></html>\n")
	cases := []struct {
		name  string
		serve func(real []byte, ct string) ([]byte, string)
		want  string
	}{
		{"html page", func([]byte, string) ([]byte, string) { return html, "text/html" }, `png file: its first bytes "<html><body>Serv" are no known file type`},
		{"html as png", func([]byte, string) ([]byte, string) { return html, "image/png" }, "png file: its first bytes"},
		{"empty", func([]byte, string) ([]byte, string) { return nil, "image/png" }, "png file: the body is empty"},
		{"cut short", func(real []byte, ct string) ([]byte, string) { return real[:len(real)/2], ct }, "png file: it does not end with the PNG end chunk"},
		{"other size", func(_ []byte, ct string) ([]byte, string) { return pngOf(t, 40, 30), ct }, "png file: it is 40x30 pixels, the view exports"},
		{"pdf bytes", func([]byte, string) ([]byte, string) { return brokenPDF, "image/png" }, "png file: it is a pdf file"},
		// Without a Content-Type the bytes decide (followKind): a PDF, which must parse.
		{"pdf without trailer", func([]byte, string) ([]byte, string) { return brokenPDF, "application/octet-stream" }, "pdf file: it has no startxref"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			x := &wrongExports{serve: c.serve, bad: -1, tries: map[string]int{}}
			e := newEnvWrapped(t, func(next http.RoundTripper) http.RoundTripper { x.next = next; return x }, withMode(worker.ModeDownload))
			e.start()
			ctx := context.Background()
			o := e.order("D-1", 1002)
			if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
				t.Fatal(err)
			}
			info := e.archivedExport()
			if info.Retried != worker.DownloadTries-1 || !strings.Contains(info.LastErr, c.want) ||
				!strings.Contains(info.LastErr, "is not a usable") || !strings.Contains(info.LastErr, "given up") {
				t.Errorf("archived after %d retries: %q, want %d retries and a reason naming %q", info.Retried, info.LastErr, worker.DownloadTries-1, c.want)
			}
			objs, err := e.store.List(ctx, orderDir("D-1"))
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range objs {
				t.Errorf("stored %s (%d bytes)", o.Key, o.Size)
			}
		})
	}
	t.Run("bad once", func(t *testing.T) {
		t.Parallel()
		x := &wrongExports{serve: cases[0].serve, bad: 1, tries: map[string]int{}}
		e := newEnvWrapped(t, func(next http.RoundTripper) http.RoundTripper { x.next = next; return x }, withMode(worker.ModeDownload))
		e.start()
		o := e.order("D-2", 1002)
		if _, err := e.enq.ExportOrder(context.Background(), store, o); err != nil {
			t.Fatal(err)
		}
		m := e.manifest("D-2", 1)
		if len(m.Files) != 2 {
			t.Fatalf("%d files, want 2", len(m.Files))
		}
		for _, f := range m.Files {
			b := e.object(f.Key)
			cfg, err := png.DecodeConfig(bytes.NewReader(b))
			if err != nil || cfg.Width != f.WidthPx || cfg.Height != f.HeightPx {
				t.Errorf("%s: %v, %dx%d, manifest %dx%d", f.Key, err, cfg.Width, cfg.Height, f.WidthPx, f.HeightPx)
			}
		}
	})
}

// archivedExport waits for an export task to be archived and returns it.
func (e *env) archivedExport() *asynq.TaskInfo {
	e.t.Helper()
	deadline := time.Now().Add(waitBound)
	for {
		for _, q := range jobs.ExportQueues(e.cfg.ExportShards) {
			tasks, err := e.insp.ListArchivedTasks(q)
			if err == nil && len(tasks) > 0 {
				return tasks[0]
			}
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("no export archived: %s", e.queueReport())
		}
		time.Sleep(20 * time.Millisecond)
	}
}
