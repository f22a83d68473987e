package main

import (
	"archive/zip"
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const renderTestdata = "../../render/testdata"

// TestRenderCommand renders a two-view design offline and checks what print staff get:
// one file per view under its final name, with --json lines whose sizes and checksums
// match the files.
func TestRenderCommand(t *testing.T) {
	dir := t.TempDir()
	design := filepath.Join(dir, "design.json")
	b, err := os.ReadFile(filepath.Join(renderTestdata, "designs/basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	// A second view, exported as pdf-simple, so the names must tell the views apart.
	var d map[string]any
	renderMust(t, json.Unmarshal(b, &d))
	views := d["views"].([]any)
	back := map[string]any{}
	for k, v := range views[0].(map[string]any) {
		back[k] = v
	}
	back["id"], back["weight"], back["name"] = "back", 1, map[string]any{"en": "Back"}
	exp := map[string]any{}
	for k, v := range back["export"].(map[string]any) {
		exp[k] = v
	}
	exp["type"] = "pdf-simple"
	back["export"] = exp
	d["views"] = append(views, back)
	b, _ = json.Marshal(d)
	renderMust(t, os.WriteFile(design, b, 0o644))

	out := filepath.Join(dir, "out")
	stdout, _, err := runCLI(t, nil, "render", "--design", design, "--media", filepath.Join(renderTestdata, "media"), "--out", out, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var files []renderFile
	sc := bufio.NewScanner(strings.NewReader(stdout))
	for sc.Scan() {
		var f renderFile
		if err := json.Unmarshal(sc.Bytes(), &f); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		files = append(files, f)
	}
	want := []struct{ name, view, typ string }{
		{"1001-Basic-mug-Front.png", "front", "png"},
		{"1001-Basic-mug-Back.pdf", "back", "pdf-simple"},
	}
	if len(files) != len(want) {
		t.Fatalf("%d json lines, want %d:\n%s", len(files), len(want), stdout)
	}
	for i, w := range want {
		f := files[i]
		if f.Name != w.name || f.ViewID != w.view || f.Type != w.typ || f.DPI != 72 || f.PageWidthPt != 200 || f.Warnings == nil {
			t.Errorf("line %d = %+v, want %s %s %s at 72 dpi, 200 pt wide", i, f, w.name, w.view, w.typ)
		}
		data, err := os.ReadFile(filepath.Join(out, f.Name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if int64(len(data)) != f.Bytes || hex.EncodeToString(sum[:]) != f.SHA256 {
			t.Errorf("%s: %d bytes sha256 %x, json says %d %s", f.Name, len(data), sum, f.Bytes, f.SHA256)
		}
	}
	img, err := os.Open(filepath.Join(out, want[0].name))
	if err != nil {
		t.Fatal(err)
	}
	defer img.Close()
	cfg, err := png.DecodeConfig(img)
	if err != nil || cfg.Width != 200 || cfg.Height != 150 {
		t.Errorf("png %+v %v, want 200x150", cfg, err)
	}
	entries, _ := os.ReadDir(out)
	if len(entries) != 2 {
		t.Errorf("out holds %d entries, want the 2 files (no temporaries)", len(entries))
	}

	// --all: the hub's export-all package; views of mixed types make a zip.
	all := filepath.Join(dir, "all")
	stdout, _, err = runCLI(t, nil, "render", "--design", design, "--media", filepath.Join(renderTestdata, "media"), "--out", all, "--all", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg renderFile
	renderMust(t, json.Unmarshal([]byte(stdout), &pkg))
	if pkg.Name != "1001-Basic-mug.zip" || pkg.Type != "zip" {
		t.Fatalf("package %+v", pkg)
	}
	zr, err := zip.OpenReader(filepath.Join(all, pkg.Name))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	if len(zr.File) != 2 || zr.File[0].Name != want[0].name || zr.File[1].Name != want[1].name {
		t.Errorf("zip entries %v", zr.File)
	}
}

func TestRenderCommandBadInput(t *testing.T) {
	media := filepath.Join(renderTestdata, "media")
	design := filepath.Join(renderTestdata, "designs/basic.json")
	notJSON := filepath.Join(t.TempDir(), "x.json")
	renderMust(t, os.WriteFile(notJSON, []byte("{nope"), 0o644))
	icc, err := os.ReadFile(cmykProfile)
	if err != nil {
		t.Skipf("%s: %v (apt-get install libgs-common)", cmykProfile, err)
	}
	truncated := filepath.Join(t.TempDir(), "cut.icc")
	renderMust(t, os.WriteFile(truncated, icc[:len(icc)/3], 0o644))
	tests := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"missing flags", []string{"render", "--design", design}, "--media is required", 2},
		{"all and view", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--all", "--view", "front"}, "exclude each other", 2},
		{"bad basis", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--basis", "inch"}, `basis "inch"`, 2},
		{"bad render-basis", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--render-basis", "inch"}, `basis "inch"`, 2},
		{"no such view", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--view", "side"}, `no view "side"`, 1},
		{"not a design", []string{"render", "--design", notJSON, "--media", media, "--out", t.TempDir()}, "is not a design detail", 1},
		{"no media folder", []string{"render", "--design", design, "--media", "/nonexistent", "--out", t.TempDir()}, "is not a folder", 1},
		{"empty media folder", []string{"render", "--design", design, "--media", t.TempDir(), "--out", t.TempDir()}, "no file template.*", 1},
		{"missing profile", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--color-profile", "/nonexistent.icc"}, "/nonexistent.icc", 2},
		{"truncated profile", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--color-profile", truncated}, "truncated", 2},
		{"rgb profile", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--color-profile", "/usr/share/color/icc/ghostscript/default_rgb.icc"}, "CMYK", 2},
		{"unknown intent", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--color-profile", cmykProfile, "--color-intent", "vivid"}, `"vivid"`, 2},
		{"bleed without unit", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--bleed", "3"}, "bleed", 2},
		{"unknown cut source", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--cut-contour", "svg"}, `--cut-contour "svg"`, 2},
		{"area cut without an area", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--cut-contour", "area"}, "without an area id", 2},
		{"area cut on a missing area", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--cut-contour", "area", "--cut-area", "nope"}, `area "nope"`, 1},
		{"cut offset without unit", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--cut-contour", "alpha", "--cut-offset", "2"}, "--cut-offset", 2},
		{"bad spot name", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--white-plate", "--white-spot", "W/1"}, "spot colour name", 2},
		{"threshold over 100", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--white-plate", "--white-threshold", "150"}, "--white-threshold", 2},
		{"negative choke", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--white-plate", "--white-choke", "-2"}, "--white-choke", 2},
		{"bleed over an inch", []string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--bleed", "2in"}, "0..72pt", 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := runCLI(t, nil, tc.args...)
			if err == nil {
				t.Fatal("no error")
			}
			if !strings.Contains(err.Error(), tc.want) || exitCode(err) != tc.code {
				t.Errorf("err = %q (exit %d), want %q (exit %d)", err, exitCode(err), tc.want, tc.code)
			}
		})
	}
}

func renderMust(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// The basis comes from --render-basis or its environment variable (shared with the
// worker) and from the --basis alias, which wins when given on the command line.
func TestRenderCommandBasis(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(renderTestdata, "designs/basic.json"))
	if err != nil {
		t.Fatal(err)
	}
	design := filepath.Join(dir, "design.json")
	renderMust(t, os.WriteFile(design, []byte(strings.Replace(string(b), `"dpi": 72`, `"dpi": 144`, 1)), 0o644))
	media := filepath.Join(renderTestdata, "media")
	tests := []struct {
		name  string
		env   map[string]string
		args  []string
		width int
	}{
		{"default point", nil, nil, 400},
		{"flag", nil, []string{"--render-basis", "pixel"}, 200},
		{"environment", map[string]string{"PRINTWORKER_RENDER_BASIS": "pixel"}, nil, 200},
		{"alias", nil, []string{"--basis", "pixel"}, 200},
		{"alias beats environment", map[string]string{"PRINTWORKER_RENDER_BASIS": "pixel"}, []string{"--basis", "point"}, 400},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--json"}, tc.args...)
			stdout, _, err := runCLI(t, tc.env, args...)
			if err != nil {
				t.Fatal(err)
			}
			var f renderFile
			renderMust(t, json.Unmarshal([]byte(stdout), &f))
			if f.WidthPx != tc.width {
				t.Errorf("width %d px, want %d", f.WidthPx, tc.width)
			}
		})
	}
}

// cmykProfile is Debian's Ghostscript CMYK profile (libgs-common).
const cmykProfile = "/usr/share/color/icc/ghostscript/default_cmyk.icc"

// TestRenderCommandCMYK renders the basic design offline with a CMYK profile and a
// 3 mm bleed as pdf, as png (the soft proof) and as CMYK TIFF: the --json lines say
// CMYK (the PNG sRGB) with the profile's name and checksum, the trim and the bleed,
// and the files are what they say.
func TestRenderCommandCMYK(t *testing.T) {
	icc, err := os.ReadFile(cmykProfile)
	if err != nil {
		t.Skipf("%s: %v (apt-get install libgs-common)", cmykProfile, err)
	}
	sum := sha256.Sum256(icc)
	media := filepath.Join(renderTestdata, "media")
	design := filepath.Join(renderTestdata, "designs/basic.json")
	for _, tc := range []struct {
		raster, space, ext string
		pdf                bool
	}{{"png", "sRGB", ".png", false}, {"tiff", "CMYK", ".tif", false}, {"png", "CMYK", ".pdf", true}} {
		t.Run(tc.ext, func(t *testing.T) {
			dir := t.TempDir()
			d := design
			if tc.pdf {
				b, _ := os.ReadFile(design)
				d = filepath.Join(dir, "d.json")
				renderMust(t, os.WriteFile(d, []byte(strings.Replace(string(b), `"type": "png"`, `"type": "pdf"`, 1)), 0o644))
			}
			out := filepath.Join(dir, "out")
			stdout, _, err := runCLI(t, nil, "render", "--design", d, "--media", media, "--out", out, "--json", "--view", "front",
				"--color-profile", cmykProfile, "--color-intent", "perceptual", "--bleed", "3mm", "--color-raster", tc.raster)
			if err != nil {
				t.Fatal(err)
			}
			var f renderFile
			renderMust(t, json.Unmarshal([]byte(strings.TrimSpace(stdout)), &f))
			c := f.Colour
			if c.Space != tc.space || c.SHA256 != hex.EncodeToString(sum[:]) || c.Intent != "perceptual" || c.TrimWidthPt != 200 || c.BleedPt < 8.5 || c.BleedPt > 8.51 {
				t.Errorf("colour %+v", c)
			}
			if !strings.HasSuffix(f.Name, tc.ext) {
				t.Errorf("file %s, want %s", f.Name, tc.ext)
			}
			b, err := os.ReadFile(filepath.Join(out, f.Name))
			if err != nil {
				t.Fatal(err)
			}
			switch tc.ext {
			case ".png":
				if _, err := png.Decode(strings.NewReader(string(b))); err != nil {
					t.Error(err)
				}
			case ".tif":
				if !strings.HasPrefix(string(b), "II*\x00") || !strings.Contains(string(b), string(icc)) {
					t.Error("not a TIFF with the profile embedded")
				}
			case ".pdf":
				if !strings.Contains(string(b), "GTS_PDFXVersion (PDF/X-4)") {
					t.Error("not PDF/X-4")
				}
			}
		})
	}
}

// TestRenderCommandPlates: with a cut contour and a white plate, a png view gets its
// white plate and its cut written beside it, listed in its --json line.
func TestRenderCommandPlates(t *testing.T) {
	out := t.TempDir()
	stdout, _, err := runCLI(t, nil, "render", "--design", filepath.Join(renderTestdata, "designs/basic.json"),
		"--media", filepath.Join(renderTestdata, "media"), "--out", out, "--json",
		"--cut-contour", "alpha", "--cut-offset", "2mm", "--white-plate", "--white-spot", "RDG_WHITE", "--white-choke", "2")
	if err != nil {
		t.Fatal(err)
	}
	var f renderFile
	renderMust(t, json.Unmarshal([]byte(strings.SplitN(stdout, "\n", 2)[0]), &f))
	if f.Type != "png" {
		t.Fatalf("type %s, want png", f.Type)
	}
	base := strings.TrimSuffix(f.Name, ".png")
	want := []string{base + "-white.png", base + "-cut.pdf"}
	if strings.Join(f.Sidecars, ",") != strings.Join(want, ",") {
		t.Fatalf("sidecars %v, want %v", f.Sidecars, want)
	}
	wf, err := os.Open(filepath.Join(out, want[0]))
	renderMust(t, err)
	defer wf.Close()
	img, err := png.Decode(wf)
	renderMust(t, err)
	if img.Bounds().Dx() != f.WidthPx || img.Bounds().Dy() != f.HeightPx {
		t.Errorf("white plate %v, view %dx%d", img.Bounds(), f.WidthPx, f.HeightPx)
	}
	cut, err := os.ReadFile(filepath.Join(out, want[1]))
	renderMust(t, err)
	if !strings.HasPrefix(string(cut), "%PDF-") || !strings.Contains(string(cut), "/Separation /CutContour") {
		t.Errorf("cut sidecar is not a PDF with the CutContour separation")
	}
	ents, _ := os.ReadDir(out)
	if len(ents) != 3 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("files %v, want the view and its two sidecars", names)
	}
}
