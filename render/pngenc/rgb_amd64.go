//go:build !purego

package pngenc

import "golang.org/x/sys/cpu"

// rgbaToRGBBlocks packs n blocks of 4 opaque RGBA pixels to RGB (rgb_amd64.s); dst
// holds at least 12n+4 bytes, src 16n.
//
//go:noescape
func rgbaToRGBBlocks(dst, src []byte, n int)

// rgbBlocks is how many 4-pixel blocks of an n-pixel row rgbaToRGB leaves to
// rgbaToRGBBlocks: all whose 16-byte store fits in dst (3n bytes), when the CPU has
// SSSE3 (every amd64 server CPU since 2006; checked anyway).
func rgbBlocks(n int) int {
	if !cpu.X86.HasSSSE3 || n < 6 {
		return 0
	}
	return (3*n - 4) / 12
}
