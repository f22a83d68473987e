package profiles

import (
	"slices"
	"strings"
	"testing"
)

func TestParseReview(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   []string
		want []string
		err  string
	}{
		{in: nil, want: []string{}},
		{in: []string{""}, want: []string{}},
		{in: []string{"none"}, want: []string{}},
		{in: []string{"missing-font", " missing-glyph ", "missing-font"}, want: []string{"missing-font", "missing-glyph"}},
		{in: []string{"below-profile-dpi", "bleed-not-covered", "type-mismatch"}, want: []string{"below-profile-dpi", "bleed-not-covered", "type-mismatch"}},
		{in: []string{"none", "missing-font"}, err: "none stands alone"},
		{in: []string{"low-resolution"}, err: `"low-resolution": want none or finding kinds of missing-font`},
	} {
		got, err := ParseReview(c.in)
		switch {
		case c.err != "":
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("ParseReview(%q): %v, want an error naming %q", c.in, err, c.err)
			}
		case err != nil || got == nil || !slices.Equal(got, c.want):
			t.Errorf("ParseReview(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
}

// TestProfileReview: a profile's review list is checked with the profile, leaves
// its digest alone, and makes AnyReview true unless it is "none".
func TestProfileReview(t *testing.T) {
	t.Parallel()
	p := Profile{Name: "cards", Output: "png", Review: Strings{"missing-font", "blurry"}}
	if err := p.Validate(); err == nil || !strings.Contains(err.Error(), "review:") || !strings.Contains(err.Error(), "blurry") {
		t.Errorf("bad review list: %v", err)
	}
	f, err := Parse([]byte(`{"profiles": [
  {"name": "cards", "output": "png", "review": "below-profile-dpi"},
  {"name": "plain", "output": "png", "review": "none"},
  {"name": "cards-same", "output": "png"}],
 "rules": [{"match": {"product": "card"}, "profile": "cards"}, {"match": {"product": "same"}, "profile": "cards-same"}],
 "default": "plain"}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := Load(f, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !s.AnyReview() {
		t.Error("AnyReview: false with a profile holding below-profile-dpi")
	}
	if got := s.For("shop", "card", "front").Profile.Review; !slices.Equal(got, Strings{"below-profile-dpi"}) {
		t.Errorf("card's review %q", got)
	}
	// The review list changes no output: the digest ignores it (names differ, so
	// compare a profile with itself).
	a := s.For("shop", "card", "front")
	b := *a
	b.Profile.Review = nil
	if digest(a) != digest(&b) {
		t.Error("the review list changes the profile's digest")
	}
	only, err := Load(nil, WebPNG, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if only.AnyReview() {
		t.Error("AnyReview: true without any review list")
	}
	fn, err := Parse([]byte(`{"profiles": [{"name": "plain", "output": "png", "review": "none"}], "default": "plain"}`))
	if err != nil {
		t.Fatal(err)
	}
	none, err := Load(fn, "", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if none.AnyReview() {
		t.Error(`AnyReview: true when the only review list is "none"`)
	}
}
