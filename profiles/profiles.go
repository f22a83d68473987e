// Package profiles holds production profiles (docs/profiles.md): one named set of
// output rules per machine or partner — the file type, colour (CMYK profile, intent,
// rich black, ink limit), page geometry (bleed, crop marks), cut contour, white plate,
// the lowest acceptable effective dpi, the file name pattern and the routing target.
// Built-in profiles plus user profiles from a JSON file, chosen per store and per
// product. The package is pure: it reads files and ICC profiles, never the network.
package profiles

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/printworker/printworker/filenames"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render"
	"github.com/printworker/printworker/routing"
)

// Profile is one production profile as written in a profiles file. Zero fields
// keep what the view itself says (its type, its dpi) or take the renderer's default.
type Profile struct {
	// Name names the profile; the manifest records it per file.
	Name string `json:"name"`
	// Description says in one line what the profile is for (printworker profiles).
	Description string `json:"description,omitempty"`
	// Output is the file type of every view: png, pdf, pdf-simple or tiff; empty
	// keeps each view's own export type. pdf with a CMYK colour profile is PDF/X-4.
	Output string `json:"output,omitempty"`
	// DPI is the resolution every view renders at; 0 keeps each view's own.
	DPI float64 `json:"dpi,omitempty"`
	// Colour is the colour conversion; empty writes sRGB.
	Colour Colour `json:"colour"`
	// Page is the page geometry around the trim.
	Page Page `json:"page"`
	// Cut, when set, draws a cut contour (docs/rendering.md "Cut contours and white
	// plates").
	Cut *Cut `json:"cut,omitempty"`
	// White, when set, adds a white ink plate.
	White *White `json:"white,omitempty"`
	// MinDPI is the lowest acceptable effective resolution of a picture, in source
	// pixels per printed inch; a file with a picture below it gets a warning. 0:
	// no check.
	MinDPI float64 `json:"minDpi,omitempty"`
	// FileName is the file name pattern of the profile's files ([id] [date]
	// [title] [product]); empty keeps the worker's --filename-pattern.
	FileName string `json:"fileName,omitempty"`
	// Route is where the profile's files go when no routing rule routes them.
	Route *Route `json:"route,omitempty"`
	// Review lists the preflight findings that hold an order with a file of this
	// profile for review (ReviewKinds, or "none"); empty: the store's policy
	// (docs/shop-floor.md "Review holds").
	Review Strings `json:"review,omitempty"`
}

// Colour is a profile's colour conversion.
type Colour struct {
	// Profile is the CMYK output ICC profile: a file path, a file name in the
	// profile folder, or DefaultCMYK for the machine's free CMYK profile. Empty:
	// sRGB output.
	Profile string `json:"profile,omitempty"`
	// Intent is perceptual, relative (default), saturation or absolute.
	Intent string `json:"intent,omitempty"`
	// RichBlack keeps #000000 four-colour (default: 100 % K overprinting).
	RichBlack bool `json:"richBlack,omitempty"`
	// InkLimit caps the total ink coverage in percent; 0 none.
	InkLimit float64 `json:"inkLimit,omitempty"`
	// Condition is the printing condition the PDF/X output intent names: a
	// registered one (FOGRA39, FOGRA51, CRPC6 or GRACoL2013) or the shop's own
	// name; empty: Custom (docs/colour.md "Registered output conditions").
	Condition string `json:"condition,omitempty"`
}

// Page is a profile's page geometry.
type Page struct {
	// Bleed is a length with a unit: 3mm, 0.125in, 9pt.
	Bleed string `json:"bleed,omitempty"`
	// CropMarks draws trim marks in an 8 mm slug outside the bleed of PDF/X pages.
	CropMarks bool `json:"cropMarks,omitempty"`
	// Slug is the margin around the bleed of PDF/X pages, a length with a unit; at
	// least the crop marks' 8 mm when they are drawn. Empty: none (8 mm with a
	// SlugText).
	Slug string `json:"slug,omitempty"`
	// SlugText is the one-line job description written in the slug below the
	// bleed: a pattern of SlugTokens.
	SlugText string `json:"slugText,omitempty"`
}

