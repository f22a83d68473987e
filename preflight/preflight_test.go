package preflight_test

import (
	"bytes"
	"context"
	"image"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"golang.org/x/image/tiff"

	"github.com/printworker/printworker/hubsim"
	"github.com/printworker/printworker/internal/imgcheck"
	"github.com/printworker/printworker/internal/printcheck"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/preflight"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/render"
)

func needTools(t testing.TB, tools ...string) {
	t.Helper()
	for _, tool := range tools {
		imgcheck.Tool(t, tool, "see .ci/run for the Debian package")
	}
}

// renderProfile renders view of a hubsim sample design with a production profile
// and returns the file's bytes.
func renderProfile(t testing.TB, p profiles.Profile, design, view string) []byte {
	t.Helper()
	if _, err := profiles.FindCMYK(profiles.CMYKCandidates()); err != nil && p.Colour.Profile != "" {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	rp, err := profiles.Resolve(p, profiles.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fx := hubsim.SampleFixtures()
	db, err := fs.ReadFile(fx, "designs/"+design+".json")
	if err != nil {
		t.Fatal(err)
	}
	d, err := model.DecodeDesign(db)
	if err != nil {
		t.Fatal(err)
	}
	media, err := fs.Sub(fx, "designs/media")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.CopyFS(dir, media); err != nil {
		t.Fatal(err)
	}
	r, err := render.New(render.Options{})
	if err != nil {
		t.Fatal(err)
	}
	r = r.WithPrint(rp.Print)
	for _, v := range render.Views(d) { // as printworker render --profile does
		v.Export.Type = rp.ExportType(v.Export.Type)
		v.Export.DPI = rp.DPI(v.Export.DPI)
	}
	var buf bytes.Buffer
	if _, err := r.RenderView(context.Background(), d, view, render.DirSource(dir), &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

var (
	goodOnce sync.Once
	goodPDF  []byte
)

// goodPress is the sample T-shirt front rendered with press-pdfx4, once per run.
func goodPress(t testing.TB) []byte {
	t.Helper()
	p, _ := profiles.Builtin(profiles.PressPDFX4)
	goodOnce.Do(func() { goodPDF = renderProfile(t, p, "1001", "front") })
	if goodPDF == nil {
		t.Skip("no good press file (see the first test's log)")
	}
	return goodPDF
}

func errorCodes(fr preflight.FileReport) []string {
	var out []string
	for _, f := range fr.Findings {
		if f.Severity == preflight.Error && !slices.Contains(out, f.Code) {
			out = append(out, f.Code)
		}
	}
	slices.Sort(out)
	return out
}

func mustRules(t testing.TB, name string) preflight.Rules {
	t.Helper()
	r, err := profiles.CheckProfile(name, nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestGoodPressFilePasses: printworker's own press file passes pdfx4 and its
// production profile, with the total ink measured.
func TestGoodPressFilePasses(t *testing.T) {
	t.Parallel()
	b := goodPress(t)
	for _, prof := range []string{preflight.PDFX4, profiles.PressPDFX4} {
		fr := preflight.Check("good.pdf", b, mustRules(t, prof), preflight.DefaultLimits)
		if fr.Verdict != preflight.Pass {
			t.Errorf("%s: verdict %s, findings %+v", prof, fr.Verdict, fr.Findings)
		}
		if fr.Inks.TACMax == nil || *fr.Inks.TACMax <= 0 || *fr.Inks.TACMax > 400 {
			t.Errorf("%s: tac_max %v", prof, fr.Inks.TACMax)
		}
	}
	// sticker-cut promises a CutContour the press file does not have; pod-pdfx4 a
	// 4 mm bleed where it has 3 mm.
	if fr := preflight.Check("good.pdf", b, mustRules(t, profiles.StickerCut), preflight.DefaultLimits); !slices.Equal(errorCodes(fr), []string{"spot.missing"}) {
		t.Errorf("sticker-cut on a press file: %v", fr.Findings)
	}
	if fr := preflight.Check("good.pdf", b, mustRules(t, profiles.PodPDFX4), preflight.DefaultLimits); !slices.Equal(errorCodes(fr), []string{"bleed.short"}) {
		t.Errorf("pod-pdfx4 on a 3 mm press file: %v", fr.Findings)
	}
}

// TestMutants: single-defect mutants of a good press file, made by editing its QDF
// form (qpdf) and repairing it with fix-qdf, or by encrypting it with qpdf: each
// fails pdfx4 with exactly the error of its clause; the QDF form unchanged passes.
func TestMutants(t *testing.T) {
	t.Parallel()
	needTools(t, "qpdf", "fix-qdf")
	dir := t.TempDir()
	good := filepath.Join(dir, "good.pdf")
	if err := os.WriteFile(good, goodPress(t), 0o644); err != nil {
		t.Fatal(err)
	}
	qdfPath := filepath.Join(dir, "good.qdf")
	if out, err := exec.Command("qpdf", "--qdf", "--object-streams=disable", good, qdfPath).CombinedOutput(); err != nil {
		t.Fatalf("qpdf --qdf: %v\n%s", err, out)
	}
	qdf, err := os.ReadFile(qdfPath)
	if err != nil {
		t.Fatal(err)
	}
	rename := func(from, to string) func([]byte) []byte {
		return func(b []byte) []byte {
			if !bytes.Contains(b, []byte(from)) {
				t.Fatalf("no %q in the good file", from)
			}
			return bytes.ReplaceAll(b, []byte(from), []byte(to))
		}
	}
	trimRe := regexp.MustCompile(`/TrimBox \[[^\]]*\]`)
	for _, tc := range []struct {
		name string
		edit func([]byte) []byte
		code string
	}{
		{"good", func(b []byte) []byte { return b }, ""},
		{"header 1.3", rename("%PDF-1.6", "%PDF-1.3"), "pdfx.header"},
		{"no output intent", rename("/OutputIntents", "/OutputIntentsGone"), "pdfx.output-intent"},
		{"no TrimBox", rename("/TrimBox", "/TrimBoxGone"), "pdfx.trimbox"},
		{"no GTS_PDFXVersion", rename("/GTS_PDFXVersion", "/GTS_PDFXVersionGone"), "pdfx.version.info"},
		{"no XMP version", rename("<pdfxid:GTS_PDFXVersion>PDF/X-4<", "<pdfxid:GTS_PDFXVersion>PDF/X-3<"), "pdfx.version.xmp"},
		{"no DestOutputProfile", rename("/DestOutputProfile", "/DestOutputProfileGone"), "pdfx.output-intent.profile"},
		{"Trapped missing", rename("/Trapped", "/TrappedGone"), "pdfx.trapped"},
		{"trim larger than bleed", func(b []byte) []byte {
			return trimRe.ReplaceAll(b, []byte("/TrimBox [ 0 0 362.36 462.36 ]"))
		}, "pdfx.boxes"},
		{"DeviceRGB fill", func(b []byte) []byte {
			i := bytes.Index(b, []byte("%% Contents for page 1"))
			j := bytes.Index(b[i:], []byte("stream\n"))
			if i < 0 || j < 0 {
				t.Fatal("no page content in the QDF file")
			}
			at := i + j + len("stream\n")
			return slices.Concat(b[:at], []byte("q 1 0 0 rg 60 60 40 40 re f Q\n"), b[at:])
		}, "pdfx.colour.device"},
		{"JavaScript", rename("/Type /Catalog", "/Type /Catalog /OpenAction << /S /JavaScript /JS (app.alert(1)) >>"), "pdfx.actions"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := filepath.Join(t.TempDir(), "m.qdf")
			if err := os.WriteFile(p, tc.edit(bytes.Clone(qdf)), 0o644); err != nil {
				t.Fatal(err)
			}
			fixed := filepath.Join(filepath.Dir(p), "m.pdf")
			if out, err := exec.Command("sh", "-c", `fix-qdf "$1" > "$2"`, "sh", p, fixed).CombinedOutput(); err != nil {
				t.Fatalf("fix-qdf: %v\n%s", err, out)
			}
			checkMutant(t, fixed, tc.code)
		})
	}
	t.Run("encrypted", func(t *testing.T) {
		t.Parallel()
		// AES-128, which PDF 1.6 has (AES-256 would make qpdf write %PDF-1.7).
		p := filepath.Join(t.TempDir(), "enc.pdf")
		if out, err := exec.Command("qpdf", "--encrypt", "", "owner", "128", "--use-aes=y", "--", good, p).CombinedOutput(); err != nil {
			t.Fatalf("qpdf --encrypt: %v\n%s", err, out)
		}
		checkMutant(t, p, "pdfx.encryption")
	})
}

func checkMutant(t *testing.T, path, code string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fr := preflight.Check(path, b, mustRules(t, preflight.PDFX4), preflight.DefaultLimits)
	got := errorCodes(fr)
	if code == "" {
		if fr.Verdict != preflight.Pass {
			t.Errorf("verdict %s, findings %+v", fr.Verdict, fr.Findings)
		}
		return
	}
	if fr.Verdict != preflight.Fail || !slices.Equal(got, []string{code}) {
		t.Errorf("verdict %s, error codes %v, want exactly [%s]; findings %+v", fr.Verdict, got, code, fr.Findings)
	}
}

// TestBoxesAgainstPoppler: the boxes the reader finds are the ones pdfinfo -box
// prints.
func TestBoxesAgainstPoppler(t *testing.T) {
	t.Parallel()
	needTools(t, "pdfinfo")
	b := goodPress(t)
	p := filepath.Join(t.TempDir(), "good.pdf")
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("pdfinfo", "-box", p).Output()
	if err != nil {
		t.Fatal(err)
	}
	boxes := preflight.PageBoxes(b)
	if len(boxes) != 1 {
		t.Fatalf("%d pages", len(boxes))
	}
	re := regexp.MustCompile(`(?m)^(MediaBox|BleedBox|TrimBox):\s+([\d.-]+)\s+([\d.-]+)\s+([\d.-]+)\s+([\d.-]+)`)
	n := 0
	for _, m := range re.FindAllStringSubmatch(string(out), -1) {
		got, ok := boxes[0][m[1]]
		if !ok {
			t.Errorf("%s: not read", m[1])
			continue
		}
		n++
		for i, v := range got {
			want, _ := strconv.ParseFloat(m[2+i], 64)
			if d := v - want; d > 0.006 || d < -0.006 {
				t.Errorf("%s[%d] = %.3f, pdfinfo says %.2f", m[1], i, v, want)
			}
		}
	}
	if n != 3 {
		t.Errorf("pdfinfo gave %d of the 3 boxes:\n%s", n, out)
	}
}

// TestTACAgainstGhostscript: a rich-black press file's tac_max is within 5 points
// of the highest C+M+Y+K of Ghostscript's separations (tiffsep) inside the
// BleedBox, and a profile whose ink limit it exceeds gets an ink.tac error.
func TestTACAgainstGhostscript(t *testing.T) {
	t.Parallel()
	needTools(t, "gs")
	p, _ := profiles.Builtin(profiles.PressPDFX4)
	p.Name, p.Colour.RichBlack = "rich-press", true
	b := renderProfile(t, p, "1001", "back")
	rules, err := p.CheckRules()
	if err != nil {
		t.Fatal(err)
	}
	fr := preflight.Check("rich.pdf", b, rules, preflight.DefaultLimits)
	if fr.Inks.TACMax == nil {
		t.Fatalf("no tac_max: %+v", fr)
	}
	tac := *fr.Inks.TACMax
	dir := t.TempDir()
	in := filepath.Join(dir, "rich.pdf")
	if err := os.WriteFile(in, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-dUseBleedBox", "-r150",
		"-sDEVICE=tiffsep", "-sOutputFile="+filepath.Join(dir, "sep.tif"), in).CombinedOutput(); err != nil {
		t.Fatalf("gs tiffsep: %v\n%s", err, out)
	}
	var plates []*image.Gray
	for _, ink := range []string{"Cyan", "Magenta", "Yellow", "Black"} {
		fh, err := os.Open(filepath.Join(dir, "sep("+ink+").tif"))
		if err != nil {
			t.Fatal(err)
		}
		img, err := tiff.Decode(fh)
		fh.Close()
		if err != nil {
			t.Fatalf("%s plate: %v", ink, err)
		}
		g, ok := img.(*image.Gray)
		if !ok {
			t.Fatalf("%s plate is %T", ink, img)
		}
		plates = append(plates, g)
	}
	gsMax := 0
	for i := range plates[0].Pix {
		s := 0
		for _, pl := range plates {
			s += 255 - int(pl.Pix[i]) // a separation is 0 where its ink is full
		}
		gsMax = max(gsMax, s)
	}
	gsTAC := float64(gsMax) * 100 / 255
	t.Logf("tac_max %.1f %%, Ghostscript's separations %.1f %%", tac, gsTAC)
	if d := tac - gsTAC; d > 5 || d < -5 {
		t.Errorf("tac_max %.1f %%, Ghostscript's separations give %.1f %%", tac, gsTAC)
	}
	if slices.ContainsFunc(fr.Findings, func(f preflight.Finding) bool { return f.Code == "ink.tac" }) {
		t.Errorf("ink.tac without an ink limit: %+v", fr.Findings)
	}
	rules.TACLimit = gsTAC - 20
	fr = preflight.Check("rich.pdf", b, rules, preflight.DefaultLimits)
	if !slices.Contains(errorCodes(fr), "ink.tac") {
		t.Errorf("limit %.0f %%: no ink.tac error: %+v", rules.TACLimit, fr.Findings)
	}
}

// TestRasterFiles: dtf-white's PNG passes its profile and is the wrong type for a
// press profile; a CMYK TIFF's total ink is measured.
func TestRasterFiles(t *testing.T) {
	t.Parallel()
	dtf, _ := profiles.Builtin(profiles.DTFWhite)
	png := renderProfile(t, dtf, "1001", "front")
	fr := preflight.Check("dtf.png", png, mustRules(t, profiles.DTFWhite), preflight.DefaultLimits)
	if fr.Verdict != preflight.Pass || fr.Inks.TACMax != nil {
		t.Errorf("dtf-white png: %+v", fr)
	}
	if fr := preflight.Check("dtf.png", png, mustRules(t, profiles.PressPDFX4), preflight.DefaultLimits); !slices.Contains(errorCodes(fr), "file.type") {
		t.Errorf("a png under press-pdfx4: %+v", fr.Findings)
	}
	broken := bytes.Clone(png)
	broken[len(broken)/2] ^= 0xff
	if fr := preflight.Check("broken.png", broken, mustRules(t, profiles.DTFWhite), preflight.DefaultLimits); !slices.Equal(errorCodes(fr), []string{"png.corrupt"}) {
		t.Errorf("a damaged png: %+v", fr.Findings)
	}
	tp := profiles.Profile{Name: "tiff-cmyk", Output: render.ExportTIFF, Colour: profiles.Colour{Profile: profiles.DefaultCMYK}, DPI: 150, MinDPI: 100}
	tb := renderProfile(t, tp, "1001", "front")
	rules, err := tp.CheckRules()
	if err != nil {
		t.Fatal(err)
	}
	fr = preflight.Check("x.tif", tb, rules, preflight.DefaultLimits)
	if fr.Verdict == preflight.Fail || fr.Inks.TACMax == nil || *fr.Inks.TACMax <= 0 {
		t.Errorf("CMYK tiff: %+v", fr)
	}
	rules.TACLimit = *fr.Inks.TACMax - 10
	if fr := preflight.Check("x.tif", tb, rules, preflight.DefaultLimits); !slices.Equal(errorCodes(fr), []string{"ink.tac"}) {
		t.Errorf("tiff over its ink limit: %+v", fr.Findings)
	}
}

// FuzzPreflight: any bytes give a report with a verdict, within small limits,
// never a panic.
func FuzzPreflight(f *testing.F) {
	f.Add([]byte("%PDF-1.6\n1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n2 0 obj <</Type/Pages/Kids[3 0 R]/Count 1>> endobj\n3 0 obj <</Type/Page/MediaBox[0 0 10 10]/TrimBox[1 1 9 9]/Contents 4 0 R>> endobj\n4 0 obj <</Length 20>> stream\n1 0 0 rg 0 0 5 5 re f\nendstream endobj\ntrailer <</Root 1 0 R>>\n%%EOF"))
	f.Add([]byte("%PDF-1.4\n1 0 obj <</Type/XRef/W[1 2 1]/Size 2/Root 1 0 R/Filter/FlateDecode/DecodeParms<</Predictor 12/Columns 4>>/Length 3>> stream\nabc\nendstream endobj\nstartxref\n9\n%%EOF"))
	f.Add([]byte("%PDF-1.6\nxref\n0 2\n0000000000 65535 f \n0000000009 00000 n \ntrailer <</Root 1 0 R/Prev 9/Encrypt 5 0 R>>\nstartxref\n10\n%%EOF"))
	f.Add([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\x00IEND\xaeB`\x82"))
	f.Add([]byte("II*\x00\x08\x00\x00\x00\x03\x00\x00\x01\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x01\x03\x00\x01\x00\x00\x00\x01\x00\x00\x00\x06\x01\x03\x00\x01\x00\x00\x00\x05\x00\x00\x00"))
	lim := preflight.Limits{MaxObjects: 2000, MaxInflate: 4 << 20, MaxStream: 1 << 20, MaxOps: 100_000}
	rules := []preflight.Rules{mustRules(f, preflight.PDFX4), mustRules(f, profiles.StickerCut), mustRules(f, profiles.DTFWhite)}
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, r := range rules {
			fr := preflight.Check("fuzz", data, r, lim)
			if fr.Verdict != preflight.Pass && fr.Verdict != preflight.Warn && fr.Verdict != preflight.Fail {
				t.Fatalf("verdict %q", fr.Verdict)
			}
			for _, fd := range fr.Findings {
				if fd.Code == "" || fd.Message == "" {
					t.Fatalf("empty finding %+v", fd)
				}
			}
		}
	})
}

// TestRegisteredCondition: a profile naming FOGRA39 writes an output intent with
// OutputConditionIdentifier FOGRA39 and RegistryName http://www.color.org, finds the
// condition's ICC file by name in the profile folder (Ghostscript's CMYK profile
// stands in for it here), passes its check profile and fails one that prints to
// CRPC6; without the file, the profile does not resolve and the error names the
// files to install.
func TestRegisteredCondition(t *testing.T) {
	t.Parallel()
	gs, err := profiles.FindCMYK(profiles.CMYKCandidates())
	if err != nil {
		t.Skip(err)
	}
	icc, err := os.ReadFile(gs)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := profiles.Builtin(profiles.PressPDFX4)
	p.Name, p.Colour.Condition = "fogra-press", "FOGRA39"
	if _, err := profiles.Resolve(p, profiles.Options{ProfileDir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "ISOcoated_v2_eci.icc") {
		t.Errorf("FOGRA39 without its ICC file: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "ISOcoated_v2_eci.icc"), icc, 0o644); err != nil {
		t.Fatal(err)
	}
	rp, err := profiles.Resolve(p, profiles.Options{ProfileDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if rp.Profile.Colour.Profile != filepath.Join(dir, "ISOcoated_v2_eci.icc") {
		t.Errorf("profile file %s", rp.Profile.Colour.Profile)
	}
	p.Colour.Profile = filepath.Join(dir, "ISOcoated_v2_eci.icc")
	b := renderProfile(t, p, "1001", "back")
	for _, want := range []string{"/OutputConditionIdentifier (FOGRA39)", "/RegistryName (http://www.color.org)"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("no %s in the output intent", want)
		}
	}
	printcheck.PDF(t, "fogra.pdf", b)
	rules, err := p.CheckRules()
	if err != nil {
		t.Fatal(err)
	}
	if fr := preflight.Check("fogra.pdf", b, rules, preflight.DefaultLimits); fr.Verdict != preflight.Pass {
		t.Errorf("FOGRA39 file under its profile: %+v", fr.Findings)
	}
	p.Colour.Condition = "GRACoL2013"
	rules, err = p.CheckRules()
	if err != nil {
		t.Fatal(err)
	}
	if rules.Condition != "CRPC6" || rules.Registry != "http://www.color.org" {
		t.Errorf("GRACoL2013 rules %+v", rules)
	}
	if fr := preflight.Check("fogra.pdf", b, rules, preflight.DefaultLimits); !slices.Equal(errorCodes(fr), []string{"condition.mismatch"}) {
		t.Errorf("FOGRA39 file under a CRPC6 profile: %+v", fr.Findings)
	}
	// The shop's own condition: its name, no registry.
	p.Colour.Condition = "Shop-Press-2"
	own := renderProfile(t, p, "1001", "back")
	if !bytes.Contains(own, []byte("/OutputConditionIdentifier (Shop-Press-2)")) || bytes.Contains(own, []byte("/RegistryName")) {
		t.Errorf("own condition not written as such")
	}
	rules, _ = p.CheckRules()
	if fr := preflight.Check("own.pdf", own, rules, preflight.DefaultLimits); fr.Verdict != preflight.Pass {
		t.Errorf("own condition: %+v", fr.Findings)
	}
}
