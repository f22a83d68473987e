//go:build !amd64 || purego

package pngenc

func adlerBlocks(p []byte) (sum, weighted uint32) { return 0, 0 }

// adlerSIMD reports whether adlerUpdate may use adlerBlocks: never without the amd64
// assembly.
func adlerSIMD() bool { return false }
