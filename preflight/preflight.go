// Package preflight checks print files made by anyone — PDF, PNG and TIFF — the way a
// print shop's preflight does, and returns a report of findings, each with a code,
// a severity and the page it concerns (docs/preflight.md). The `pdfx4` check profile
// tests PDF/X-4 (ISO 15930-7) conformance clause by clause; a production profile's
// name adds its print checks (total ink, picture resolution, bleed, spot plates,
// colour). The package is pure: bytes in, a report out; no files, processes or
// network. Hostile files cost bounded CPU and memory (Limits).
package preflight

import (
	"bytes"
	"fmt"
	"math"
	"slices"
)

// Severities of a finding.
const (
	Error   = "error"
	Warning = "warning"
	Info    = "info"
)

// Verdicts of a file.
const (
	Pass = "pass"
	Warn = "warn"
	Fail = "fail"
)

// Finding is one thing the check found. Page is 1-based; 0 is the whole file.
type Finding struct {
	Code     string `json:"code"`
	Severity string `json:"severity"`
	Page     int    `json:"page"`
	Message  string `json:"message"`
}

// Inks is what the check measured of the file's inks.
type Inks struct {
	// TACMax is the highest total area coverage (C+M+Y+K, percent) painted inside
	// the BleedBox; nil when it was not measured (an RGB file, an unreadable one).
	TACMax *float64 `json:"tac_max"`
}

// FileReport is the report of one file.
type FileReport struct {
	File     string    `json:"file"`
	Verdict  string    `json:"verdict"`
	Findings []Finding `json:"findings"`
	Inks     Inks      `json:"inks"`
}

// Report is the report of a run over many files (printworker preflight --json).
type Report struct {
	Files []FileReport `json:"files"`
}

// Rules are the checks a check profile asks for (package profiles builds them
// from a production profile: Profile.CheckRules).
type Rules struct {
	// Profile is the check profile's name, quoted in messages.
	Profile string
	// PDFX4 checks PDF files against ISO 15930-7 (PDF/X-4).
	PDFX4 bool
	// Output is the file type the profile writes (pdf, pdf-simple, png, tiff; ""
	// any): a file of another type is an error.
	Output string
	// CMYK: the profile promises CMYK (its PDFs are PDF/X-4 in CMYK, its TIFFs
	// CMYK): RGB pictures, RGB colour or an RGB output intent are errors.
	CMYK bool
	// TACLimit is the highest total ink in percent; 0: no limit.
	TACLimit float64
	// MinDPI is the lowest acceptable effective resolution of a picture; 0: none.
	MinDPI float64
	// DPI is the resolution the profile's PNG and TIFF files are written at; 0:
	// any.
	DPI float64
	// BleedPt is the bleed every side of a PDF page needs beyond its TrimBox.
	BleedPt float64
	// MinLinePt is the thinnest process-ink stroke a PDF may draw, in points; 0:
	// no check.
	MinLinePt float64
	// SafetyPt is the margin inside the TrimBox that text should keep clear of, in
	// points; 0: no check.
	SafetyPt float64
	// CutSpot and WhiteSpot name the spot colours of the cut contour and white
	// plate the profile writes ("": none).
	CutSpot, WhiteSpot string
	// Condition is the output condition (OutputConditionIdentifier) the PDF's
	// output intent must name; "": any.
	Condition string
	// Registry is the RegistryName the output intent must carry with it
	// (http://www.color.org for a registered condition); "": none needed.
	Registry string
}

// PDFX4 is the check profile of PDF/X-4 conformance alone.
const PDFX4 = "pdfx4"

// PDFX4Rules are the rules of the pdfx4 check profile.
func PDFX4Rules() Rules { return Rules{Profile: PDFX4, PDFX4: true} }

// Check checks one file. name is only quoted in the report.
func Check(fileName string, data []byte, r Rules, lim Limits) FileReport {
	rep := &FileReport{File: fileName, Findings: []Finding{}}
	switch {
	case bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")):
		checkType(rep, r, "png")
		checkPNG(rep, data, r, lim)
	case bytes.HasPrefix(data, []byte("II*\x00")) || bytes.HasPrefix(data, []byte("MM\x00*")):
		checkType(rep, r, "tiff")
		checkTIFF(rep, data, r, lim)
	case bytes.Contains(data[:min(len(data), 1024)], []byte("%PDF-")):
		checkType(rep, r, "pdf")
		checkPDF(rep, data, r, lim)
	default:
		rep.add("file.type", Error, 0, "not a PDF, PNG or TIFF file")
	}
	rep.Verdict = Pass
	for _, f := range rep.Findings {
		if f.Severity == Error {
			rep.Verdict = Fail
			break
		}
		if f.Severity == Warning {
			rep.Verdict = Warn
		}
	}
	slices.SortStableFunc(rep.Findings, func(a, b Finding) int {
		return severityRank(a.Severity) - severityRank(b.Severity)
	})
	return *rep
}

func severityRank(s string) int {
	switch s {
	case Error:
		return 0
	case Warning:
		return 1
	}
	return 2
}

// checkType: the file is of the type the profile writes.
func checkType(rep *FileReport, r Rules, typ string) {
	want := r.Output
	if want == "pdf-simple" {
		want = "pdf"
	}
	if want != "" && want != typ {
		rep.add("file.type", Error, 0, fmt.Sprintf("a %s file, where profile %s writes %s", typ, r.Profile, r.Output))
	}
}

// at most this many findings of one code are listed; the rest are counted.
const maxPerCode = 20

func (rep *FileReport) add(code, sev string, page int, msg string) {
	n := 0
	for i, f := range rep.Findings {
		if f.Code == code {
			n++
			if n == maxPerCode {
				rep.Findings[i].Message += " (and more like it)"
			}
		}
	}
	if n >= maxPerCode {
		return
	}
	rep.Findings = append(rep.Findings, Finding{Code: code, Severity: sev, Page: page, Message: msg})
}

func (rep *FileReport) setTAC(v float64) {
	v = math.Round(v*10) / 10
	rep.Inks.TACMax = &v
}

// checkTAC adds the ink.tac finding when the measured total exceeds the limit.
func checkTAC(rep *FileReport, r Rules, page int, tac float64) {
	if r.TACLimit > 0 && tac > r.TACLimit+0.5 {
		rep.add("ink.tac", Error, page, fmt.Sprintf("total ink %.0f %% exceeds the %.0f %% limit of profile %s", tac, r.TACLimit, r.Profile))
	}
}

// checkDPI adds the image.resolution finding for a picture below the profile's
// lowest dpi.
func checkDPI(rep *FileReport, r Rules, page int, dpi float64) {
	if r.MinDPI > 0 && dpi > 0 && dpi < r.MinDPI-0.5 {
		rep.add("image.resolution", Warning, page, fmt.Sprintf("a picture's effective resolution is %.0f dpi, below the %.0f dpi of profile %s", math.Floor(dpi), r.MinDPI, r.Profile))
	}
}
