package shopfloor

import (
	"bytes"
	"fmt"
	"html/template"
)

// staffPageTmpl is the static staff page. html/template escapes every order and
// customer string by context (text, attribute, URL), so a hostile order id stays text.
// The page holds no address, e-mail or phone: a bucket website may be public.
var staffPageTmpl = template.Must(template.New("page").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Order {{.O.ID}}</title>
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
<h1>Order {{.O.ID}}</h1>
<div class="meta">Store {{.O.Store}} · {{.O.Domain}} · revision {{.O.Revision}} · {{if .O.Review}}<span class="status" style="background:#e65100">{{if eq .O.Review.Status "held"}}held for review{{else}}{{.O.Review.Status}}{{end}}</span>{{else}}<span class="status">complete</span>{{end}}
{{with .O.Status}}· order status {{.}}{{end}} · generated {{.O.GeneratedAt}}</div>
{{with .O.Review}}<div class="warn"><p><strong>{{if eq .Status "held"}}Held for review: no machine folder copy and no files-ready event until it is released.{{else}}Rejected{{with .Reason}}: {{.}}{{end}}. Its files stay here; a re-export makes new ones.{{end}}</strong></p>
<ul>{{range .Findings}}<li>{{.}}</li>{{end}}</ul></div>
{{if eq .Status "held"}}<p>Release (moves these files into place, nothing is rendered again) or reject:</p>
{{range .Commands}}<pre>{{.}}</pre>
{{end}}{{end}}{{end}}<p>{{with .Ticket}}<a href="{{.}}">Job ticket (PDF)</a> · {{end}}<a href="{{.Manifest}}">Manifest (JSON)</a></p>
{{if .O.Warnings}}<p class="warn"><strong>{{.O.Warnings}} warning(s)</strong> — see the files below.</p>{{end}}
<table>
<tr><th>Preview</th><th>Qty</th><th>Design / product / view</th><th>File</th><th>Warnings</th></tr>
{{range .Rows}}<tr>
<td><div class="thumb">{{if .Thumb}}<img src="{{.Thumb}}" alt="preview of {{.Row.File.Filename}}" onerror="this.replaceWith('no preview')">{{else}}no preview{{end}}</div></td>
<td class="qty">{{.Row.Quantity}}</td>
<td>{{.Row.DesignName}} (design {{.Row.DesignID}})<br>product {{or .Row.ProductID "—"}}<br>view {{.Row.File.View}}<br>{{.Row.File.Size}}</td>
<td>{{if .Link}}<a href="{{.Link}}">{{.Row.File.Filename}}</a>{{else}}<span class="warn">file missing</span>{{end}}{{range .Sidecars}}<br>+ {{if .Link}}<a href="{{.Link}}">{{.Name}}</a>{{else}}{{.Name}}{{end}}{{end}}<br>{{.Row.File.Type}} · {{.Row.File.Mode}}{{with .Row.Preflight}}<br>preflight {{.}}{{end}}{{with .Report}} · <a href="{{.}}">report</a>{{end}}</td>
<td>{{if .Warnings}}<ul class="warn">{{range .Warnings}}<li>{{.}}</li>{{end}}{{with .More}}<li>and {{.}} more: see the manifest</li>{{end}}</ul>{{else}}none{{end}}</td>
</tr>
{{else}}<tr><td colspan="5">This order has no print files.</td></tr>
{{end}}</table>
</body></html>
`))

// staffRow's Thumb and Link are what the Linker made of the row's keys; for a file
// routed to another bucket (docs/routing.md) the link is its URL and there is no
// preview.
type staffRow struct {
	Row                 Row
	Thumb, Link, Report any
	// Sidecars are the file's white plate and cut file, linked.
	Sidecars []staffLink
	// Warnings are the listed ones, More counts the rest (MaxListedWarnings).
	Warnings []string
	More     int
}

// staffLink is a named link.
type staffLink struct {
	Name string
	Link any
}

// StaffPage renders the order's page; manifestKey is the key of the order's manifest,
// and link makes the page's links (RelLinker of the manifest's folder, or presigned
// URLs in a private bucket).
func StaffPage(o Order, manifestKey string, link Linker) ([]byte, error) {
	data := struct {
		O                Order
		Ticket, Manifest any
		Rows             []staffRow
	}{O: o}
	var err error
	if data.Ticket, err = link(o.Ticket); err != nil {
		return nil, err
	}
	if data.Manifest, err = link(manifestKey); err != nil {
		return nil, err
	}
	for _, r := range o.Rows {
		row := staffRow{Row: r}
		row.Warnings, row.More = listed(r.Warnings)
		if r.File.Bucket != "" {
			row.Thumb, row.Link = "", r.File.URL
			for _, sc := range r.File.Sidecars {
				row.Sidecars = append(row.Sidecars, staffLink{Name: sc.Filename})
			}
		} else {
			if row.Thumb, err = link(r.File.Thumbnail); err != nil {
				return nil, err
			}
			if row.Link, err = link(r.File.Key); err != nil {
				return nil, err
			}
			if row.Report, err = link(r.PreflightReport); err != nil {
				return nil, err
			}
			for _, sc := range r.File.Sidecars {
				l, err := link(sc.Key)
				if err != nil {
					return nil, err
				}
				row.Sidecars = append(row.Sidecars, staffLink{Name: sc.Filename, Link: l})
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
