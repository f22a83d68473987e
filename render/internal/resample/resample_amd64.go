//go:build !purego

package resample

// combine4Blocks is combine4 on n blocks of 4 pixels (resample_amd64.s, SSE4.1):
// t0..t3 hold at least 12n values, dp 16n bytes, w 4 weights.
//
//go:noescape
func combine4Blocks(dp []uint8, t0, t1, t2, t3, w []int32, n int)

// resampleRowRGBBlocks is resampleRowRGB's columns of four taps (five when taps is
// 5) (resample_simd_amd64.s, SSSE3 and SSE4.1): column j reads src[offs[j]:][:16],
// weights wts[24j:][:24] (pairTaps), and writes out[3j:3j+3].
//
//go:noescape
func resampleRowRGBBlocks(out []int32, src []uint8, offs []int32, wts []int16, n, taps int)

// rowRunBlocks is rowRunInt4's loop (resample_simd_amd64.s), with pairs the weights
// of cmLUTInt as pairTaps.
//
//go:noescape
func rowRunBlocks(out []int16, n, ostride int, row []uint8, rn int, ui, dui int64, pairs *[cmLUTSteps + 1][16]int16) int

// columnsRunBlocks writes n wholly covered pixels of columnsRowInt4
// (resample_simd_amd64.s), with pairs the weights of cmLUTInt as pairTaps.
//
//go:noescape
func columnsRunBlocks(dp []uint8, inter []int16, col, cs, mask int, v, dvi int64, n int, pairs *[cmLUTSteps + 1][16]int16)

// columnsRunBlocksVEX is columnsRunBlocks with AVX's encoding and BMI1
// (resample_simd_amd64.s): n even, e the position v - 2^32 + 2^21, slotCtl the BEXTR
// control of the ring's slot (columnsRun).
//
//go:noescape
func columnsRunBlocksVEX(dp []uint8, inter []int16, col, cs int, e, dvi int64, n, slotCtl int, pairs *[cmLUTSteps + 1][16]int16)

// rowRunBlocksAVX2 is rowRunBlocks four samples at a time with AVX2 and BMI2
// (resample_simd_amd64.s) for n samples, a multiple of 4, whose taps all lie inside
// the row, those of their positions rounded to the weight table too (rowRunInt4
// counts them).
//
//go:noescape
func rowRunBlocksAVX2(out []int16, n, ostride int, row []uint8, ui, dui int64, pairs *[cmLUTSteps + 1][16]int16)

// columnsRunBlocksAVX2 is columnsRunBlocksVEX with AVX2 (resample_simd_amd64.s), for n
// a multiple of 4: a pixel's four taps in one 256-bit load, shuffle and multiply-add.
//
//go:noescape
func columnsRunBlocksAVX2(dp []uint8, inter []int16, col, cs int, e, dvi int64, n, slotCtl int, pairs *[cmLUTSteps + 1][16]int16)

// gatherStrideBlocks is gatherStride's loop (resample_simd_amd64.s), its indexes
// checked by the caller.
//
//go:noescape
func gatherStrideBlocks(dst, src []uint8, at, step int)

// gatherStride2Blocks is gatherStride2's loop (resample_simd_amd64.s), its indexes
// checked by the caller.
//
//go:noescape
func gatherStride2Blocks(dst0, dst1, src0, src1 []uint8, at, step int)

// yccHalfBlocks converts n blocks of four YCbCr pixels whose chroma pairs share (4:2:0
// and 4:2:2 rows: y[4j:4j+4], cb and cr[2j:2j+2]) to opaque RGBA (step 16) or RGB
// (step 12, storing 4 bytes past each block) at dst[step*j:], as color.YCbCrToRGB
// (resample_simd_amd64.s).
//
//go:noescape
func yccHalfBlocks(dst, y, cb, cr []uint8, n, step int)

// transpose8Blocks copies eight columns of 8n rows of a picture plane into eight
// planes (resample_simd_amd64.s): byte c of the 8 at src[at + r*stride:] to
// dst[c*ls + r]. The caller checks the indexes.
//
//go:noescape
func transpose8Blocks(dst, src []uint8, at, stride, n, ls int)

// prefetchLines asks the CPU to bring the cache lines of p in (resample_amd64.s),
// owned, ready to be written, with write (only where the CPU has PREFETCHW, kernels.prefetchW): a hint, with no
// effect on any result.
//
//go:noescape
func prefetchLines(p []uint8, write bool)

func cpuidPrefetchW() bool
