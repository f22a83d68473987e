//go:build !amd64 || purego

package resample

func combine4Blocks(dp []uint8, t0, t1, t2, t3, w []int32, n int) {}

func resampleRowRGBBlocks(out []int32, src []uint8, offs []int32, wts []int16, n, taps int) {}

func rowRunBlocks(out []int16, n, ostride int, row []uint8, rn int, ui, dui int64, pairs *[cmLUTSteps + 1][16]int16) int {
	return 0
}

func columnsRunBlocks(dp []uint8, inter []int16, col, cs, mask int, v, dvi int64, n int, pairs *[cmLUTSteps + 1][16]int16) {
}

func columnsRunBlocksVEX(dp []uint8, inter []int16, col, cs int, e, dvi int64, n, slotCtl int, pairs *[cmLUTSteps + 1][16]int16) {
}

func rowRunBlocksAVX2(out []int16, n, ostride int, row []uint8, ui, dui int64, pairs *[cmLUTSteps + 1][16]int16) {
}

func columnsRunBlocksAVX2(dp []uint8, inter []int16, col, cs int, e, dvi int64, n, slotCtl int, pairs *[cmLUTSteps + 1][16]int16) {
}

func gatherStrideBlocks(dst, src []uint8, at, step int) {}

func gatherStride2Blocks(dst0, dst1, src0, src1 []uint8, at, step int) {}

func yccHalfBlocks(dst, y, cb, cr []uint8, n, step int) {}

func transpose8Blocks(dst, src []uint8, at, stride, n, ls int) {}

// prefetchLines is a hint the portable build does without.
func prefetchLines(p []uint8, write bool) {}
