package render

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPrintConfigErrors: each bad setting is a clear error at start-up naming where
// it is and what is wrong: a corrupt or truncated profile, an RGB profile where CMYK
// is needed, an unknown intent, a bad bleed.
func TestPrintConfigErrors(t *testing.T) {
	good, err := os.ReadFile(ghostscriptCMYK)
	if err != nil {
		t.Skipf("%s: %v", ghostscriptCMYK, err)
	}
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		must(t, os.WriteFile(p, b, 0o644))
		return p
	}
	corrupt := append([]byte{}, good...)
	copy(corrupt[36:40], "xxxx")
	truncated := write("truncated.icc", good[:len(good)/2])
	for _, tc := range []struct {
		name string
		cfg  PrintConfig
		want []string
	}{
		{"missing", PrintConfig{Default: PrintSettings{Profile: filepath.Join(dir, "nope.icc")}}, []string{"default", "nope.icc", "no such file"}},
		{"corrupt", PrintConfig{Default: PrintSettings{Profile: write("corrupt.icc", corrupt)}}, []string{"corrupt.icc", "not an ICC profile"}},
		{"truncated", PrintConfig{Default: PrintSettings{Profile: truncated}}, []string{"truncated.icc", "truncated"}},
		{"rgb profile", PrintConfig{Default: PrintSettings{Profile: "/usr/share/color/icc/ghostscript/default_rgb.icc"}}, []string{"default_rgb.icc", "CMYK"}},
		{"unknown intent", PrintConfig{Default: PrintSettings{Profile: ghostscriptCMYK, Intent: "vivid"}}, []string{"vivid"}},
		{"bleed without unit", PrintConfig{Default: PrintSettings{Bleed: "3"}}, []string{"bleed", `"3"`}},
		{"bleed too large", PrintConfig{Default: PrintSettings{Bleed: "2in"}}, []string{"bleed", "0..72pt"}},
		{"ink limit", PrintConfig{Default: PrintSettings{Profile: ghostscriptCMYK, InkLimit: ptr(50.0)}}, []string{"ink limit"}},
		{"tiff without profile", PrintConfig{Default: PrintSettings{Raster: "tiff"}}, []string{"tiff needs a CMYK profile"}},
		{"store product", PrintConfig{Default: PrintSettings{Profile: ghostscriptCMYK}, Stores: map[string]StorePrint{
			"s1": {Products: map[string]PrintSettings{"mug": {Profile: "/usr/share/color/icc/ghostscript/default_rgb.icc"}}}}},
			[]string{"store s1 product mug", "default_rgb.icc"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.cfg.Load()
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}

// TestPrintConfigLevels: a store's product beats the store, which beats the product,
// which beats the defaults; "srgb" turns colour management off at a level.
func TestPrintConfigLevels(t *testing.T) {
	if _, err := os.Stat(ghostscriptCMYK); err != nil {
		t.Skip(err)
	}
	cfg := PrintConfig{
		Default:  PrintSettings{Profile: ghostscriptCMYK, Bleed: "3mm"},
		Products: map[string]PrintSettings{"poster": {Bleed: "0.125in"}, "mug": {Intent: "perceptual"}},
		Stores: map[string]StorePrint{
			"plain": {PrintSettings: PrintSettings{Profile: "sRGB", Bleed: "0"}},
			"s1":    {PrintSettings: PrintSettings{Bleed: "9pt"}, Products: map[string]PrintSettings{"card": {Bleed: "2mm", RichBlack: ptr(true)}}},
		},
	}
	set, err := cfg.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		store, product string
		bleed          float64
		cmyk, rich     bool
		intent         string
	}{
		{"other", "shirt", 3 * 72 / 25.4, true, false, "relative-colorimetric"},
		{"other", "poster", 9, true, false, "relative-colorimetric"},
		{"other", "mug", 3 * 72 / 25.4, true, false, "perceptual"},
		{"s1", "shirt", 9, true, false, "relative-colorimetric"},
		{"s1", "mug", 9, true, false, "perceptual"},
		{"s1", "card", 2 * 72 / 25.4, true, true, "relative-colorimetric"},
	} {
		p := set.For(tc.store, tc.product)
		if p == nil || p.CMYK() != tc.cmyk || math.Abs(p.BleedPt-tc.bleed) > 1e-9 || p.RichBlack != tc.rich || p.Profile.Intent != tc.intent {
			t.Errorf("%s/%s = %+v", tc.store, tc.product, p)
		}
	}
	if p := set.For("plain", "shirt"); p != nil {
		t.Errorf("plain store: %+v, want sRGB without bleed", p)
	}
}

// TestBleedLargerThanPage: a bleed that does not fit the product's page is a
// permanent error of the job, naming the sizes.
func TestBleedLargerThanPage(t *testing.T) {
	d := sepDetail(t, "pdf")
	d.Views[0].Width, d.Views[0].Height = 40, 30
	r := newRenderer(t, Options{}).WithPrint(&Print{BleedPt: 36})
	_, err := r.Plan(d, "v")
	var ie *InputError
	if !errors.As(err, &ie) || ie.Retryable() || !strings.Contains(err.Error(), "bleed 12.7 mm is larger than") {
		t.Fatalf("err = %v", err)
	}
}
