package worker

import (
	"fmt"

	"github.com/printworker/printworker/profiles"
	"github.com/printworker/printworker/render"
)

// Print-grade colour in the worker (docs/colour.md "Settings"): each view renders
// with the colour settings of its store and product (Config.Print), and every file
// record says what it holds.

// printRenderer is a renderer that can apply print settings (*render.Renderer).
type printRenderer interface {
	WithPrint(p *render.Print) *render.Renderer
}

// rendererFor returns the renderer of a view with its production profile's
// settings, else the store's and product's colour settings. Settings the renderer
// cannot apply are a permanent error, never a silent sRGB file.
//
// slug is the file's slug text (its profile's page.slugText expanded), written on
// a copy of the profile's settings: the renderer is per file, the profile shared.
func (w *Worker) rendererFor(store, product string, prof *profiles.Resolved, slug string) (Renderer, error) {
	p := w.cfg.Print.For(store, product)
	if w.cfg.Profiles != nil {
		p = prof.Print
		if slug != "" && p != nil {
			c := *p
			c.SlugText = slug
			p = &c
		}
	}
	if p == nil {
		return w.deps.Renderer, nil
	}
	pr, ok := w.deps.Renderer.(printRenderer)
	if !ok {
		return nil, &PermanentError{Reason: fmt.Sprintf("store %s product %s has colour settings the renderer cannot apply", store, product)}
	}
	return pr.WithPrint(p), nil
}

// exportType is the file type a view is written as: the profile's output type, or
// png views as CMYK TIFF when the store's or product's settings say so.
func (w *Worker) exportType(store, product, view, viewType string) string {
	if w.cfg.Profiles != nil {
		return w.cfg.Profiles.For(store, product, view).ExportType(viewType)
	}
	return w.cfg.Print.For(store, product).ExportType(viewType)
}

// manifestColour sums the files' colour up for the manifest: one space when they
// agree, "mixed" otherwise, and the first CMYK profile.
func manifestColour(files []FileRecord) (space, profile string) {
	for _, f := range files {
		s := "sRGB"
		if f.Colour != nil {
			s = f.Colour.Space
			if profile == "" && s == "CMYK" {
				profile = f.Colour.Profile
			}
		}
		switch space {
		case "":
			space = s
		case s:
		default:
			space = "mixed"
		}
	}
	if space == "" {
		space = "sRGB"
	}
	return space, profile
}
