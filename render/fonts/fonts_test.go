package fonts

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-text/typesetting/font"

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
		if len(f.Data) == 0 || f.Face == nil {
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

func TestStyleOfAspect(t *testing.T) {
	for _, tc := range []struct {
		a    font.Aspect
		want Style
	}{
		{font.Aspect{Style: font.StyleNormal, Weight: 400}, Regular},
		{font.Aspect{Style: font.StyleNormal, Weight: 300}, Regular},
		{font.Aspect{Style: font.StyleNormal, Weight: 500}, Regular},
		{font.Aspect{Style: font.StyleNormal, Weight: 600}, Bold},
		{font.Aspect{Style: font.StyleNormal, Weight: 900}, Bold},
		{font.Aspect{Style: font.StyleItalic, Weight: 400}, Italic},
		{font.Aspect{Style: font.StyleItalic, Weight: 700}, BoldItalic},
	} {
		if got := styleOfAspect(tc.a); got != tc.want {
			t.Errorf("styleOfAspect(%+v) = %s, want %s", tc.a, got, tc.want)
		}
	}
}

// The fallback chain finds families in the fallback folders by name table, reads a
// face of a collection (.ttc), skips families that are not installed, and never reads
// a file whose name cannot hold the family.
func TestFallbackChain(t *testing.T) {
	const cjk = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"
	if _, err := os.Stat(cjk); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("fonts-noto-cjk not installed: %v", err)
		}
		t.Skip("fonts-noto-cjk not installed (Debian fonts-noto-cjk)")
	}
	r, err := Open(Config{
		Fallback:     []string{"Noto Sans Arabic", "No Such Family", "Noto Sans CJK JP", "DejaVu Sans"},
		FallbackDirs: append([]string{"/no/such/dir"}, DefaultFallbackDirs...),
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"Noto Sans Arabic", "", "Noto Sans CJK JP", "DejaVu Sans"}
	for i, w := range want {
		f, err := r.FallbackFace(i, Bold)
		if err != nil {
			t.Fatalf("FallbackFace(%d): %v", i, err)
		}
		if w == "" {
			if f != nil {
				t.Errorf("FallbackFace(%d) = %s, want none", i, f.Family)
			}
			continue
		}
		if f == nil || f.Family != w || f.Style != Bold {
			t.Fatalf("FallbackFace(%d) = %+v, want %s bold", i, f, w)
		}
		if _, ok := f.Face.Cmap.Lookup('a'); !ok && w != "Noto Sans Arabic" {
			t.Errorf("%s: no glyph for 'a'", w)
		}
	}
	if f, _ := r.FallbackFace(2, Regular); f.Embeddable || !strings.HasPrefix(f.Name, cjk+"#") {
		t.Errorf("CJK face %s: embeddable %v; a collection face is not embeddable", f.Name, f.Embeddable)
	}
}

// Every embedded face parses: they are parsed on first lookup, where a failure can
// only panic, so a broken embedded file has to fail here instead.
func TestEmbeddedFacesParse(t *testing.T) {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, fm := range r.families {
		for st, f := range fm.faces {
			if f == nil {
				continue
			}
			if f.Face != nil || f.lazy == nil {
				t.Errorf("%s: parsed when registered, want parsed on first lookup", f.Name)
			}
			got, m := r.Lookup(fm.name, Style(st))
			if got != f || m != Exact || got.Face == nil || got.Face.Upem() == 0 {
				t.Errorf("Lookup(%s, %s) = %s match %d, face parsed %v", fm.name, Style(st), got.Name, m, got.Face != nil)
			}
			n++
		}
	}
	if n != len(embedded) {
		t.Errorf("%d embedded faces registered, want %d", n, len(embedded))
	}
}

// Lookups from several goroutines parse a lazy face once and all get it parsed.
func TestLookupConcurrent(t *testing.T) {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan *Font, 4)
	for range cap(got) {
		go func() {
			f, _ := r.Lookup("DejaVu Serif", Bold)
			_ = f.Face.Upem()
			got <- f
		}()
	}
	first := <-got
	for range cap(got) - 1 {
		if f := <-got; f != first || f.Face == nil {
			t.Errorf("concurrent lookups got %p (face %v) and %p", f, f.Face != nil, first)
		}
	}
}
