//go:build !purego

package resample

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestHavePrefetchW: the CPUID bit cpuidPrefetchW reads is the one Linux reports as
// 3dnowprefetch, so prefetchForWrite issues PREFETCHW exactly where the CPU has it
// (an older CPU without it could fault on the opcode). The prefetches themselves are
// hints with nothing to observe: the rotated-path tests run through them.
func TestHavePrefetchW(t *testing.T) {
	info, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		t.Skipf("no /proc/cpuinfo to compare with: %v", err)
	}
	for line := range strings.Lines(string(info)) {
		name, flags, ok := strings.Cut(line, ":")
		if !ok || strings.TrimSpace(name) != "flags" {
			continue
		}
		want := slices.Contains(strings.Fields(flags), "3dnowprefetch")
		if host.prefetchW != want {
			t.Fatalf("host.prefetchW = %v, /proc/cpuinfo's 3dnowprefetch flag says %v", host.prefetchW, want)
		}
		return
	}
	t.Skip("no flags line in /proc/cpuinfo")
}
