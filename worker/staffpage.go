package worker

import (
	"bytes"
	"fmt"
	"html/template"
	"path"
	"strconv"
	"strings"

	"github.com/printworker/printworker/storage"
)

// shopRow is one print file of one order line, as tickets and staff pages list it.
type shopRow struct {
	Line     ManifestLine
	File     FileRecord
	Quantity int
	Size     string
	Warnings []string
}

// shopRows lists the order's files line by line (a design on two lines twice, with
// each line's quantity).
func shopRows(m *Manifest) []shopRow {
	byKey := map[string]FileRecord{}
	for _, f := range m.Files {
		byKey[f.Key] = f
	}
	var rows []shopRow
	for _, li := range m.LineItems {
		for _, k := range li.Files {
			f := byKey[k]
			r := shopRow{Line: li, File: f, Quantity: li.Quantity, Size: fileSize(f)}
			for _, wr := range f.Warnings {
				r.Warnings = append(r.Warnings, wr.Code+": "+wr.Message)
			}
			rows = append(rows, r)
		}
	}
	return rows
}

// fileSize is the file's physical size in mm (and pixels for rasters).
func fileSize(f FileRecord) string {
	var parts []string
	if f.PageWidthPt > 0 && f.PageHeightPt > 0 {
		parts = append(parts, fmt.Sprintf("%.0f x %.0f mm", f.PageWidthPt*25.4/72, f.PageHeightPt*25.4/72))
	}
	if f.WidthPx > 0 && f.HeightPx > 0 {
		parts = append(parts, fmt.Sprintf("%d x %d px", f.WidthPx, f.HeightPx))
	}
	if f.DPI > 0 {
		parts = append(parts, strconv.FormatFloat(f.DPI, 'f', -1, 64)+" dpi")
	}
	if len(parts) == 0 {
		return "size unknown"
	}
	return strings.Join(parts, ", ")
}

// staffPageTmpl is the static staff page. html/template escapes every order and
// customer string by context (text, attribute, URL), so a hostile order id stays text.
// The page holds no address, e-mail or phone: a bucket website may be public.
var staffPageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Order {{.M.OrderID}}</title>
<style>
body{font-family:sans-serif;margin:1.5em;color:#222}
h1{margin:0 0 .2em}
.meta{color:#555;margin-bottom:1em}
.status{display:inline-block;padding:.1em .6em;border-radius:.8em;background:#2e7d32;color:#fff}
table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #ddd;padding:.5em;text-align:left;vertical-align:top}
.thumb{width:160px;height:160px;display:flex;align-items:center;justify-content:center;background:#eee;color:#888;font-size:.85em}
.thumb img{max-width:160px;max-height:160px}
.qty{font-size:1.6em;font-weight:bold}
.warn{color:#b71c1c}
ul.warn{margin:.3em 0;padding-left:1.2em}
</style></head>
<body>
<h1>Order {{.M.OrderID}}</h1>
<div class="meta">Store {{.M.Store}} · {{.M.Domain}} · revision {{.M.Revision}} · <span class="status">complete</span>
{{with .M.OrderStatus}}· order status {{.}}{{end}} · generated {{.M.GeneratedAt}}</div>
<p>{{with .Ticket}}<a href="{{.}}">Job ticket (PDF)</a> · {{end}}<a href="{{.Manifest}}">Manifest (JSON)</a></p>
{{if .M.Warnings}}<p class="warn"><strong>{{len .M.Warnings}} warning(s)</strong> — see the files below.</p>{{end}}
<table>
<tr><th>Preview</th><th>Qty</th><th>Design / product / view</th><th>File</th><th>Warnings</th></tr>
{{range .Rows}}<tr>
<td><div class="thumb">{{if .Thumb}}<img src="{{.Thumb}}" alt="preview of {{.Row.File.Filename}}" onerror="this.replaceWith('no preview')">{{else}}no preview{{end}}</div></td>
<td class="qty">{{.Row.Quantity}}</td>
<td>{{.Row.Line.DesignName}} (design {{.Row.Line.DesignID}})<br>product {{or .Row.Line.ProductID "—"}}<br>view {{or .Row.File.ViewName .Row.File.ViewID}}<br>{{.Row.Size}}</td>
<td>{{if .Link}}<a href="{{.Link}}">{{.Row.File.Filename}}</a>{{else}}<span class="warn">file missing</span>{{end}}<br>{{.Row.File.Type}} · {{.Row.File.Mode}}</td>
<td>{{if .Row.Warnings}}<ul class="warn">{{range .Row.Warnings}}<li>{{.}}</li>{{end}}</ul>{{else}}none{{end}}</td>
</tr>
{{else}}<tr><td colspan="5">This order has no print files.</td></tr>
{{end}}</table>
</body></html>
`))

// staffRow's Thumb and Link are a template.URL (a relative path relLink escaped) or
// an absolute URL as a plain string that html/template sanitizes: a presigned link in
// a private bucket, or for a file routed to another bucket (docs/routing.md) its URL
// (such a file shows no preview).
type staffRow struct {
	Row         shopRow
	Thumb, Link any
}

// staffPage renders the order's page for the folder dir (the manifest's folder); link
// makes its links (relLinker, or presigned URLs in a private bucket).
func staffPage(m *Manifest, dir string, link func(key string) (any, error)) ([]byte, error) {
	data := struct {
		M                *Manifest
		Ticket, Manifest any
		Rows             []staffRow
	}{M: m}
	var err error
	if data.Ticket, err = link(m.Ticket); err != nil {
		return nil, err
	}
	if data.Manifest, err = link(path.Join(dir, storage.ManifestName)); err != nil {
		return nil, err
	}
	for _, r := range shopRows(m) {
		row := staffRow{Row: r}
		if r.File.Bucket != "" {
			row.Thumb, row.Link = "", r.File.URL
		} else {
			if row.Thumb, err = link(r.File.Thumbnail); err != nil {
				return nil, err
			}
			if row.Link, err = link(r.File.Key); err != nil {
				return nil, err
			}
		}
		data.Rows = append(data.Rows, row)
	}
	var buf bytes.Buffer
	if err := staffPageTmpl.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("staff page: %w", err)
	}
	return buf.Bytes(), nil
}
