//go:build !amd64 || purego

package pngenc

func paethBlocks(o, x, a, b, c []byte) {}

// paethSIMD is how many bytes filterPaeth leaves to paethBlocks: none without the
// amd64 assembly.
func paethSIMD(n int) int { return 0 }
