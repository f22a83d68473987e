package filenames

import (
	"strconv"
	"strings"
	"time"

	"github.com/printworker/printworker/model"
)

// This file is the one naming path for a design's files. The worker (`printworker
// work`), the offline renderer (`printworker render`) and the hub simulator's export
// and export-all all call ForDesign with fields from DesignFields, so an offline
// render reproduces the names production writes, byte for byte.

// DesignFields returns the naming fields of a design: [id] is the configurationId (the
// id of the order line's `<designId>.<designToken>` reference, which the worker
// exports by), or the design's _id when the detail has no configurationId, and so is
// [design]; [date] and [created] are the design's creation day (_created, else
// _updated), zero when neither parses; [title] the design name; [product] its
// productId. A caller that knows the order sets [date] to the order's date and fills
// the order's fields.
func DesignFields(d *model.DesignDetail) Fields {
	id := d.ID
	if d.ConfigurationID > 0 {
		id = strconv.FormatInt(d.ConfigurationID, 10)
	}
	date := DesignDate(d)
	return Fields{ID: id, Design: id, Date: date, Created: date, Title: d.Name, Product: d.ProductID}
}

// DesignDate is the design's creation time (_created, else _updated) in UTC; zero
// when neither parses. A retried export gets the same date, so the same name.
func DesignDate(d *model.DesignDetail) time.Time {
	for _, s := range []string{d.Created, d.Updated} {
		if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// ForDesign names the files of a design's views (views in export order, usually by
// weight; the suffixes depend on the whole set, so pass every view exported). A set
// opts.Pattern names every view. Otherwise each view is named by its own export
// filename pattern (the hub's export settings belong to the view); should two views
// still collide (case-insensitively), the default pattern names them all, with ForViews'
// view suffixes and numbering keeping them apart. The extension follows each view's
// export type (Ext).
func ForDesign(opts Options, f Fields, views []*model.View) []string {
	fv := make([]View, len(views))
	for i, v := range views {
		fv[i] = View{ID: v.ID, Name: v.Name.Pick(""), Type: v.Export.Type}
	}
	ext := func(v View) string { return Ext(v.Type) }
	if opts.Pattern != "" {
		return ForViews(opts, f, fv, ext)
	}
	names := make([]string, len(views))
	seen := make(map[string]bool, len(views))
	for i, v := range views {
		own := opts
		own.Pattern = v.Export.Filename
		names[i] = ForViews(own, f, fv, ext)[i]
		if seen[strings.ToLower(names[i])] {
			return ForViews(opts, f, fv, ext)
		}
		seen[strings.ToLower(names[i])] = true
	}
	return names
}

// PackageName names a design's "export all" package (one PDF of every view, or a zip
// of one file per view): the first view's pattern (opts.Pattern when set) without a
// view suffix, with ext (".pdf", ".zip").
func PackageName(opts Options, f Fields, views []*model.View, ext string) string {
	if opts.Pattern == "" && len(views) > 0 {
		opts.Pattern = views[0].Export.Filename
	}
	f.ViewID, f.ViewName = "", ""
	return Build(opts, f, ext)
}

// WithExt replaces the extension of a name made by ForDesign with ext, for a file
// whose bytes turned out to be of another type than its view's (a hub that sends a PNG
// for a pdf view). The name keeps its length cap: the stem is cut when the new
// extension is longer.
func WithExt(opts Options, name, oldExt, ext string) string {
	stem := strings.TrimSuffix(name, oldExt)
	return compose(stem, "", "", ext, opts.maxLen())
}

// Numbered returns name (a name made by ForDesign, ending in ext) with "-n" before
// the extension: the n-th choice of a file whose name another file of its order took
// ("Mug.png" -> "Mug-2.png"). The name keeps its length cap: the stem is cut, never
// the number or the extension.
func Numbered(opts Options, name, ext string, n int) string {
	stem := name
	if len(name) >= len(ext) && strings.EqualFold(name[len(name)-len(ext):], ext) {
		stem, ext = name[:len(name)-len(ext)], name[len(name)-len(ext):]
	}
	return compose(stem, "", strconv.Itoa(n), ext, opts.maxLen())
}

// Suffixed returns name (ending in ext) with "-suffix" before the extension: a reprint
// of a stored file ("Mug.png" -> "Mug-REPRINT-1.png"). The name keeps its length cap:
// the stem is cut before the suffix or the extension.
func Suffixed(opts Options, name, ext, suffix string) string {
	stem := name
	if len(name) >= len(ext) && strings.EqualFold(name[len(name)-len(ext):], ext) {
		stem, ext = name[:len(name)-len(ext)], name[len(name)-len(ext):]
	}
	return compose(stem, suffix, "", ext, opts.maxLen())
}