// SlugTokens are the tokens of a slug text: the file name tokens (their values as
// they are, not cleaned for a file name), the view and the profile.
var SlugTokens = []string{"[order]", "[line]", "[qty]", "[id]", "[design]", "[date]", "[created]", "[title]", "[product]", "[store]", "[view]", "[profile]"}

// Limits of a slug.
const (
	minSlugTextPt = 3 * 72 / 25.4 // a slug narrower than 3 mm has no room for a line
	maxSlugText   = 200
)

// Cut is a profile's cut contour.
type Cut struct {
	// Source is alpha (the art's outline, default), box, area or svg-id (the SVG
	// clipart's element whose id is ID).
	Source string `json:"source,omitempty"`
	// Area is the view's area an area cut follows.
	Area string `json:"area,omitempty"`
	// ID is the id of the SVG element an svg-id cut follows.
	ID string `json:"id,omitempty"`
	// Offset is how far outside the art an alpha cut runs, with a unit (default
	// 1.5mm).
	Offset string `json:"offset,omitempty"`
	// CornerRadius rounds a box or area cut, with a unit.
	CornerRadius string `json:"cornerRadius,omitempty"`
	// Spot is the spot colour's name (default CutContour, PerfCutContour with Perf).
	Spot string `json:"spot,omitempty"`
	// Perf makes the cut a perforation.
	Perf bool `json:"perf,omitempty"`
	// Hairline is the stroke width with a unit (default 0.25pt).
	Hairline string `json:"hairline,omitempty"`
	// Holes cuts the holes of the art's pieces too.
	Holes bool `json:"holes,omitempty"`
}

// White is a profile's white ink plate.
type White struct {
	// Spot is the spot colour's name: White (default), W1, Spot 1, RDG_WHITE.
	Spot string `json:"spot,omitempty"`
	// Choke shrinks the plate by this many pixels inside the art's edges; absent
	// takes the default (1), 0 is none.
	Choke *int `json:"choke,omitempty"`
	// SkipPureWhite puts no white under pure white (#ffffff) art.
	SkipPureWhite bool `json:"skipPureWhite,omitempty"`
}

// Route is a profile's routing target (docs/routing.md): the key prefix of the
// machine's folder, applied to a file no routing rule routed.
type Route struct {
	Prefix string `json:"prefix"`
}

// DefaultCMYK is the colour profile name the CMYK built-ins use: the first CMYK ICC
// profile of CMYKCandidates that exists on the machine.
const DefaultCMYK = "default-cmyk"

// CMYKCandidates are the free CMYK ICC profiles DefaultCMYK looks for, in order
// (Options.CMYKCandidates replaces them).
// Debian's icc-profiles-free ships FOGRA39 and GRACoL (TR006) only as measurement
// data (.ti3), not as ICC profiles, so the profile found is Ghostscript's
// default_cmyk.icc (libgs-common).
func CMYKCandidates() []string {
	return []string{"/usr/share/color/icc/ghostscript/default_cmyk.icc"}
}

// Options are where Resolve finds ICC profiles.
type Options struct {
	// ProfileDir is where a bare ICC file name is looked up (--color-profile-dir).
	ProfileDir string
	// CMYKCandidates replace CMYKCandidates() for DefaultCMYK when not nil.
	CMYKCandidates []string
}

// Names of the built-in profiles; automations rely on them.
const (
	PressPDFX4 = "press-pdfx4"
	PodPDFX4   = "pod-pdfx4"
	StickerCut = "sticker-cut"
	DTFWhite   = "dtf-white"
	WebPNG     = "web-png"
)

