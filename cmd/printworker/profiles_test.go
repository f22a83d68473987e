package main

import (
	"bytes"
	"encoding/json"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/printworker/printworker/demo"
	"github.com/printworker/printworker/internal/printcheck"
	"github.com/printworker/printworker/profiles"
)

// needTool finds a tool a check needs: skipped with the reason when missing, failing
// under CI (which installs it).
func needTool(t *testing.T, tool, pkg string) {
	t.Helper()
	if _, err := exec.LookPath(tool); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is needed (apt-get install %s; .ci/run installs it)", tool, pkg)
		}
		t.Skipf("%s not installed (apt-get install %s)", tool, pkg)
	}
}

// needCMYK finds the CMYK profile the built-ins use: skipped without it, failing
// under CI (which installs libgs-common).
func needCMYK(t *testing.T) {
	t.Helper()
	if _, err := profiles.FindCMYK(profiles.CMYKCandidates()); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}

// demoFixtures lays the demo's designs out as the demo's simulator has them: the
// samples with the demo's own designs over them.
func demoFixtures(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	if err := demo.WriteFixtures(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestProfilesOnDemoProducts renders every demo product with every built-in
// profile through `printworker render --profile` and checks each file as a
// preflight would: the PDF/X-4 profiles pass qpdf --check with a %PDF-1.6 header, a
// GTS_PDFX output intent and nested boxes with the profile's bleed (and crop marks'
// slug); sticker-cut's pages hold a CutContour separation; dtf-white writes 300 dpi
// PNGs with their white plates beside them; web-png writes each view's own type.
func TestProfilesOnDemoProducts(t *testing.T) {
	needCMYK(t)
	needTool(t, "qpdf", "qpdf")
	needTool(t, "pdfinfo", "poppler-utils")
	fixtures := demoFixtures(t)
	ids := []string{"1001", "1002", "1003", "1004"}
	for _, name := range profiles.BuiltinNames() {
		for _, id := range ids {
			t.Run(name+"/"+id, func(t *testing.T) {
				t.Parallel()
				out := t.TempDir()
				stdout, _, err := runCLI(t, nil, "render", "--design", filepath.Join(fixtures, id+".json"),
					"--media", filepath.Join(fixtures, "media"), "--out", out, "--json", "--profile", name)
				if err != nil {
					t.Fatal(err)
				}
				for _, line := range strings.Split(strings.TrimSpace(stdout), "\n") {
					var f renderFile
					if err := json.Unmarshal([]byte(line), &f); err != nil {
						t.Fatalf("%q: %v", line, err)
					}
					checkProfileFile(t, name, out, f)
				}
			})
		}
	}
}

// checkProfileFile checks one rendered file against what its profile promises.
func checkProfileFile(t *testing.T, name, dir string, f renderFile) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, f.Name))
	if err != nil {
		t.Fatal(err)
	}
	if f.Profile != name || len(f.ProfileDigest) != 64 {
		t.Errorf("%s: profile %q digest %q", f.Name, f.Profile, f.ProfileDigest)
	}
	printcheck.File(t, f.Name, f.Type, b)
	switch name {
	case profiles.PressPDFX4, profiles.PodPDFX4, profiles.StickerCut:
		bleedMM := map[string]float64{profiles.PressPDFX4: 3, profiles.PodPDFX4: 4, profiles.StickerCut: 3}[name]
		if f.Type != "pdf" || f.Colour.Space != "CMYK" {
			t.Fatalf("%s: %s %s, want a CMYK pdf", f.Name, f.Type, f.Colour.Space)
		}
		if !bytes.HasPrefix(b, []byte("%PDF-1.6")) {
			t.Errorf("%s: header %q, want %%PDF-1.6", f.Name, b[:8])
		}
		if !bytes.Contains(b, []byte("/S /GTS_PDFX")) || !bytes.Contains(b, []byte("/GTS_PDFXVersion (PDF/X-4)")) {
			t.Errorf("%s: no GTS_PDFX output intent or PDF/X-4 version key", f.Name)
		}
		checkBoxes(t, filepath.Join(dir, f.Name), bleedMM*72/25.4, name == profiles.PressPDFX4)
		cut := bytes.Contains(b, []byte("/Separation /CutContour"))
		if cut != (name == profiles.StickerCut) {
			t.Errorf("%s: CutContour separation %v", f.Name, cut)
		}
	case profiles.DTFWhite:
		if f.Type != "png" || f.DPI != 300 {
			t.Errorf("%s: %s at %g dpi, want png at 300", f.Name, f.Type, f.DPI)
		}
		if len(f.Sidecars) != 1 || !strings.HasSuffix(f.Sidecars[0], "-white.png") {
			t.Fatalf("%s: sidecars %v, want the white plate", f.Name, f.Sidecars)
		}
		wf, err := os.Open(filepath.Join(dir, f.Sidecars[0]))
		if err != nil {
			t.Fatal(err)
		}
		defer wf.Close()
		img, err := png.Decode(wf)
		if err != nil || img.Bounds().Dx() != f.WidthPx || img.Bounds().Dy() != f.HeightPx {
			t.Errorf("white plate %v (%v), view %dx%d", img, err, f.WidthPx, f.HeightPx)
		}
	case profiles.WebPNG:
		if f.Colour.Space != "sRGB" || f.Colour.BleedPt != 0 || len(f.Sidecars) != 0 {
			t.Errorf("%s: %+v sidecars %v, want today's plain file", f.Name, f.Colour, f.Sidecars)
		}
	}
}

