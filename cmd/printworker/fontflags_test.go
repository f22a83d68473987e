package main

import (
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/image/font/gofont/goregular"
)

func TestFallbackFamilies(t *testing.T) {
	for in, want := range map[string][]string{
		"none":                         {},
		"":                             {},
		"Noto Sans Arabic, Noto Emoji": {"Noto Sans Arabic", "Noto Emoji"},
		" A ,, B ":                     {"A", "B"},
	} {
		if got := fallbackFamilies(in); !slices.Equal(got, want) {
			t.Errorf("fallbackFamilies(%q) = %q, want %q", in, got, want)
		}
	}
}

// --font-fallback and --font-fallback-dir reach the renderer: a chain of one family
// found only in the given folder.
func TestFontFallbackFlags(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	rf := addRenderFlags(fs)
	if err := fs.Parse([]string{"--font-fallback", "Go Mono, No Such Family", "--font-fallback-dir", t.TempDir()}); err != nil {
		t.Fatal(err)
	}
	r, err := rf.renderer()
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Fonts().FallbackLen(); n != 2 {
		t.Fatalf("chain of %d families, want 2", n)
	}
	if f, err := r.Fonts().FallbackFace(0, 0); err != nil || f == nil || f.Family != "Go Mono" {
		t.Errorf("FallbackFace(0) = %v, %v; want the embedded Go Mono", f, err)
	}
	if f, _ := r.Fonts().FallbackFace(1, 0); f != nil {
		t.Errorf("FallbackFace(1) = %s, want none", f.Family)
	}
}

// --font-fallback-coverage and --text-direction reach the renderer: coverage over the
// fallback folders on by default and off with false; a direction other than ltr, rtl
// or auto is a usage error.
func TestCoverageAndDirectionFlags(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Whatever-Regular.ttf"), goregular.TTF, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args      []string
		wantFace  bool
		wantError bool
	}{
		{[]string{"--font-fallback", "none", "--font-fallback-dir", dir}, true, false},
		{[]string{"--font-fallback", "none", "--font-fallback-dir", dir, "--font-fallback-coverage=false"}, false, false},
		{[]string{"--font-fallback-dir", dir, "--text-direction", "rtl"}, true, false},
		{[]string{"--font-fallback-dir", dir, "--text-direction", "auto"}, true, false},
		{[]string{"--font-fallback-dir", dir, "--text-direction", "sideways"}, false, true},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		rf := addRenderFlags(fs)
		if err := fs.Parse(tc.args); err != nil {
			t.Fatal(err)
		}
		r, err := rf.renderer()
		if (err != nil) != tc.wantError {
			t.Errorf("%q: err %v, want error %v", tc.args, err, tc.wantError)
		}
		if err != nil {
			continue
		}
		if f, _ := r.Fonts().CoverageFace('Ω', 0); (f != nil) != tc.wantFace {
			t.Errorf("%q: coverage face %v, want one: %v", tc.args, f, tc.wantFace)
		}
	}
}
