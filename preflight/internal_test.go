package preflight

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestSpotNames: a misspelt spot colour is misnamed, an absent one missing.
func TestSpotNames(t *testing.T) {
	t.Parallel()
	r := Rules{Profile: "p", CutSpot: "CutContour", WhiteSpot: "White"}
	for _, tc := range []struct {
		found []string
		want  []string
	}{
		{[]string{"CutContour", "White"}, nil},
		{[]string{"Cut Contour", "White"}, []string{"spot.misnamed"}},
		{[]string{"cutcontour"}, []string{"spot.misnamed", "spot.missing"}},
	} {
		rep := &FileReport{}
		found := map[string]bool{}
		for _, s := range tc.found {
			found[s] = true
		}
		checkSpots(rep, r, found, "separation")
		var got []string
		for _, f := range rep.Findings {
			got = append(got, f.Code)
		}
		slices.Sort(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%v: %v, want %v", tc.found, got, tc.want)
		}
	}
}

// TestHostileStructures: files built to cost: streams whose /Length lies and that
// never end, nesting deeper than any reader allows, a cross-reference chain that
// loops, and a form that draws itself. Each ends with a report whose errors say
// why, never a pass.
func TestHostileStructures(t *testing.T) {
	t.Parallel()
	var lying bytes.Buffer
	lying.WriteString("%PDF-1.6\n")
	for i := 1; i <= 5000; i++ {
		fmt.Fprintf(&lying, "%d 0 obj <</Length 999999999>> stream\nxxxx\n", i)
	}
	lying.WriteString("endstream\ntrailer <</Root 1 0 R>>\n%%EOF")
	deep := "%PDF-1.6\n1 0 obj " + strings.Repeat("[", 100000) + " endobj\ntrailer <</Root 1 0 R>>\n%%EOF"
	loop := "%PDF-1.6\n1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n2 0 obj <</Type/Pages/Kids[2 0 R 3 0 R]>> endobj\n" +
		"3 0 obj <</Type/Page/MediaBox[0 0 9 9]/Resources<</XObject<</X 4 0 R>>>>/Contents 5 0 R>> endobj\n" +
		"4 0 obj <</Type/XObject/Subtype/Form/Resources<</XObject<</X 4 0 R>>>>/Length 7>> stream\n/X Do\n\nendstream endobj\n" +
		"5 0 obj <</Length 7>> stream\n/X Do\n\nendstream endobj\n" +
		"xref\n0 1\n0000000000 65535 f \ntrailer <</Root 1 0 R/Prev 9999>>\nstartxref\n0\n%%EOF"
	for _, tc := range []struct {
		name string
		data []byte
	}{{"lying lengths", lying.Bytes()}, {"deep nesting", []byte(deep)}, {"loops", []byte(loop)}} {
		fr := Check(tc.name, tc.data, PDFX4Rules(), Limits{MaxObjects: 1000, MaxInflate: 1 << 20, MaxStream: 1 << 20, MaxOps: 10000})
		if fr.Verdict != Fail {
			t.Errorf("%s: verdict %s, findings %+v", tc.name, fr.Verdict, fr.Findings)
		}
	}
}

// TestLinesAndMargin: a process-ink line thinner than the profile's minimum inside
// the bleed and text within the safety margin are warnings; the same thin line in
// the slug (a crop mark), a thin spot-colour stroke (a cut contour) and text well
// inside the trim are not. The lines' ink counts in the total.
func TestLinesAndMargin(t *testing.T) {
	t.Parallel()
	page := func(content string) []byte {
		return []byte("%PDF-1.6\n1 0 obj <</Type/Catalog/Pages 2 0 R>> endobj\n2 0 obj <</Type/Pages/Kids[3 0 R]/Count 1>> endobj\n" +
			"3 0 obj <</Type/Page/Parent 2 0 R/MediaBox[0 0 200 200]/BleedBox[20 20 180 180]/TrimBox[30 30 170 170]" +
			"/Resources<</ColorSpace<</Cut[/Separation/CutContour/DeviceCMYK 5 0 R]>>>>/Contents 4 0 R>> endobj\n" +
			fmt.Sprintf("4 0 obj <</Length %d>> stream\n%s\nendstream endobj\n", len(content)+1, content) +
			"5 0 obj <</FunctionType 2/Domain[0 1]/C0[0 0 0 0]/C1[0 1 0 0]/N 1>> endobj\ntrailer <</Root 1 0 R>>\n%%EOF")
	}
	r := Rules{Profile: "p", MinLinePt: 0.25, SafetyPt: 3 * 72 / 25.4}
	for _, tc := range []struct {
		name, content string
		want          []string
		tac           float64
	}{
		{"thin line", "0.1 w 1 0 0 1 K 40 100 m 160 100 l S", []string{"line.thin"}, 200},
		{"scaled up", "q 4 0 0 4 0 0 cm 0.1 w 10 25 m 40 25 l S Q", nil, 0},
		{"crop mark", "0.1 w 1 1 1 1 K 0 10 m 15 10 l S", nil, -1},
		{"cut contour", "0.1 w /Cut CS 1 SCN 40 40 m 160 160 l S", nil, -1},
		{"text at the edge", "BT 0 0 0 1 k 32 100 Td (x) Tj ET", []string{"text.margin"}, 100},
		{"text inside", "BT 0 0 0 1 k 60 100 Td (x) Tj ET", nil, 100},
	} {
		fr := Check(tc.name, page(tc.content), r, DefaultLimits)
		var got []string
		for _, f := range fr.Findings {
			if f.Severity == Warning && f.Code != "pdf.xref" {
				got = append(got, f.Code)
			}
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: warnings %v, want %v (%+v)", tc.name, got, tc.want, fr.Findings)
		}
		switch {
		case tc.tac < 0 && fr.Inks.TACMax != nil:
			t.Errorf("%s: tac %v, want none counted", tc.name, *fr.Inks.TACMax)
		case tc.tac > 0 && (fr.Inks.TACMax == nil || *fr.Inks.TACMax != tc.tac):
			t.Errorf("%s: tac %v, want %g", tc.name, fr.Inks.TACMax, tc.tac)
		}
	}
}
