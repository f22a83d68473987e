package render

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/printworker/printworker/render/colour"
)

// PrintSettings are the colour settings of the outputs (docs/colour.md
// "Settings"). Empty fields inherit from the level above: a store's product, the
// store, the product (any store), the defaults.
type PrintSettings struct {
	// Profile is the CMYK output profile: a file path, or a file name in the profile
	// folder. "srgb" (any case) turns colour management off at this level.
	Profile string `json:"profile,omitempty"`
	// Intent is perceptual, relative (default), saturation or absolute.
	Intent string `json:"intent,omitempty"`
	// Bleed is a length with a unit: 3mm, 0.125in, 9pt.
	Bleed string `json:"bleed,omitempty"`
	// RichBlack keeps #000000 four-colour (default off: K only, overprinting).
	RichBlack *bool `json:"richBlack,omitempty"`
	// InkLimit caps the total ink in percent (e.g. 300); 0 none.
	InkLimit *float64 `json:"inkLimit,omitempty"`
	// Raster is the file of png views when a profile is set: "png" (default, the
	// soft proof) or "tiff" (CMYK TIFF for RIPs).
	Raster string `json:"raster,omitempty"`
	// CropMarks draws trim marks outside the bleed of PDF/X pages.
	CropMarks *bool `json:"cropMarks,omitempty"`
}

// StorePrint is one store's settings, with per-product overrides.
type StorePrint struct {
	PrintSettings
	Products map[string]PrintSettings `json:"products,omitempty"`
}

// PrintConfig is the whole colour configuration: defaults (the --color-* flags),
// per product (template productId) and per store (--color-config file).
type PrintConfig struct {
	// ProfileDir is where profile names are looked up (--color-profile-dir).
	ProfileDir string                   `json:"profileDir,omitempty"`
	Default    PrintSettings            `json:"default"`
	Products   map[string]PrintSettings `json:"products,omitempty"`
	Stores     map[string]StorePrint    `json:"stores,omitempty"`
}

// ReadPrintConfig reads a colour config file (JSON, unknown keys refused) into c,
// keeping c's defaults where the file says nothing.
func ReadPrintConfig(path string, c *PrintConfig) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("colour config: %w", err)
	}
	defer f.Close()
	var file PrintConfig
	dec := json.NewDecoder(io.LimitReader(f, 1<<20))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&file); err != nil {
		return fmt.Errorf("colour config %s: %w", path, err)
	}
	if file.ProfileDir != "" {
		c.ProfileDir = file.ProfileDir
	}
	c.Default = merge(c.Default, file.Default)
	c.Products, c.Stores = file.Products, file.Stores
	return nil
}

// merge lays o over base field by field.
func merge(base, o PrintSettings) PrintSettings {
	if o.Profile != "" {
		base.Profile = o.Profile
	}
	if o.Intent != "" {
		base.Intent = o.Intent
	}
	if o.Bleed != "" {
		base.Bleed = o.Bleed
	}
	if o.RichBlack != nil {
		base.RichBlack = o.RichBlack
	}
	if o.InkLimit != nil {
		base.InkLimit = o.InkLimit
	}
	if o.Raster != "" {
		base.Raster = o.Raster
	}
	if o.CropMarks != nil {
		base.CropMarks = o.CropMarks
	}
	return base
}

// PrintSet is a loaded PrintConfig: every profile read, checked and turned into
// transforms at start-up, so a bad profile stops the process instead of failing (or
// worse, silently printing sRGB) job by job.
type PrintSet struct {
	def      *Print
	products map[string]*Print
	stores   map[string]*Print
	store    map[[2]string]*Print
}

