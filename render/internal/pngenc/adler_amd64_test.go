//go:build !purego

package pngenc

import "golang.org/x/sys/cpu"

// adlerKernels lists the Adler-32 kernels this CPU can run.
func adlerKernels() map[string]func([]byte) (uint32, uint32) {
	k := map[string]func([]byte) (uint32, uint32){}
	if cpu.X86.HasSSSE3 {
		k["ssse3"] = adlerBlocksSSSE3
	}
	if cpu.X86.HasAVX2 {
		k["avx2"] = adlerBlocksAVX2
	}
	return k
}
