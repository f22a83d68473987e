package colour

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The agreement test measures this package against LittleCMS's transicc (Debian
// liblcms2-utils), the reference the issue names. For every CMYK profile the tests use
// and every intent it converts a fixed set of sRGB colours with both, and compares the
// results as colours, not numbers: both CMYK results go back to Lab through the same
// profile's relative-colorimetric A2B table, by transicc, and the table reports the
// CIEDE2000 difference. Our side is the 8-bit output the API returns (exact path and
// lookup-grid path); transicc's side is its unrounded floating-point result. So the
// figures include our 8-bit rounding. Run with -v to see the table.

const maxDeltaE = 1.0

func transiccPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("transicc")
	if err != nil {
		needTool(t, "transicc (Debian liblcms2-utils)")
	}
	return p
}

// transicc runs the tool with one colour per line and returns the parsed numbers.
func transicc(t testing.TB, bin string, args []string, lines []string, width int) [][]float64 {
	t.Helper()
	cmd := exec.Command(bin, append(args, "-n")...)
	cmd.Stdin = strings.NewReader(strings.Join(lines, "\n") + "\n")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("transicc %v: %v\n%s", args, err, errb.String())
	}
	var res [][]float64
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		f := strings.Fields(l)
		if len(f) != width {
			t.Fatalf("transicc %v: line %q has %d numbers, want %d", args, l, len(f), width)
		}
		row := make([]float64, width)
		for i, s := range f {
			v, err := strconv.ParseFloat(s, 64)
			if err != nil {
				t.Fatalf("transicc %v: %q: %v", args, l, err)
			}
			row[i] = v
		}
		res = append(res, row)
	}
	if len(res) != len(lines) {
		t.Fatalf("transicc %v: %d results for %d colours", args, len(res), len(lines))
	}
	return res
}

// testColours is the fixed sRGB set: a 7-level grid (343 colours) plus named ones.
func testColours() [][3]uint8 {
	var cs [][3]uint8
	levels := []uint8{0, 42, 85, 128, 170, 213, 255}
	for _, r := range levels {
		for _, g := range levels {
			for _, b := range levels {
				cs = append(cs, [3]uint8{r, g, b})
			}
		}
	}
	named := [][3]uint8{
		// primaries and secondaries at full and half strength
		{255, 0, 0}, {0, 255, 0}, {0, 0, 255}, {0, 255, 255}, {255, 0, 255}, {255, 255, 0},
		{128, 0, 0}, {0, 128, 0}, {0, 0, 128},
		// skin tones (light to dark)
		{255, 224, 189}, {241, 194, 125}, {224, 172, 105}, {198, 134, 66}, {141, 85, 36}, {92, 56, 36},
		// brand reds: Coca-Cola, Netflix, Target, YouTube, Ferrari, Vodafone
		{244, 0, 9}, {229, 9, 20}, {204, 0, 0}, {255, 0, 0}, {255, 40, 0}, {230, 0, 0},
		// other brand colours: Facebook blue, Starbucks green, IKEA yellow, Cadbury purple
		{24, 119, 242}, {0, 112, 74}, {255, 218, 26}, {75, 0, 130},
	}
	for v := 0; v <= 255; v += 17 {
		named = append(named, [3]uint8{uint8(v), uint8(v), uint8(v)})
	}
	for v := 1; v <= 12; v++ { // near black, neutral and tinted
		named = append(named, [3]uint8{uint8(v), uint8(v), uint8(v)}, [3]uint8{uint8(v + 4), uint8(v), uint8(v)})
	}
	for v := 243; v <= 254; v++ { // near white, neutral and tinted
		named = append(named, [3]uint8{uint8(v), uint8(v), uint8(v)}, [3]uint8{uint8(v), uint8(v), uint8(v - 6)})
	}
	return append(cs, named...)
}

