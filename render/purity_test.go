package render_test

import (
	"testing"

	"github.com/printworker/printworker/internal/testdeps"
	"github.com/printworker/printworker/model"
	"github.com/printworker/printworker/render"
)

// The renderer and the file namer are pure: they turn models and bytes into files. No
// network code may enter their dependency graph (a renderer that can dial out can be
// made to by a hostile design, and it keeps the offline render honest).
func TestPurePackagesHaveNoNetworkDependencies(t *testing.T) {
	for _, pkg := range []string{"./", "../filenames", "./svg", "./fonts", "./internal/pngenc"} {
		testdeps.Forbid(t, pkg, "net", "net/http", "crypto/hmac", "crypto/tls", "github.com/printworker/printworker/hub")
	}
}

func TestLineHeightDefault(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		want float64
	}{
		{``, render.DefaultLineHeight},
		{`null`, render.DefaultLineHeight},
		{`0`, render.DefaultLineHeight},
		{`-2`, render.DefaultLineHeight},
		{`"1.5"`, 1.5},
		{`0.9`, 0.9},
	} {
		e := &model.Element{LineHeightRaw: []byte(tc.raw)}
		if got := render.LineHeight(e); got != tc.want {
			t.Errorf("lineHeight %q: got %v, want %v", tc.raw, got, tc.want)
		}
	}
}
