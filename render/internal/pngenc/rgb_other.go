//go:build !amd64 || purego

package pngenc

func rgbaToRGBBlocks(dst, src []byte, n int) {}

// rgbBlocks is how many 4-pixel blocks rgbaToRGB leaves to rgbaToRGBBlocks: none
// without the amd64 assembly.
func rgbBlocks(n int) int { return 0 }

func alphaOpaque64(p []byte) bool { return true }

// alphaBlocks is how many bytes of a row opaqueRows leaves to alphaOpaque64: none
// without the amd64 assembly.
func alphaBlocks(n int) int { return 0 }
