package fonts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-text/typesetting/font"
)

// TestNearerFace: of several faces of one family and style, the plain one wins
// whatever order the files come in: normal width first, then weight 400 (700 bold).
func TestNearerFace(t *testing.T) {
	t.Parallel()
	face := func(st Style, w font.Weight, s font.Stretch) *Font {
		return &Font{Style: st, aspect: font.Aspect{Weight: w, Stretch: s}}
	}
	tests := []struct {
		name     string
		f, cur   *Font
		wantWins bool
	}{
		{"empty slot", face(Regular, 200, 1), nil, true},
		{"regular beats extra-light", face(Regular, 400, 1), face(Regular, 200, 1), true},
		{"extra-light loses to regular", face(Regular, 200, 1), face(Regular, 400, 1), false},
		{"normal width beats condensed", face(Regular, 400, 1), face(Regular, 400, 0.75), true},
		{"condensed regular loses to normal light", face(Regular, 400, 0.75), face(Regular, 300, 1), false},
		{"bold beats black", face(Bold, 700, 1), face(Bold, 900, 1), true},
		{"semibold loses to bold", face(Bold, 600, 1), face(Bold, 700, 1), false},
		{"unknown width counts as normal", face(Regular, 400, 0), face(Regular, 400, 0.75), true},
	}
	for _, tc := range tests {
		if got := nearer(tc.f, tc.cur); got != tc.wantWins {
			t.Errorf("%s: nearer = %v, want %v", tc.name, got, tc.wantWins)
		}
	}
}

// TestFallbackPicksPlainFaces: with Debian's fonts-noto-extra installed, the fallback
// folder holds "Noto Sans" from Thin to Black and from ExtraCondensed to normal width;
// the chain must still use NotoSans-Regular and NotoSans-Bold (it took Condensed and
// Black, the first files in name order).
func TestFallbackPicksPlainFaces(t *testing.T) {
	t.Parallel()
	dir := DefaultFallbackDirs[0]
	if _, err := os.Stat(filepath.Join(dir, "NotoSans-Condensed.ttf")); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("fonts-noto-extra not installed (.ci/run installs it): %v", err)
		}
		t.Skipf("fonts-noto-extra not installed: %v", err)
	}
	r, err := Open(Config{Fallback: []string{"Noto Sans", "Noto Sans Arabic"}, FallbackDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	want := map[Style]string{Regular: "-Regular.ttf", Bold: "-Bold.ttf", Italic: "-Italic.ttf", BoldItalic: "-BoldItalic.ttf"}
	for i, fam := range []string{"NotoSans", "NotoSansArabic"} {
		for st, suffix := range want {
			f, err := r.FallbackFace(i, st)
			if err != nil || f == nil {
				t.Fatalf("%s %v: %v", fam, st, err)
			}
			base := filepath.Base(f.Name)
			if fam == "NotoSansArabic" && (st == Italic || st == BoldItalic) {
				// No italic Arabic: the upright face of the weight, slanted when drawn.
				suffix = map[Style]string{Italic: "-Regular.ttf", BoldItalic: "-Bold.ttf"}[st]
			}
			if base != fam+suffix && !strings.HasSuffix(base, fam+suffix) {
				t.Errorf("%s %v: took %s, want %s%s", fam, st, base, fam, suffix)
			}
		}
	}
}

// TestFontDirPicksPlainFaces: a --font-dir folder holding a family from Thin to Black
// and from Condensed to normal width (a full Noto folder) files the plain faces under
// regular and bold, whatever the files' order (the last file by name, Thin, took the
// regular slot: Devanagari text printed hairline-thin).
func TestFontDirPicksPlainFaces(t *testing.T) {
	t.Parallel()
	src := "/usr/share/fonts/truetype/noto"
	names := []string{"Black", "Bold", "Condensed", "CondensedBold", "ExtraLight", "Light", "Regular", "SemiCondensedThin", "Thin"}
	dir := t.TempDir()
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(src, "NotoSansDevanagari-"+n+".ttf"))
		if err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("fonts-noto-core not installed: %v", err)
			}
			t.Skipf("fonts-noto-core not installed: %v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, "NotoSansDevanagari-"+n+".ttf"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r, err := Open(Config{Dirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	for st, want := range map[Style]string{Regular: "-Regular.ttf", Bold: "-Bold.ttf"} {
		f, m := r.Lookup("Noto Sans Devanagari", st)
		if m != Exact || !strings.HasSuffix(f.Name, want) {
			t.Errorf("%v: %s (%v), want the %s face", st, f.Name, m, want)
		}
	}
	// A folder's face still replaces an embedded one of its family and style.
	dv := t.TempDir()
	b, err := os.ReadFile("/usr/share/fonts/truetype/dejavu/DejaVuSans-ExtraLight.ttf")
	if err != nil {
		t.Skipf("fonts-dejavu-extra not installed: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dv, "DejaVuSans-ExtraLight.ttf"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err = Open(Config{Dirs: []string{dv}})
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := r.Lookup("DejaVu Sans", Regular); !strings.HasSuffix(f.Name, "DejaVuSans-ExtraLight.ttf") {
		t.Errorf("DejaVu Sans regular is %s, want the folder's ExtraLight face (a pinned face wins over the embedded one)", f.Name)
	}
}
