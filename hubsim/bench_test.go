package hubsim

import (
	"testing"

	"github.com/printworker/printworker/hub"
)

// Benchmarks over real HTTP on loopback: what one simulated hub call costs, so tests
// and the demo know the simulator is not their bottleneck.

func BenchmarkDesignDetail(b *testing.B)       { benchReq(b, designReq(hub.V2023, shirt)) }
func BenchmarkListTemplates(b *testing.B)      { benchReq(b, tplReq(hub.V2023, "GET", "", nil)) }
func BenchmarkExportViewPNG(b *testing.B)      { benchReq(b, exportReq(hub.V2023, mug, "left")) }
func BenchmarkExportAllMergedPDF(b *testing.B) { benchReq(b, exportReq(hub.V2023, shirt, "")) }
func BenchmarkExportAllZip(b *testing.B)       { benchReq(b, exportReq(hub.V2023, mug, "")) }

func benchReq(b *testing.B, q req) {
	_, ts := start(b, nil)
	for b.Loop() {
		r, err := send(b, ts.Client(), ts, q)
		if err != nil || r.status != 200 {
			b.Fatalf("%v %d", err, r.status)
		}
	}
}
