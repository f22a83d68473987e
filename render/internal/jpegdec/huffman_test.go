package jpegdec

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestFastTable checks every huffman.fast entry against decodeHuffman and
// receiveExtend (the scan loop's fast path must decode exactly what they do) on
// random tables: typical ones, sparse ones with long codes, and over-subscribed,
// malformed ones.
func TestFastTable(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	checked, combined := 0, 0
	for iter := range 400 {
		payload := []byte{byte(iter%2) << 4} // Tc (DC or AC table), Th 0
		total := 0
		for i := range maxCodeLength {
			var n int
			switch iter % 4 {
			case 0: // roughly the standard tables' shape
				n = rng.IntN(min(1<<(i+1), 8))
			case 1: // sparse, long codes
				if rng.IntN(3) == 0 {
					n = rng.IntN(3)
				}
			default: // anything, often over-subscribed
				n = rng.IntN(6)
			}
			n = min(n, maxNCodes-total)
			total += n
			payload = append(payload, byte(n))
		}
		if total == 0 {
			payload[1] = 1
			total = 1
		}
		for range total {
			payload = append(payload, byte(rng.IntN(256)))
		}
		d := &decoder{r: bytes.NewReader(payload)}
		if err := d.processDHT(len(payload)); err != nil {
			t.Fatal(err)
		}
		h := &d.huff[iter%2][0]
		for p := range uint64(1 << fastBits) {
			e := h.fast[p]
			if e == 0 {
				continue // the scan loop falls back to decodeHuffman
			}
			d.bits = bits{a: p<<23 | rng.Uint64N(1<<23), n: 32}
			v, err := d.decodeHuffman(h)
			if err != nil || v != uint8(e>>8) || 32-d.bits.n != int32(e&0x1f) {
				t.Fatalf("table %d, peek %09b: decodeHuffman %#x %v after %d bits, fast entry %#x", iter, p, v, err, 32-d.bits.n, e)
			}
			checked++
			if e&fastCombined != 0 {
				x, err := d.receiveExtend(v & 0x0f)
				if err != nil || x != int32(int16(e>>16)) || 32-d.bits.n != int32(e&0x1f)+int32(v&0x0f) {
					t.Fatalf("table %d, peek %09b: receiveExtend %d %v, fast entry %#x", iter, p, x, err, e)
				}
				combined++
			}
		}
	}
	if checked == 0 || combined == 0 {
		t.Fatalf("checked %d entries, %d combined", checked, combined)
	}
}
