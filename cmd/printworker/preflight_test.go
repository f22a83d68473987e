package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPreflightCommand renders the demo's products with press-pdfx4 and checks
// them with printworker preflight: --json prints the documented shape, the files
// pass (exit 0) and their reports are written with --report-dir; a copy with its
// header made %PDF-1.3 fails (exit 1) with pdfx.header; a missing file list, an
// unknown profile and a bad flag are usage errors (exit 2).
func TestPreflightCommand(t *testing.T) {
	t.Parallel()
	needCMYK(t)
	fixtures := demoFixtures(t)
	out := t.TempDir()
	if _, _, err := runCLI(t, nil, "render", "--design", filepath.Join(fixtures, "1001.json"),
		"--media", filepath.Join(fixtures, "media"), "--out", out, "--profile", "press-pdfx4"); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(out, "*.pdf"))
	if len(files) == 0 {
		t.Fatal("no pdf rendered")
	}
	reports := t.TempDir()
	args := append([]string{"preflight", "--json", "--profile", "press-pdfx4"}, files...)
	args = append(args, "--report-dir", reports)
	stdout, _, err := runCLI(t, nil, args...)
	if err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	var rep struct {
		Files []struct {
			File     string `json:"file"`
			Verdict  string `json:"verdict"`
			Findings []struct {
				Code, Severity, Message string
				Page                    *int
			} `json:"findings"`
			Inks struct {
				TACMax *float64 `json:"tac_max"`
			} `json:"inks"`
		} `json:"files"`
	}
	dec := json.NewDecoder(strings.NewReader(stdout))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&rep); err != nil {
		t.Fatalf("%v\n%s", err, stdout)
	}
	if len(rep.Files) != len(files) {
		t.Fatalf("%d reports for %d files", len(rep.Files), len(files))
	}
	for _, f := range rep.Files {
		if f.Verdict != "pass" || f.Inks.TACMax == nil {
			t.Errorf("%s: %+v", f.File, f)
		}
		for _, ext := range []string{".preflight.json", ".preflight.html"} {
			b, err := os.ReadFile(filepath.Join(reports, filepath.Base(f.File)+ext))
			if err != nil || !bytes.Contains(b, []byte("pass")) {
				t.Errorf("%s%s: %v", f.File, ext, err)
			}
		}
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.pdf")
	if err := os.WriteFile(bad, bytes.Replace(b, []byte("%PDF-1.6"), []byte("%PDF-1.3"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, _, err = runCLI(t, nil, "preflight", bad)
	if exitCode(err) != 1 || !strings.Contains(stdout, "pdfx.header") || !strings.Contains(stdout, "fail") {
		t.Errorf("a 1.3 header: %v (exit %d)\n%s", err, exitCode(err), stdout)
	}
	for _, a := range [][]string{{"preflight"}, {"preflight", "--profile", "nope", bad}, {"preflight", "--bogus", bad}} {
		if _, _, err := runCLI(t, nil, a...); err == nil || exitCode(err) != 2 {
			t.Errorf("%v: %v (exit %d), want a usage error", a, err, exitCode(err))
		}
	}
}
