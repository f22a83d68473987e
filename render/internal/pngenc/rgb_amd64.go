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

// alphaOpaque64 reports whether the alpha bytes of the first len(p)&^63 bytes of
// RGBA pixels are all 0xff (rgb_amd64.s, SSE2).
//
//go:noescape
func alphaOpaque64(p []byte) bool

// alphaBlocks is how many bytes of a row opaqueRows leaves to alphaOpaque64.
func alphaBlocks(n int) int { return n &^ 63 }
