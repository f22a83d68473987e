//go:build !unix

package resample

import (
	"testing"
	"time"
)

// cpuTime is not measured off unix: benchmarks report zero CPU time there.
func cpuTime(testing.TB) time.Duration { return 0 }