// Builtins are the built-in profiles, in the order printworker profiles lists them.
func Builtins() []Profile {
	return []Profile{
		{Name: PressPDFX4, Description: "offset and digital press: PDF/X-4 in CMYK, 3 mm bleed, crop marks",
			Output: model.ExportPDF, Colour: Colour{Profile: DefaultCMYK, Intent: "relative"},
			Page: Page{Bleed: "3mm", CropMarks: true}, MinDPI: 200},
		{Name: PodPDFX4, Description: "print-on-demand partner: PDF/X-4 in CMYK, 4 mm bleed, no marks",
			Output: model.ExportPDF, Colour: Colour{Profile: DefaultCMYK, Intent: "relative"},
			Page: Page{Bleed: "4mm"}, MinDPI: 150},
		{Name: StickerCut, Description: "print-and-cut stickers: PDF/X-4 in CMYK, a CutContour 1.5 mm outside the art (a white border), 3 mm bleed",
			Output: model.ExportPDF, Colour: Colour{Profile: DefaultCMYK, Intent: "relative"},
			Page: Page{Bleed: "3mm"}, Cut: &Cut{Source: render.CutSourceAlpha, Offset: "1.5mm"}, MinDPI: 150},
		{Name: DTFWhite, Description: "direct-to-film: transparent PNG at 300 dpi with a white plate (-white.png beside it)",
			Output: model.ExportPNG, DPI: 300, White: &White{}, MinDPI: 150},
		{Name: WebPNG, Description: "the default: each view's own type and dpi, sRGB, no bleed"},
	}
}

// Builtin returns the built-in profile of that name.
func Builtin(name string) (Profile, bool) {
	for _, p := range Builtins() {
		if p.Name == name {
			return p, true
		}
	}
	return Profile{}, false
}

// Outputs are the file types a profile can write.
var Outputs = []string{model.ExportPNG, model.ExportPDF, model.ExportPDFSimple, render.ExportTIFF}

// Limits of a profile's values.
const (
	maxNameLen = 64
	maxDPI     = 2400
	maxDescLen = 300
)

