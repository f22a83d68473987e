package filenames

import (
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf8"
)

func TestSanitize(t *testing.T) {
	long := strings.Repeat("é", 100) // 200 bytes
	tests := []struct {
		name, in, want string
	}{
		{"plain", "Summer Shirt", "Summer-Shirt"},
		{"reserved characters dropped", `a/b\c:d*e?f"g<h>i|j`, "abcdefghij"},
		{"control characters dropped", "a\x00b\tc\nd\x7fe", "ab-c-de"},
		{"bidi override dropped", "invoice\u202egnp.exe", "invoicegnp.exe"},
		{"whitespace collapses", "a  \t b", "a-b"},
		{"separator runs collapse", "a---b__c", "a-b_c"},
		{"dangling separators trimmed", "-_a-", "a"},
		{"dot runs collapse", "a..b...c", "a.b.c"},
		{"dot dot alone", "..", "design"},
		{"single dot", ".", "design"},
		{"leading dot", ".hidden", "hidden"},
		{"trailing dot", "name.", "name"},
		{"traversal", "../../etc/passwd", "etcpasswd"},
		{"empty", "", "design"},
		{"only junk", `/\:*?"<>|`, "design"},
		{"unicode kept", "Café Crème 🎉", "Café-Crème-🎉"},
		{"invalid utf8 dropped", "a\xffb", "ab"},
		{"windows device name", "con", "con_"},
		{"windows device name with ext", "NUL.png", "NUL_.png"},
		{"not a device name", "console", "console"},
		{"capped on rune boundary", long, strings.Repeat("é", 60)},
		{"brackets kept", "[foo]", "[foo]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Sanitize(tt.in); got != tt.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestBuild(t *testing.T) {
	f := Fields{
		ID:      "123.4f2a",
		Date:    time.Date(2024, 1, 2, 23, 30, 0, 0, time.FixedZone("X", -5*3600)),
		Title:   "My Design: v2",
		Product: "TSHIRT/L",
	}
	tests := []struct {
		name string
		opts Options
		f    Fields
		ext  string
		want string
	}{
		{"default pattern", Options{}, f, ".png", "123.4f2a-My-Design-v2.png"},
		{"all tokens, date in UTC", Options{Pattern: "[date]_[product]_[id]_[title]"}, f, ".pdf",
			"2024-01-03_TSHIRTL_123.4f2a_My-Design-v2.pdf"},
		{"order tokens", Options{Pattern: "[store]_[order]-[line]-[qty]x-[design]-[date]-[created]"},
			Fields{Store: "shop 1", Order: "#1001", Line: 2, Quantity: 3, Design: "77", Date: time.Date(2024, 3, 14, 0, 0, 0, 0, time.UTC),
				Created: time.Date(2024, 3, 5, 0, 0, 0, 0, time.UTC)}, ".png", "shop-1_#1001-2-3x-77-2024-03-14-2024-03-05.png"},
		{"zero line and quantity expand to nothing", Options{Pattern: "[order]-[line]-[qty]-[id]"}, Fields{Order: "9", ID: "5"}, ".png", "9-5.png"},
		{"empty title leaves no dangling dash", Options{}, Fields{ID: "9"}, ".png", "9.png"},
		{"empty middle token", Options{Pattern: "[id]-[title]-[product]"}, Fields{ID: "9", Product: "P"}, ".png", "9-P.png"},
		{"zero date expands to nothing", Options{Pattern: "[date]-[id]"}, Fields{ID: "9"}, "", "9"},
		{"all empty falls back", Options{}, Fields{}, ".png", "design.png"},
		{"unknown token kept literally", Options{Pattern: "[id]-[size]"}, Fields{ID: "9"}, ".png", "9-[size].png"},
		{"ext without dot", Options{}, Fields{ID: "9"}, "png", "9.png"},
		{"view name appended", Options{}, Fields{ID: "9", Title: "Mug", ViewID: "v1", ViewName: "Back side"}, ".png", "9-Mug-Back-side.png"},
		{"view id when no name", Options{}, Fields{ID: "9", Title: "Mug", ViewID: "v1", ViewName: "///"}, ".png", "9-Mug-v1.png"},
		{"title cannot inject a path", Options{}, Fields{ID: "9", Title: "../../x"}, ".png", "9-x.png"},
		{"cap keeps extension", Options{MaxLen: 20}, Fields{ID: "1", Title: strings.Repeat("a", 50)}, ".png",
			"1-" + strings.Repeat("a", 14) + ".png"},
		{"cap never splits a rune", Options{MaxLen: 20}, Fields{ID: "1", Title: strings.Repeat("ü", 50)}, ".png",
			"1-" + strings.Repeat("ü", 7) + ".png"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Build(tt.opts, tt.f, tt.ext)
			if got != tt.want {
				t.Errorf("Build = %q, want %q", got, tt.want)
			}
			if max := tt.opts.maxLen(); len(got) > max {
				t.Errorf("len(%q) = %d > %d", got, len(got), max)
			}
		})
	}
}

func TestForViews(t *testing.T) {
	f := Fields{ID: "7", Title: "Mug"}
	ext := func(v View) string { return Ext(v.Type) }
	tests := []struct {
		name  string
		opts  Options
		views []View
		want  []string
	}{
		{"one view has no suffix", Options{}, []View{{ID: "v1", Name: "Front", Type: "png"}}, []string{"7-Mug.png"}},
		{"names when distinct", Options{}, []View{{ID: "v1", Name: "Front", Type: "png"}, {ID: "v2", Name: "Back", Type: "png"}},
			[]string{"7-Mug-Front.png", "7-Mug-Back.png"}},
		{"ids when names collide case-insensitively", Options{},
			[]View{{ID: "v1", Name: "Side", Type: "pdf"}, {ID: "v2", Name: "side", Type: "pdf"}},
			[]string{"7-Mug-v1.pdf", "7-Mug-v2.pdf"}},
		{"ids when a name is missing", Options{}, []View{{ID: "a", Name: "Front"}, {ID: "b"}}, []string{"7-Mug-a", "7-Mug-b"}},
		{"positions when ids collide too", Options{}, []View{{ID: "x", Name: "S"}, {ID: "x", Name: "s"}},
			[]string{"7-Mug-x", "7-Mug-x-2"}},
		{"names that sanitize equal", Options{}, []View{{ID: "1", Name: "a/b"}, {ID: "2", Name: "ab"}},
			[]string{"7-Mug-1", "7-Mug-2"}},
		{"suffix survives the cap", Options{MaxLen: 20},
			[]View{{ID: "1", Name: "Front", Type: "png"}, {ID: "2", Name: "Back", Type: "png"}},
			[]string{"7-Mug-Front.png", "7-Mug-Back.png"}},
		{"long title cut, suffix kept", Options{MaxLen: 24, Pattern: "[title]"},
			[]View{{ID: "1", Name: "Front", Type: "png"}, {ID: "2", Name: "Back", Type: "png"}},
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ff := f
			if tt.want == nil {
				ff.Title = strings.Repeat("x", 80)
			}
			got := ForViews(tt.opts, ff, tt.views, ext)
			if tt.want != nil {
				if strings.Join(got, "|") != strings.Join(tt.want, "|") {
					t.Fatalf("ForViews = %q, want %q", got, tt.want)
				}
			}
			seen := map[string]bool{}
			for i, n := range got {
				if len(n) > tt.opts.maxLen() {
					t.Errorf("%q longer than %d", n, tt.opts.maxLen())
				}
				if seen[strings.ToLower(n)] {
					t.Errorf("duplicate name %q", n)
				}
				seen[strings.ToLower(n)] = true
				if tt.views[i].Name != "" && tt.want == nil && !strings.Contains(n, tt.views[i].Name) {
					t.Errorf("%q lost its view name %q", n, tt.views[i].Name)
				}
			}
			again := ForViews(tt.opts, ff, tt.views, ext)
			if strings.Join(got, "|") != strings.Join(again, "|") {
				t.Errorf("not deterministic: %q then %q", got, again)
			}
		})
	}
}

