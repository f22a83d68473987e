//go:build !purego

package render

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestHavePrefetchW: the CPUID bit cpuidPrefetchW reads is the one Linux reports as
// 3dnowprefetch, so prefetchForWrite issues PREFETCHW exactly where the CPU has it
// (an older CPU without it could fault on the opcode).
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
		if havePrefetchW != want {
			t.Fatalf("havePrefetchW = %v, /proc/cpuinfo's 3dnowprefetch flag says %v", havePrefetchW, want)
		}
		// The hint on slices of every alignment and length, empty included, reads
		// or writes nothing: the bytes stay as they were.
		buf := make([]uint8, 300)
		for i := range buf {
			buf[i] = uint8(i)
		}
		want2 := slices.Clone(buf)
		for at := range 70 {
			for _, n := range []int{0, 1, 63, 64, 65, 200} {
				prefetchForWrite(buf[at : at+n])
				prefetchLines(buf[at : at+n])
			}
		}
		if !slices.Equal(buf, want2) {
			t.Fatal("prefetching changed the bytes")
		}
		return
	}
	t.Skip("no flags line in /proc/cpuinfo")
}
