package profiles

import (
	"fmt"
	"strings"

	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/preflight"
	"github.com/printworker/printworker/render"
)

// Print check defaults of PDF/X-4 profiles: a process-ink line thinner than a
// quarter point may break up in print; text within 3 mm of the trim risks the cut.
const (
	MinLinePt      = 0.25
	SafetyMarginPt = 3 * 72 / 25.4
)

// CheckRules is the check profile of a production profile: PDF/X-4 conformance when
// it writes PDF/X-4, and the print checks of what it promises (docs/preflight.md
// "Check profiles").
func (p Profile) CheckRules() (preflight.Rules, error) {
	r := preflight.Rules{Profile: p.Name, Output: p.Output, TACLimit: p.Colour.InkLimit, MinDPI: p.MinDPI}
	cmyk := p.Colour.Profile != "" && !strings.EqualFold(p.Colour.Profile, "srgb")
	pdf := p.Output == model.ExportPDF || p.Output == model.ExportPDFSimple
	raster := p.Output == model.ExportPNG || p.Output == render.ExportTIFF
	r.PDFX4 = pdf && cmyk
	if r.PDFX4 {
		// Print checks of press files (docs/preflight.md "Check profiles").
		r.MinLinePt, r.SafetyPt = MinLinePt, SafetyMarginPt
	}
	r.CMYK = cmyk && (pdf || p.Output == render.ExportTIFF)
	if raster {
		r.DPI = p.DPI
	}
	if p.Page.Bleed != "" && pdf {
		b, err := render.ParseLength(p.Page.Bleed)
		if err != nil {
			return preflight.Rules{}, fmt.Errorf("profile %s: page.bleed: %w", p.Name, err)
		}
		r.BleedPt = b
	}
	if c := p.Colour.Condition; c != "" && r.PDFX4 {
		r.Condition = c
		if rc, ok := render.RegisteredCondition(c); ok {
			r.Condition, r.Registry = rc.Identifier, rc.Registry
		}
	}
	if c := p.Cut; c != nil && pdf {
		r.CutSpot = c.Spot
		if r.CutSpot == "" {
			r.CutSpot = map[bool]string{false: "CutContour", true: "PerfCutContour"}[c.Perf]
		}
	}
	if w := p.White; w != nil {
		r.WhiteSpot = w.Spot
		if r.WhiteSpot == "" {
			r.WhiteSpot = "White"
		}
	}
	return r, nil
}

// CheckProfile finds a check profile of printworker preflight by name: pdfx4, a
// built-in production profile, or one of the user's (from a profiles file; nil for
// none).
func CheckProfile(name string, file *File) (preflight.Rules, error) {
	if name == preflight.PDFX4 {
		return preflight.PDFX4Rules(), nil
	}
	if p, ok := Builtin(name); ok {
		return p.CheckRules()
	}
	if file != nil {
		for _, p := range file.Profiles {
			if p.Name == name {
				return p.CheckRules()
			}
		}
	}
	names := []string{preflight.PDFX4}
	names = append(names, BuiltinNames()...)
	if file != nil {
		for _, p := range file.Profiles {
			names = append(names, p.Name)
		}
	}
	return preflight.Rules{}, fmt.Errorf("no check profile %q (there are: %s)", name, strings.Join(names, ", "))
}