func TestExt(t *testing.T) {
	for in, want := range map[string]string{"png": ".png", "PDF": ".pdf", "pdf-simple": ".pdf", "zip": ".zip", "tiff": ".tif", "bmp": ""} {
		if got := Ext(in); got != want {
			t.Errorf("Ext(%q) = %q, want %q", in, got, want)
		}
	}
}

// checkSafe asserts the invariants every produced name must hold.
func checkSafe(t *testing.T, in, out string, max int) {
	t.Helper()
	switch {
	case out == "":
		t.Fatalf("%q -> empty", in)
	case !utf8.ValidString(out):
		t.Fatalf("%q -> invalid UTF-8 %q", in, out)
	case strings.ContainsAny(out, `/\`):
		t.Fatalf("%q -> path separator in %q", in, out)
	case strings.Contains(out, ".."):
		t.Fatalf("%q -> %q contains ..", in, out)
	case strings.HasPrefix(out, "."):
		t.Fatalf("%q -> %q starts with a dot", in, out)
	case len(out) > max:
		t.Fatalf("%q -> %q is %d bytes > %d", in, out, len(out), max)
	}
	for _, r := range out {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			t.Fatalf("%q -> %q holds control %U", in, out, r)
		}
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"", ".", "..", "a/../b", "con", "NUL.txt", "a\x00b", "é\xff", " - _ . ", strings.Repeat("ß", 90)} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out := Sanitize(s)
		checkSafe(t, s, out, DefaultMaxLen)
		if again := Sanitize(out); again != out {
			t.Fatalf("not idempotent: %q -> %q -> %q", s, out, again)
		}
	})
}

func FuzzBuild(f *testing.F) {
	f.Add("[id]-[title]", "1", "t", "p", "png", 0, int64(0))
	f.Add("[date]/[product]/..", "..", "/", "\\", "..", 17, int64(1700000000))
	f.Add("", "", "", "", "", -1, int64(-1))
	// Issue 32: titles naming the order's own files, and an over-long title.
	f.Add("[title]", "1", "ticket", "", "pdf", 0, int64(0))
	f.Add("[title]", "1", "Manifest", "", "json", 0, int64(0))
	f.Add("[title]", "1", "index", "", "html", 0, int64(0))
	f.Add("[title]", "1", "Mug.thumb", "", "jpg", 0, int64(0))
	f.Add("[title]", "1", strings.Repeat("9", 300), "", "png", 0, int64(0))
	f.Fuzz(func(t *testing.T, pattern, id, title, product, ext string, max int, unix int64) {
		opts := Options{Pattern: pattern, MaxLen: max}
		fl := Fields{ID: id, Title: title, Product: product, Date: time.Unix(unix, 0)}
		out := Build(opts, fl, ext)
		checkSafe(t, pattern, out, opts.maxLen())
		if out != Build(opts, fl, ext) {
			t.Fatal("not deterministic")
		}
		if again := sanitize(out, opts.maxLen()); again != out {
			t.Fatalf("not idempotent: %q -> %q", out, again)
		}
		withView := fl
		withView.ViewID, withView.ViewName = product, title
		checkSafe(t, pattern, Build(opts, withView, ext), opts.maxLen())
		views := []View{{ID: id, Name: title}, {ID: product, Name: title}, {ID: id}}
		names := ForViews(opts, fl, views, func(View) string { return ext })
		seen := map[string]bool{}
		for _, n := range names {
			checkSafe(t, pattern, n, opts.maxLen())
			if seen[strings.ToLower(n)] {
				t.Fatalf("views collide: %q", names)
			}
			seen[strings.ToLower(n)] = true
		}
		// A numbered choice stays a safe name under the cap and differs from the name.
		for _, n := range []int{2, 10, 99999} {
			num := Numbered(opts, out, Ext(ext), n)
			checkSafe(t, pattern, num, opts.maxLen())
			if strings.EqualFold(num, out) {
				t.Fatalf("Numbered(%q, %d) = the name itself", out, n)
			}
		}
	})
}
