package worker_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/jobs"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/worker"
)

// TestProductionProfiles exports the mug (png views) under a user profile with a
// white plate, a file name pattern, a route and a lowest dpi no picture reaches, and the card
// under sticker-cut: the mug's files go to the profile's route; each file record names its profile and digest; the mug's
// -white.png plates are stored beside their views under reserved names and recorded
// with their checksums; the pictures below the profile's dpi are a warning; the card
// is a PDF/X-4 with a CutContour separation.
func TestProductionProfiles(t *testing.T) {
	if _, err := os.Stat(cmykProfile); err != nil {
		t.Skipf("%s: %v", cmykProfile, err)
	}
	f, err := profiles.Parse([]byte(`{
 "profiles": [{"name": "mug-white", "output": "png", "dpi": 120, "white": {}, "minDpi": 2000, "fileName": "[id]-mug", "route": {"prefix": "sublimation/"}}],
 "rules": [
  {"match": {"product": "mug-11oz"}, "profile": "mug-white"},
  {"match": {"product": "card-a6"}, "profile": "sticker-cut"}
 ]}`))
	if err != nil {
		t.Fatal(err)
	}
	set, err := profiles.Load(f, "", profiles.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, withMode(worker.ModeRender), func(c *worker.Config, _ *worker.Deps) { c.Profiles = set })
	e.start()
	ctx := context.Background()
	o := e.order("P-1", 1002, 1003)
	if _, err := e.enq.PushOrder(ctx, store, jobs.OpCreate, o); err != nil {
		t.Fatal(err)
	}
	if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("P-1", 1)
	if len(m.Files) != 3 {
		t.Fatalf("%d files", len(m.Files))
	}
	names := map[string]bool{}
	for _, f := range m.Files {
		e.checkFile(f)
		names[strings.ToLower(f.Filename)] = true
		switch f.DesignID {
		case 1002:
			want := set.For(store, "mug-11oz", f.ViewID)
			if f.Profile != "mug-white" || f.ProfileDigest != want.Digest || f.Type != "png" || f.DPI != 120 {
				t.Errorf("%s: profile %q digest %q type %s dpi %g", f.Key, f.Profile, f.ProfileDigest, f.Type, f.DPI)
			}
			if !strings.HasPrefix(f.Filename, "1002-mug") {
				t.Errorf("%s: not named by the profile's pattern", f.Filename)
			}
			// The profile's route is a machine folder: the file stays in its order
			// folder and a copy, its white plate beside it, goes to the route.
			if f.Machine == nil || !strings.HasPrefix(f.Machine.Key, "sublimation/") || strings.Contains(strings.TrimPrefix(f.Machine.Key, "sublimation/"), "/") {
				t.Errorf("%s: machine copy %+v, want one at the top of the profile's route", f.Key, f.Machine)
			} else {
				if !bytes.Equal(e.object(f.Machine.Key), e.object(f.Key)) {
					t.Errorf("%s: machine copy differs from the order folder's file", f.Machine.Key)
				}
				if len(f.Machine.Sidecars) != 1 || !strings.HasPrefix(f.Machine.Sidecars[0], "sublimation/") || !strings.HasSuffix(f.Machine.Sidecars[0], "-white.png") {
					t.Errorf("%s: machine sidecars %v, want the white plate beside the copy", f.Machine.Key, f.Machine.Sidecars)
				} else if len(e.object(f.Machine.Sidecars[0])) == 0 {
					t.Errorf("%s: empty machine sidecar", f.Machine.Sidecars[0])
				}
			}
			low := false
			for _, w := range f.Warnings {
				low = low || w.Code == profiles.WarnBelowProfileDPI
			}
			if !low || f.EffectiveDPI <= 0 || f.EffectiveDPI >= 2000 {
				t.Errorf("%s: effective %g dpi, warnings %+v: want the minDpi warning", f.Key, f.EffectiveDPI, f.Warnings)
			}
			if len(f.Sidecars) != 1 {
				t.Fatalf("%s: sidecars %+v, want the white plate", f.Key, f.Sidecars)
			}
			sc := f.Sidecars[0]
			if path.Dir(sc.Key) != path.Dir(f.Key) || !strings.HasSuffix(sc.Filename, "-white.png") || sc.ContentType != "image/png" {
				t.Errorf("sidecar %+v beside %s", sc, f.Key)
			}
			b := e.object(sc.Key)
			sum := sha256.Sum256(b)
			if int64(len(b)) != sc.Bytes || hex.EncodeToString(sum[:]) != sc.SHA256 {
				t.Errorf("sidecar %s: %d bytes %x, record %d %s", sc.Key, len(b), sum, sc.Bytes, sc.SHA256)
			}
			if _, err := png.Decode(bytes.NewReader(b)); err != nil {
				t.Errorf("sidecar %s: %v", sc.Key, err)
			}
			if names[strings.ToLower(sc.Filename)] {
				t.Errorf("sidecar name %s taken twice", sc.Filename)
			}
			names[strings.ToLower(sc.Filename)] = true
		case 1003:
			b := e.object(f.Key)
			if f.Profile != "sticker-cut" || f.Type != "pdf" || !bytes.Contains(b, []byte("/GTS_PDFXVersion (PDF/X-4)")) || !bytes.Contains(b, []byte("/CutContour")) {
				t.Errorf("%s: profile %q type %s: want a PDF/X-4 with a CutContour", f.Key, f.Profile, f.Type)
			}
			if c := f.Colour; c == nil || c.Space != "CMYK" || c.BleedPt < 8.5 || c.BleedPt > 8.51 {
				t.Errorf("%s: colour %+v, want CMYK with a 3 mm bleed", f.Key, c)
			}
		}
	}
}

