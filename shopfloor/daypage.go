package shopfloor

import (
	"bytes"
	"fmt"
	"html/template"
	"time"
)

// DayOrder is what the day page (docs/shop-floor.md, "Day page") shows of one order.
// The worker keeps it as JSON between rebuilds, so a rebuild reads a manifest only
// when it has no summary of it.
type DayOrder struct {
	Manifest    string   `json:"manifest"`
	OrderID     string   `json:"orderId"`
	Revision    int64    `json:"revision"`
	OrderStatus string   `json:"orderStatus,omitempty"`
	Created     string   `json:"created,omitempty"`
	GeneratedAt string   `json:"generatedAt"`
	Rush        bool     `json:"rush,omitempty"`
	Files       int      `json:"files"`
	Quantity    int      `json:"quantity"`
	Thumbs      []string `json:"thumbs,omitempty"`
	NoPreview   int      `json:"noPreview,omitempty"`
	Warnings    []string `json:"warnings,omitempty"`
	Page        string   `json:"page,omitempty"`
	Ticket      string   `json:"ticket,omitempty"`
}

// MaxDayThumbs bounds an order's thumbnail strip; the order's own page has them all.
const MaxDayThumbs = 8

// dayPageTmpl is the static day page; html/template escapes every string by context.
// Like the order page it shows no address, e-mail or phone.
var dayPageTmpl = template.Must(template.New("day").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Orders {{.Folder}}</title>
<style>
body{font-family:sans-serif;margin:1.5em;color:#222}
h1{margin:0 0 .2em}
.meta{color:#555;margin-bottom:1em}
.badge{display:inline-block;padding:.1em .6em;border-radius:.8em;color:#fff;font-size:.85em;margin-right:.3em}
.ok{background:#2e7d32}.rush{background:#e65100}.warnb{background:#b71c1c}
table{border-collapse:collapse;width:100%}
td,th{border-bottom:1px solid #ddd;padding:.5em;text-align:left;vertical-align:top}
.strip{display:flex;flex-wrap:wrap;gap:4px}
.strip img{width:72px;height:72px;object-fit:contain;background:#eee}
.nop{width:72px;height:72px;display:flex;align-items:center;justify-content:center;background:#eee;color:#888;font-size:.7em;text-align:center}
.order{font-size:1.3em;font-weight:bold}
.order small{font-size:.6em;font-weight:normal;color:#555}
.warn{color:#b71c1c}
ul.warn{margin:.3em 0;padding-left:1.2em}
</style></head>
<body>
<h1>Orders of {{.Folder}}</h1>
<div class="meta">{{len .Rows}} order(s) · {{.Files}} file(s) · {{.Rush}} rush · {{.Warned}} with warnings · generated {{.Generated}}</div>
<table>
<tr><th>Order</th><th>Status</th><th>Files</th><th>Previews</th><th>Warnings</th><th>Open</th></tr>
{{range .Rows}}<tr>
<td class="order">{{if .Page}}<a href="{{.Page}}">{{.S.OrderID}}</a>{{else}}{{.S.OrderID}}{{end}}<br><small>revision {{.S.Revision}}{{with .S.Created}} · ordered {{.}}{{end}}</small></td>
<td><span class="badge ok">complete</span>{{if .S.Rush}}<span class="badge rush">RUSH</span>{{end}}{{if .S.Warnings}}<span class="badge warnb">{{len .S.Warnings}} warning(s)</span>{{end}}{{with .S.OrderStatus}}<br><small>{{.}}</small>{{end}}</td>
<td>{{.S.Files}} file(s)<br>{{.S.Quantity}} item(s)</td>
<td><div class="strip">{{range .Thumbs}}<img src="{{.}}" alt="preview" onerror="this.replaceWith('no preview')">{{end}}{{if .S.NoPreview}}<div class="nop">{{.S.NoPreview}} without preview</div>{{end}}</div></td>
<td>{{if .S.Warnings}}<ul class="warn">{{range .S.Warnings}}<li>{{.}}</li>{{end}}</ul>{{else}}none{{end}}</td>
<td>{{if .Page}}<a href="{{.Page}}">Order page</a><br>{{end}}{{if .Ticket}}<a href="{{.Ticket}}">Job ticket</a><br>{{end}}<a href="{{.Manifest}}">Manifest</a></td>
</tr>
{{else}}<tr><td colspan="6">No orders yet.</td></tr>
{{end}}</table>
</body></html>
`))

type dayRow struct {
	S                      DayOrder
	Page, Ticket, Manifest any
	Thumbs                 []any
}

// DayPage renders the page of the day folder over its orders, in the order given;
// link makes its links (RelLinker of the folder, or presigned URLs).
func DayPage(folder string, generated time.Time, orders []DayOrder, link Linker) ([]byte, error) {
	data := struct {
		Folder, Generated   string
		Files, Rush, Warned int
		Rows                []dayRow
	}{Folder: folder, Generated: generated.UTC().Format(time.RFC3339)}
	for _, s := range orders {
		r := dayRow{S: s}
		var err error
		if s.Page != "" {
			if r.Page, err = link(s.Page); err != nil {
				return nil, err
			}
		}
		if s.Ticket != "" {
			if r.Ticket, err = link(s.Ticket); err != nil {
				return nil, err
			}
		}
		if r.Manifest, err = link(s.Manifest); err != nil {
			return nil, err
		}
		for _, th := range s.Thumbs {
			u, err := link(th)
			if err != nil {
				return nil, err
			}
			r.Thumbs = append(r.Thumbs, u)
		}
		data.Files += s.Files
		if s.Rush {
			data.Rush++
		}
		if len(s.Warnings) > 0 {
			data.Warned++
		}
		data.Rows = append(data.Rows, r)
	}
	var buf bytes.Buffer
	if err := dayPageTmpl.Execute(&buf, data); err != nil {
		return nil, fmt.Errorf("day page: %w", err)
	}
	return buf.Bytes(), nil
}
