package main

import (
	"flag"
	"strings"

	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/render"
)

// colourFlags are the print colour settings (docs/colour.md "Settings"): the
// defaults as flags, per store and per product in the --color-config file. The
// worker and the offline render command share them.
type colourFlags struct {
	// prodProfile and prodProfiles are --profile and --profiles (docs/profiles.md).
	prodProfile, prodProfiles                          string
	profile, profileDir, intent, bleed, raster, config string
	richBlack, cropMarks                               bool
	inkLimit                                           float64
}

func addColourFlags(fs *flag.FlagSet) *colourFlags {
	c := &colourFlags{}
	fs.StringVar(&c.prodProfile, "profile", "", "production profile every file is made by, unless a --profiles rule chooses another: a built-in (press-pdfx4, pod-pdfx4, sticker-cut, dtf-white, web-png) or a --profiles entry")
	fs.StringVar(&c.prodProfiles, "profiles", "", "JSON file of production profiles and the rules choosing them per store, product and view (docs/profiles.md)")
	fs.StringVar(&c.profile, "color-profile", "", "CMYK output ICC profile (a file, or a file name in --color-profile-dir): pdf and pdf-simple become PDF/X-4 in its CMYK, png its soft proof (default: sRGB files)")
	fs.StringVar(&c.profileDir, "color-profile-dir", "", "folder of ICC profiles that --color-profile and the colour config name")
	fs.StringVar(&c.intent, "color-intent", "relative", "rendering intent: perceptual, relative, saturation or absolute")
	fs.StringVar(&c.bleed, "bleed", "0", "bleed around the trim with a unit: 3mm, 0.125in, 9pt")
	fs.BoolVar(&c.richBlack, "rich-black", false, "keep #000000 as the profile's four-colour black instead of 100% K overprinting")
	fs.Float64Var(&c.inkLimit, "ink-limit", 0, "total ink coverage cap in percent, e.g. 300 (0: none)")
	fs.StringVar(&c.raster, "color-raster", "png", "png views with a CMYK profile: png (the soft proof) or tiff (CMYK TIFF)")
	fs.BoolVar(&c.cropMarks, "crop-marks", false, "draw trim marks outside the bleed of PDF/X (CMYK) pages; the page grows by an 8 mm slug")
	fs.StringVar(&c.config, "color-config", "", "JSON file of colour settings per store and per product (template productId)")
	return c
}

// load reads and checks every profile now: a bad one stops the process.
func (c *colourFlags) load() (*render.PrintSet, error) {
	rich, ink, marks := c.richBlack, c.inkLimit, c.cropMarks
	cfg := render.PrintConfig{ProfileDir: c.profileDir, Default: render.PrintSettings{
		Profile: c.profile, Intent: c.intent, Bleed: c.bleed, RichBlack: &rich, InkLimit: &ink, Raster: c.raster, CropMarks: &marks,
	}}
	if c.config != "" {
		if err := render.ReadPrintConfig(c.config, &cfg); err != nil {
			return nil, usageError(err.Error())
		}
	}
	set, err := cfg.Load()
	if err != nil {
		return nil, usageError(err.Error())
	}
	return set, nil
}

// colourSet reports whether any colour flag differs from its default: the old form
// of settings that production profiles replace.
func (c *colourFlags) colourSet() bool {
	return c.profile != "" || c.config != "" || c.intent != "relative" || (c.bleed != "" && c.bleed != "0") ||
		c.richBlack || c.inkLimit != 0 || (c.raster != "" && c.raster != "png") || c.cropMarks
}

// loadProfiles reads the production profiles (nil when neither --profile nor
// --profiles is given and no routing rule names a profile) and resolves every
// profile they choose now, and the routed ones (the routing rules' "profile"): a bad
// profile stops the process, naming the file and the field. The colour flags are the
// older form of the same settings; both at once would leave one silently unused.
func (c *colourFlags) loadProfiles(routed ...string) (*profiles.Set, error) {
	if c.prodProfile == "" && c.prodProfiles == "" && len(routed) == 0 {
		return nil, nil
	}
	if c.colourSet() {
		who := "--profile/--profiles"
		if c.prodProfile == "" && c.prodProfiles == "" {
			who = "a --routing-rules rule's \"profile\""
		}
		return nil, usageError(who + " and the colour flags (--color-profile, --color-config, --bleed, --crop-marks, --ink-limit, --rich-black, --color-intent, --color-raster) exclude each other: " +
			"write the colour settings as a profile's \"colour\" and \"page\" in the --profiles file (docs/profiles.md)")
	}
	var f *profiles.File
	if c.prodProfiles != "" {
		var err error
		if f, err = profiles.ReadFile(c.prodProfiles); err != nil {
			return nil, usageError(err.Error())
		}
	}
	where := "--profile " + c.prodProfile
	switch {
	case c.prodProfiles != "":
		where = "profiles file " + c.prodProfiles
	case c.prodProfile == "":
		where = "--routing-rules"
	}
	set, err := profiles.Load(f, c.prodProfile, profiles.Options{ProfileDir: c.profileDir}, routed...)
	if err != nil {
		// Each problem on its line, each naming where it is.
		lines := strings.Split(err.Error(), "\n")
		for i, l := range lines {
			lines[i] = where + ": " + l
		}
		return nil, usageError(strings.Join(lines, "\n"))
	}
	return set, nil
}
