package pngenc

import (
	"bytes"
	"hash/adler32"
	"math/rand/v2"
	"testing"
)

// TestAdlerUpdate checks adlerUpdate (the SIMD path where the CPU has it) and
// adlerGeneric against hash/adler32, from initial states other than 1: the state is
// the Adler-32 of a prefix, and the result must be the Adler-32 of prefix||p. Lengths
// 0..300 cover every tail below a 32-byte block; the long ones cross several
// adlerChunk reductions with an odd tail, and all-0xff bytes give the largest sums.
func TestAdlerUpdate(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	random := func(n int) []byte {
		p := make([]byte, n)
		for i := range p {
			p[i] = uint8(r.IntN(256))
		}
		return p
	}
	type tc struct {
		name   string
		prefix []byte
		p      []byte
	}
	var cases []tc
	for n := 0; n <= 300; n++ {
		cases = append(cases, tc{"random", random(r.IntN(70000)), random(n)})
	}
	for _, n := range []int{adlerChunk - 1, adlerChunk, adlerChunk + 1, 5552, 5553, 3*5552 + 7, 3*adlerChunk + 31, 1<<20 + 13} {
		cases = append(cases,
			tc{"random", random(r.IntN(70000)), random(n)},
			tc{"0xff", bytes.Repeat([]byte{0xff}, 65519), bytes.Repeat([]byte{0xff}, n)},
			tc{"0xff-from-1", nil, bytes.Repeat([]byte{0xff}, n)},
		)
	}
	for _, c := range cases {
		state := adler32.Checksum(c.prefix)
		want := adler32.Checksum(append(append([]byte(nil), c.prefix...), c.p...))
		if got := adlerUpdate(state, c.p); got != want {
			t.Errorf("%s: %d bytes from %08x: adlerUpdate = %08x, want %08x", c.name, len(c.p), state, got, want)
		}
		if got := adlerGeneric(state, c.p); got != want {
			t.Errorf("%s: %d bytes from %08x: adlerGeneric = %08x, want %08x", c.name, len(c.p), state, got, want)
		}
	}
	// The largest reduced state (both sums adlerBase-1), which no prefix above reaches
	// for sure: the SIMD and Go paths must still agree.
	for _, n := range []int{31, 32, 33, adlerChunk + 33, 3*5552 + 5} {
		for _, p := range [][]byte{random(n), bytes.Repeat([]byte{0xff}, n)} {
			const state = (adlerBase-1)<<16 | (adlerBase - 1)
			if got, want := adlerUpdate(state, p), adlerGeneric(state, p); got != want {
				t.Errorf("%d bytes from %08x: adlerUpdate = %08x, adlerGeneric = %08x", n, uint32(state), got, want)
			}
		}
	}
}

// TestAdlerBlocks checks each kernel the CPU can run (SSSE3, AVX2) directly against
// the definition of its two sums, on block counts up to a full adlerChunk (odd and even
// counts of 32-byte blocks, for the AVX2 loop's pairs), random and all-0xff bytes (the
// largest sums).
func TestAdlerBlocks(t *testing.T) {
	kernels := adlerKernels()
	if len(kernels) == 0 {
		t.Skip("no SIMD Adler-32 kernel on this CPU/build")
	}
	r := rand.New(rand.NewPCG(13, 14))
	for _, fill := range []string{"random", "0xff"} {
		p := bytes.Repeat([]byte{0xff}, adlerChunk+31)
		if fill == "random" {
			for i := range p {
				p[i] = uint8(r.IntN(256))
			}
		}
		lengths := []int{0, 31, 32, 63, 64, 95, 96, 128, adlerChunk - 32, adlerChunk, len(p)}
		for n := 0; n <= len(p); n += 1 + r.IntN(97) {
			lengths = append(lengths, n)
		}
		for _, n := range lengths {
			q := p[:n&^31]
			var sum, weighted uint64
			for i, b := range q {
				sum += uint64(b)
				weighted += uint64(len(q)-i) * uint64(b)
			}
			for name, kernel := range kernels {
				if s, w := kernel(p[:n]); uint64(s) != sum || uint64(w) != weighted {
					t.Errorf("%s, %s, %d bytes: got %d, %d; want %d, %d", name, fill, n, s, w, sum, weighted)
				}
			}
		}
	}
}
