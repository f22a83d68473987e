package profiles

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/filenames"
	"github.com/printworker/printworker/render"
)

// cmykOpts finds the machine's CMYK profile the built-ins use; without it the test
// skips, and fails under CI (which installs libgs-common).
func cmykOpts(t *testing.T) Options {
	t.Helper()
	if _, err := FindCMYK(CMYKCandidates()); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%v (.ci/run installs libgs-common)", err)
		}
		t.Skipf("%v", err)
	}
	return Options{}
}

func TestBuiltinsResolve(t *testing.T) {
	t.Parallel()
	o := cmykOpts(t)
	for _, tc := range []struct {
		name        string
		typeOf      map[string]string // view type -> file type
		cmyk, marks bool
		bleedMM     float64
		cut, white  bool
		dpi         float64
	}{
		{name: PressPDFX4, typeOf: map[string]string{"png": "pdf", "pdf-simple": "pdf"}, cmyk: true, marks: true, bleedMM: 3},
		{name: PodPDFX4, typeOf: map[string]string{"png": "pdf", "pdf": "pdf"}, cmyk: true, bleedMM: 4},
		{name: StickerCut, typeOf: map[string]string{"png": "pdf"}, cmyk: true, bleedMM: 3, cut: true},
		{name: DTFWhite, typeOf: map[string]string{"pdf": "png"}, white: true, dpi: 300},
		{name: WebPNG, typeOf: map[string]string{"png": "png", "pdf": "pdf", "pdf-simple": "pdf-simple"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, ok := Builtin(tc.name)
			if !ok {
				t.Fatalf("no built-in %s", tc.name)
			}
			r, err := Resolve(p, o)
			if err != nil {
				t.Fatal(err)
			}
			for in, want := range tc.typeOf {
				if got := r.ExportType(in); got != want {
					t.Errorf("view type %s -> %s, want %s", in, got, want)
				}
			}
			pr := r.Print
			if got := pr.CMYK(); got != tc.cmyk {
				t.Errorf("CMYK %v, want %v", got, tc.cmyk)
			}
			if pr != nil {
				if mm := pr.BleedPt * 25.4 / 72; mm < tc.bleedMM-0.001 || mm > tc.bleedMM+0.001 {
					t.Errorf("bleed %.3f mm, want %g", mm, tc.bleedMM)
				}
				if pr.CropMarks != tc.marks {
					t.Errorf("crop marks %v, want %v", pr.CropMarks, tc.marks)
				}
				if (pr.Cut != nil) != tc.cut || (pr.White != nil) != tc.white {
					t.Errorf("cut %v white %v, want %v %v", pr.Cut != nil, pr.White != nil, tc.cut, tc.white)
				}
				if tc.cut && (pr.Cut.Source != render.CutSourceAlpha || pr.Cut.OffsetPt < 4.25 || pr.Cut.OffsetPt > 4.26) {
					t.Errorf("cut %+v, want the alpha outline 1.5 mm (4.25 pt) outside", pr.Cut)
				}
			} else if tc.cmyk || tc.bleedMM > 0 || tc.cut || tc.white {
				t.Errorf("no print settings")
			}
			if got := r.DPI(150); tc.dpi != 0 && got != tc.dpi || tc.dpi == 0 && got != 150 {
				t.Errorf("dpi of a 150 dpi view: %g", got)
			}
			if len(r.Digest) != 64 {
				t.Errorf("digest %q", r.Digest)
			}
		})
	}
}

// TestDigest: the digest is stable, ignores the description and changes with any
// rule.
func TestDigest(t *testing.T) {
	t.Parallel()
	o := cmykOpts(t)
	p, _ := Builtin(PressPDFX4)
	a, err := Resolve(p, o)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Resolve(p, o)
	if a.Digest != b.Digest {
		t.Fatalf("two resolutions: %s and %s", a.Digest, b.Digest)
	}
	q := p
	q.Description = "another text"
	if c, _ := Resolve(q, o); c.Digest != a.Digest {
		t.Errorf("description changed the digest")
	}
	q = p
	q.Page.Bleed = "2mm"
	if c, _ := Resolve(q, o); c.Digest == a.Digest {
		t.Errorf("bleed did not change the digest")
	}
	q = p
	q.Name = "press-b"
	if c, _ := Resolve(q, o); c.Digest == a.Digest {
		t.Errorf("name did not change the digest")
	}
}

