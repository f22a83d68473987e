package pngenc

// adlerBase is the largest prime below 2^16 (RFC 1950 8.2).
const adlerBase = 65521

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
