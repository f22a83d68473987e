package fonts

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/image/font/gofont/gosmallcaps"
)

func TestLookup(t *testing.T) {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		family     string
		style      Style
		wantFamily string
		wantStyle  Style
		wantMatch  Match
	}{
		{"DejaVu Sans", Regular, "DejaVu Sans", Regular, Exact},
		{"dejavu sans", BoldItalic, "DejaVu Sans", BoldItalic, Exact},
		{"DejaVu Serif", Italic, "DejaVu Serif", Italic, Exact},
		{"DejaVu Serif", Bold, "DejaVu Serif", Bold, Exact},
		{"Go", Bold, "Go", Bold, Exact},
		{"Go Mono", BoldItalic, "Go Mono", BoldItalic, Exact},
		{"Comic Foo", Bold, "DejaVu Sans", Bold, Fallback},
		{"", Regular, "DejaVu Sans", Regular, Fallback},
	}
	for _, tc := range tests {
		f, m := r.Lookup(tc.family, tc.style)
		if f.Family != tc.wantFamily || f.Style != tc.wantStyle || m != tc.wantMatch {
			t.Errorf("Lookup(%q, %s) = %s %s match %d, want %s %s match %d",
				tc.family, tc.style, f.Family, f.Style, m, tc.wantFamily, tc.wantStyle, tc.wantMatch)
		}
		if len(f.Data) == 0 || f.SFNT == nil {
			t.Errorf("Lookup(%q): face without data", tc.family)
		}
	}
}

// A folder font is registered by the family its name table declares, and a family
// with one face answers other styles with it, saying so.
func TestFontDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "whatever-name.ttf"), gosmallcaps.TTF, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a font"), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	f, m := r.Lookup("Go Smallcaps", Regular)
	if m != Exact || f.Family != "Go Smallcaps" {
		t.Fatalf("Lookup(Go Smallcaps) = %s match %d", f.Family, m)
	}
	if f, m := r.Lookup("go smallcaps", Bold); m != OtherStyle || f.Style != Regular {
		t.Errorf("Lookup(Go Smallcaps, bold) = %s match %d, want regular face, OtherStyle", f.Style, m)
	}
}

func TestBrokenFontReported(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "broken.ttf"), []byte("not a font at all"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := New(dir); err == nil {
		t.Fatal("New accepted a broken font file")
	}
}

func TestStyleFromSubfamily(t *testing.T) {
	for sub, want := range map[string]Style{
		"Book": Regular, "Regular": Regular, "Bold": Bold, "Oblique": Italic,
		"Bold Oblique": BoldItalic, "Bold Italic": BoldItalic, "Light": Regular, "Black Italic": BoldItalic,
	} {
		if got := styleFromSubfamily(sub); got != want {
			t.Errorf("styleFromSubfamily(%q) = %s, want %s", sub, got, want)
		}
	}
}
