package pngenc

import "encoding/binary"

// adlerBase is the largest prime below 2^16 (RFC 1950 8.2).
const adlerBase = 65521

// adlerSum returns the Adler-32 of p. hash/adler32 adds one byte at a time, a chain of
// dependent additions. Here each 8-byte word is split into its even and odd bytes,
// which are summed column-wise in 16-bit lanes; per word only the word's byte sum
// (one multiply) joins the s1 chain. For a block of G words with running sums s1_g
// before word g, the sums are
//
//	s1 = s1_0 + sum of all bytes
//	s2 = s2_0 + 8 * (s1_0 + ... + s1_{G-1}) + sum over columns k of (8-k) * column_k
func adlerSum(p []byte) uint32 {
	const (
		lo    = 0x00ff00ff00ff00ff
		ones  = 0x0001000100010001
		words = 256 // a 16-bit lane gains at most 255 per word
	)
	s1, s2 := uint64(1), uint64(0)
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
