package render

import (
	"github.com/printworker/printworker/filenames"
	"github.com/printworker/printworker/hub/model"
)

// FileNames returns the final file name of each view (same order as views), from each
// view's export.filename pattern (hub-gaps.md "Filenames"): [id] the design id, [date]
// the design's creation date (so a retry yields the same name), [title] the design
// name, [product] the productId; with several views each name carries the view name or
// id so views never overwrite each other.
func FileNames(d *model.DesignDetail, views []*model.View) []string {
	f := filenames.Fields{ID: d.ID, Date: designTime(d), Title: d.Name, Product: d.ProductID}
	fv := make([]filenames.View, len(views))
	for i, v := range views {
		fv[i] = filenames.View{ID: v.ID, Name: v.Name.Pick(""), Type: v.Export.Type}
	}
	ext := func(v filenames.View) string { return filenames.Ext(v.Type) }
	out := make([]string, len(views))
	for i, v := range views {
		// Views may carry different patterns; each view's name comes from its own, with
		// the suffixes computed over all views alike.
		out[i] = filenames.ForViews(filenames.Options{Pattern: v.Export.Filename}, f, fv, ext)[i]
	}
	return out
}

// PackageName is the file name of the design's "export all" package (RenderAll).
func PackageName(d *model.DesignDetail, res *Result) string {
	f := filenames.Fields{ID: d.ID, Date: designTime(d), Title: d.Name, Product: d.ProductID}
	views := Views(d)
	pattern := ""
	if len(views) > 0 {
		pattern = views[0].Export.Filename
	}
	return filenames.Build(filenames.Options{Pattern: pattern}, f, filenames.Ext(res.Type))
}