// TestMissingCMYKProfile: a CMYK built-in on a machine without the profile is an
// error naming what to install.
func TestMissingCMYKProfile(t *testing.T) {
	t.Parallel()
	p, _ := Builtin(StickerCut)
	_, err := Resolve(p, Options{CMYKCandidates: []string{filepath.Join(t.TempDir(), "none.icc")}})
	if !errors.Is(err, ErrNoCMYKProfile) || !strings.Contains(err.Error(), "libgs-common") || !strings.Contains(err.Error(), "colour.profile") {
		t.Fatalf("got %v, want ErrNoCMYKProfile naming libgs-common and the field", err)
	}
	// The sRGB built-ins need no profile.
	for _, n := range []string{DTFWhite, WebPNG} {
		p, _ := Builtin(n)
		if _, err := Resolve(p, Options{CMYKCandidates: []string{}}); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
}

func TestParseErrorsNameFields(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, doc, want string }{
		{"unknown top", `{"profile": []}`, `unknown field "profile"`},
		{"unknown field", `{"profiles": [{"name": "a", "bleed": "3mm"}]}`, `profiles[0]: unknown field "bleed"`},
		{"type", `{"profiles": [{"name": "a", "colour": {"inkLimit": "300"}}]}`, `profiles[0]: colour.inkLimit: got a JSON string`},
		{"intent", `{"profiles": [{"name": "a", "colour": {"profile": "x.icc", "intent": "vivid"}}]}`, `profiles[0] ("a"): colour.intent: "vivid"`},
		{"bleed", `{"profiles": [{"name": "a", "page": {"bleed": "3"}}]}`, `profiles[0] ("a"): page.bleed`},
		{"output", `{"profiles": [{"name": "a", "output": "jpg"}]}`, `profiles[0] ("a"): output: "jpg"`},
		{"marks need cmyk", `{"profiles": [{"name": "a", "page": {"cropMarks": true}}]}`, `page.cropMarks`},
		{"cut offset", `{"profiles": [{"name": "a", "cut": {"offset": "far"}}]}`, `profiles[0] ("a"): cut: offset`},
		{"cut svg-id", `{"profiles": [{"name": "a", "cut": {"source": "svg-id"}}]}`, `profiles[0] ("a"): cut: render: cut contour source svg-id without an element id`},
		{"same spot", `{"profiles": [{"name": "a", "cut": {}, "white": {"spot": "CutContour"}}]}`, `white.spot`},
		{"builtin name", `{"profiles": [{"name": "press-pdfx4"}]}`, `"press-pdfx4" is a built-in`},
		{"condition needs cmyk", `{"profiles": [{"name": "a", "colour": {"condition": "FOGRA39"}}]}`, `colour.condition: needs a CMYK colour.profile`},
		{"condition text", `{"profiles": [{"name": "a", "colour": {"profile": "x.icc", "condition": "a) /JS (x"}}]}`, `colour.condition: "a) /JS (x"`},
		{"twice", `{"profiles": [{"name": "a"}, {"name": "a"}]}`, `profiles[1] ("a"): name: "a" is defined twice`},
		{"bad name", `{"profiles": [{"name": "A B"}]}`, `profiles[0] ("A B"): name`},
		{"route", `{"profiles": [{"name": "a", "route": {"prefix": "../x"}}]}`, `route.prefix`},
		{"rule profile", `{"rules": [{"match": {"product": "mug"}, "profile": "nope"}]}`, `rules[0]: profile: "nope"`},
		{"rule match", `{"rules": [{"match": {"sku": "mug"}, "profile": "web-png"}]}`, `rules[0]: unknown field "sku"`},
		{"default", `{"default": "nope"}`, `default: "nope"`},
		{"min dpi", `{"profiles": [{"name": "a", "minDpi": -1}]}`, `minDpi`},
		{"slug needs cmyk", `{"profiles": [{"name": "a", "page": {"slugText": "[order]"}}]}`, `page.slug: a slug is part of PDF/X pages`},
		{"slug length", `{"profiles": [{"name": "a", "colour": {"profile": "x.icc"}, "page": {"slug": "8"}}]}`, `page.slug: length "8"`},
		{"slug too narrow", `{"profiles": [{"name": "a", "colour": {"profile": "x.icc"}, "page": {"slug": "2mm", "slugText": "[order]"}}]}`, `page.slug: 2mm: a slug text needs at least 3mm`},
		{"slug too wide", `{"profiles": [{"name": "a", "colour": {"profile": "x.icc"}, "page": {"slug": "2in"}}]}`, `page.slug: 2in: want at most 1in`},
		{"trailing", `{} {}`, `data after`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := Parse([]byte(tc.doc))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// TestReadFileNamesFile: a bad file's error names the file.
func TestReadFileNamesFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "profiles.json")
	if err := os.WriteFile(path, []byte(`{"profiles": [{"name": "a", "dpi": 99999}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := ReadFile(path)
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), `profiles[0] ("a"): dpi`) {
		t.Fatalf("got %v", err)
	}
}

// TestChoose: rules choose per store, product and view, first match wins; the
// default (or --profile) takes the rest.
func TestChoose(t *testing.T) {
	t.Parallel()
	f, err := Parse([]byte(`{
 "profiles": [{"name": "mug-png", "output": "png", "dpi": 300, "minDpi": 150, "fileName": "[id]-mug", "route": {"prefix": "sublimation/"}}],
 "rules": [
  {"match": {"store": "shop-b", "product": "card"}, "profile": "pod-pdfx4"},
  {"match": {"product": "card"}, "profile": "press-pdfx4"},
  {"match": {"product": "tshirt", "view": "front"}, "profile": "dtf-white"},
  {"match": {"product": ["mug", "mug-15oz"]}, "profile": "mug-png"}
 ]}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(f, "", cmykOpts(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ store, product, view, want string }{
		{"shop-a", "card", "inside", PressPDFX4},
		{"shop-b", "card", "inside", PodPDFX4},
		{"shop-a", "tshirt", "front", DTFWhite},
		{"shop-a", "tshirt", "back", WebPNG},
		{"shop-a", "mug-15oz", "left", "mug-png"},
		{"shop-a", "poster", "main", WebPNG},
	} {
		if got := s.For(tc.store, tc.product, tc.view).Name(); got != tc.want {
			t.Errorf("%s/%s/%s: %s, want %s", tc.store, tc.product, tc.view, got, tc.want)
		}
	}
	s2, err := Load(f, StickerCut, cmykOpts(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := s2.For("shop-a", "poster", "main").Name(); got != StickerCut {
		t.Errorf("--profile default: %s", got)
	}
	if _, err := Load(nil, "nope", Options{}); err == nil || !strings.Contains(err.Error(), `no profile "nope"`) || !strings.Contains(err.Error(), "press-pdfx4") {
		t.Errorf("unknown --profile: %v", err)
	}
	mug := s.For("shop-a", "mug", "left")
	if w := mug.CheckDPI("left", 120); w == nil || w.Code != WarnBelowProfileDPI || !strings.Contains(w.Message, "120 dpi is below the 150 dpi") {
		t.Errorf("120 dpi under minDpi 150: %+v", w)
	}
	if w := mug.CheckDPI("left", 150); w != nil {
		t.Errorf("150 dpi under minDpi 150: %+v", w)
	}
	if w := mug.CheckDPI("left", 0); w != nil {
		t.Errorf("no pictures: %+v", w)
	}
}

// TestBuiltinsValid: every built-in passes Validate and has a description.
func TestBuiltinsValid(t *testing.T) {
	t.Parallel()
	want := []string{"press-pdfx4", "pod-pdfx4", "sticker-cut", "dtf-white", "web-png"}
	if got := strings.Join(BuiltinNames(), ","); got != strings.Join(want, ",") {
		t.Fatalf("built-ins %s, want %s", got, strings.Join(want, ","))
	}
	for _, p := range Builtins() {
		if err := p.Validate(); err != nil {
			t.Errorf("%s: %v", p.Name, err)
		}
		if p.Description == "" {
			t.Errorf("%s: no description", p.Name)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		`{}`,
		`{"profiles": [{"name": "a", "output": "pdf", "colour": {"profile": "x.icc", "inkLimit": 300}, "page": {"bleed": "3mm", "cropMarks": true}}]}`,
		`{"profiles": [{"name": "b", "cut": {"source": "box", "cornerRadius": "2mm"}, "white": {"choke": 0}}], "rules": [{"match": {"product": ["p"]}, "profile": "b"}], "default": "b"}`,
		`{"rules": [{"match": {"view": "front"}, "profile": "dtf-white"}]}`,
		`[]`, `null`, `{"profiles": null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse(data)
		if err != nil {
			return
		}
		for _, p := range file.Profiles {
			if err := p.Validate(); err != nil {
				t.Fatalf("parsed profile %s does not validate: %v", p.Name, err)
			}
		}
	})
}

// TestPure: the package reads files, never the network (docs/architecture.md).
func TestPure(t *testing.T) {
	t.Parallel()
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for _, dep := range strings.Fields(string(out)) {
		switch dep {
		case "net", "net/http", "crypto/hmac", "github.com/printworker/printworker/hub":
			t.Errorf("profiles depends on %s", dep)
		}
	}
}

// TestLoadAlso: the profiles the routing rules name are resolved at load and found
// by Named, a file's or a built-in; an unknown one stops the load naming the rules.
func TestLoadAlso(t *testing.T) {
	t.Parallel()
	f, err := Parse([]byte(`{"profiles": [{"name": "roland-cut", "output": "pdf", "cut": {}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(f, "", Options{}, "roland-cut", WebPNG)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"roland-cut", WebPNG} {
		if r, ok := s.Named(name); !ok || r.Name() != name {
			t.Errorf("Named(%q) = %v, %v", name, r.Name(), ok)
		}
	}
	if _, ok := s.Named(PressPDFX4); ok {
		t.Error("Named found a profile nothing asked for")
	}
	if got := s.For("shop", "sticker", "front").Name(); got != WebPNG {
		t.Errorf("For = %s: a routing profile must not become a default", got)
	}
	if _, err := Load(f, "", Options{}, "nope"); err == nil || !strings.Contains(err.Error(), `routing rules: no profile "nope"`) {
		t.Errorf("unknown routing profile: %v", err)
	}
	var none *Set
	if _, ok := none.Named(WebPNG); ok {
		t.Error("nil set found a profile")
	}
}

// TestSlugText: the slug text's tokens take the file's fields as they are (not
// cleaned for a file name), the view's name and the profile's; a profile without a
// slug text gives none; the slug reaches the renderer's settings.
func TestSlugText(t *testing.T) {
	t.Parallel()
	p := Profile{Name: "press-slug", Output: "pdf", Colour: Colour{Profile: DefaultCMYK},
		Page: Page{Bleed: "3mm", Slug: "10mm", SlugText: "Order [order] line [line] x[qty] [title] / [view] / [profile] / [date] [unknown]"}}
	r, err := Resolve(p, cmykOpts(t))
	if err != nil {
		t.Fatal(err)
	}
	f := filenames.Fields{Order: "1001", Line: 2, Quantity: 3, Title: "Team Shirt", Date: time.Date(2024, 3, 14, 23, 0, 0, 0, time.FixedZone("", -3600))}
	want := "Order 1001 line 2 x3 Team Shirt / Front / press-slug / 2024-03-15 [unknown]"
	if got := r.SlugText(f, "Front"); got != want {
		t.Errorf("SlugText = %q, want %q", got, want)
	}
	if got, wantPt := r.Print.SlugPt, 10*72/25.4; math.Abs(got-wantPt) > 1e-9 {
		t.Errorf("Print.SlugPt = %g, want %g", got, wantPt)
	}
	press, err := Resolve(Builtins()[0], cmykOpts(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := press.SlugText(f, "Front"); got != "" {
		t.Errorf("no slug text configured: %q", got)
	}
	var none *Resolved
	if none.SlugText(f, "Front") != "" {
		t.Error("nil profile has a slug text")
	}
}
