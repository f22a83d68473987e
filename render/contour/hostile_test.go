package contour

import (
	"context"
	"math/rand"
	"testing"
)

// dots is a w x h mask with n x n dots of 3 x 3 pixels every step pixels.
func dots(n, step int) *Mask {
	m := NewMask(n*step, n*step)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			for y := 0; y < 3; y++ {
				for x := 0; x < 3; x++ {
					m.Pix[(j*step+y+step/2)*m.W+i*step+x+step/2] = 1
				}
			}
		}
	}
	return m
}

// jagged is art whose top edge is a random walk of one pixel per column at most
// a few pixels apart: a fractal edge (every scale has detail down to the pixel).
func jagged(w, h int) *Mask {
	m := NewMask(w, h)
	rng := rand.New(rand.NewSource(1))
	top := h / 2
	for x := 0; x < w; x++ {
		top += rng.Intn(9) - 4
		top = max(h/8, min(top, h-h/8))
		for y := top; y < h-h/16; y++ {
			m.Pix[y*w+x] = 1
		}
	}
	return m
}

// TestCutHostile: 12,100 separate pieces (over the piece cap) give one rectangle
// around the art, marked truncated; a fractal edge offset by 1.5 mm at 300 dpi
// simplifies to a path of bounded size; cut along the fractal edge itself with a
// low point cap, the trace stops at the cap.
func TestCutHostile(t *testing.T) {
	t.Parallel()
	const r = 17.7 // 1.5 mm at 300 dpi
	ctx := context.Background()
	got, err := Cut(ctx, dots(110, 40), CutOptions{Offset: r, Tolerance: 1.2})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Truncated || len(got.Paths) != 1 || len(got.Paths[0]) != 4 {
		t.Fatalf("12,100 pieces: %d paths, truncated %v", len(got.Paths), got.Truncated)
	}
	m := jagged(2000, 1500)
	got, err = Cut(ctx, m, CutOptions{Offset: r, Tolerance: 1.2})
	if err != nil {
		t.Fatal(err)
	}
	if got.Truncated || len(got.Paths) != 1 {
		t.Fatalf("fractal edge: %d paths, truncated %v", len(got.Paths), got.Truncated)
	}
	if n := len(got.Paths[0]); n > 2000 {
		t.Errorf("fractal edge offset: %d points, want a simplified path", n)
	}
	raw, err := Trace(ctx, m, false, Limits{})
	if err != nil {
		t.Fatal(err)
	}
	got, err = Cut(ctx, m, CutOptions{Tolerance: 0.01, Limits: Limits{MaxPoints: len(raw.Paths[0]) / 2}})
	if err != nil {
		t.Fatal(err)
	}
	if !got.Truncated || len(got.Paths) != 1 || len(got.Paths[0]) != 4 {
		t.Fatalf("fractal edge over the point cap: %d paths, truncated %v", len(got.Paths), got.Truncated)
	}
}

// BenchmarkCutHostile measures the hostile cases at print size: 12,100 pieces on a
// 4400 x 4400 mask and a fractal edge on an A4 page at 300 dpi (2480 x 3508).
func BenchmarkCutHostile(b *testing.B) {
	for _, bc := range []struct {
		name string
		m    *Mask
	}{{"pieces-12100", dots(110, 40)}, {"fractal-a4-300dpi", jagged(2480, 3508)}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				got, err := Cut(context.Background(), bc.m, CutOptions{Offset: 17.7, Tolerance: 1.2})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(len(got.Paths)), "paths")
				n := 0
				for _, p := range got.Paths {
					n += len(p)
				}
				b.ReportMetric(float64(n), "points")
			}
		})
	}
}
