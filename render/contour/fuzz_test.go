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

// FuzzDistance checks Dilate and Erode on small arbitrary masks and radii against
// the brute-force distance.
func FuzzDistance(f *testing.F) {
	f.Add(uint8(5), 1.5, []byte{0, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 0, 0, 0, 1})
	f.Add(uint8(1), 0.5, []byte{1, 0, 1})
	f.Add(uint8(16), 7.9, []byte("a mask of letters and their low bits"))
	f.Add(uint8(3), 1e300, []byte{1, 1, 1, 1, 0, 1, 1, 1, 1})
	f.Fuzz(func(t *testing.T, w uint8, r float64, bits []byte) {
		if w == 0 || len(bits) == 0 || len(bits) > 256 || !(r >= 0 && r < 1e6) {
			return
		}
		width := int(w)%16 + 1
		h := (len(bits) + width - 1) / width
		m := NewMask(width, h)
		for i, b := range bits {
			m.Pix[i] = b & 1
		}
		d, err := Dilate(context.Background(), m, r)
		if err != nil {
			t.Fatal(err)
		}
		e, err := Erode(context.Background(), m, r)
		if err != nil {
			t.Fatal(err)
		}
		for y := 0; y < h; y++ {
			for x := 0; x < width; x++ {
				if want := r > 0 && bruteDist2(m, x, y, true) <= r*r || r == 0 && m.At(x, y); d.At(x, y) != want {
					t.Fatalf("dilate r %g (%d,%d) = %v", r, x, y, d.At(x, y))
				}
				if want := m.At(x, y) && (r == 0 || bruteDist2(m, x, y, false) > r*r); e.At(x, y) != want {
					t.Fatalf("erode r %g (%d,%d) = %v", r, x, y, e.At(x, y))
				}
			}
		}
	})
}
