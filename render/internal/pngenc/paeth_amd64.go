//go:build !purego

package pngenc

// paethBlocks filters the first len(o)&^15 bytes (paeth_amd64.s): o[i] = x[i] -
// Paeth(a[i], b[i], c[i]). All five slices are at least len(o) long.
//
//go:noescape
func paethBlocks(o, x, a, b, c []byte)

// paethSIMD is how many bytes filterPaeth leaves to paethBlocks.
func paethSIMD(n int) int { return n &^ 15 }
