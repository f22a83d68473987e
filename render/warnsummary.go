package render

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxWarningsPerCode is how many warnings of one code a view lists one by one. A
// design of 60,000 low-resolution pictures would otherwise carry 60,000 warnings
// into the worker's state, the manifest, the job ticket and the staff pages (each a
// line to shape and draw); beyond this many, the view's warnings of that code become
// one warning that counts them (docs/rendering.md "Preflight warnings").
const MaxWarningsPerCode = 20

// summarizeWarnings keeps the first MaxWarningsPerCode warnings of each code in ws
// (all of one view) and replaces a code with more by one summary, in place of its
// first; the order of the codes is kept.
func summarizeWarnings(ws []Warning, s *Scene) []Warning {
	count := map[string]int{}
	for _, w := range ws {
		count[w.Code]++
	}
	many := false
	for _, n := range count {
		many = many || n > MaxWarningsPerCode
	}
	if !many {
		return ws
	}
	out := make([]Warning, 0, len(count)*MaxWarningsPerCode)
	done := map[string]bool{}
	for _, w := range ws {
		n := count[w.Code]
		switch {
		case n <= MaxWarningsPerCode:
			out = append(out, w)
		case !done[w.Code]:
			done[w.Code] = true
			out = append(out, summaryWarning(w, n, s))
		}
	}
	return out
}

// summaryWarning stands for n warnings of first's code: their count, and the first
// one's element and message as an example.
func summaryWarning(first Warning, n int, s *Scene) Warning {
	sum := Warning{Code: first.Code, ViewID: first.ViewID}
	if first.Code == WarnLowResolution && s != nil && s.EffectiveDPI > 0 {
		sum.Message = fmt.Sprintf("%s pictures print below the export %.0f dpi, the lowest at %.0f dpi (element %s is one)",
			Thousands(n), s.DPI, s.EffectiveDPI, orNone(first.ElementID))
		return sum
	}
	sum.Message = fmt.Sprintf("%s warnings of this kind, the first for element %s: %s", Thousands(n), orNone(first.ElementID), first.Message)
	return sum
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// Thousands writes n with commas between groups of three digits: 60,000.
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
