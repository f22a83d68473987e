package render

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/fonts"
)

// renderText renders text.json with its first element's text replaced by s.
func renderText(t testing.TB, r *Renderer, s string) (*Result, error) {
	t.Helper()
	d := loadDesign(t, "text.json")
	v := model.TextValue(model.NewTranslations("en", s))
	d.Views[0].Elements[0].Value = &v
	return r.RenderView(context.Background(), d, "words", DirSource(mediaDir), io.Discard)
}

// Hostile text gets a warning or a permanent error in bounded time, never a panic.
func TestHostileText(t *testing.T) {
	r := newRenderer(t, Options{FontFallback: []string{}})
	tests := []struct {
		name     string
		text     string
		wantErr  string // substring of a permanent error; "" for success
		wantWarn string // substring of a warning
	}{
		{name: "unpaired surrogate", text: `a` + string(rune(0xD800)) + `b`, wantWarn: "invalid characters"},
		{name: "100000 characters", text: strings.Repeat("abcde", 20_000), wantErr: "exceeds the limit of 20000"},
		{name: "a million combining marks", text: "a" + strings.Repeat("\u0301", 1_000_000), wantErr: "exceeds the limit"},
		{name: "5000 combining marks", text: "a" + strings.Repeat("\u0301", 5000) + "b", wantWarn: "combining marks beyond 30"},
		{name: "bidi override", text: "\u202Eabc\u202C def \u2067שלום\u2069", wantWarn: "bidi"},
		{name: "only controls", text: "\u200F\u200E\u202B\u202C", wantWarn: "bidi"},
		{name: "missing glyph", text: "a\U000F0000b", wantWarn: "no font"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			start := time.Now()
			res, err := renderText(t, r, tc.text)
			if d := time.Since(start); d > 5*time.Second {
				t.Errorf("took %v", d)
			}
			if tc.wantErr != "" {
				var ie *InputError
				if !errors.As(err, &ie) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want an InputError with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range res.Warnings {
				if strings.Contains(w.Message, tc.wantWarn) {
					return
				}
			}
			t.Errorf("no warning with %q in %+v", tc.wantWarn, res.Warnings)
		})
	}
}

// With --render-strict a character no font has is a permanent error.
func TestStrictMissingGlyph(t *testing.T) {
	r := newRenderer(t, Options{Strict: true, FontFallback: []string{}})
	_, err := renderText(t, r, "a\U000F0000b")
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "strict mode") {
		t.Fatalf("err = %v, want a strict-mode InputError", err)
	}
}

