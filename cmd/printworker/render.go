package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/printworker/printworker/filenames"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/render"
)

// renderFile is the --json line of one written file.
type renderFile struct {
	Name         string           `json:"name"`
	ViewID       string           `json:"viewId"`
	Type         string           `json:"type"`
	DPI          float64          `json:"dpi"`
	WidthPx      int              `json:"widthPx,omitempty"`
	HeightPx     int              `json:"heightPx,omitempty"`
	PageWidthPt  float64          `json:"pageWidthPt"`
	PageHeightPt float64          `json:"pageHeightPt"`
	Bytes        int64            `json:"bytes"`
	SHA256       string           `json:"sha256"`
	Warnings     []render.Warning `json:"warnings"`
	// Colour is the file's colour space, profile, trim, bleed and ink coverage.
	Colour render.ColourInfo `json:"colour"`
	// Sidecars are the files written beside it (white plate, cut).
	Sidecars []string `json:"sidecars,omitempty"`
	// Profile and ProfileDigest name the production profile it was made by.
	Profile       string `json:"profile,omitempty"`
	ProfileDigest string `json:"profileDigest,omitempty"`
	// EffectiveDPI is the lowest effective resolution of its pictures.
	EffectiveDPI float64 `json:"effectiveDpi,omitempty"`
}

func renderCommand() command {
	return command{
		name:    "render",
		summary: "render a design detail file offline into print files",
		run: func(ctx context.Context, e env, args []string) error {
			fs := newFlagSet(e, "render", "render --design FILE.json --media DIR --out DIR [--view ID] [--json]")
			design := fs.String("design", "", "design detail JSON file (the hub's get design details response)")
			mediaDir := fs.String("media", "", "folder of media files named by media _id (any extension)")
			out := fs.String("out", "", "folder to write the print files to (created if missing)")
			view := fs.String("view", "", "render only this view id (default: every view)")
			asJSON := fs.Bool("json", false, "print one JSON object per written file")
			all := fs.Bool("all", false, "write the hub's export-all package instead: one multi-page PDF when every view is a PDF type, else a zip of the views' files")
			// The worker's render flags, so the same environment renders the same files
			// offline and in the worker; --basis and --strict are short aliases.
			rf := addRenderFlags(fs)
			pf := addPlateFlags(fs)
			basis := fs.String("basis", "", "alias of --render-basis: point (1 template px = 1 pt) or pixel (1 template px = 1 output px)")
			strict := fs.Bool("strict", false, "alias of --render-strict")
			if err := parseFlags(fs, e, args); err != nil {
				return helpOK(err)
			}
			// An alias counts only when given on the command line.
			fs.Visit(func(f *flag.Flag) {
				switch f.Name {
				case "basis":
					rf.basis = *basis
				case "strict":
					rf.strict = *strict
				}
			})
			var missing []error
			for _, f := range []struct{ name, v string }{{"design", *design}, {"media", *mediaDir}, {"out", *out}} {
				if f.v == "" {
					missing = append(missing, fmt.Errorf("--%s is required", f.name))
				}
			}
			if len(missing) > 0 {
				return usageError("render: " + errors.Join(missing...).Error())
			}
			r, err := rf.renderer()
			if err != nil {
				return err
			}
			prints, err := rf.colour.load()
			if err != nil {
				return err
			}
			profs, err := rf.colour.loadProfiles()
			if err != nil {
				return err
			}
			if *all && *view != "" {
				return usageError("render: --all and --view exclude each other")
			}
			cut, white, err := pf.settings()
			if err != nil {
				return err
			}
			return renderDesign(ctx, e, r, renderJob{design: *design, media: *mediaDir, out: *out, view: *view, all: *all, json: *asJSON, print: prints, profiles: profs, cut: cut, white: white})
		},
	}
}

// renderJob is what the render command was asked to do.
type renderJob struct {
	design, media, out, view string
	all, json                bool
	// print holds the colour settings; the design's shop and productId pick them.
	print *render.PrintSet
	// profiles, when set, choose each view's production profile instead of print.
	profiles *profiles.Set
	// cut and white are the plates (nil: none).
	cut   *render.CutContour
	white *render.WhitePlate
}

