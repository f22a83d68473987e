package pngenc

import "encoding/binary"

// adlerBase is the largest prime below 2^16 (RFC 1950 8.2).
const adlerBase = 65521

// adlerChunk is how many bytes adlerUpdate hands adlerBlocks at a time: the largest
// multiple of 32 not above zlib's NMAX (5552). The kernel's sums are 32-bit and start
// from zero; the weighted sum of n bytes is at most 255*n(n+1)/2, below 2^32 for
// n <= NMAX.
const adlerChunk = 5552 &^ 31

// adlerSum returns the Adler-32 of p.
func adlerSum(p []byte) uint32 { return adlerUpdate(1, p) }

// adlerUpdate continues the Adler-32 adler of earlier bytes over p (adlerSum starts
// it from 1, the Adler-32 of nothing).
// With SSSE3 (adler_amd64.s) the 32-byte blocks go to adlerBlocks in chunks of at most
// adlerChunk bytes; each chunk of n bytes with byte sum a and weighted sum w moves
// s1 -> s1 + a and s2 -> s2 + n*s1 + w. The tail of fewer than 32 bytes is added one
// byte at a time.
func adlerUpdate(adler uint32, p []byte) uint32 {
	if !adlerSIMD() || len(p) < 32 {
		return adlerGeneric(adler, p)
	}
	s1, s2 := uint64(adler&0xffff), uint64(adler>>16)
	for len(p) >= 32 {
		n := min(len(p)&^31, adlerChunk)
		a, w := adlerBlocks(p[:n])
		s2 = (s2 + uint64(n)*s1 + uint64(w)) % adlerBase
		s1 = (s1 + uint64(a)) % adlerBase
		p = p[n:]
	}
	for _, b := range p {
		s1 += uint64(b)
		s2 += s1
	}
	return uint32(s2%adlerBase<<16 | s1%adlerBase)
}

// adlerGeneric is adlerUpdate in Go. hash/adler32 adds one byte at a time, a chain of
// dependent additions. Here each 8-byte word is split into its even and odd bytes,
// which are summed column-wise in 16-bit lanes; per word only the word's byte sum
// (one multiply) joins the s1 chain. For a block of G words with running sums s1_g
// before word g, the sums are
//
//	s1 = s1_0 + sum of all bytes
//	s2 = s2_0 + 8 * (s1_0 + ... + s1_{G-1}) + sum over columns k of (8-k) * column_k
func adlerGeneric(adler uint32, p []byte) uint32 {
	const (
		lo    = 0x00ff00ff00ff00ff
		ones  = 0x0001000100010001
		words = 256 // a 16-bit lane gains at most 255 per word
	)
	s1, s2 := uint64(adler&0xffff), uint64(adler>>16)
	for len(p) >= 8*words {
		var even, odd, sumS1 uint64
		for w := 0; w < words; w++ {
			v := binary.LittleEndian.Uint64(p[8*w:])
			e, o := v&lo, (v>>8)&lo
			even += e
			odd += o
			sumS1 += s1
			s1 += ((e + o) * ones) >> 48
		}
		p = p[8*words:]
		s2 += 8 * sumS1
		// Lanes of even hold bytes 0,2,4,6 (weights 8,6,4,2), of odd bytes 1,3,5,7
		// (weights 7,5,3,1).
		for k := 0; k < 4; k++ {
			s2 += uint64(8-2*k)*(even>>(16*k)&0xffff) + uint64(7-2*k)*(odd>>(16*k)&0xffff)
		}
		s1 %= adlerBase
		s2 %= adlerBase
	}
	for _, b := range p {
		s1 += uint64(b)
		s2 += s1
	}
	s1 %= adlerBase
	s2 %= adlerBase
	return uint32(s2<<16 | s1)
}

// adler32Combine returns the Adler-32 of A||B from adler1 = Adler-32(A),
// adler2 = Adler-32(B) and len2 = len(B), as zlib's adler32_combine does: the sums of B
// are shifted by A's running sum over len2 bytes, modulo adlerBase.
func adler32Combine(adler1, adler2 uint32, len2 int64) uint32 {
	rem := uint64(len2 % adlerBase)
	s1a, s2a := uint64(adler1&0xffff), uint64(adler1>>16)
	s1b, s2b := uint64(adler2&0xffff), uint64(adler2>>16)
	// s1 = s1a + s1b - 1 (both include the initial 1); s2 = s2a + s2b + rem*(s1a-1)
	// written with adlerBase added so nothing underflows.
	s1 := (s1a + s1b + adlerBase - 1) % adlerBase
	s2 := (s2a + s2b + rem*s1a + adlerBase - rem) % adlerBase
	return uint32(s2<<16 | s1)
}