// Validate reports every bad field of the profile at once, each named by its JSON
// path ("colour.intent"). It reads no file: the ICC profile is checked by Resolve.
func (p Profile) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if err := checkName(p.Name); err != nil {
		bad("name", "%v", err)
	}
	if len(p.Description) > maxDescLen {
		bad("description", "longer than %d bytes", maxDescLen)
	}
	if p.Output != "" && !slices.Contains(Outputs, p.Output) {
		bad("output", "%q: want one of %s (or empty: the view's own)", p.Output, strings.Join(Outputs, ", "))
	}
	if !(p.DPI >= 0 && p.DPI <= maxDPI) {
		bad("dpi", "%g: want 0 (the view's own) to %d", p.DPI, maxDPI)
	}
	if !(p.MinDPI >= 0 && p.MinDPI <= maxDPI) {
		bad("minDpi", "%g: want 0 (no check) to %d", p.MinDPI, maxDPI)
	}
	if len(p.Review) > 0 {
		if _, err := ParseReview(p.Review); err != nil {
			bad("review", "%v", err)
		}
	}
	switch strings.ToLower(p.Colour.Intent) {
	case "", "perceptual", "relative", "saturation", "absolute":
	default:
		bad("colour.intent", "%q: want perceptual, relative, saturation or absolute", p.Colour.Intent)
	}
	if !(p.Colour.InkLimit == 0 || p.Colour.InkLimit >= 100 && p.Colour.InkLimit <= 400) {
		bad("colour.inkLimit", "%g: want 100..400 (or 0 for none)", p.Colour.InkLimit)
	}
	cmyk := p.Colour.Profile != "" && !strings.EqualFold(p.Colour.Profile, "srgb")
	if p.Output == render.ExportTIFF && !cmyk {
		bad("output", "tiff needs a CMYK colour.profile")
	}
	if c := p.Colour.Condition; c != "" && (len(c) > maxNameLen || strings.ContainsFunc(c, func(r rune) bool { return r < 0x20 || r > 0x7e || r == '(' || r == ')' || r == '\\' })) {
		bad("colour.condition", "%q: want a registered condition (%s) or a name of up to %d printable ASCII characters without parentheses", c, strings.Join(render.RegisteredConditionNames(), ", "), maxNameLen)
	}
	if p.Colour.Profile == "" && p.Colour.Condition != "" {
		bad("colour.condition", "needs a CMYK colour.profile (a file, or default-cmyk for the condition's own ICC file)")
	}
	if p.Colour.Profile == "" && (p.Colour.Intent != "" || p.Colour.RichBlack || p.Colour.InkLimit != 0) {
		bad("colour", "intent, richBlack and inkLimit need a CMYK colour.profile")
	}
	if b, err := render.ParseLength(p.Page.Bleed); err != nil {
		bad("page.bleed", "%v", err)
	} else if b > render.MaxBleedPt {
		bad("page.bleed", "%s: want at most 1in", p.Page.Bleed)
	}
	if p.Page.CropMarks && !cmyk {
		bad("page.cropMarks", "crop marks are drawn on PDF/X pages: give a CMYK colour.profile")
	}
	if sl, err := render.ParseLength(p.Page.Slug); err != nil {
		bad("page.slug", "%v", err)
	} else if sl > render.MaxSlugPt {
		bad("page.slug", "%s: want at most 1in", p.Page.Slug)
	} else if p.Page.SlugText != "" && sl > 0 && sl < minSlugTextPt {
		bad("page.slug", "%s: a slug text needs at least 3mm", p.Page.Slug)
	}
	if (p.Page.Slug != "" || p.Page.SlugText != "") && !cmyk {
		bad("page.slug", "a slug is part of PDF/X pages: give a CMYK colour.profile")
	}
	if len(p.Page.SlugText) > maxSlugText {
		bad("page.slugText", "longer than %d bytes", maxSlugText)
	}
	if p.Cut != nil {
		if _, err := p.Cut.plate(); err != nil {
			bad("cut", "%v", err)
		}
	}
	if p.White != nil && p.White.Choke != nil && (*p.White.Choke < 0 || *p.White.Choke > 100) {
		bad("white.choke", "%d: want 0..100 pixels", *p.White.Choke)
	}
	if p.Cut != nil && p.White != nil && cutSpot(p.Cut) == whiteSpot(p.White) {
		bad("white.spot", "%q is the cut's spot colour too", whiteSpot(p.White))
	}
	if len(p.FileName) > 200 {
		bad("fileName", "longer than 200 bytes")
	}
	if p.Route != nil {
		if _, err := routing.CleanPrefix(p.Route.Prefix); err != nil {
			bad("route.prefix", "%q: %v", p.Route.Prefix, err)
		}
	}
	return errors.Join(errs...)
}

func checkName(n string) error {
	if n == "" {
		return errors.New("empty")
	}
	if len(n) > maxNameLen {
		return fmt.Errorf("%q: longer than %d bytes", n, maxNameLen)
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.') {
			return fmt.Errorf("%q: want lower-case letters, digits, '-', '_' and '.'", n)
		}
	}
	return nil
}

// plate is the render cut contour of c, checked.
func (c *Cut) plate() (*render.CutContour, error) {
	rc := &render.CutContour{Source: c.Source, Area: c.Area, ID: c.ID, Spot: c.Spot, Perf: c.Perf, Holes: c.Holes}
	if rc.Source == "" {
		rc.Source = render.CutSourceAlpha
	}
	var errs []error
	length := func(field, v, def string) float64 {
		if v == "" {
			v = def
		}
		l, err := render.ParseLength(v)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", field, err))
		}
		return l
	}
	rc.OffsetPt = length("offset", c.Offset, "1.5mm")
	rc.CornerRadiusPt = length("cornerRadius", c.CornerRadius, "0")
	rc.HairlinePt = length("hairline", c.Hairline, "0.25pt")
	if err := rc.Validate(); err != nil {
		errs = append(errs, err)
	}
	return rc, errors.Join(errs...)
}

func cutSpot(c *Cut) string {
	switch {
	case c.Spot != "":
		return c.Spot
	case c.Perf:
		return render.DefaultPerfCutSpot
	}
	return render.DefaultCutSpot
}

