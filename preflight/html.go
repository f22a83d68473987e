package preflight

import (
	"fmt"
	"html"
	"strings"
)

// HTML is a file's report as a page a person reads: the verdict, the total ink
// and every finding with its code, severity and page.
func HTML(fr FileReport) string {
	var b strings.Builder
	e := html.EscapeString
	colour := map[string]string{Pass: "#1b7f3b", Warn: "#a66300", Fail: "#b00020"}[fr.Verdict]
	fmt.Fprintf(&b, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Preflight: %s</title>\n", e(fr.File))
	b.WriteString("<style>body{font:14px/1.4 sans-serif;margin:2em}table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}.error{color:#b00020}.warning{color:#a66300}.info{color:#555}</style></head><body>\n")
	fmt.Fprintf(&b, "<h1>Preflight: %s</h1>\n<p>Verdict: <strong style=\"color:%s\">%s</strong></p>\n", e(fr.File), colour, e(fr.Verdict))
	tac := "not measured"
	if fr.Inks.TACMax != nil {
		tac = fmt.Sprintf("%.1f %%", *fr.Inks.TACMax)
	}
	fmt.Fprintf(&b, "<p>Highest total ink (C+M+Y+K) inside the bleed: %s</p>\n", tac)
	if len(fr.Findings) == 0 {
		b.WriteString("<p>No findings.</p>\n")
	} else {
		b.WriteString("<table><tr><th>severity</th><th>code</th><th>page</th><th>finding</th></tr>\n")
		for _, f := range fr.Findings {
			page := "file"
			if f.Page > 0 {
				page = fmt.Sprint(f.Page)
			}
			fmt.Fprintf(&b, "<tr class=\"%s\"><td>%s</td><td><code>%s</code></td><td>%s</td><td>%s</td></tr>\n", e(f.Severity), e(f.Severity), e(f.Code), page, e(f.Message))
		}
		b.WriteString("</table>\n")
	}
	b.WriteString("</body></html>\n")
	return b.String()
}
