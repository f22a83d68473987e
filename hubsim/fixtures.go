package hubsim

import (
	"embed"
	"io/fs"
)

// sampleFixtures are the simulator's sample designs (with their media and stored
// exports) and templates, compiled into the binary so the demo and `printworker
// hubsim` work from any directory, without the source tree.
//
//go:embed testdata/designs testdata/templates
var sampleFixtures embed.FS

// SampleFixtures returns the sample fixtures: designs/ (the LoadDesigns layout) and
// templates/ (template JSON files keyed by productId).
func SampleFixtures() fs.FS {
	sub, err := fs.Sub(sampleFixtures, "testdata")
	if err != nil {
		panic(err) // the embedded tree always has testdata/
	}
	return sub
}
