package worker_test

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/worker"
)

const cmykProfile = "/usr/share/color/icc/ghostscript/default_cmyk.icc"

// TestColourSettings exports an order of the mug (png views) and the card
// (pdf-simple) with per-product colour settings: the mug's views become CMYK TIFFs
// (.tif), the card a PDF/X-4 with a 3 mm bleed; every file record says its colour
// space, profile and checksum, intent, trim, bleed and ink, and the manifest's
// colour space sums them up.
func TestColourSettings(t *testing.T) {
	t.Parallel()
	icc, err := os.ReadFile(cmykProfile)
	if err != nil {
		t.Skipf("%s: %v", cmykProfile, err)
	}
	limit := 280.0
	set, err := render.PrintConfig{
		Products: map[string]render.PrintSettings{
			"mug-11oz": {Profile: cmykProfile, Raster: "tiff", InkLimit: &limit},
			"card-a6":  {Profile: cmykProfile, Intent: "perceptual", Bleed: "3mm"},
		},
	}.Load()
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, withMode(worker.ModeRender), func(c *worker.Config, _ *worker.Deps) { c.Print = set })
	e.start()
	ctx := context.Background()
	o := e.order("C-1", 1002, 1003)
	if _, err := e.enq.PushOrder(ctx, store, jobs.OpCreate, o); err != nil {
		t.Fatal(err)
	}
	if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("C-1", 1)
	if m.ColorSpace != "CMYK" || m.ColorProfile == "" {
		t.Errorf("manifest colour %q %q", m.ColorSpace, m.ColorProfile)
	}
	if len(m.Files) != 3 {
		t.Fatalf("%d files", len(m.Files))
	}
	for _, f := range m.Files {
		e.checkFile(f)
		c := f.Colour
		if c == nil || c.Space != "CMYK" || c.Profile == "" || len(c.SHA256) != 64 || c.MaxInkPercent <= 0 {
			t.Errorf("%s: colour %+v", f.Key, c)
			continue
		}
		b := e.object(f.Key)
		switch {
		case strings.HasSuffix(f.Key, ".tif"):
			if f.Type != render.ExportTIFF || f.ContentType != render.ContentTypeTIFF || !bytes.Contains(b, icc) {
				t.Errorf("%s: %s %s, profile embedded %v", f.Key, f.Type, f.ContentType, bytes.Contains(b, icc))
			}
			if c.InkLimitPercent != 280 || c.MaxInkPercent > 280 || c.BleedPt != 0 {
				t.Errorf("%s: ink %v of limit %v, bleed %v", f.Key, c.MaxInkPercent, c.InkLimitPercent, c.BleedPt)
			}
		case strings.HasSuffix(f.Key, ".pdf"):
			if c.Intent != "perceptual" || c.TrimWidthPt != 420 || c.BleedPt < 8.5 || c.BleedPt > 8.51 || !bytes.Contains(b, []byte("/GTS_PDFXVersion (PDF/X-4)")) {
				t.Errorf("%s: %+v", f.Key, c)
			}
			if f.PageWidthPt < 436.9 || f.PageWidthPt > 437.1 {
				t.Errorf("%s: page %v pt wide, want trim 420 + 2 x 3 mm", f.Key, f.PageWidthPt)
			}
		default:
			t.Errorf("unexpected file %s", f.Key)
		}
	}
}