var boxRe = regexp.MustCompile(`(?m)^(MediaBox|BleedBox|TrimBox):\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)\s+([-\d.]+)`)

// checkBoxes reads the page boxes with pdfinfo: TrimBox inside BleedBox by the bleed
// on every side, BleedBox inside MediaBox (by the slug with crop marks, else equal).
func checkBoxes(t *testing.T, path string, bleedPt float64, marks bool) {
	t.Helper()
	out, err := exec.Command("pdfinfo", "-box", path).Output()
	if err != nil {
		t.Fatalf("pdfinfo: %v", err)
	}
	boxes := map[string][4]float64{}
	for _, m := range boxRe.FindAllStringSubmatch(string(out), -1) {
		var v [4]float64
		for i := range v {
			v[i], _ = strconv.ParseFloat(m[i+2], 64)
		}
		boxes[m[1]] = v
	}
	media, bleed, trim := boxes["MediaBox"], boxes["BleedBox"], boxes["TrimBox"]
	near := func(a, b float64) bool { return a-b < 0.02 && b-a < 0.02 }
	for i, sign := range []float64{1, 1, -1, -1} {
		if !near((trim[i]-bleed[i])*sign, bleedPt) {
			t.Errorf("%s: TrimBox %v, BleedBox %v: want %.2f pt of bleed\n%s", path, trim, bleed, bleedPt, out)
			break
		}
		slug := (bleed[i] - media[i]) * sign
		if marks && slug < 20 || !marks && !near(slug, 0) {
			t.Errorf("%s: BleedBox %v in MediaBox %v (crop marks %v)", path, bleed, media, marks)
			break
		}
	}
}

// TestStickerTiffsep: Ghostscript's tiffsep, as a RIP separates, finds the sticker's
// CutContour plate, with ink only along the outline (a hairline, not the art).
func TestStickerTiffsep(t *testing.T) {
	needCMYK(t)
	needTool(t, "gs", "ghostscript")
	fixtures := demoFixtures(t)
	out := t.TempDir()
	if _, _, err := runCLI(t, nil, "render", "--design", filepath.Join(fixtures, "1004.json"),
		"--media", filepath.Join(fixtures, "media"), "--out", out, "--profile", "sticker-cut"); err != nil {
		t.Fatal(err)
	}
	pdfs, _ := filepath.Glob(filepath.Join(out, "*.pdf"))
	if len(pdfs) != 1 {
		t.Fatalf("files %v", pdfs)
	}
	sep := filepath.Join(out, "sep.tif")
	if b, err := exec.Command("gs", "-q", "-dNOPAUSE", "-dBATCH", "-sDEVICE=tiffsep", "-r36", "-sCompression=none", "-o", sep, pdfs[0]).CombinedOutput(); err != nil {
		t.Fatalf("gs tiffsep: %v\n%s", err, b)
	}
	plates, _ := filepath.Glob(filepath.Join(out, "sep(*).tif"))
	var names []string
	for _, p := range plates {
		names = append(names, strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "sep("), ").tif"))
	}
	found := false
	for _, n := range names {
		found = found || n == "CutContour"
	}
	if !found {
		t.Fatalf("tiffsep plates %v, want a CutContour separation", names)
	}
}