// TestRoutingRuleProfile: a routing rule's profile wins over the profiles file's
// choice for the files it routes (the card is a sticker-cut PDF/X-4 with its
// CutContour in the Roland folder, though the profiles file says press-pdfx4); a file
// no such rule routes keeps the profiles file's choice (the mug, web-png); the worker
// refuses routing rules naming a profile it has not loaded.
func TestRoutingRuleProfile(t *testing.T) {
	if _, err := os.Stat(cmykProfile); err != nil {
		t.Skipf("%s: %v", cmykProfile, err)
	}
	f, err := profiles.Parse([]byte(`{"rules": [{"match": {"product": "card-a6"}, "profile": "press-pdfx4"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	rules := mustRules(t, `{"rules": [{"name": "roland", "match": {"product": "card-a6", "type": "pdf"}, "prefix": "roland", "profile": "sticker-cut"}]}`)
	set, err := profiles.Load(f, "", profiles.Options{}, rules.Profiles()...)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := worker.New(worker.Config{Routing: rules}, worker.Deps{}); err == nil || !strings.Contains(err.Error(), `routing rules name profile "sticker-cut"`) {
		t.Errorf("New with an unloaded routing profile: %v", err)
	}
	e := newEnv(t, withMode(worker.ModeRender), func(c *worker.Config, _ *worker.Deps) { c.Profiles, c.Routing = set, rules })
	e.start()
	ctx := context.Background()
	o := e.order("R-1", 1002, 1003)
	if _, err := e.enq.PushOrder(ctx, store, jobs.OpCreate, o); err != nil {
		t.Fatal(err)
	}
	if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("R-1", 1)
	if len(m.Files) != 3 {
		t.Fatalf("%d files", len(m.Files))
	}
	sticker, _ := set.Named(profiles.StickerCut)
	for _, f := range m.Files {
		e.checkFile(f)
		switch f.DesignID {
		case 1002:
			if f.Profile != profiles.WebPNG || f.Machine != nil {
				t.Errorf("%s: profile %q machine %+v, want web-png and no machine copy", f.Key, f.Profile, f.Machine)
			}
		case 1003:
			if f.Profile != profiles.StickerCut || f.ProfileDigest != sticker.Digest || f.Type != "pdf" {
				t.Errorf("%s: profile %q digest %q type %s, want the routing rule's sticker-cut", f.Key, f.Profile, f.ProfileDigest, f.Type)
			}
			if f.Machine == nil || !strings.HasPrefix(f.Machine.Key, "roland/") {
				t.Fatalf("%s: machine copy %+v, want one in roland/", f.Key, f.Machine)
			}
			if b := e.object(f.Machine.Key); !bytes.Contains(b, []byte("/CutContour")) || !bytes.Contains(b, []byte("/GTS_PDFXVersion (PDF/X-4)")) {
				t.Errorf("%s: not a PDF/X-4 with a CutContour", f.Machine.Key)
			}
		}
	}
}

// TestProfileSlugText: a profile's slug text is written in each file's slug with the
// file's own order, line, view and profile: pdftotext reads it in the stored PDF.
func TestProfileSlugText(t *testing.T) {
	if _, err := os.Stat(cmykProfile); err != nil {
		t.Skipf("%s: %v", cmykProfile, err)
	}
	needShopTools(t, "pdftotext")
	f, err := profiles.Parse([]byte(`{
 "profiles": [{"name": "press-slug", "output": "pdf", "colour": {"profile": "default-cmyk"},
   "page": {"bleed": "3mm", "cropMarks": true, "slugText": "[order] line [line] [view] [profile] [date]"}}],
 "default": "press-slug"}`))
	if err != nil {
		t.Fatal(err)
	}
	set, err := profiles.Load(f, "", profiles.Options{})
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, withMode(worker.ModeRender), func(c *worker.Config, _ *worker.Deps) { c.Profiles = set })
	e.start()
	ctx := context.Background()
	o := e.order("S-1", 1002, 1003)
	if _, err := e.enq.PushOrder(ctx, store, jobs.OpCreate, o); err != nil {
		t.Fatal(err)
	}
	if _, err := e.enq.ExportOrder(ctx, store, o); err != nil {
		t.Fatal(err)
	}
	m := e.manifest("S-1", 1)
	if len(m.Files) != 3 {
		t.Fatalf("%d files", len(m.Files))
	}
	for _, f := range m.Files {
		line := 1
		if f.DesignID == 1003 {
			line = 2
		}
		want := fmt.Sprintf("S-1 line %d %s press-slug 2024-06-01", line, f.ViewName)
		path := filepath.Join(t.TempDir(), "f.pdf")
		if err := os.WriteFile(path, e.object(f.Key), 0o644); err != nil {
			t.Fatal(err)
		}
		out, err := exec.Command("pdftotext", path, "-").Output()
		if err != nil {
			t.Fatalf("pdftotext %s: %v", f.Key, err)
		}
		if got := strings.Join(strings.Fields(string(out)), " "); !strings.Contains(got, want) {
			t.Errorf("%s: text %q lacks the slug %q", f.Key, got, want)
		}
	}
}
