package preflight

import (
	"fmt"
	"strings"

	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/render"
)

// PDFX4 is the check profile of PDF/X-4 conformance alone.
const PDFX4 = "pdfx4"

// RulesFor is the check profile of a production profile: PDF/X-4 conformance when
// it writes PDF/X-4, and the print checks of what it promises (docs/preflight.md
// "Check profiles").
func RulesFor(p profiles.Profile) (Rules, error) {
	r := Rules{Profile: p.Name, Output: p.Output, TACLimit: p.Colour.InkLimit, MinDPI: p.MinDPI}
	cmyk := p.Colour.Profile != "" && !strings.EqualFold(p.Colour.Profile, "srgb")
	pdf := p.Output == model.ExportPDF || p.Output == model.ExportPDFSimple
	raster := p.Output == model.ExportPNG || p.Output == render.ExportTIFF
	r.PDFX4 = pdf && cmyk
	r.CMYK = cmyk && (pdf || p.Output == render.ExportTIFF)
	if raster {
		r.DPI = p.DPI
	}
	if p.Page.Bleed != "" && pdf {
		b, err := render.ParseLength(p.Page.Bleed)
		if err != nil {
			return Rules{}, fmt.Errorf("profile %s: page.bleed: %w", p.Name, err)
		}
		r.BleedPt = b
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

// Lookup finds a check profile by name: pdfx4, a built-in production profile, or
// one of the user's (from a profiles file; nil for none).
func Lookup(name string, file *profiles.File) (Rules, error) {
	if name == PDFX4 {
		return Rules{Profile: PDFX4, PDFX4: true}, nil
	}
	if p, ok := profiles.Builtin(name); ok {
		return RulesFor(p)
	}
	if file != nil {
		for _, p := range file.Profiles {
			if p.Name == name {
				return RulesFor(p)
			}
		}
	}
	names := []string{PDFX4}
	names = append(names, profiles.BuiltinNames()...)
	if file != nil {
		for _, p := range file.Profiles {
			names = append(names, p.Name)
		}
	}
	return Rules{}, fmt.Errorf("no check profile %q (there are: %s)", name, strings.Join(names, ", "))
}
