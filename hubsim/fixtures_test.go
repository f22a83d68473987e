package hubsim

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"image"
	_ "image/jpeg"
	"image/png"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/printworker/printworker/hub"
	"github.com/printworker/printworker/model"
)

// TestFixtures checks what the demo and the renderer's tests rely on: every design
// obeys the template rules, every media object matches its file (size, type,
// dimensions, alpha), files stay small, and every view has its stored export of the
// right type and size.
func TestFixtures(t *testing.T) {
	s, err := New(testConfig())
	if err != nil {
		t.Fatal(err)
	}
	refs := s.Designs()
	if len(refs) != 3 {
		t.Fatalf("%d designs, want 3", len(refs))
	}
	cover := map[string]bool{}
	for _, ref := range refs {
		d, _ := s.Design(ref.ID)
		if err := ValidateViews(d.Views); err != nil {
			t.Errorf("design %d: %v", ref.ID, err)
		}
		for _, m := range DesignMedia(&d) {
			checkMedia(t, m)
		}
		for i := range d.Views {
			v := &d.Views[i]
			cover["type:"+v.Export.Type] = true
			cover["areaType:"+v.Export.AreaType] = true
			cover["exportTemplate:"+strconv.FormatBool(v.Export.ExportTemplate)] = true
			for j := range v.Elements {
				e := &v.Elements[j]
				cover["element:"+e.Type] = true
				if !e.Exported() {
					cover["export:false"] = true
				}
				if e.Type == model.ElementText && e.Multiline != nil && *e.Multiline && len(e.Colors) > 1 && len(e.Fonts()) > 1 {
					cover["text:multiline+colors+fonts"] = true
				}
				if e.Type == model.ElementIllustration && e.Colorize() {
					cover["illustration:colorized"] = true
				}
			}
			checkStoredExport(t, &d, v)
		}
		if len(d.Views) > 1 {
			cover["multi-view"] = true
		}
	}
	for _, want := range []string{"type:png", "type:pdf", "type:pdf-simple", "areaType:template", "areaType:custom",
		"areaType:area", "exportTemplate:true", "exportTemplate:false", "element:text", "element:picture",
		"element:illustration", "element:background", "export:false", "text:multiline+colors+fonts",
		"illustration:colorized", "multi-view"} {
		if !cover[want] {
			t.Errorf("no fixture covers %s", want)
		}
	}
	// Every fixture file stays small.
	_ = filepath.Walk("testdata", func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && fi.Size() > 200<<10 {
			t.Errorf("%s is %d bytes (keep fixtures under 200 KB)", p, fi.Size())
		}
		return err
	})
}

func checkMedia(t *testing.T, m model.Media) {
	t.Helper()
	data, err := readMediaFile(os.DirFS(fixture), m)
	if err != nil {
		t.Error(err)
		return
	}
	var w, h int
	alpha := false
	switch m.MimeType {
	case "image/png", "image/jpeg":
		img, format, err := image.Decode(bytes.NewReader(data))
		if err != nil || "image/"+format != m.MimeType {
			t.Errorf("%s: decodes as %q: %v", m.ID, format, err)
			return
		}
		w, h = img.Bounds().Dx(), img.Bounds().Dy()
		alpha = hasAlpha(img)
	case "image/svg+xml":
		var svg struct {
			Width  string `xml:"width,attr"`
			Height string `xml:"height,attr"`
		}
		if err := xml.Unmarshal(data, &svg); err != nil {
			t.Errorf("%s: %v", m.ID, err)
			return
		}
		w, _ = strconv.Atoi(svg.Width)
		h, _ = strconv.Atoi(svg.Height)
		alpha = true // outside its shapes an SVG is transparent
	default:
		t.Errorf("%s: unexpected mimetype %q", m.ID, m.MimeType)
	}
	if float64(w) != m.Meta.Width || float64(h) != m.Meta.Height || alpha != m.Meta.HasAlpha {
		t.Errorf("%s: file %dx%d alpha %v, meta %vx%v alpha %v", m.ID, w, h, alpha, m.Meta.Width, m.Meta.Height, m.Meta.HasAlpha)
	}
}

func hasAlpha(img image.Image) bool {
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if _, _, _, a := img.At(x, y).RGBA(); a != 0xffff {
				return true
			}
		}
	}
	return false
}