func whiteSpot(w *White) string {
	if w.Spot != "" {
		return w.Spot
	}
	return render.DefaultWhiteSpot
}

func (p Profile) cutPlate() *render.CutContour {
	if p.Cut == nil {
		return nil
	}
	c, _ := p.Cut.plate()
	return c
}

func (p Profile) whitePlate() *render.WhitePlate {
	if p.White == nil {
		return nil
	}
	w := &render.WhitePlate{Spot: p.White.Spot, SkipPureWhite: p.White.SkipPureWhite}
	if c := p.White.Choke; c != nil {
		w.ChokePx = *c
		if *c == 0 {
			w.ChokePx = -1 // none; 0 would take the default
		}
	}
	return w
}

// Resolved is a profile ready to render with: its ICC profile read and checked.
type Resolved struct {
	// Profile is the profile with its colour profile resolved to a file path.
	Profile Profile
	// ICCSHA256 is the checksum of the ICC profile file (CMYK profiles).
	ICCSHA256 string
	// Print is the renderer's settings (nil: sRGB, no bleed, no plates).
	Print *render.Print
	// Digest is the hex SHA-256 of the resolved profile's canonical JSON: two files
	// with one digest were made by the same rules.
	Digest string
}

// Name is the profile's name ("" for none).
func (r *Resolved) Name() string {
	if r == nil {
		return ""
	}
	return r.Profile.Name
}

// ExportType is the file type a view of type t is written as under the profile.
func (r *Resolved) ExportType(t string) string {
	if r == nil {
		return t
	}
	if o := r.Profile.Output; o != "" {
		t = o
		if t == render.ExportTIFF {
			return t
		}
	}
	return r.Print.ExportType(t)
}

// DPI is the resolution a view of dpi d renders at under the profile.
func (r *Resolved) DPI(d float64) float64 {
	if r == nil || r.Profile.DPI == 0 {
		return d
	}
	return r.Profile.DPI
}

// SlugText is the slug text of a file under the profile, its tokens replaced by the
// file's fields and view name ("" without a slug text).
func (r *Resolved) SlugText(f filenames.Fields, view string) string {
	if r == nil || r.Profile.Page.SlugText == "" {
		return ""
	}
	return filenames.Text(r.Profile.Page.SlugText, f, "[view]", view, "[profile]", r.Profile.Name)
}

// WarnBelowProfileDPI: a picture's effective resolution is below the profile's
// lowest acceptable dpi.
const WarnBelowProfileDPI = "below-profile-dpi"

// CheckDPI returns the warning of a file whose lowest effective picture resolution
// is eff (0: no pictures), or nil when it is acceptable.
func (r *Resolved) CheckDPI(viewID string, eff float64) *render.Warning {
	if r == nil || r.Profile.MinDPI == 0 || eff == 0 || eff >= r.Profile.MinDPI {
		return nil
	}
	return &render.Warning{Code: WarnBelowProfileDPI, ViewID: viewID, Message: fmt.Sprintf(
		"effective resolution %.0f dpi is below the %.0f dpi profile %s accepts", math.Floor(eff), r.Profile.MinDPI, r.Profile.Name)}
}

