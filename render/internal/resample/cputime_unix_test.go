//go:build unix

package resample

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the user plus system CPU time of the whole process so far: on a shared
// machine it moves far less than wall time between identical runs.
func cpuTime(tb testing.TB) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
