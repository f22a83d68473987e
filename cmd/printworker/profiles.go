package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/printworker/printworker/profiles"
)

// profilesCommand lists the production profiles (docs/profiles.md): the built-ins
// and a profiles file's entries, each with what it does, and checks the file.
func profilesCommand() command {
	return command{
		name:    "profiles",
		summary: "list the built-in production profiles and a profiles file's, with what each does",
		run: func(ctx context.Context, e env, args []string) error {
			fs := newFlagSet(e, "profiles", "profiles [--profiles FILE] [--json]\n\nLists the built-in production profiles and those of --profiles FILE (checked as\nwork and render check it), each with what it does, and the file's rules. See docs/profiles.md.")
			file := fs.String("profiles", "", "JSON file of production profiles and the rules choosing them per store, product and view (docs/profiles.md)")
			profileDir := fs.String("color-profile-dir", "", "folder of ICC profiles that a profile's bare colour.profile file name is looked up in")
			asJSON := fs.Bool("json", false, "print one JSON object per profile: the resolved profile, its digest and where it comes from")
			if err := parseFlags(fs, e, args); err != nil {
				return helpOK(err)
			}
			var f *profiles.File
			if *file != "" {
				var err error
				if f, err = profiles.ReadFile(*file); err != nil {
					return usageError(err.Error())
				}
			}
			entries := []listedProfile{}
			for _, p := range profiles.Builtins() {
				entries = append(entries, listedProfile{Source: "built-in", Profile: p})
			}
			if f != nil {
				for _, p := range f.Profiles {
					entries = append(entries, listedProfile{Source: *file, Profile: p})
				}
			}
			for i := range entries {
				r, err := profiles.Resolve(entries[i].Profile, profiles.Options{ProfileDir: *profileDir})
				if err != nil {
					entries[i].Unavailable = err.Error()
					continue
				}
				entries[i].Profile, entries[i].Digest = r.Profile, r.Digest
			}
			if *asJSON {
				enc := json.NewEncoder(e.stdout)
				for _, en := range entries {
					if err := enc.Encode(en); err != nil {
						return err
					}
				}
				return nil
			}
			for _, en := range entries {
				printProfile(e.stdout, en)
			}
			if f != nil {
				printRules(e.stdout, f)
			}
			return nil
		},
	}
}

// listedProfile is one line of printworker profiles --json.
type listedProfile struct {
	// Source is "built-in" or the profiles file.
	Source  string           `json:"source"`
	Profile profiles.Profile `json:"profile"`
	Digest  string           `json:"digest,omitempty"`
	// Unavailable says why the profile cannot be used on this machine (a missing
	// ICC profile).
	Unavailable string `json:"unavailable,omitempty"`
}

func printProfile(w io.Writer, en listedProfile) {
	p := en.Profile
	fmt.Fprintf(w, "%s  (%s)\n", p.Name, en.Source)
	if p.Description != "" {
		fmt.Fprintf(w, "  %s\n", p.Description)
	}
	for _, line := range describe(p) {
		fmt.Fprintf(w, "  %s\n", line)
	}
	if en.Unavailable != "" {
		fmt.Fprintf(w, "  unavailable here: %s\n", strings.ReplaceAll(en.Unavailable, "\n", "; "))
	} else {
		fmt.Fprintf(w, "  digest %s\n", en.Digest)
	}
	fmt.Fprintln(w)
}

// describe says in words what a profile does.
func describe(p profiles.Profile) []string {
	var out []string
	typ := "each view's own type"
	if p.Output != "" {
		typ = p.Output
		if p.Output == "pdf" && p.Colour.Profile != "" {
			typ = "pdf (PDF/X-4)"
		}
	}
	dpi := "each view's own dpi"
	if p.DPI > 0 {
		dpi = fmt.Sprintf("%g dpi", p.DPI)
	}
	out = append(out, "output: "+typ+", "+dpi)
	if p.Colour.Profile != "" {
		c := fmt.Sprintf("colour: CMYK through %s, intent %s", p.Colour.Profile, p.Colour.Intent)
		if p.Colour.RichBlack {
			c += ", rich black"
		} else {
			c += ", black as 100% K overprinting"
		}
		if p.Colour.InkLimit > 0 {
			c += fmt.Sprintf(", ink limit %g%%", p.Colour.InkLimit)
		}
		if p.Colour.Condition != "" {
			c += ", condition " + p.Colour.Condition
		}
		out = append(out, c)
	} else {
		out = append(out, "colour: sRGB")
	}
	page := "page: no bleed"
	if p.Page.Bleed != "" && p.Page.Bleed != "0" {
		page = "page: " + p.Page.Bleed + " bleed"
	}
	if p.Page.CropMarks {
		page += ", crop marks in an 8 mm slug"
	}
	out = append(out, page)
	if c := p.Cut; c != nil {
		src := c.Source
		if src == "" {
			src = "alpha"
		}
		off := c.Offset
		if off == "" {
			off = "1.5mm"
		}
		spot := c.Spot
		if spot == "" {
			spot = "CutContour"
			if c.Perf {
				spot = "PerfCutContour"
			}
		}
		line := fmt.Sprintf("cut: %s spot colour along the %s", spot, map[string]string{"alpha": "art's outline, " + off + " outside it", "box": "trim", "area": "area " + c.Area}[src])
		out = append(out, line)
	}
	if wp := p.White; wp != nil {
		spot := wp.Spot
		if spot == "" {
			spot = "White"
		}
		out = append(out, "white plate: spot colour "+spot+" (beside a png as -white.png)")
	}
	if p.MinDPI > 0 {
		out = append(out, fmt.Sprintf("lowest acceptable effective dpi: %g (below: a warning in the manifest)", p.MinDPI))
	}
	if p.FileName != "" {
		out = append(out, "file names: "+p.FileName)
	}
	if p.Route != nil {
		out = append(out, "route: "+p.Route.Prefix+"/ (when no routing rule routes the file)")
	}
	return out
}

func printRules(w io.Writer, f *profiles.File) {
	def := f.Default
	if def == "" {
		def = profiles.WebPNG
	}
	fmt.Fprintln(w, "choosing (first rule that matches, else the default):")
	for i, r := range f.Rules {
		var conds []string
		for _, c := range []struct {
			name string
			v    profiles.Strings
		}{{"store", r.Match.Store}, {"product", r.Match.Product}, {"view", r.Match.View}} {
			if len(c.v) > 0 {
				conds = append(conds, c.name+" "+strings.Join(c.v, "|"))
			}
		}
		if len(conds) == 0 {
			conds = []string{"every file"}
		}
		fmt.Fprintf(w, "  %d. %s -> %s\n", i+1, strings.Join(conds, ", "), r.Profile)
	}
	fmt.Fprintf(w, "  default -> %s (--profile overrides it)\n", def)
}
