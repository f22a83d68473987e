package main

import (
	"flag"
	"fmt"
	"math"

	"github.com/printworker/printworker/render"
)

// plateFlags are the cut contour and white plate of the offline render command
// (docs/rendering.md "Cut contours and white plates").
type plateFlags struct {
	cut, cutArea, cutOffset, cutRadius, cutSpot, cutHairline string
	cutThreshold, whiteThreshold, whiteDPI                   float64
	cutPerf, cutHoles, white, whiteSkipWhite                 bool
	whiteSpot                                                string
	whiteChoke                                               int
}

func addPlateFlags(fs *flag.FlagSet) *plateFlags {
	p := &plateFlags{}
	fs.StringVar(&p.cut, "cut-contour", "off", "cut contour on pdf and pdf-simple pages (a -cut.pdf beside png views): off, alpha (the art's outline, offset), box (the export box) or area (the --cut-area rectangle)")
	fs.StringVar(&p.cutArea, "cut-area", "", "id of the view's area an area cut contour follows")
	fs.StringVar(&p.cutOffset, "cut-offset", "1.5mm", "distance of an alpha cut contour outside the art, with a unit: 1.5mm, 0.06in, 4pt")
	fs.StringVar(&p.cutRadius, "cut-corner-radius", "0", "corner radius of a box or area cut contour, with a unit")
	fs.StringVar(&p.cutSpot, "cut-spot", "", "spot colour name of the cut (default CutContour, or PerfCutContour with --cut-perf)")
	fs.BoolVar(&p.cutPerf, "cut-perf", false, "make the cut a perforation (spot colour PerfCutContour)")
	fs.StringVar(&p.cutHairline, "cut-hairline", "0.25pt", "stroke width of the cut, with a unit")
	fs.Float64Var(&p.cutThreshold, "cut-alpha-threshold", 10, "alpha in percent from which a pixel is art the cut goes around")
	fs.BoolVar(&p.cutHoles, "cut-holes", false, "cut the holes of the art's pieces too (default: only around the outside)")
	fs.BoolVar(&p.white, "white-plate", false, "add a white ink plate: a Separation in pdf and pdf-simple, a -white.png beside png views (255 = full white ink)")
	fs.StringVar(&p.whiteSpot, "white-spot", render.DefaultWhiteSpot, "spot colour name of the white plate: White, W1, Spot 1, RDG_WHITE, as the RIP expects")
	fs.IntVar(&p.whiteChoke, "white-choke", render.DefaultWhiteChokePx, "pixels the white plate is choked by inside the art's edges (0: none)")
	fs.Float64Var(&p.whiteThreshold, "white-threshold", 50, "alpha in percent from which a pixel gets white ink")
	fs.BoolVar(&p.whiteSkipWhite, "white-skip-white", false, "no white plate under pure white (#ffffff) art")
	fs.Float64Var(&p.whiteDPI, "white-dpi", render.DefaultPlateDPI, "resolution of the white plate on vector pdf pages (rasters use their own dpi)")
	return p
}

// alpha turns a percentage into an 8-bit alpha threshold (at least 1).
func alpha(pct float64, flag string) (uint8, error) {
	if !(pct >= 0 && pct <= 100) {
		return 0, fmt.Errorf("--%s %g: want 0..100", flag, pct)
	}
	return uint8(max(1, math.Ceil(pct*255/100))), nil
}

// settings returns the plates asked for (nil, nil when none), checked.
func (p *plateFlags) settings() (*render.CutContour, *render.WhitePlate, error) {
	var cut *render.CutContour
	switch p.cut {
	case "", "off":
	case render.CutSourceAlpha, render.CutSourceBox, render.CutSourceArea:
		c := &render.CutContour{Source: p.cut, Area: p.cutArea, Spot: p.cutSpot, Perf: p.cutPerf, Holes: p.cutHoles}
		var err error
		if c.OffsetPt, err = render.ParseLength(p.cutOffset); err != nil {
			return nil, nil, usageError("--cut-offset: " + err.Error())
		}
		if c.CornerRadiusPt, err = render.ParseLength(p.cutRadius); err != nil {
			return nil, nil, usageError("--cut-corner-radius: " + err.Error())
		}
		if c.HairlinePt, err = render.ParseLength(p.cutHairline); err != nil {
			return nil, nil, usageError("--cut-hairline: " + err.Error())
		}
		if c.AlphaThreshold, err = alpha(p.cutThreshold, "cut-alpha-threshold"); err != nil {
			return nil, nil, usageError(err.Error())
		}
		cut = c
	default:
		return nil, nil, usageError(fmt.Sprintf("--cut-contour %q: want off, alpha, box or area", p.cut))
	}
	var white *render.WhitePlate
	if p.white {
		w := &render.WhitePlate{Spot: p.whiteSpot, ChokePx: p.whiteChoke, SkipPureWhite: p.whiteSkipWhite, PlateDPI: p.whiteDPI}
		if p.whiteChoke == 0 {
			w.ChokePx = -1 // no choke; 0 would take the default
		}
		if p.whiteChoke < 0 {
			return nil, nil, usageError(fmt.Sprintf("--white-choke %d: want 0 or more pixels", p.whiteChoke))
		}
		var err error
		if w.Threshold, err = alpha(p.whiteThreshold, "white-threshold"); err != nil {
			return nil, nil, usageError(err.Error())
		}
		white = w
	}
	if err := (&render.Print{Cut: cut, White: white}).Validate(); err != nil {
		return nil, nil, usageError(err.Error())
	}
	return cut, white, nil
}

// withPlates returns p with the plates asked for set (p itself when there are none).
func withPlates(p *render.Print, cut *render.CutContour, white *render.WhitePlate) *render.Print {
	if cut == nil && white == nil {
		return p
	}
	var c render.Print
	if p != nil {
		c = *p
	}
	// A plate not asked for keeps the profile's.
	if cut != nil {
		c.Cut = cut
	}
	if white != nil {
		c.White = white
	}
	return &c
}
