//go:build unix

package pngenc

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the user plus system time of the whole process so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