// A fallback font file that is not a font is reported, and the text still renders.
func TestBrokenFallbackFont(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "NotoSansArabic-Regular.ttf"), []byte("not a font"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := newRenderer(t, Options{FontFallback: []string{"Noto Sans Arabic"}, FallbackFontDirs: []string{dir}})
	d := loadDesign(t, "text.json")
	v := model.TextValue(model.NewTranslations("en", "Hi مرحبا"))
	d.Views[0].Elements[0].Value = &v
	d.Views[0].Elements[0].DefaultFontRaw = []byte(`"Go"`) // no Arabic in Go
	res, err := r.RenderView(context.Background(), d, "words", DirSource(mediaDir), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	var fallback, missing bool
	for _, w := range res.Warnings {
		fallback = fallback || w.Code == WarnFontFallback && strings.Contains(w.Message, "not readable")
		missing = missing || w.Code == WarnMissingGlyph
	}
	if !fallback || !missing {
		t.Errorf("warnings %+v: want the unreadable fallback and the missing Arabic reported", res.Warnings)
	}
}

// maxCharacters counts user-perceived characters: a letter with its accent, a
// Devanagari conjunct and a flag count once each.
func TestGraphemeCount(t *testing.T) {
	for s, want := range map[string]int{
		"abc": 3, "e\u0301": 1, "क्ष": 1, "🇩🇪": 1, "ab\ncd": 4, "": 0, "مرحبا": 5,
	} {
		if got := graphemeCount(s); got != want {
			t.Errorf("graphemeCount(%q) = %d, want %d", s, got, want)
		}
	}
}

func TestMaxCharactersWarning(t *testing.T) {
	r := newRenderer(t, Options{})
	d := loadDesign(t, "text.json")
	e := &d.Views[0].Elements[0]
	v := model.TextValue(model.NewTranslations("en", "Zoë\u0301 क्ष"))
	e.Value = &v
	for _, max := range []int{5, 4} {
		e.MaxCharacters = &max
		res, err := r.RenderView(context.Background(), d, "words", DirSource(mediaDir), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		warned := false
		for _, w := range res.Warnings {
			warned = warned || strings.Contains(w.Message, "maxCharacters")
		}
		if warned != (max == 4) {
			t.Errorf("maxCharacters %d: warned %v (text has 5 characters)", max, warned)
		}
	}
}

// FuzzShape feeds arbitrary text and spacing to the shaping entry point: never a
// panic, and an error only for text over the length limit.
func FuzzShape(f *testing.F) {
	for _, s := range []string{"office AVATAR", "مرحبا 123 world", "שלום\n123", "नमस्ते", "สวัสดี", "你好",
		"\u202Eabc", "a\u0301\u0301\u0301", "\xff\xfe", "\u200d\u200c", "🇩🇪👩‍👩‍👧", "\r\n\t",
		"আমার সোনার বাংলা", "తెలుగు", "ភាសាខ្មែរ", "ffi\nwaffle", "\u0301\u0301", "\U000F0000\U0010FFFF"} {
		f.Add(s, 0.0)
		f.Add(s, 150.0)
	}
	r := newRenderer(f, Options{})
	primary, _ := r.Fonts().Lookup("DejaVu Sans", 0)
	f.Fuzz(func(t *testing.T, s string, spacing float64) {
		tl, _, err := r.shapers.layoutText(s, textRequest{primary: primary, reg: r.fonts, size: 20, charSpacing: spacing, lineHeight: 1.16, align: "right"})
		if err != nil {
			if !strings.Contains(err.Error(), "exceeds the limit") {
				t.Fatalf("layoutText(%q): %v", s, err)
			}
			return
		}
		if len(tl.Lines) != strings.Count(strings.ReplaceAll(s, "\r\n", "\n"), "\n")+strings.Count(strings.ReplaceAll(s, "\r\n", ""), "\r")+1 {
			t.Errorf("%d lines for %q", len(tl.Lines), s)
		}
	})
}

// BenchmarkLayoutLongLine lays out the longest text an element may hold on one line:
// 20,000 distinct CJK characters (every grapheme and pair measured once for the
// fabric.js line box) and 20,000 Latin letters (few distinct pairs).
func BenchmarkLayoutLongLine(b *testing.B) {
	r := newRenderer(b, Options{})
	primary, _ := r.Fonts().Lookup("DejaVu Sans", 0)
	var cjk []rune
	for i := range maxTextRunes {
		cjk = append(cjk, rune(0x4E00+i))
	}
	for _, tc := range []struct{ name, text string }{
		{"cjk-distinct", string(cjk)},
		{"latin", strings.Repeat("office AV", maxTextRunes/9)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			for b.Loop() {
				if _, _, err := r.shapers.layoutText(tc.text, textRequest{primary: primary, reg: r.fonts, size: 20, lineHeight: 1.16, align: "center"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzShapeStyled: any text in any style and paragraph direction lays out (fabric.js
// line boxes, synthesized faces) without a panic, with finite, non-negative boxes.
func FuzzShapeStyled(f *testing.F) {
	for _, s := range []string{"office", "مرحبا Hello عالم", "আমার সোনার", "ffi\nffl", "\u0301", "a\u200db", "\U000F0000"} {
		for st := range 4 {
			f.Add(s, uint8(st), uint8(st%3))
		}
	}
	r := newRenderer(f, Options{})
	f.Fuzz(func(t *testing.T, s string, st, dir uint8) {
		style := fonts.Style(st % 4)
		primary, _ := r.Fonts().Lookup("Go", style)
		d := []string{TextDirectionLTR, TextDirectionRTL, TextDirectionAuto}[dir%3]
		tl, _, err := r.shapers.layoutText(s, textRequest{primary: primary, style: style, reg: r.fonts, size: 20, lineHeight: 1.16, align: "center", direction: d})
		if err != nil {
			if !strings.Contains(err.Error(), "exceeds the limit") {
				t.Fatalf("layoutText(%q): %v", s, err)
			}
			return
		}
		for _, l := range tl.Lines {
			if math.IsNaN(l.Width) || math.IsInf(l.Width, 0) || l.Width < 0 || l.X < -1e-9 || l.Width > tl.Width+1e-9 {
				t.Fatalf("%q: line box %g at %g in %g", s, l.Width, l.X, tl.Width)
			}
		}
	})
}
