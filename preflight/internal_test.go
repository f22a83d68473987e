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
