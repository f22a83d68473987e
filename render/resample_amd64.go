//go:build !purego

package render

import "golang.org/x/sys/cpu"

// combine4Blocks is combine4 on n blocks of 4 pixels (resample_amd64.s, SSE4.1):
// t0..t3 hold at least 12n values, dp 16n bytes, w 4 weights.
//
//go:noescape
func combine4Blocks(dp []uint8, t0, t1, t2, t3, w []int32, n int)

// combine4SIMD is how many 4-pixel blocks of an n-pixel row combine4 leaves to
// combine4Blocks: all of them when the CPU has SSE4.1 (for PMULLD).
func combine4SIMD(n int) int {
	if !cpu.X86.HasSSE41 || !cpu.X86.HasSSSE3 {
		return 0
	}
	return n / 4
}
