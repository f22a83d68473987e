//go:build !amd64 || purego

package resample

// resampleRowRGBGroups has no runs to compute without the amd64 assembly
// (kernels.avx2 is false, so newRowPlan makes none).
func resampleRowRGBGroups(out []int32, src []uint8, offs []int32, wts []int16, n, groups int) {}

func combineNBlocksAVX2(dp []uint8, taps [][]int32, w []int32, n int) {}

func yccHalfBlocksAVX2(dst, y, cb, cr []uint8, n int) {}

func yccHalfBlocksAVX2RGBA(dst, y, cb, cr []uint8, n int) {}
