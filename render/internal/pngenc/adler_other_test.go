//go:build !amd64 || purego

package pngenc

// adlerKernels lists the Adler-32 kernels this CPU can run: none without the amd64
// assembly.
func adlerKernels() map[string]func([]byte) (uint32, uint32) { return nil }
