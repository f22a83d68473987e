package render

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render/colour"
)

// Print-grade output (docs/colour.md): a CMYK output profile turns pdf and pdf-simple
// into PDF/X-4 with DeviceCMYK colours, the png into the profile's soft proof, and
// enables the tiff export type; a bleed grows every page around the export box.
//
// The ICC arithmetic is not done here: the caller passes the transforms (built by
// package render/colour from the configured profile), so render stays free of
// profile loading and files.

// CMYKTransform converts sRGB to the output profile's CMYK (render/colour.Transform).
type CMYKTransform interface {
	CMYK(r, g, b uint8) (c, m, y, k uint8)
}

// CMYKProof converts the output profile's CMYK back to sRGB for a soft proof
// (render/colour.Proof).
type CMYKProof interface {
	RGB(c, m, y, k uint8) (r, g, b uint8)
}

// OutputProfile is a CMYK output condition: the profile's bytes (embedded in the
// PDF's OutputIntent and the TIFF) and the transforms built from it.
type OutputProfile struct {
	// Name is the profile's description, recorded in the PDF and the manifest.
	Name string
	// ICC is the profile file, embedded as is.
	ICC []byte
	// SHA256 is the hex checksum of ICC.
	SHA256 string
	// Intent names the rendering intent the transforms were built with.
	Intent string
	// Condition is the printing condition the PDF/X output intent names; zero:
	// "Custom", described by the profile's Name.
	Condition OutputCondition
	ToCMYK    CMYKTransform
	Proof     CMYKProof
}

// Print holds the print-grade output settings of a render. The zero value is the
// plain sRGB output without bleed.
type Print struct {
	// Profile, when set, makes the output CMYK through it.
	Profile *OutputProfile
	// BleedPt is the bleed around the trim (the export box) in points.
	BleedPt float64
	// RichBlack keeps #000000 text and vector black as the profile's four-colour
	// black, knocking out what is below. Off (default): 100 % K only, overprinting.
	RichBlack bool
	// InkLimit caps the total ink coverage in percent (e.g. 300); 0 means no cap.
	InkLimit float64
	// RasterTIFF writes png views as CMYK TIFF (needs a profile).
	RasterTIFF bool
	// CropMarks draws trim marks in a slug outside the bleed of PDF/X pages
	// (cropmarks.go); ignored for sRGB output and rasters.
	CropMarks bool
	// SlugPt is the slug around the bleed of PDF/X pages, in points: the MediaBox
	// grows by it on every side (at least the crop marks' slug when they are drawn).
	SlugPt float64
	// SlugText is the one-line job description written in the slug below the
	// bleed (cropmarks.go); "" none. A slug of SlugPt 0 with a text is the crop
	// marks' 8 mm.
	SlugText string
	// Cut, when set, draws a cut contour on pdf and pdf-simple pages and writes one
	// beside png views (plates.go).
	Cut *CutContour
	// White, when set, adds a white ink plate (plates.go).
	White *WhitePlate
}

// ExportType is the file type a view of export type t is written as: png becomes
// tiff when RasterTIFF is set.
func (p *Print) ExportType(t string) string {
	if p != nil && p.RasterTIFF && p.CMYK() && t == model.ExportPNG {
		return ExportTIFF
	}
	return t
}

// CMYK reports whether the output is CMYK.
func (p *Print) CMYK() bool { return p != nil && p.Profile != nil && p.Profile.ToCMYK != nil }

// Validate reports every bad setting at once.
func (p *Print) Validate() error {
	if p == nil {
		return nil
	}
	var errs []error
	if !(p.BleedPt >= 0 && p.BleedPt <= MaxBleedPt) {
		errs = append(errs, fmt.Errorf("render: bleed %gpt: want 0..%gpt", p.BleedPt, float64(MaxBleedPt)))
	}
	if p.InkLimit != 0 && !(p.InkLimit >= 100 && p.InkLimit <= 400) {
		errs = append(errs, fmt.Errorf("render: ink limit %g%%: want 100..400 (or 0 for none)", p.InkLimit))
	}
	if !(p.SlugPt >= 0 && p.SlugPt <= MaxSlugPt) {
		errs = append(errs, fmt.Errorf("render: slug %gpt: want 0..%gpt", p.SlugPt, float64(MaxSlugPt)))
	}
	if len(p.SlugText) > MaxSlugText {
		errs = append(errs, fmt.Errorf("render: slug text longer than %d bytes", MaxSlugText))
	}
	if err := p.Cut.Validate(); err != nil {
		errs = append(errs, err)
	}
	if err := p.White.Validate(); err != nil {
		errs = append(errs, err)
	}
	if p.Cut != nil && p.White != nil && p.Cut.spot() == p.White.spot() {
		errs = append(errs, fmt.Errorf("render: the cut contour and the white plate both use the spot colour %q", p.Cut.spot()))
	}
	if p.Profile != nil {
		if p.Profile.ToCMYK == nil || len(p.Profile.ICC) == 0 {
			errs = append(errs, errors.New("render: output profile without its CMYK transform or bytes"))
		}
	}
	return errors.Join(errs...)
}

