//go:build !unix

package pngenc

import (
	"testing"
	"time"
)

// cpuTime is not measured here: the cpu-ms/op metric reads 0.
func cpuTime(*testing.B) time.Duration { return 0 }
