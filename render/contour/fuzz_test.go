package contour

import (
	"context"
	"testing"
)

// FuzzTrace traces arbitrary masks: the paths, filled even-odd, cover the mask
// with its holes filled exactly (or the trace says it was truncated), and Cut never
// fails or exceeds its caps.
func FuzzTrace(f *testing.F) {
	f.Add(uint8(4), []byte{1, 0, 0, 1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 0, 0, 1})
	f.Add(uint8(3), []byte{1, 1, 1, 1, 0, 1, 1, 1, 1})
	f.Add(uint8(8), []byte("checkerboard-checkerboard-checkerboard-checkerboard-checkerboard"))
	f.Add(uint8(1), []byte{1, 1, 1, 1, 1})
	f.Add(uint8(0), []byte{})
	f.Fuzz(func(t *testing.T, w uint8, bits []byte) {
		if w == 0 || len(bits) == 0 || len(bits) > 4096 {
			return
		}
		width := int(w)%64 + 1
		h := (len(bits) + width - 1) / width
		m := NewMask(width, h)
		for i, b := range bits {
			m.Pix[i] = b & 1
		}
		got, err := Trace(context.Background(), m, true, Limits{MaxPoints: 4 * len(bits), MaxPieces: len(bits)})
		if err != nil {
			t.Fatal(err)
		}
		if got.Truncated {
			t.Fatal("truncated under generous caps")
		}
		if f := fill(m.W, m.H, got.Paths); string(f.Pix) != string(m.Pix) {
			t.Fatalf("paths %v do not cover mask %v", got.Paths, m.Pix)
		}
		c, err := Cut(context.Background(), m, CutOptions{Offset: 1.5, Tolerance: 0.3, Limits: Limits{MaxPieces: 5, MaxPoints: 200}})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Paths) > 5 {
			t.Fatalf("%d paths over the cap", len(c.Paths))
		}
	})
}
