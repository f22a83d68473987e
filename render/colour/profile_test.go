package colour

import (
	"errors"
	"os"
	"strings"
	"testing"
)

const ghostscriptICC = "/usr/share/color/icc/ghostscript/"

// debianProfile loads one of Debian's Ghostscript profiles (package libgs-common);
// missing profiles skip, or fail under CI=true.
func debianProfile(t testing.TB, name string) *Profile {
	t.Helper()
	path := ghostscriptICC + name
	if _, err := os.Stat(path); err != nil {
		needTool(t, "ICC profile "+path+" (Debian libgs-common)")
	}
	p, err := LoadProfile(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func needTool(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is missing; CI must run the colour checks", what)
	}
	t.Skipf("%s is missing; skipping", what)
}

func TestParseDebianProfiles(t *testing.T) {
	for _, tc := range []struct {
		file, space, pcs, version, desc string
	}{
		{"default_cmyk.icc", "CMYK", "Lab", "2.1.0", "Artifex CMYK SWOP Profile"},
		{"ps_cmyk.icc", "CMYK", "XYZ", "4.2.0", "Artifex PS CMYK Profile"},
		{"default_rgb.icc", "RGB", "XYZ", "2.1.0", ""},
		{"default_gray.icc", "GRAY", "XYZ", "2.1.0", ""},
		{"lab.icc", "Lab", "Lab", "2.1.0", ""},
	} {
		t.Run(tc.file, func(t *testing.T) {
			p := debianProfile(t, tc.file)
			if p.ColorSpace() != tc.space || p.PCS() != tc.pcs || p.Version() != tc.version {
				t.Errorf("got %s/%s v%s, want %s/%s v%s", p.ColorSpace(), p.PCS(), p.Version(), tc.space, tc.pcs, tc.version)
			}
			if tc.desc != "" && p.Description() != tc.desc {
				t.Errorf("description %q, want %q", p.Description(), tc.desc)
			}
			if p.Description() == "" {
				t.Error("empty description")
			}
			if len(p.SHA256()) != 64 || len(p.Bytes()) == 0 {
				t.Error("bytes or hash missing")
			}
		})
	}
}

func TestIntentNames(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Intent
	}{
		{"perceptual", Perceptual},
		{"relative", RelativeColorimetric},
		{"relative-colorimetric", RelativeColorimetric},
		{"Saturation", Saturation},
		{"absolute", AbsoluteColorimetric},
	} {
		got, err := ParseIntent(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseIntent(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
		if back, err := ParseIntent(got.String()); err != nil || back != got {
			t.Errorf("String %q does not parse back", got.String())
		}
	}
	if _, err := ParseIntent("vivid"); err == nil || !strings.Contains(err.Error(), "vivid") || !errors.Is(err, ErrUnknownIntent) {
		t.Errorf("unknown intent: err %v", err)
	}
	if _, err := NewSRGBToCMYK(debianProfile(t, "default_cmyk.icc"), Intent(7), false); !errors.Is(err, ErrUnknownIntent) {
		t.Error("intent 7 accepted")
	}
}

func TestBadProfiles(t *testing.T) {
	cmyk := debianProfile(t, "default_cmyk.icc").Bytes()
	corrupt := append([]byte(nil), cmyk...)
	copy(corrupt[36:], "xxxx")
	hugeTag := append([]byte(nil), cmyk...)
	be.PutUint32(hugeTag[132+8:], 1<<30) // first tag's size
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"empty", nil, "truncated"},
		{"truncated", cmyk[:len(cmyk)/2], "truncated"},
		{"no acsp", corrupt, "not an ICC profile"},
		{"tag outside", hugeTag, "outside"},
		{"header only", cmyk[:132], "truncated"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseProfile(tc.data)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want it to mention %q", err, tc.want)
			}
			if !errors.Is(err, ErrInvalidProfile) {
				t.Errorf("err = %v, not ErrInvalidProfile", err)
			}
		})
	}
	rgb := debianProfile(t, "default_rgb.icc")
	if _, err := NewSRGBToCMYK(rgb, Perceptual, false); err == nil || !strings.Contains(err.Error(), "CMYK profile is needed") || !errors.Is(err, ErrWrongProfile) {
		t.Errorf("RGB profile as CMYK output: err %v", err)
	}
	if _, err := NewCMYKToSRGB(rgb, Perceptual); err == nil || !strings.Contains(err.Error(), "CMYK profile is needed") {
		t.Errorf("RGB profile as CMYK proof: err %v", err)
	}
}

// TestSRGBBytesParse: the built-in sRGB serialises to a profile the parser accepts with
// the same colorants (to s15Fixed16 precision).
func TestSRGBBytesParse(t *testing.T) {
	s := SRGB()
	p, err := ParseProfile(s.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if p.ColorSpace() != "RGB" || p.Version() != "4.3.0" || !p.IsMatrixShaper() || p.Description() != "sRGB built-in" {
		t.Fatalf("parsed %s v%s matrix=%v %q", p.ColorSpace(), p.Version(), p.IsMatrixShaper(), p.Description())
	}
	for i := 0; i < 3; i++ {
		a, b := s.rgbXYZ[i], p.rgbXYZ[i]
		if d := max(abs(a.X-b.X), abs(a.Y-b.Y), abs(a.Z-b.Z)); d > 1.0/65536 {
			t.Errorf("colorant %d: %v vs %v", i, a, b)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// TestKnownConversions pins a few values transicc 2.14 printed (percent, 4 decimals).
func TestKnownConversions(t *testing.T) {
	for _, tc := range []struct {
		file   string
		intent Intent
		bpc    bool
		rgb    [3]float64
		want   [4]float64
	}{
		// echo "128 128 128" | transicc -i "*sRGB" -o default_cmyk.icc -t 1 -n
		{"default_cmyk.icc", RelativeColorimetric, false, [3]float64{128, 128, 128}, [4]float64{52.5261, 45.1942, 45.2064, 9.6147}},
		// ... -t 1 -b
		{"default_cmyk.icc", RelativeColorimetric, true, [3]float64{0, 0, 0}, [4]float64{72.3079, 67.6936, 67.1016, 88.6015}},
		// ... -t 0 -b
		{"default_cmyk.icc", Perceptual, true, [3]float64{128, 128, 128}, [4]float64{50.9392, 43.6103, 43.7125, 7.7195}},
		// ... -t 3
		{"default_cmyk.icc", AbsoluteColorimetric, false, [3]float64{128, 128, 128}, [4]float64{46.5537, 38.4955, 35.5489, 1.9669}},
		// v4: perceptual always has BPC to the v4 perceptual black.
		{"ps_cmyk.icc", Perceptual, false, [3]float64{0, 0, 0}, [4]float64{99.6521, 99.6521, 99.6521, 0}},
		{"ps_cmyk.icc", RelativeColorimetric, false, [3]float64{255, 0, 0}, [4]float64{28.4871, 97.4029, 98.1903, 0}},
	} {
		tr, err := NewSRGBToCMYK(debianProfile(t, tc.file), tc.intent, tc.bpc)
		if err != nil {
			t.Fatal(err)
		}
		c, m, y, k := tr.CMYKFloat(tc.rgb[0]/255, tc.rgb[1]/255, tc.rgb[2]/255)
		got := [4]float64{c * 100, m * 100, y * 100, k * 100}
		for i := range got {
			if abs(got[i]-tc.want[i]) > 0.01 {
				t.Errorf("%s %v bpc=%v %v: got %.4f, want %.4f", tc.file, tc.intent, tc.bpc, tc.rgb, got, tc.want)
				break
			}
		}
	}
}
