package profiles

import (
	"strings"
	"testing"

	"github.com/printworker/printworker/preflight"
)

// TestCheckProfile: every built-in production profile is a check profile, pdfx4 is one,
// and an unknown name lists the names there are.
func TestCheckProfile(t *testing.T) {
	t.Parallel()
	for _, n := range append([]string{preflight.PDFX4}, BuiltinNames()...) {
		if _, err := CheckProfile(n, nil); err != nil {
			t.Errorf("%s: %v", n, err)
		}
	}
	f, err := Parse([]byte(`{"profiles": [{"name": "roland", "output": "pdf", "colour": {"profile": "x.icc", "inkLimit": 280}, "page": {"bleed": "2mm"}, "cut": {"spot": "CutContour"}, "white": {"spot": "RDG_WHITE"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	r, err := CheckProfile("roland", f)
	if err != nil {
		t.Fatal(err)
	}
	want := preflight.Rules{Profile: "roland", PDFX4: true, Output: "pdf", CMYK: true, TACLimit: 280, BleedPt: 2 * 72 / 25.4, MinLinePt: MinLinePt, SafetyPt: SafetyMarginPt, CutSpot: "CutContour", WhiteSpot: "RDG_WHITE"}
	if r != want {
		t.Errorf("rules %+v, want %+v", r, want)
	}
	if _, err := CheckProfile("nope", f); err == nil || !strings.Contains(err.Error(), "roland") || !strings.Contains(err.Error(), "press-pdfx4") {
		t.Errorf("unknown profile: %v", err)
	}
}
