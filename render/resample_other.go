//go:build !amd64 || purego

package render

func combine4Blocks(dp []uint8, t0, t1, t2, t3, w []int32, n int) {}

// combine4SIMD is how many 4-pixel blocks combine4 leaves to combine4Blocks: none
// without the amd64 assembly.
func combine4SIMD(n int) int { return 0 }
