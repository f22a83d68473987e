package render

import (
	"github.com/printworker/printworker/filenames"
	"github.com/printworker/printworker/model"
)

// FileNames returns the final file name of each view (same order as views) through
// the one naming path the worker and the hub simulator share (filenames.ForDesign with
// filenames.DesignFields): [id] the configurationId, [date] the design's creation day,
// [title] the design name, [product] the productId, each view's own export.filename
// pattern, view suffixes so views never overwrite each other. An offline render
// therefore names its files as production does.
func FileNames(d *model.DesignDetail, views []*model.View) []string {
	return filenames.ForDesign(filenames.Options{}, filenames.DesignFields(d), views)
}

// PackageName is the file name of the design's "export all" package (RenderAll).
func PackageName(d *model.DesignDetail, res *Result) string {
	return filenames.PackageName(filenames.Options{}, filenames.DesignFields(d), Views(d), filenames.Ext(res.Type))
}
