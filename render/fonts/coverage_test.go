package fonts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/image/font/gofont/goregular"
)

// notoDir is Debian's fonts-noto-core folder.
const notoDir = "/usr/share/fonts/truetype/noto"

func needNoto(t testing.TB) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(notoDir, "NotoSansBengali-Regular.ttf")); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Debian fonts-noto-core is required in CI: %v", err)
		}
		t.Skipf("Debian fonts-noto-core not installed: %v", err)
	}
}

// Every script with an installed Noto font draws, whatever the explicit chain names:
// the coverage fallback finds the font by the script's name, in the asked style when
// the family has it, else the closest (the renderer then synthesizes).
func TestCoverageFallbackScripts(t *testing.T) {
	needNoto(t)
	r, err := Open(Config{FallbackDirs: DefaultFallbackDirs})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		text       string
		style      Style
		wantFamily string
		wantStyle  Style
	}{
		{"বাংলা", Regular, "Noto Sans Bengali", Regular},
		{"తెలుగు", Regular, "Noto Sans Telugu", Regular},
		{"தமிழ்", Regular, "Noto Sans Tamil", Regular},
		{"ગુજરાતી", Regular, "Noto Sans Gujarati", Regular},
		{"ਪੰਜਾਬੀ", Regular, "Noto Sans Gurmukhi", Regular},
		{"ಕನ್ನಡ", Regular, "Noto Sans Kannada", Regular},
		{"മലയാളം", Regular, "Noto Sans Malayalam", Regular},
		{"ଓଡ଼ିଆ", Regular, "Noto Sans Oriya", Regular},
		{"සිංහල", Regular, "Noto Sans Sinhala", Regular},
		{"ខ្មែរ", Regular, "Noto Sans Khmer", Regular},
		{"ລາວ", Regular, "Noto Sans Lao", Regular},
		{"မြန်မာ", Regular, "Noto Sans Myanmar", Regular},
		{"ქართული", Regular, "Noto Sans Georgian", Regular},
		{"Հայերեն", Regular, "Noto Sans Armenian", Regular},
		{"አማርኛ", Regular, "Noto Sans Ethiopic", Regular},
		{"বাংলা", Bold, "Noto Sans Bengali", Bold},
		// Noto Sans Bengali has no italic: the closest face, regular.
		{"বাংলা", Italic, "Noto Sans Bengali", Regular},
		{"ไทย", BoldItalic, "Noto Sans Thai", Bold},
	}
	for _, tc := range tests {
		for _, ru := range tc.text {
			f, errs := r.CoverageFace(ru, tc.style)
			if len(errs) > 0 {
				t.Errorf("%q: %v", ru, errs)
			}
			if f == nil {
				t.Errorf("%q (%s): no face", ru, tc.style)
				continue
			}
			if !strings.HasPrefix(f.Family, tc.wantFamily) || f.Style != tc.wantStyle {
				t.Errorf("%q (%s): %s %s, want %s %s", ru, tc.style, f.Family, f.Style, tc.wantFamily, tc.wantStyle)
			}
			if !hasRune(f, ru) {
				t.Errorf("%q: %s lacks it", ru, f.Name)
			}
		}
	}
}

// A character no script name leads to is found through the cmap index; a character no
// file has gives nil, and nothing breaks on a private-use or unassigned code point.
func TestCoverageFallbackIndex(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A font whose file name says nothing of its script.
	if err := os.WriteFile(filepath.Join(dir, "Whatever-Regular.ttf"), goregular.TTF, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "Broken-Regular.ttf"), []byte("not a font at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(Config{FallbackDirs: []string{dir}})
	if err != nil {
		t.Fatal(err)
	}
	f, errs := r.CoverageFace('Ω', Regular)
	if f == nil || f.Family != "Go" {
		t.Fatalf("Ω: %v, want the Go font", f)
	}
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), "Broken-Regular.ttf") {
		t.Errorf("errors %v, want the broken file reported once", errs)
	}
	for _, ru := range []rune{0xE000, 0x10FFFD, 'ক'} {
		if f, errs := r.CoverageFace(ru, Bold); f != nil || len(errs) > 0 {
			t.Errorf("%U: %v %v, want none", ru, f, errs)
		}
	}
	off, err := Open(Config{FallbackDirs: []string{dir}, NoCoverage: true})
	if err != nil {
		t.Fatal(err)
	}
	if f, _ := off.CoverageFace('Ω', Regular); f != nil {
		t.Errorf("NoCoverage: %v, want none", f)
	}
}

