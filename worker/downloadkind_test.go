package worker_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/worker"
)

// TestDownloadNamesByBytes: a hub that answers the shirt's pdf views with PNG files
// (the Content-Type saying so, or only the magic bytes) gets them stored as ….png with
// type png in the manifest, and nothing under the ….pdf name, in download mode. The
// pdf-simple sleeve, answered correctly, keeps its name.
func TestDownloadNamesByBytes(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, contentType string }{
		{"content type", ""},
		{"magic bytes", "application/octet-stream"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, withMode(worker.ModeDownload))
			if err := e.sim.SetWrongType(hubsim.WrongType{ViewType: "pdf", Serve: "png", ContentType: tt.contentType}); err != nil {
				t.Fatal(err)
			}
			e.start()
			ctx := context.Background()
			o := e.order("W-1", 1001)
			if _, err := e.enq.PushOrder(ctx, store, jobs.OpCreate, o); err != nil {
				t.Fatal(err)
			}
			if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
				t.Fatal(err)
			}
			m := e.manifest("W-1", 1)
			want := map[string]struct{ name, typ, ct string }{
				"front":  {"1001-Team-Shirt-Front.png", "png", "image/png"},
				"back":   {"tshirt-classic-2024-06-01-1001-Back.png", "png", "image/png"},
				"sleeve": {"1001-Team-Shirt-sleeve-Sleeve.pdf", "pdf-simple", "application/pdf"},
			}
			if len(m.Files) != len(want) {
				t.Fatalf("%d files, want %d: %+v", len(m.Files), len(want), m.Files)
			}
			for _, f := range m.Files {
				w := want[f.ViewID]
				if f.Filename != w.name || !strings.HasSuffix(f.Key, "/"+w.name) || f.Type != w.typ || f.ContentType != w.ct {
					t.Errorf("view %s: %s (key %s) type %s content type %s, want %s type %s %s",
						f.ViewID, f.Filename, f.Key, f.Type, f.ContentType, w.name, w.typ, w.ct)
				}
				b := e.object(f.Key)
				isPNG := bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n"))
				if isPNG != (w.typ == "png") {
					t.Errorf("view %s: stored bytes start %q for type %s", f.ViewID, b[:min(8, len(b))], f.Type)
				}
				mismatch := false
				for _, wr := range f.Warnings {
					mismatch = mismatch || wr.Code == "type-mismatch"
				}
				if mismatch != (w.typ == "png") {
					t.Errorf("view %s: type-mismatch warning %v: %+v", f.ViewID, mismatch, f.Warnings)
				}
				if w.typ == "png" {
					pdfKey := strings.TrimSuffix(f.Key, ".png") + ".pdf"
					if rc, _, err := e.store.Get(ctx, pdfKey); err == nil {
						rc.Close()
						t.Errorf("view %s: an object under the view type's name %s exists", f.ViewID, pdfKey)
					}
				}
			}
		})
	}
}
