package preflight

import (
	"slices"
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
