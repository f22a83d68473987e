package main

import (
	"flag"
	"slices"
	"testing"
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