// Opening a registry over the Noto folders reads no font file: the coverage fallback
// costs nothing until a character misses.
func TestCoverageLazy(t *testing.T) {
	needNoto(t)
	r, err := Open(Config{FallbackDirs: DefaultFallbackDirs})
	if err != nil {
		t.Fatal(err)
	}
	c := r.coverage
	if len(c.faces) != 0 || c.indexed {
		t.Fatalf("faces %d, indexed %v after Open", len(c.faces), c.indexed)
	}
	if f, _ := r.CoverageFace('ক', Regular); f == nil {
		t.Fatal("no Bengali face")
	}
	if c.indexed {
		t.Error("a character of a named script built the cmap index")
	}
}

func TestSplitFileName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		path string
		key  string
		st   Style
		ok   bool
	}{
		{"/x/NotoSansBengali-Regular.ttf", "notosansbengali", Regular, true},
		{"/x/NotoSerifTelugu-Bold.ttf", "notoseriftelugu", Bold, true},
		{"NotoSans-BoldItalic.ttf", "notosans", BoldItalic, true},
		{"NotoSansKhmer-CondensedBold.ttf", "", 0, false},
		{"Symbola_hint.ttf", "symbola", Regular, true},
		{"-Regular.ttf", "", 0, false},
	}
	for _, tc := range tests {
		key, st, ok := splitFileName(tc.path)
		if ok != tc.ok || ok && (key != tc.key || st != tc.st) {
			t.Errorf("%s: %q %s %v, want %q %s %v", tc.path, key, st, ok, tc.key, tc.st, tc.ok)
		}
	}
}

// BenchmarkCoverageFirstMiss is the cost of the first character of a script no chain
// family has (a Bengali letter: one file read and parsed); BenchmarkCoverageIndex the
// cost of a character found only through the cmap index (all regular files' cmaps
// read); BenchmarkCoverageSteady a later lookup.
func BenchmarkCoverageFirstMiss(b *testing.B) {
	needNoto(b)
	for b.Loop() {
		r, _ := Open(Config{FallbackDirs: DefaultFallbackDirs})
		if f, _ := r.CoverageFace('ক', Regular); f == nil {
			b.Fatal("no face")
		}
	}
}

func BenchmarkCoverageIndex(b *testing.B) {
	needNoto(b)
	for b.Loop() {
		r, _ := Open(Config{FallbackDirs: DefaultFallbackDirs})
		// U+2E3B THREE-EM DASH: Common script, so only the index finds it.
		r.CoverageFace(0x2E3B, Regular)
		if !r.coverage.indexed {
			b.Fatal("index not built")
		}
	}
}

func BenchmarkCoverageSteady(b *testing.B) {
	needNoto(b)
	r, _ := Open(Config{FallbackDirs: DefaultFallbackDirs})
	r.CoverageFace('ক', Regular)
	for b.Loop() {
		if f, _ := r.CoverageFace('ক', Regular); f == nil {
			b.Fatal("no face")
		}
	}
}

// FuzzCoverageFace: any rune (negative, surrogate, beyond U+10FFFF, private use) in any
// style gives a face that has it or none, never a panic, and the memo stays bounded.
func FuzzCoverageFace(f *testing.F) {
	for _, r := range []rune{'ক', 'A', 0, -1, 0xD800, 0xE000, 0x10FFFF, 0x110000, 0x7FFFFFFF, 0x2E3B, '😀', 0x0301} {
		f.Add(int32(r), uint8(0))
		f.Add(int32(r), uint8(3))
	}
	dir := f.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "Whatever-Regular.ttf"), goregular.TTF, 0o644); err != nil {
		f.Fatal(err)
	}
	dirs := []string{dir}
	if _, err := os.Stat(notoDir); err == nil {
		dirs = append(dirs, notoDir)
	}
	r, err := Open(Config{FallbackDirs: dirs})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, ru int32, st uint8) {
		fc, _ := r.CoverageFace(ru, Style(st%4))
		if fc != nil && !hasRune(fc, ru) {
			t.Errorf("%U: %s lacks it", ru, fc.Name)
		}
		if n := len(r.coverage.memo); n > maxMemo {
			t.Errorf("memo of %d entries", n)
		}
	})
}
