package main

import (
	"flag"

	"github.com/printworker/printworker/render"
)

// colourFlags are the print colour settings (docs/colour.md "Settings"): the
// defaults as flags, per store and per product in the --color-config file. The
// worker and the offline render command share them.
type colourFlags struct {
	profile, profileDir, intent, bleed, raster, config string
	richBlack, cropMarks                               bool
	inkLimit                                           float64
}

func addColourFlags(fs *flag.FlagSet) *colourFlags {
	c := &colourFlags{}
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
