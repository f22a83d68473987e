package render

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/printworker/printworker/model"
)

// A view of absurd size is reported too large, not (through an int overflow)
// smaller than one pixel (issue 10).
func TestHugeViewIsTooLarge(t *testing.T) {
	tests := []struct {
		name   string
		basis  string
		mutate func(v *model.View)
	}{
		{"width 1e308", BasisPoint, func(v *model.View) { v.Width = 1e308 }},
		{"height 1e308, pixel basis", BasisPixel, func(v *model.View) { v.Height = 1e308 }},
		{"custom box 1e300 wide, 1e-300 high", BasisPoint, func(v *model.View) {
			v.Export.AreaType, v.Export.Width, v.Export.Height = "custom", 1e300, 1e-300
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := loadDesign(t, "basic.json")
			tc.mutate(&d.Views[0])
			r := newRenderer(t, Options{Basis: tc.basis})
			var buf bytes.Buffer
			_, err := r.RenderView(context.Background(), d, "front", DirSource(mediaDir), &buf)
			if err == nil || !strings.Contains(err.Error(), "too large") {
				t.Fatalf("got %v, want too large", err)
			}
		})
	}
}