// MaxBleedPt bounds the bleed (1 inch is far beyond any press's need).
const MaxBleedPt = 72

// MaxSlugPt bounds the slug (1 inch), MaxSlugText its text (one line).
const (
	MaxSlugPt   = 72
	MaxSlugText = 500
)

// WithPrint returns a renderer sharing r's fonts and options that renders with the
// given print settings (nil: sRGB, no bleed). It is cheap: one renderer per store
// or product is built per job.
func (r *Renderer) WithPrint(p *Print) *Renderer {
	c := *r
	c.print = p
	return &c
}

// Print returns the renderer's print settings (nil when none).
func (r *Renderer) Print() *Print { return r.print }

// ParseLength reads a length with a unit: "3mm", "0.125in", "9pt", "0.3cm"; a bare
// "0" is allowed. It returns points.
func ParseLength(s string) (float64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	if t == "" || t == "0" {
		return 0, nil
	}
	units := []struct {
		suffix string
		pt     float64
	}{{"mm", 72 / 25.4}, {"cm", 72 / 2.54}, {"in", 72}, {"pt", 1}}
	for _, u := range units {
		if num, ok := strings.CutSuffix(t, u.suffix); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return 0, fmt.Errorf("length %q: want a non-negative number and a unit (mm, cm, in, pt)", s)
			}
			return v * u.pt, nil
		}
	}
	return 0, fmt.Errorf("length %q: want a number and a unit (3mm, 0.125in, 9pt)", s)
}

// ColourInfo is what a result says about its colour and print geometry (the
// manifest records it per file).
type ColourInfo struct {
	// Space is "sRGB" or "CMYK".
	Space string `json:"colorSpace"`
	// Profile is the output profile's name and SHA256 its file's checksum (CMYK).
	Profile string `json:"colorProfile,omitempty"`
	SHA256  string `json:"colorProfileSha256,omitempty"`
	Intent  string `json:"colorIntent,omitempty"`
	// TrimWidthPt and TrimHeightPt are the finished size (the export box); BleedPt
	// the bleed around it on each side.
	TrimWidthPt  float64 `json:"trimWidthPt,omitempty"`
	TrimHeightPt float64 `json:"trimHeightPt,omitempty"`
	BleedPt      float64 `json:"bleedPt"`
	// MaxInkPercent is the highest total ink coverage written (CMYK only).
	MaxInkPercent float64 `json:"maxInkPercent,omitempty"`
	// InkLimitPercent is the configured cap (0: none).
	InkLimitPercent float64 `json:"inkLimitPercent,omitempty"`
}

// colourInfo describes a rendered scene's colour.
func (r *Renderer) colourInfo(s *Scene) ColourInfo {
	ci := ColourInfo{Space: "sRGB", TrimWidthPt: s.PageWidthPt - 2*s.BleedPt, TrimHeightPt: s.PageHeightPt - 2*s.BleedPt, BleedPt: s.BleedPt}
	if r.print.CMYK() && s.Type != model.ExportPNG {
		p := r.print.Profile
		ci.Space, ci.Profile, ci.SHA256, ci.Intent = "CMYK", p.Name, p.SHA256, p.Intent
		ci.MaxInkPercent, ci.InkLimitPercent = s.MaxInkPercent, r.print.InkLimit
	} else if r.print.CMYK() {
		// The PNG is the soft proof: sRGB pixels showing the press's gamut.
		p := r.print.Profile
		ci.Profile, ci.SHA256, ci.Intent = p.Name, p.SHA256, p.Intent
	}
	return ci
}

// mergeColour folds a page's colour into a document's: the highest ink wins.
func mergeColour(doc, page ColourInfo) ColourInfo {
	if doc.Space == "" {
		return page
	}
	doc.MaxInkPercent = max(doc.MaxInkPercent, page.MaxInkPercent)
	return doc
}

// NewOutputProfile builds the output condition of a CMYK profile: the sRGB -> CMYK
// transform with the intent (black point compensation on, as print workflows use
// for relative colorimetric) and the CMYK -> sRGB proof. An RGB or other non-CMYK
// profile is an error naming it.
func NewOutputProfile(p *colour.Profile, intent colour.Intent) (*OutputProfile, error) {
	if p.ColorSpace() != "CMYK" || p.Channels() != 4 {
		return nil, fmt.Errorf("render: profile %q is %s; a CMYK output profile is needed", p.Description(), p.ColorSpace())
	}
	t, err := colour.NewSRGBToCMYK(p, intent, true)
	if err != nil {
		return nil, fmt.Errorf("render: profile %q: %w", p.Description(), err)
	}
	proof, err := colour.NewCMYKToSRGB(p, intent)
	if err != nil {
		return nil, fmt.Errorf("render: profile %q: %w", p.Description(), err)
	}
	return &OutputProfile{Name: p.Description(), ICC: p.Bytes(), SHA256: p.SHA256(), Intent: intent.String(), ToCMYK: t, Proof: proof}, nil
}
