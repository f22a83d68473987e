//go:build !amd64 || purego

package render

// haveShrinkSIMD is false without the amd64 assembly.
func haveShrinkSIMD() bool { return false }

// resampleRowRGBGroups has no runs to compute without the amd64 assembly
// (haveShrinkSIMD is false, so newRowPlan makes none).
func resampleRowRGBGroups(out []int32, src []uint8, offs []int32, wts []int16, n, groups int) {}

// combineNBlocks leaves every pixel to combineN's Go loop without the amd64 assembly.
func combineNBlocks(dp []uint8, taps [][]int32, w []int32) int { return 0 }

func yccHalfBlocksAVX2(dst, y, cb, cr []uint8, n int) {}

func yccHalfBlocksAVX2RGBA(dst, y, cb, cr []uint8, n int) {}
