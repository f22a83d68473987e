package colour

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParseProfile: any bytes give a profile or an error, never a panic; a profile
// that parses as CMYK must also build both transforms or refuse cleanly, and convert.
// Seeds: the built-in sRGB, a small synthetic CMYK lut profile, truncations, and (when
// installed, not committed: their licence is Ghostscript's) Debian's profiles.
func FuzzParseProfile(f *testing.F) {
	f.Add(SRGB().Bytes())
	small := smallCMYKProfile()
	f.Add(small)
	f.Add(small[:len(small)-7])
	files, _ := filepath.Glob(ghostscriptICC + "*.icc")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil && len(b) < 16<<10 {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// The seeds run side by side (a few take seconds each); while fuzzing this has
		// no effect.
		t.Parallel()
		p, err := ParseProfile(data)
		if err != nil {
			return
		}
		_ = p.Description() + p.ColorSpace() + p.Version() + p.SHA256()
		if p.ColorSpace() != "CMYK" {
			return
		}
		for _, it := range []Intent{Perceptual, RelativeColorimetric, AbsoluteColorimetric} {
			if tr, err := NewSRGBToCMYK(p, it, true); err == nil {
				tr.CMYK(10, 200, 30)
				if err := tr.SetGridPoints(3); err != nil {
					t.Fatal(err)
				}
				dst := make([]byte, 8)
				tr.ConvertNRGBA(dst, []byte{0, 0, 0, 255, 255, 128, 3, 255})
			}
			if pr, err := NewCMYKToSRGB(p, it); err == nil {
				pr.RGB(1, 2, 3, 4)
			}
		}
	})
}

// smallCMYKProfile is a v2 CMYK output profile with 2-point lut16 tables: enough
// structure for the fuzzer to mutate every table field.
func smallCMYKProfile() []byte {
	lut16 := func(in, out int) []byte {
		b := append([]byte("mft2"), 0, 0, 0, 0, byte(in), byte(out), 2, 0)
		for i := 0; i < 9; i++ {
			v := 0.0
			if i%4 == 0 {
				v = 1
			}
			b = appendS15F16(b, v)
		}
		b = append(b, 0, 2, 0, 2)
		for i := 0; i < in; i++ {
			b = append(b, 0, 0, 0xff, 0xff)
		}
		n := out
		for i := 0; i < in; i++ {
			n *= 2
		}
		for i := 0; i < n; i++ {
			v := uint16(i * 7919)
			b = append(b, byte(v>>8), byte(v))
		}
		for i := 0; i < out; i++ {
			b = append(b, 0, 0, 0xff, 0xff)
		}
		return b
	}
	return encodeProfile(0x02100000, "prtr", "CMYK", "Lab ", []rawTag{
		{[]string{"desc"}, append(append([]byte("desc\x00\x00\x00\x00\x00\x00\x00\x05"), "tiny\x00"...), make([]byte, 79)...)},
		{[]string{"wtpt"}, xyzTag(xyz{0.9, 0.95, 0.8})},
		{[]string{"A2B0"}, lut16(4, 3)},
		{[]string{"B2A0"}, lut16(3, 4)},
	})
}

func TestSmallProfileParses(t *testing.T) {
	p, err := ParseProfile(smallCMYKProfile())
	if err != nil {
		t.Fatal(err)
	}
	if p.Description() != "tiny" || p.ColorSpace() != "CMYK" {
		t.Fatalf("%q %s", p.Description(), p.ColorSpace())
	}
	if _, err := NewSRGBToCMYK(p, RelativeColorimetric, true); err != nil {
		t.Fatal(err)
	}
}
