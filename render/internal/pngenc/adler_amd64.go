//go:build !purego

package pngenc

import "golang.org/x/sys/cpu"

// adlerBlocksSSSE3 and adlerBlocksAVX2 (adler_amd64.s) return, for the first
// len(p)&^31 bytes q of p (at most adlerChunk), the byte sum and the sum of
// (len(q)-i)*q[i].
//
//go:noescape
func adlerBlocksSSSE3(p []byte) (sum, weighted uint32)

//go:noescape
func adlerBlocksAVX2(p []byte) (sum, weighted uint32)

// adlerBlocks runs the widest kernel the CPU has; adlerSIMD says whether it has one.
func adlerBlocks(p []byte) (sum, weighted uint32) {
	if cpu.X86.HasAVX2 {
		return adlerBlocksAVX2(p)
	}
	return adlerBlocksSSSE3(p)
}

// adlerSIMD reports whether adlerUpdate may use adlerBlocks: PMADDUBSW is SSSE3
// (every amd64 server CPU since 2006; checked anyway).
func adlerSIMD() bool { return cpu.X86.HasSSSE3 }
