package render

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/printworker/printworker/model"
)

// Two views with one id are a permanent error naming the id, wherever a view is chosen
// (before, the second printed the first view twice).
func TestDuplicateViewIDs(t *testing.T) {
	t.Parallel()
	r := newRenderer(t, Options{})
	for _, typ := range []string{model.ExportPNG, model.ExportPDF} {
		d := multiView(t, typ)
		d.Views[0].ID = d.Views[1].ID // both "front"
		check := func(what string, err error) {
			t.Helper()
			var ie *InputError
			if !errors.As(err, &ie) || ie.Retryable() || !strings.Contains(err.Error(), `two views with id "front"`) {
				t.Errorf("%s %s: err = %v, want a permanent InputError naming the id", typ, what, err)
			}
		}
		var buf bytes.Buffer
		_, err := r.RenderView(context.Background(), d, "front", DirSource(mediaDir), &buf)
		check("RenderView", err)
		_, err = r.RenderAll(context.Background(), d, DirSource(mediaDir), &buf)
		check("RenderAll", err)
		_, err = r.Plan(d, "front")
		check("Plan", err)
		_, err = r.PrepareView(context.Background(), d, "front", DirSource(mediaDir))
		check("PrepareView", err)
		check("CheckViews", CheckViews(d))
		if buf.Len() != 0 {
			t.Errorf("%s: wrote %d bytes", typ, buf.Len())
		}
	}
	if err := CheckViews(multiView(t, model.ExportPNG)); err != nil {
		t.Errorf("distinct ids: %v", err)
	}
}