// checkStoredExport: a PNG has the print pixel size round(box x dpi / 72) and its dpi
// in pHYs; a PDF has one page of the box size in points.
func checkStoredExport(t *testing.T, d *model.DesignDetail, v *model.View) {
	t.Helper()
	ct, ext := exportType(v.Export.Type)
	p := filepath.Join(fixture, "exports", fmt.Sprint(d.ConfigurationID), v.ID+ext)
	data, err := os.ReadFile(p)
	if err != nil {
		t.Error(err)
		return
	}
	bw, bh := v.Width, v.Height
	switch v.Export.AreaType {
	case model.AreaTypeArea:
		a, _ := v.AreaByID(*v.Export.Area)
		bw, bh = a.Width, a.Height
	case model.AreaTypeCustom:
		bw, bh = v.Export.Width, v.Export.Height
	}
	if ct == "image/png" {
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil {
			t.Errorf("%s: %v", p, err)
			return
		}
		k := v.Export.DPI / 72
		if cfg.Width != int(math.Round(bw*k)) || cfg.Height != int(math.Round(bh*k)) {
			t.Errorf("%s: %dx%d px, want the box %vx%v at %v dpi", p, cfg.Width, cfg.Height, bw, bh, v.Export.DPI)
		}
		if dpi := pngDPI(data); math.Abs(dpi-v.Export.DPI) > 0.5 {
			t.Errorf("%s: pHYs says %.1f dpi, want %v", p, dpi, v.Export.DPI)
		}
		return
	}
	info := pdfInfo(t, data)
	if want := fmt.Sprintf("%g x %g pts", bw, bh); info["Pages"] != "1" || info["Page size"] != want {
		t.Errorf("%s: %v, want one page of %s", p, info, want)
	}
	qpdfCheck(t, data)
}

// pngDPI reads the pHYs chunk (0 when absent).
func pngDPI(b []byte) float64 {
	i := bytes.Index(b, []byte("pHYs"))
	if i < 0 || len(b) < i+13 || b[i+12] != 1 {
		return 0
	}
	return float64(binary.BigEndian.Uint32(b[i+4:])) * 0.0254
}

// TestTemplateFixtures: the sample template payloads are accepted as they are.
func TestTemplateFixtures(t *testing.T) {
	files, _ := filepath.Glob("testdata/templates/*.json")
	if len(files) != 3 {
		t.Fatalf("%d template fixtures", len(files))
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decodeTemplate(b, store); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		var tpl model.Template
		if err := json.Unmarshal(b, &tpl); err != nil {
			t.Fatal(err)
		}
		for _, id := range templateMedia(tpl.Views) {
			if m, _ := filepath.Glob(filepath.Join(fixture, "media", id+".*")); len(m) != 1 {
				t.Errorf("%s references media %s that the fixtures lack", f, id)
			}
		}
	}
}

func TestConfigValidate(t *testing.T) {
	good := testConfig()
	if err := good.Validate(); err != nil {
		t.Fatal(err)
	}
	cases := map[string]func(*Config){
		"no stores":        func(c *Config) { c.Stores = nil },
		"empty store id":   func(c *Config) { c.Stores[0].ID = "" },
		"duplicate store":  func(c *Config) { c.Stores[1].ID = c.Stores[0].ID },
		"no keys":          func(c *Config) { c.Stores[1].Keys = nil },
		"key sans secret":  func(c *Config) { c.Stores[0].Keys[0].Secret = "" },
		"bad encoding":     func(c *Config) { c.Encoding = "rot13" },
		"bad word version": func(c *Config) { c.Words = map[hub.Version]string{"2099-01": "X"} },
		"bad media path":   func(c *Config) { c.MediaPath = "/media/{_id}" },
		"unknown design store": func(c *Config) {
			c.DesignStore = "nobody"
		},
		"bad faults": func(c *Config) { c.Faults.ErrorRate = 2 },
	}
	for name, mutate := range cases {
		c := testConfig()
		mutate(&c)
		if err := c.Validate(); err == nil {
			t.Errorf("%s: accepted", name)
		}
		if _, err := New(c); err == nil {
			t.Errorf("%s: New accepted", name)
		}
	}
	c := testConfig()
	c.DesignsDir = t.TempDir()
	if _, err := New(c); err == nil {
		t.Error("New accepted a designs folder without fixtures")
	}
}

// TestSampleFixtures: the embedded samples load through DesignsFS and serve the same
// designs and stored exports as the folder.
func TestSampleFixtures(t *testing.T) {
	designs, err := fs.Sub(SampleFixtures(), "designs")
	if err != nil {
		t.Fatal(err)
	}
	_, ts := start(t, func(c *Config) { c.DesignsDir, c.DesignsFS = "", designs })
	want, err := os.ReadFile(filepath.Join(fixture, "exports/1001/front.pdf"))
	if err != nil {
		t.Fatal(err)
	}
	r := do(t, ts, exportReq(hub.V2023, shirt, "front"))
	wantStatus(t, r, 200)
	if !bytes.Equal(r.body, want) {
		t.Fatal("embedded stored export differs from the folder's")
	}
	if tpl, err := fs.ReadFile(SampleFixtures(), "templates/mug-11oz.json"); err != nil || len(tpl) == 0 {
		t.Fatalf("embedded template: %v", err)
	}
}
