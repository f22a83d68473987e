//go:build !unix

package bench_test

import (
	"testing"
	"time"
)

// cpuTime is not measured here: the cpu-ms/op metric reads 0.
func cpuTime(testing.TB) time.Duration { return 0 }
