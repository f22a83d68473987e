//go:build !purego

package resample

// resampleRowRGBGroups is resampleRowRGB's columns of six taps or more, in groups of
// four (resample_shrink_amd64.s, AVX2: two groups of four taps per instruction):
// column j reads src[offs[j]:][:12*groups+4], weights wts[16*groups*j:][:16*groups]
// (groupTaps), and writes out[3j:3j+3].
//
//go:noescape
func resampleRowRGBGroups(out []int32, src []uint8, offs []int32, wts []int16, n, groups int)

// combineNBlocksAVX2 is combineNBlocks's loop (resample_shrink_amd64.s) on n blocks of
// 8 pixels.
//
//go:noescape
func combineNBlocksAVX2(dp []uint8, taps [][]int32, w []int32, n int)

// yccHalfBlocksAVX2 is yccHalfBlocks's RGB form (step 12) on n blocks of eight pixels
// (resample_shrink_amd64.s): pixels y[8j:8j+8] with chroma cb, cr[4j:4j+4] to
// dst[24j:], storing 4 bytes past each block.
//
//go:noescape
func yccHalfBlocksAVX2(dst, y, cb, cr []uint8, n int)

// yccHalfBlocksAVX2RGBA is yccHalfBlocksAVX2 to opaque RGBA (yccHalfBlocks's step
// 16) (resample_shrink_amd64.s): pixels y[8j:8j+8] with chroma cb, cr[4j:4j+4] to
// dst[32j:32j+32].
//
//go:noescape
func yccHalfBlocksAVX2RGBA(dst, y, cb, cr []uint8, n int)
