package hub_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/printworker/printworker/model"
)

// BenchmarkDecodeTemplate measures decoding a realistic template (the simulator's
// T-shirt fixture: 3 views, 12.5 KB) with unknown-field preservation.
func BenchmarkDecodeTemplate(b *testing.B) {
	data, err := os.ReadFile("../hubsim/testdata/templates/tshirt-classic.json")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		var t model.Template
		if err := json.Unmarshal(data, &t); err != nil {
			b.Fatal(err)
		}
	}
}