// Load resolves every level of the configuration. Errors name the store, product
// and profile, all at once.
func (c PrintConfig) Load() (*PrintSet, error) {
	l := &printLoader{dir: c.ProfileDir, profiles: map[string]*OutputProfile{}}
	s := &PrintSet{products: map[string]*Print{}, stores: map[string]*Print{}, store: map[[2]string]*Print{}}
	var errs []error
	at := func(where string, ps PrintSettings) *Print {
		p, err := l.print(ps)
		if err != nil {
			errs = append(errs, fmt.Errorf("colour settings (%s): %w", where, err))
		}
		return p
	}
	s.def = at("default", c.Default)
	for _, prod := range sortedKeys(c.Products) {
		s.products[prod] = at("product "+prod, merge(c.Default, c.Products[prod]))
	}
	for _, st := range sortedKeys(c.Stores) {
		sp := c.Stores[st]
		storeLevel := merge(c.Default, sp.PrintSettings)
		s.stores[st] = at("store "+st, storeLevel)
		// A store's product: the store's settings, then the product's general ones,
		// then the store's own product entry.
		prods := map[string]bool{}
		for p := range sp.Products {
			prods[p] = true
		}
		for p := range c.Products {
			prods[p] = true
		}
		for _, prod := range sortedKeys(prods) {
			s.store[[2]string{st, prod}] = at("store "+st+" product "+prod, merge(merge(storeLevel, c.Products[prod]), sp.Products[prod]))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return s, nil
}

// For returns the settings of a store's product (nil: sRGB without bleed).
func (s *PrintSet) For(store, product string) *Print {
	if s == nil {
		return nil
	}
	if p, ok := s.store[[2]string{store, product}]; ok {
		return p
	}
	if p, ok := s.stores[store]; ok {
		return p
	}
	if p, ok := s.products[product]; ok {
		return p
	}
	return s.def
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// printLoader loads each profile file once.
type printLoader struct {
	dir      string
	profiles map[string]*OutputProfile
}

func (l *printLoader) print(ps PrintSettings) (*Print, error) {
	var errs []error
	p := &Print{}
	if ps.Bleed != "" {
		b, err := ParseLength(ps.Bleed)
		if err != nil {
			errs = append(errs, fmt.Errorf("bleed: %w", err))
		}
		p.BleedPt = b
	}
	if ps.RichBlack != nil {
		p.RichBlack = *ps.RichBlack
	}
	if ps.InkLimit != nil {
		p.InkLimit = *ps.InkLimit
	}
	if ps.CropMarks != nil {
		p.CropMarks = *ps.CropMarks
	}
	intentName := ps.Intent
	if intentName == "" {
		intentName = "relative"
	}
	intent, err := colour.ParseIntent(intentName)
	if err != nil {
		errs = append(errs, err)
	}
	switch strings.ToLower(ps.Raster) {
	case "", "png":
	case "tiff", "tif":
		p.RasterTIFF = true
	default:
		errs = append(errs, fmt.Errorf("raster %q: want png or tiff", ps.Raster))
	}
	if prof := ps.Profile; prof != "" && !strings.EqualFold(prof, "srgb") && err == nil {
		op, err := l.profile(prof, intent)
		if err != nil {
			errs = append(errs, err)
		}
		p.Profile = op
	}
	if p.RasterTIFF && p.Profile == nil {
		errs = append(errs, errors.New("raster tiff needs a CMYK profile"))
	}
	if err := p.Validate(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if p.Profile == nil && p.BleedPt == 0 {
		return nil, nil
	}
	return p, nil
}

// profile loads a profile by path, or by file name in the profile folder.
func (l *printLoader) profile(name string, intent colour.Intent) (*OutputProfile, error) {
	path := name
	if l.dir != "" && !strings.ContainsRune(name, os.PathSeparator) {
		path = filepath.Join(l.dir, name)
	}
	key := path + "\x00" + intent.String()
	if p, ok := l.profiles[key]; ok {
		return p, nil
	}
	cp, err := colour.LoadProfile(path)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", path, err)
	}
	op, err := NewOutputProfile(cp, intent)
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", path, err)
	}
	l.profiles[key] = op
	return op, nil
}