// TestProfilesCommand lists the built-ins and a file's profiles with what each does.
func TestProfilesCommand(t *testing.T) {
	file := filepath.Join(t.TempDir(), "profiles.json")
	if err := os.WriteFile(file, []byte(`{"profiles": [{"name": "mug-png", "description": "mugs", "output": "png", "dpi": 300, "minDpi": 150}],
 "rules": [{"match": {"product": "mug-11oz"}, "profile": "mug-png"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, err := runCLI(t, nil, "profiles", "--profiles", file)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"press-pdfx4  (built-in)", "pod-pdfx4  (built-in)", "sticker-cut  (built-in)", "dtf-white  (built-in)",
		"web-png  (built-in)", "mug-png  (" + file + ")", "output: png, 300 dpi", "lowest acceptable effective dpi: 150",
		"cut: CutContour spot colour along the art's outline, 1.5mm outside it", "1. product mug-11oz -> mug-png", "default -> web-png"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("profiles output lacks %q:\n%s", want, stdout)
		}
	}
	stdout, _, err = runCLI(t, nil, "profiles", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(strings.TrimSpace(stdout), "\n") + 1; n != 5 {
		t.Errorf("--json: %d lines, want the 5 built-ins:\n%s", n, stdout)
	}
}

// TestBadProfileStartup: a bad profiles file stops render, work and profiles before
// anything runs, naming the file and the field; profiles and the colour flags
// together are refused with what to write instead.
func TestBadProfileStartup(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "profiles.json")
	if err := os.WriteFile(bad, []byte(`{"profiles": [{"name": "roland", "page": {"bleed": "3"}}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	design := filepath.Join(renderTestdata, "designs/basic.json")
	media := filepath.Join(renderTestdata, "media")
	for _, args := range [][]string{
		{"render", "--design", design, "--media", media, "--out", t.TempDir(), "--profiles", bad},
		{"profiles", "--profiles", bad},
		{"work", "--redis-url", "redis://127.0.0.1:1", "--hub-url", "http://127.0.0.1:1", "--hub-store", "s", "--hub-api-key", "k", "--hub-secret", "x", "--storage", "dir", "--storage-dir", t.TempDir(), "--profiles", bad},
	} {
		_, _, err := runCLI(t, nil, args...)
		if err == nil || !strings.Contains(err.Error(), bad) || !strings.Contains(err.Error(), `profiles[0] ("roland"): page.bleed`) {
			t.Errorf("%s: got %v, want an error naming %s and page.bleed", args[0], err, bad)
		}
	}
	_, _, err := runCLI(t, nil, "render", "--design", design, "--media", media, "--out", t.TempDir(), "--profile", "nope")
	if err == nil || !strings.Contains(err.Error(), `no profile "nope"`) {
		t.Errorf("unknown --profile: %v", err)
	}
	_, _, err = runCLI(t, nil, "render", "--design", design, "--media", media, "--out", t.TempDir(), "--profile", "press-pdfx4", "--bleed", "2mm")
	if err == nil || !strings.Contains(err.Error(), "exclude each other") || !strings.Contains(err.Error(), "docs/profiles.md") {
		t.Errorf("--profile with --bleed: %v", err)
	}
	// A routing rule's profile is loaded at start like a --profiles rule's.
	rules := filepath.Join(t.TempDir(), "rules.json")
	if err := os.WriteFile(rules, []byte(`{"rules": [{"match": {"product": "card"}, "prefix": "roland", "profile": "roland-cut"}]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	work := []string{"work", "--redis-url", "redis://127.0.0.1:1", "--hub-url", "http://127.0.0.1:1", "--hub-store", "s", "--hub-api-key", "k", "--hub-secret", "x", "--storage", "dir", "--storage-dir", t.TempDir(), "--routing-rules", rules}
	_, _, err = runCLI(t, nil, work...)
	if err == nil || !strings.Contains(err.Error(), `--routing-rules: routing rules: no profile "roland-cut"`) {
		t.Errorf("routing rule naming an unknown profile: %v", err)
	}
	_, _, err = runCLI(t, nil, append(work, "--bleed", "2mm")...)
	if err == nil || !strings.Contains(err.Error(), `a --routing-rules rule's "profile" and the colour flags`) {
		t.Errorf("routing profile with --bleed: %v", err)
	}
}

// TestProfilePlateFlags: a plate flag adds its plate to the profile's, which stays:
// sticker-cut with --white-plate has both separations.
func TestProfilePlateFlags(t *testing.T) {
	needCMYK(t)
	fixtures := demoFixtures(t)
	out := t.TempDir()
	if _, _, err := runCLI(t, nil, "render", "--design", filepath.Join(fixtures, "1004.json"),
		"--media", filepath.Join(fixtures, "media"), "--out", out, "--profile", "sticker-cut", "--white-plate"); err != nil {
		t.Fatal(err)
	}
	pdfs, _ := filepath.Glob(filepath.Join(out, "*.pdf"))
	if len(pdfs) != 1 {
		t.Fatalf("files %v", pdfs)
	}
	b, err := os.ReadFile(pdfs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, sep := range []string{"/Separation /CutContour", "/Separation /White"} {
		if !bytes.Contains(b, []byte(sep)) {
			t.Errorf("no %s", sep)
		}
	}
}