// proofColours is the fixed CMYK set for the proof direction: a 4-level grid of all
// four inks (256 colours) plus paper, solids, rich blacks and a K ramp.
func proofColours() [][4]uint8 {
	var cs [][4]uint8
	levels := []uint8{0, 85, 170, 255}
	for _, c := range levels {
		for _, m := range levels {
			for _, y := range levels {
				for _, k := range levels {
					cs = append(cs, [4]uint8{c, m, y, k})
				}
			}
		}
	}
	cs = append(cs, [4]uint8{153, 102, 102, 255}, [4]uint8{255, 255, 255, 255}, [4]uint8{128, 0, 0, 255}, [4]uint8{0, 255, 255, 0}, [4]uint8{13, 0, 0, 0})
	for k := 0; k <= 255; k += 15 {
		cs = append(cs, [4]uint8{0, 0, 0, uint8(k)})
	}
	return cs
}

type profileCase struct {
	name, path string
}

// testProfiles are every CMYK profile in Debian's Ghostscript set plus a v4
// lutAtoB/lutBtoA profile the test builds (Debian ships no CMYK one).
func testProfiles(t *testing.T) []profileCase {
	var ps []profileCase
	files, _ := filepath.Glob(ghostscriptICC + "*.icc")
	for _, f := range files {
		p, err := LoadProfile(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if p.ColorSpace() == "CMYK" {
			ps = append(ps, profileCase{filepath.Base(f), f})
		}
	}
	if len(ps) == 0 {
		needTool(t, "CMYK profiles in "+ghostscriptICC+" (Debian libgs-common)")
	}
	v4 := filepath.Join(t.TempDir(), "v4_mAB_mBA.icc")
	if err := os.WriteFile(v4, buildV4Profile(t, debianProfile(t, "default_cmyk.icc")), 0o644); err != nil {
		t.Fatal(err)
	}
	return append(ps, profileCase{"v4 lutAtoB/BtoA (built from default_cmyk)", v4})
}

type stat struct{ max, sum float64 }

func (s *stat) add(d float64) {
	s.max = max(s.max, d)
	s.sum += d
}

func TestTransiccAgreement(t *testing.T) {
	t.Parallel()
	bin := transiccPath(t)
	colours := testColours()
	rgbLines := make([]string, len(colours))
	for i, c := range colours {
		rgbLines[i] = fmt.Sprintf("%d %d %d", c[0], c[1], c[2])
	}
	table := []string{
		fmt.Sprintf("sRGB -> CMYK, %d colours. ΔE2000 after reading both CMYK results back through the profile's A2B1 (transicc). float: our exact float result vs transicc's; 8-bit: our CMYK() and our grid ConvertNRGBA() vs transicc's result rounded to 8 bits; levels: largest 8-bit channel difference. Every figure must be at most 1.0.", len(colours)),
		"",
		"| profile | intent | BPC | float max | float mean | 8-bit exact max | mean | 8-bit grid max | mean | levels |",
		"|---|---|---|---|---|---|---|---|---|---|",
	}
	for _, pc := range testProfiles(t) {
		prof, err := LoadProfile(pc.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, it := range []Intent{Perceptual, RelativeColorimetric, Saturation, AbsoluteColorimetric} {
			for _, bpc := range []bool{false, true} {
				if bpc && it == AbsoluteColorimetric {
					continue
				}
				args := []string{"-i", "*sRGB", "-o", pc.path, "-t", strconv.Itoa(int(it))}
				if bpc {
					args = append(args, "-b")
				}
				ref := transicc(t, bin, args, rgbLines, 4)
				tr, err := NewSRGBToCMYK(prof, it, bpc)
				if err != nil {
					t.Fatal(err)
				}
				src := make([]byte, 4*len(colours))
				for i, c := range colours {
					copy(src[4*i:], []byte{c[0], c[1], c[2], 255})
				}
				gridOut := make([]byte, len(src))
				tr.ConvertNRGBA(gridOut, src)
				// Per colour, four CMYK values go to Lab: transicc float, ours float,
				// transicc rounded to 8 bits, ours 8-bit exact, ours 8-bit grid.
				var labIn []string
				maxLevels := 0
				for i, c := range colours {
					fc, fm, fy, fk := tr.CMYKFloat(float64(c[0])/255, float64(c[1])/255, float64(c[2])/255)
					cc, m, y, k := tr.CMYK(c[0], c[1], c[2])
					ours := []uint8{cc, m, y, k}
					var ref8 [4]uint8
					for j := 0; j < 4; j++ {
						ref8[j] = to8(ref[i][j] / 100)
						maxLevels = max(maxLevels, absInt(int(ours[j])-int(ref8[j])), absInt(int(gridOut[4*i+j])-int(ref8[j])))
					}
					labIn = append(labIn,
						fmt.Sprintf("%.4f %.4f %.4f %.4f", ref[i][0], ref[i][1], ref[i][2], ref[i][3]),
						fmt.Sprintf("%.4f %.4f %.4f %.4f", fc*100, fm*100, fy*100, fk*100),
						pct4(ref8[:]), pct4(ours), pct4(gridOut[4*i:4*i+4]))
				}
				lab := transicc(t, bin, []string{"-i", pc.path, "-o", "*Lab", "-t", "1"}, labIn, 3)
				var float, exact, grid stat
				for i := range colours {
					rf, of, r8, e8, g8 := lab[5*i], lab[5*i+1], lab[5*i+2], lab[5*i+3], lab[5*i+4]
					df := DeltaE2000(rf[0], rf[1], rf[2], of[0], of[1], of[2])
					de := DeltaE2000(r8[0], r8[1], r8[2], e8[0], e8[1], e8[2])
					dg := DeltaE2000(r8[0], r8[1], r8[2], g8[0], g8[1], g8[2])
					float.add(df)
					exact.add(de)
					grid.add(dg)
					// Every path, the raster grid included, within ΔE 1 on every
					// profile: the grid tabulates the exact results in the cells
					// where one 8-bit level is a visible step (steep.go).
					if df > maxDeltaE || de > maxDeltaE || dg > maxDeltaE {
						t.Errorf("%s %v bpc=%v: sRGB %v: ΔE float %.2f 8-bit exact %.2f grid %.2f (transicc CMYK %.2f)", pc.name, it, bpc, colours[i], df, de, dg, ref[i])
					}
				}
				n := float64(len(colours))
				table = append(table, fmt.Sprintf("| %s | %v | %v | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f | %d |",
					pc.name, it, onOff(bpc), float.max, float.sum/n, exact.max, exact.sum/n, grid.max, grid.sum/n, maxLevels))
			}
		}
	}
	t.Log("\n" + strings.Join(table, "\n"))
}

func TestTransiccProofAgreement(t *testing.T) {
	t.Parallel()
	bin := transiccPath(t)
	colours := proofColours()
	lines := make([]string, len(colours))
	src := make([]byte, 4*len(colours))
	for i, c := range colours {
		lines[i] = pct4(c[:])
		copy(src[4*i:], c[:])
	}
	table := []string{
		fmt.Sprintf("CMYK -> sRGB proof, %d colours; ΔE2000 against transicc's float sRGB (clipped to 0..255), all to Lab by transicc. float: our unrounded (clipped) result; 8-bit: RGB() and the grid path ConvertCMYK().", len(colours)),
		"",
		"| profile | intent | BPC | float max | float mean | 8-bit exact max | mean | 8-bit grid max | mean |",
		"|---|---|---|---|---|---|---|---|---|",
	}
	for _, pc := range testProfiles(t) {
		prof, err := LoadProfile(pc.path)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []struct {
			it  Intent
			bpc bool
		}{{Perceptual, false}, {RelativeColorimetric, false}, {RelativeColorimetric, true}, {Saturation, false}, {AbsoluteColorimetric, false}} {
			it := v.it
			args := []string{"-i", pc.path, "-o", "*sRGB", "-t", strconv.Itoa(int(it))}
			if v.bpc {
				args = append(args, "-b")
			}
			ref := transicc(t, bin, args, lines, 3)
			pr, err := NewCMYKToSRGBWithBPC(prof, it, v.bpc)
			if err != nil {
				t.Fatal(err)
			}
			gridOut := make([]byte, len(src))
			pr.ConvertCMYK(gridOut, src)
			var labIn []string
			for i, c := range colours {
				r, g, b := pr.RGB(c[0], c[1], c[2], c[3])
				fr, fg, fb := pr.RGBFloat(float64(c[0])/255, float64(c[1])/255, float64(c[2])/255, float64(c[3])/255)
				labIn = append(labIn,
					fmt.Sprintf("%.4f %.4f %.4f", fr*255, fg*255, fb*255),
					fmt.Sprintf("%.4f %.4f %.4f", clampF(ref[i][0], 255), clampF(ref[i][1], 255), clampF(ref[i][2], 255)),
					fmt.Sprintf("%d %d %d", r, g, b),
					fmt.Sprintf("%d %d %d", gridOut[4*i], gridOut[4*i+1], gridOut[4*i+2]))
				if gridOut[4*i+3] != 255 {
					t.Fatalf("proof alpha %d, want 255", gridOut[4*i+3])
				}
			}
			lab := transicc(t, bin, []string{"-i", "*sRGB", "-o", "*Lab", "-t", "1"}, labIn, 3)
			var float, exact, grid stat
			for i := range colours {
				f, r, e, g := lab[4*i], lab[4*i+1], lab[4*i+2], lab[4*i+3]
				df := DeltaE2000(r[0], r[1], r[2], f[0], f[1], f[2])
				de := DeltaE2000(r[0], r[1], r[2], e[0], e[1], e[2])
				dg := DeltaE2000(r[0], r[1], r[2], g[0], g[1], g[2])
				float.add(df)
				exact.add(de)
				grid.add(dg)
				if df > maxDeltaE || de > maxDeltaE || dg > maxDeltaE {
					t.Errorf("%s %v bpc=%v: CMYK %v: ΔE exact %.2f grid %.2f (transicc sRGB %.2f)", pc.name, it, v.bpc, colours[i], de, dg, ref[i])
				}
			}
			n := float64(len(colours))
			table = append(table, fmt.Sprintf("| %s | %v | %v | %.3f | %.3f | %.3f | %.3f | %.3f | %.3f |", pc.name, it, bpcNote(it, v.bpc), float.max, float.sum/n, exact.max, exact.sum/n, grid.max, grid.sum/n))
		}
	}
	t.Log("\n" + strings.Join(table, "\n"))
}

// TestTransiccReadsOurSRGB: the sRGB profile we embed (SRGB().Bytes()) converts like
// LittleCMS's own *sRGB when transicc reads it.
func TestTransiccReadsOurSRGB(t *testing.T) {
	bin := transiccPath(t)
	path := filepath.Join(t.TempDir(), "srgb.icc")
	if err := os.WriteFile(path, SRGB().Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for _, c := range testColours() {
		lines = append(lines, fmt.Sprintf("%d %d %d", c[0], c[1], c[2]))
	}
	a := transicc(t, bin, []string{"-i", path, "-o", "*Lab", "-t", "1"}, lines, 3)
	b := transicc(t, bin, []string{"-i", "*sRGB", "-o", "*Lab", "-t", "1"}, lines, 3)
	worst := 0.0
	for i := range a {
		worst = max(worst, DeltaE2000(a[i][0], a[i][1], a[i][2], b[i][0], b[i][1], b[i][2]))
	}
	if worst > 0.05 {
		t.Errorf("our sRGB bytes differ from *sRGB by up to ΔE %.3f", worst)
	}
}

func pct4(c []uint8) string {
	return fmt.Sprintf("%.4f %.4f %.4f %.4f", float64(c[0])/2.55, float64(c[1])/2.55, float64(c[2])/2.55, float64(c[3])/2.55)
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func clampF(x, hi float64) float64 { return min(max(x, 0), hi) }

// bpcNote says whether a proof has BPC: asked for, or forced by lcms because *sRGB is
// a v4 profile (perceptual and saturation).
func bpcNote(it Intent, bpc bool) string {
	switch {
	case bpc:
		return "on"
	case it == Perceptual || it == Saturation:
		return "on (v4 sRGB)"
	}
	return "off"
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