func renderDesign(ctx context.Context, e env, r *render.Renderer, job renderJob) error {
	designPath, mediaDir, outDir, viewID := job.design, job.media, job.out, job.view
	b, err := os.ReadFile(designPath)
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	var d model.DesignDetail
	if err := json.Unmarshal(b, &d); err != nil {
		return fmt.Errorf("render: %s is not a design detail: %w", designPath, err)
	}
	if st, err := os.Stat(mediaDir); err != nil || !st.IsDir() {
		return fmt.Errorf("render: --media %s is not a folder", mediaDir)
	}
	views := render.Views(&d)
	if len(views) == 0 {
		return fmt.Errorf("render: design %s has no views", d.ID)
	}
	// Each view's renderer and profile: its production profile's settings, else the
	// colour settings of the design's store and product; the plate flags on top.
	rs := make([]*render.Renderer, len(views))
	profs := make([]*profiles.Resolved, len(views))
	for i, v := range views {
		var p *render.Print
		if job.profiles != nil {
			profs[i] = job.profiles.For(d.Shop, d.ProductID, v.ID)
			p = profs[i].Print
			v.Export.Type = profs[i].ExportType(v.Export.Type)
			v.Export.DPI = profs[i].DPI(v.Export.DPI)
			// Offline there is no order: the slug text has the design's fields.
			label := v.Name.Pick("")
			if label == "" {
				label = v.ID
			}
			if slug := profs[i].SlugText(filenames.DesignFields(&d), label); slug != "" && p != nil {
				c := *p
				c.SlugText = slug
				p = &c
			}
		} else {
			p = job.print.For(d.Shop, d.ProductID)
			v.Export.Type = p.ExportType(v.Export.Type)
		}
		rs[i] = r.WithPrint(withPlates(p, job.cut, job.white))
	}
	names := render.FileNames(&d, views)
	if viewID != "" {
		found := false
		for i, v := range views {
			if v.ID == viewID {
				views, names, rs, profs, found = views[i:i+1], names[i:i+1], rs[i:i+1], profs[i:i+1], true
				break
			}
		}
		if !found {
			return fmt.Errorf("render: design %s has no view %q", d.ID, viewID)
		}
	}
	// Plan every view first so bad input fails before anything is written.
	for i, v := range views {
		if _, err := rs[i].Plan(&d, v.ID); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	enc := json.NewEncoder(e.stdout)
	if job.all {
		// One package, one renderer: the first view's settings.
		f, err := writeFile(outDir, func(w io.Writer) (*render.Result, error) {
			return rs[0].RenderAll(ctx, &d, render.DirSource(mediaDir), w)
		}, func(res *render.Result) string { return render.PackageName(&d, res) })
		if err != nil {
			return err
		}
		return report(e, enc, f, job.json)
	}
	for i, v := range views {
		f, err := writeFile(outDir, func(w io.Writer) (*render.Result, error) {
			return rs[i].RenderView(ctx, &d, v.ID, render.DirSource(mediaDir), w)
		}, func(*render.Result) string { return names[i] })
		if err != nil {
			return err
		}
		if pr := profs[i]; pr != nil {
			f.Profile, f.ProfileDigest = pr.Name(), pr.Digest
			if wn := pr.CheckDPI(v.ID, f.EffectiveDPI); wn != nil {
				f.Warnings = append(f.Warnings, *wn)
			}
		}
		if err := report(e, enc, f, job.json); err != nil {
			return err
		}
	}
	return nil
}

func report(e env, enc *json.Encoder, f *renderFile, asJSON bool) error {
	if asJSON {
		return enc.Encode(f)
	}
	fmt.Fprintf(e.stdout, "%s  view %s  %s  %d bytes\n", f.Name, f.ViewID, f.Type, f.Bytes)
	for _, w := range f.Warnings {
		fmt.Fprintf(e.stdout, "  warning: %s\n", w)
	}
	return nil
}

// writeFile renders into a temporary file renamed into place under name(result), so a
// failed render never leaves a partial file under the final name.
func writeFile(dir string, renderTo func(io.Writer) (*render.Result, error), name func(*render.Result) string) (*renderFile, error) {
	tmp, err := os.CreateTemp(dir, ".render-*")
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	res, err := renderTo(io.MultiWriter(tmp, h))
	if cerr := tmp.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("render: %w", cerr)
	}
	if err != nil {
		return nil, err
	}
	// CreateTemp makes the file private; print files are for the print staff to read.
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	f := fileOf(res, h)
	f.Name = name(res)
	// The sidecars (white plate, cut) first: a hot folder that picks up the view's
	// file finds them beside it.
	for _, sc := range res.Sidecars {
		sn := render.SidecarName(f.Name, sc)
		if err := writeSidecar(dir, sn, sc.Data); err != nil {
			return nil, err
		}
		f.Sidecars = append(f.Sidecars, sn)
	}
	if err := os.Rename(tmp.Name(), filepath.Join(dir, f.Name)); err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	return f, nil
}

// writeSidecar writes a sidecar file through a temporary name, as writeFile does.
func writeSidecar(dir, name string, data []byte) error {
	tmp, err := os.CreateTemp(dir, ".render-*")
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), filepath.Join(dir, name))
	}
	if err != nil {
		return fmt.Errorf("render: %w", err)
	}
	return nil
}

func fileOf(res *render.Result, h hash.Hash) *renderFile {
	w := res.Warnings
	if w == nil {
		w = []render.Warning{}
	}
	return &renderFile{
		ViewID: res.ViewID, Type: res.Type, DPI: res.DPI, WidthPx: res.WidthPx, HeightPx: res.HeightPx,
		PageWidthPt: res.PageWidthPt, PageHeightPt: res.PageHeightPt, Bytes: res.Bytes,
		SHA256: hex.EncodeToString(h.Sum(nil)), Warnings: w, Colour: res.Colour, EffectiveDPI: math.Round(res.EffectiveDPI*10) / 10,
	}
}