// Resolve validates p, finds and reads its ICC profile and builds the renderer's
// settings. A missing ICC profile is an error naming what to install.
func Resolve(p Profile, o Options) (*Resolved, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	cond, registered := render.RegisteredCondition(p.Colour.Condition)
	if p.Colour.Profile == DefaultCMYK && registered {
		// The condition's own ICC file, not the machine's generic CMYK profile.
		path, err := findCondition(cond, o)
		if err != nil {
			return nil, fmt.Errorf("colour.profile: %w", err)
		}
		p.Colour.Profile = path
	}
	if p.Colour.Profile == DefaultCMYK {
		cands := o.CMYKCandidates
		if cands == nil {
			cands = CMYKCandidates()
		}
		path, err := FindCMYK(cands)
		if err != nil {
			return nil, fmt.Errorf("colour.profile: %w", err)
		}
		p.Colour.Profile = path
	}
	if p.Colour.Intent == "" && p.Colour.Profile != "" && !strings.EqualFold(p.Colour.Profile, "srgb") {
		p.Colour.Intent = "relative"
	}
	rich, ink, marks := p.Colour.RichBlack, p.Colour.InkLimit, p.Page.CropMarks
	raster := ""
	if p.Output == render.ExportTIFF {
		raster = "tiff"
	}
	cfg := render.PrintConfig{ProfileDir: o.ProfileDir, Default: render.PrintSettings{
		Profile: p.Colour.Profile, Intent: p.Colour.Intent, Bleed: p.Page.Bleed,
		RichBlack: &rich, InkLimit: &ink, CropMarks: &marks, Raster: raster,
	}}
	set, err := cfg.Load()
	if err != nil {
		return nil, fmt.Errorf("colour: %w", err)
	}
	pr := set.For("", "")
	if p.Colour.Condition != "" && pr != nil && pr.Profile != nil {
		if !registered {
			cond = render.OutputCondition{Identifier: p.Colour.Condition}
		}
		op := *pr.Profile
		op.Condition = cond
		c := *pr
		c.Profile = &op
		pr = &c
	}
	slug, _ := render.ParseLength(p.Page.Slug)
	if cut, white := p.cutPlate(), p.whitePlate(); cut != nil || white != nil || slug > 0 {
		var c render.Print
		if pr != nil {
			c = *pr
		}
		c.Cut, c.White, c.SlugPt = cut, white, slug
		pr = &c
	}
	r := &Resolved{Profile: p, Print: pr}
	if pr != nil && pr.Profile != nil {
		r.ICCSHA256 = pr.Profile.SHA256
	}
	r.Digest = digest(r)
	return r, nil
}

// digest is the SHA-256 of the resolved profile's canonical JSON: the profile's
// fields in their declared order (encoding/json's order is fixed) and the ICC
// file's checksum, without the description and the review policy, which change no
// output.
func digest(r *Resolved) string {
	p := r.Profile
	p.Description = ""
	p.Review = nil // holds no file differently
	b, _ := json.Marshal(struct {
		Profile   Profile `json:"profile"`
		ICCSHA256 string  `json:"iccSha256,omitempty"`
	}{p, r.ICCSHA256})
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// ConditionDirs are the folders a registered condition's ICC files are looked for
// in, after the profile folder (Options.ProfileDir).
var ConditionDirs = []string{"/usr/share/color/icc", "/usr/share/color/icc/colord", "/usr/local/share/color/icc"}

// findCondition finds an ICC file made for a registered condition. Debian ships
// none (icc-profiles-free has FOGRA39 and GRACoL only as measurement data), so
// the error says which files to put where.
func findCondition(c render.OutputCondition, o Options) (string, error) {
	dirs := ConditionDirs
	if o.ProfileDir != "" {
		dirs = append([]string{o.ProfileDir}, dirs...)
	}
	var cands []string
	for _, d := range dirs {
		for _, f := range c.Files {
			cands = append(cands, filepath.Join(d, f))
		}
	}
	if p, err := FindCMYK(cands); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("condition %s: no ICC profile for it on this machine: put one of %s in --color-profile-dir (or %s), or name the file in colour.profile; Debian ships none of them (docs/colour.md \"Registered output conditions\")",
		c.Identifier, strings.Join(c.Files, ", "), strings.Join(ConditionDirs, ", "))
}

// ErrNoCMYKProfile: no CMYK ICC profile of CMYKCandidates is on the machine.
var ErrNoCMYKProfile = errors.New("no CMYK ICC profile on this machine: install Debian's libgs-common (Ghostscript's default_cmyk.icc), or name an ICC file in a profiles file")

// FindCMYK returns the first of the candidate files that exists.
func FindCMYK(candidates []string) (string, error) {
	for _, c := range candidates {
		if st, err := os.Stat(c); err == nil && st.Mode().IsRegular() {
			return c, nil
		}
	}
	return "", fmt.Errorf("%s: %w", DefaultCMYK, ErrNoCMYKProfile)
}
