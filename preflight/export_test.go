package preflight

// PageBoxes are the MediaBox, BleedBox and TrimBox of each page as the reader finds
// them (for TestBoxesAgainstPoppler).
func PageBoxes(b []byte) []map[string][4]float64 {
	f := openPDF(b, DefaultLimits)
	var out []map[string][4]float64
	for _, p := range f.pages(maxPages) {
		m := map[string][4]float64{}
		for _, k := range []name{"MediaBox", "BleedBox", "TrimBox"} {
			if r, ok := f.rect(p[k]); ok {
				m[string(k)] = [4]float64{r.x0, r.y0, r.x1, r.y1}
			}
		}
		out = append(out, m)
	}
	return out
}
