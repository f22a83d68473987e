package resample

import (
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/printworker/printworker/render/svg"
	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/math/f64"
)

// smoothSource is a photo-like source: smooth ramps and one hard-edged block.
func smoothSource(w, h int) *image.RGBA {
	src := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			c := color.RGBA{uint8(128 + 100*math.Sin(float64(x)/7)), uint8(y * 200 / h), uint8(128 + 100*math.Cos(float64(x+y)/11)), 255}
			if x > w/2 && y > h/2 {
				c = color.RGBA{250, 20, 20, 255}
			}
			src.SetRGBA(x, y, c)
		}
	}
	return src
}

// The two-pass transform draws the interior of a rotated picture (pixels wholly
// covered) close to golang.org/x/image/draw's direct 2D Catmull-Rom, for enlarging and
// shrinking at angles on both sides of 45°, mirrored too.
func TestTransformMatchesDirect2D(t *testing.T) {
	src := smoothSource(80, 60)
	for _, tc := range []struct{ deg, scale float64 }{
		{0, 1}, {0, 2.3}, {180, 1}, {1, 1}, {30, 2.3}, {-20, 1.7}, {60, 2}, {135, 1.4}, {30, 0.6}, {10, 0.35}, {90, 1.5}, {200, 1},
	} {
		t.Run(fmt.Sprintf("%g°x%g", tc.deg, tc.scale), func(t *testing.T) {
			m := svg.Translate(100, 90).Mul(svg.Rotate(tc.deg)).Mul(svg.Scale(tc.scale, tc.scale)).Mul(svg.Translate(-40, -30))
			want := image.NewRGBA(image.Rect(0, 0, 200, 180))
			got := image.NewRGBA(want.Rect)
			xdraw.CatmullRom.Transform(want, f64.Aff3{m[0], m[2], m[4], m[1], m[3], m[5]}, src, src.Bounds(), xdraw.Over, nil)
			poly := clipPolygon(placedQuad(m, 80, 60), Rect{0, 0, 200, 180})
			hostISA.drawTransformed(got, got.Rect, poly, src, m, 1, 3, bandEnv{})
			// Compare pixels at least 3 output pixels inside the picture (both
			// kernels see the same source there).
			inner := clipPolygon(placedQuad(m, 80, 60), Rect{0, 0, 200, 180})
			var sum, n float64
			worst := 0
			for y := range 180 {
				for x := range 200 {
					if !deepInside(inner, float64(x)+0.5, float64(y)+0.5, 3) {
						continue
					}
					for c := range 3 {
						d := int(got.Pix[got.PixOffset(x, y)+c]) - int(want.Pix[want.PixOffset(x, y)+c])
						if d < 0 {
							d = -d
						}
						worst = max(worst, d)
						sum += float64(d)
						n++
					}
				}
			}
			if n == 0 {
				t.Fatal("no interior pixel compared")
			}
			mean := sum / n
			t.Logf("mean |diff| %.2f, worst %d over %.0f samples", mean, worst, n)
			if mean > 0.75 {
				t.Errorf("mean difference %.2f levels from the direct 2D kernel", mean)
			}
		})
	}
}

// deepInside reports whether (x, y) lies inside the convex polygon by at least dist.
func deepInside(poly []svg.Point, x, y, dist float64) bool {
	// Signed distance to each edge, with the polygon's orientation.
	area := 0.0
	for i, a := range poly {
		b := poly[(i+1)%len(poly)]
		area += a.X*b.Y - b.X*a.Y
	}
	for i, a := range poly {
		b := poly[(i+1)%len(poly)]
		ex, ey := b.X-a.X, b.Y-a.Y
		l := math.Hypot(ex, ey)
		if l == 0 {
			continue
		}
		s := (ex*(y-a.Y) - ey*(x-a.X)) / l
		if area < 0 {
			s = -s
		}
		if s < dist {
			return false
		}
	}
	return true
}

func solidSource(w, h int, c color.RGBA) *image.RGBA {
	src := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := 0; i < len(src.Pix); i += 4 {
		copy(src.Pix[i:i+4], []uint8{c.R, c.G, c.B, c.A})
	}
	return src
}

// testPicture is a picture and its opacity, as render's layer gives them to Draw.
type testPicture struct {
	src     image.Image
	opacity float64
}

func pictureLayer(src image.Image, opacity float64) testPicture {
	return testPicture{src, opacity}
}

// drawPicture is Draw of p at its native size.
func (d *Drawer) drawPicture(ctx context.Context, dst *image.RGBA, clip Rect, m Matrix, p testPicture) {
	b := p.src.Bounds()
	d.Draw(ctx, dst, clip, m, p.src, b.Dx(), b.Dy(), p.opacity)
}

// A clip edge between pixels covers the pixel column it cuts by the covered fraction,
// as a browser's canvas does: a clip from x = 10.5 to 30.5 leaves columns 10 and 30
// half covered, for unrotated (fast path) and rotated pictures alike.
func TestClipBetweenPixels(t *testing.T) {
	r := New(3)
	src := solidSource(40, 40, color.RGBA{200, 0, 0, 255})
	for _, tc := range []struct {
		name string
		m    Matrix
	}{
		{"unrotated", svg.Identity},
		{"rotated 90", svg.Translate(40, 0).Mul(svg.Rotate(90))},
		{"opacity path", svg.Scale(1, 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dst := image.NewRGBA(image.Rect(0, 0, 40, 40))
			l := pictureLayer(src, 1)
			if tc.name == "opacity path" {
				l.opacity = 0.999 // the general path even though unrotated
			}
			r.drawPicture(context.Background(), dst, Rect{X: 10.5, Y: 0, W: 20, H: 40}, tc.m, l)
			for y := 5; y < 35; y++ {
				for _, c := range []struct {
					x, lo, hi int
				}{{9, 0, 0}, {10, 126, 129}, {11, 255, 255}, {29, 255, 255}, {30, 126, 129}, {31, 0, 0}} {
					a := int(dst.Pix[dst.PixOffset(c.x, y)+3])
					if a < c.lo || a > c.hi {
						t.Fatalf("(%d,%d) alpha %d, want %d..%d", c.x, y, a, c.lo, c.hi)
					}
				}
			}
		})
	}
}

// The edges of a rotated picture are antialiased by coverage: every pixel along an
// edge gets the alpha of the area the picture covers in it (checked against a 16x16
// supersampled point-in-polygon count), not a staircase of 0 and 255.
func TestRotatedEdgeCoverage(t *testing.T) {
	r := New(3)
	src := solidSource(120, 80, color.RGBA{0, 0, 255, 255})
	m := svg.Translate(100, 100).Mul(svg.Rotate(30)).Mul(svg.Scale(1.3, 1.3)).Mul(svg.Translate(-60, -40))
	dst := image.NewRGBA(image.Rect(0, 0, 200, 200))
	r.drawPicture(context.Background(), dst, Rect{0, 0, 200, 200}, m, pictureLayer(src, 1))
	poly := placedQuad(m, 120, 80)
	partial, worst := 0, 0
	for y := range 200 {
		for x := range 200 {
			const n = 16
			in := 0
			for j := range n {
				for i := range n {
					if deepInside(poly, float64(x)+(float64(i)+0.5)/n, float64(y)+(float64(j)+0.5)/n, 0) {
						in++
					}
				}
			}
			want := 255 * in / (n * n)
			got := int(dst.Pix[dst.PixOffset(x, y)+3])
			if d := got - want; d > worst || -d > worst {
				worst = max(d, -d)
			}
			if got > 0 && got < 255 {
				partial++
			}
		}
	}
	// The perimeter is 2 * (120 + 80) * 1.3 = 520 px long: about that many pixels
	// straddle it.
	t.Logf("%d partly covered pixels, worst alpha error %d", partial, worst)
	if partial < 400 {
		t.Errorf("only %d partly covered pixels along a 520 px perimeter", partial)
	}
	if worst > 8 {
		t.Errorf("alpha off the covered area by up to %d levels", worst)
	}
}

// roundHalfAway rounds as math.Round at halves, just beside them, at the 32.32
// positions' extremes and at random.
func TestRoundHalfAway(t *testing.T) {
	xs := []float64{0, 0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.49999999999999994, -0.49999999999999994,
		math.Nextafter(0.5, 1), math.Nextafter(-0.5, -1), 1 << 52, -1 << 52, 1<<52 - 0.5, -(1<<52 - 0.5),
		1<<51 + 0.5, -(1<<51 + 0.5), math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64}
	rng := rand.New(rand.NewPCG(9, 10))
	for range 100000 {
		xs = append(xs, (rng.Float64()-0.5)*(1<<53), (rng.Float64()-0.5)*64, float64(rng.IntN(1<<20))+0.5, -float64(rng.IntN(1<<20))-0.5)
	}
	for _, x := range xs {
		if got, want := roundHalfAway(x), int64(math.Round(x)); got != want {
			t.Fatalf("roundHalfAway(%v) = %d, want %d", x, got, want)
		}
	}
}

// clampedTaps4 gives the taps and rounded weights of kernel1D.taps and
// fixedTapWeights for an enlarging kernel, at positions inside, near and far beyond
// both ends of rows of every small length.
func TestClampedTaps4MatchesTaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	idx, w := make([]int, 8), make([]float32, 8)
	var wi [8]int32
	for _, n := range []int{1, 2, 3, 4, 5, 9, 300} {
		k := newKernel(1.7, n)
		vs := []int64{-4 << 32, -4<<32 - 1, -4<<32 + 1, int64(n+3) << 32, int64(n+3)<<32 + 1, int64(n+3)<<32 - 1, -1 << 52, 1 << 52}
		for range 20000 {
			vs = append(vs, int64(rng.Uint64()>>20)-1<<43+int64(n)<<31, rng.Int64N(int64(n+12)<<32)-8<<32)
		}
		for _, v := range vs {
			m := k.taps(fromFixed32(v), idx, w)
			fixedTapWeights(w[:m], wi[:m])
			t0, L := clampedTaps4(v, n)
			if m != 4 {
				t.Fatalf("n %d, v %d: taps gave %d taps", n, v, m)
			}
			for j := range 4 {
				if got := min(max(t0+j, 0), n-1); got != idx[j] || cmLUTRounded[L][j] != wi[j] {
					t.Fatalf("n %d, v %d (%v): tap %d is %d weight %d, want %d weight %d", n, v, fromFixed32(v), j, got, cmLUTRounded[L][j], idx[j], wi[j])
				}
			}
		}
	}
}

// A rotated picture comes out byte for byte the same whatever the number of band
// workers: how the bands are shared out (bandQueue's runs, and the bands taken from
// the back of another worker's run) changes who computes a pixel, never its value.
func TestRotatedSameForAnyWorkers(t *testing.T) {
	src := benchPhoto(700, 500, 9)
	for _, deg := range []float64{30, 60, 145} {
		m := svg.Translate(450, 450).Mul(svg.Rotate(deg)).Mul(svg.Scale(1.1, 1.1)).Mul(svg.Translate(-350, -250))
		var want []uint8
		for _, workers := range []int{1, 2, 3, 5} {
			r := New(workers)
			dst := image.NewRGBA(image.Rect(0, 0, 900, 900))
			r.drawPicture(context.Background(), dst, Rect{0, 0, 900, 900}, m, pictureLayer(src, 1))
			if want == nil {
				want = dst.Pix
				if slices.Max(want) == 0 {
					t.Fatalf("%g°: nothing drawn", deg)
				}
				continue
			}
			if !slices.Equal(dst.Pix, want) {
				t.Errorf("%g°: %d workers drew other pixels than one", deg, workers)
			}
		}
	}
}

// One renderer drawing rotated pictures one after another, through the band buffers
// it keeps across draws, draws each as a renderer drawing it first does: nothing a
// larger, smaller, transparent or half-transparent draw left in the buffers shows in
// the next. The draws are in an order that makes each reuse buffers sized by the one
// before (small after large, opaque after transparent, other angles and scales).
func TestPicturesSameThroughKeptBuffers(t *testing.T) {
	photo := benchPhoto(700, 500, 9)
	small := benchPhoto(90, 60, 4)
	// A picture with transparency takes the float path (resampleRow), not the
	// fixed-point one.
	alpha := image.NewNRGBA(image.Rect(0, 0, 300, 200))
	for i := range alpha.Pix {
		alpha.Pix[i] = uint8(i*7 + i/1200)
	}
	draws := []struct {
		src            image.Image
		deg, scale, op float64
	}{
		// Rotated and unrotated draws (scaleAxisAligned, its fixed-point and its
		// float path) in turn, so that each path takes buffers another left.
		{photo, 30, 1.1, 1},
		{photo, 0, 1.25, 1},
		{small, 60, 3, 1},
		{alpha, 0, 2.5, 1},
		{alpha, 145, 1.7, 1},
		{small, 0, 7, 1},
		{photo, 200, 0.6, 0.5},
		{small, 10, 0.9, 1},
		{photo, 90, 0.7, 1},
		{photo, 60, 1.1, 1},
		{alpha, 0, 0.8, 0.7},
		{alpha, 20, 0.8, 0.7},
		{photo, 0, 1.25, 1},
		{photo, 30, 1.1, 1},
	}
	kept := New(3)
	if kept.pool == nil {
		t.Fatal("the Drawer keeps no band buffers")
	}
	// A pool that keeps all it is given, so that every draw after the first does
	// reuse buffers (a sync.Pool may drop them, which would hide a leftover).
	pool := new(stackPool)
	kept.pool = pool
	for i, d := range draws {
		b := d.src.Bounds()
		m := svg.Translate(450, 450).Mul(svg.Rotate(d.deg)).Mul(svg.Scale(d.scale, d.scale)).Mul(svg.Translate(-float64(b.Dx())/2, -float64(b.Dy())/2))
		got := image.NewRGBA(image.Rect(0, 0, 900, 900))
		kept.drawPicture(context.Background(), got, Rect{0, 0, 900, 900}, m, pictureLayer(d.src, d.op))
		want := image.NewRGBA(got.Rect)
		New(3).drawPicture(context.Background(), want, Rect{0, 0, 900, 900}, m, pictureLayer(d.src, d.op))
		if slices.Max(want.Pix) == 0 {
			t.Fatalf("draw %d: nothing drawn", i)
		}
		if !slices.Equal(got.Pix, want.Pix) {
			t.Errorf("draw %d (%g°, x%g, opacity %g): other pixels through kept buffers than through new ones", i, d.deg, d.scale, d.op)
		}
		if len(pool.kept) == 0 {
			t.Fatalf("draw %d: no buffers kept for the next draw", i)
		}
	}
}

// stackPool is a bufferPool that keeps everything put in it, unlike a sync.Pool,
// which may drop what it is given (under the race detector, one in four Puts).
type stackPool struct{ kept []any }

func (p *stackPool) Get() any {
	if len(p.kept) == 0 {
		return nil
	}
	v := p.kept[len(p.kept)-1]
	p.kept = p.kept[:len(p.kept)-1]
	return v
}

func (p *stackPool) Put(v any) { p.kept = append(p.kept, v) }

// forEachBand takes its workers' buffers from the pool and puts them back when the
// draw is over, for the next draw to take: each worker its own, no new ones while the
// pool has enough.
func TestBandBuffersGoBack(t *testing.T) {
	pool := new(stackPool)
	area := image.Rect(0, 0, 16, 64*8) // 8 bands
	// Each worker's buffers come with what the draw before grew in them (7 bytes of
	// mask), or are new (none).
	draw := func(workers int) (given []*bandBuffers, reused int) {
		var mu sync.Mutex
		forEachBand(area, 1, 1, workers, false, func(int) (int, int) { return 0, 1 }, bandEnv{pool: pool}, func(bb *bandBuffers) func(by0, by1, r0, r1 int) {
			mu.Lock()
			given = append(given, bb)
			if len(bb.mask) == 7 {
				reused++
			}
			mu.Unlock()
			bb.mask = grow(bb.mask, 7)
			return func(by0, by1, r0, r1 int) {}
		})
		return given, reused
	}
	first, reused := draw(3)
	if len(first) != 3 || len(pool.kept) != 3 || reused != 0 {
		t.Fatalf("3 workers of a first draw were given %d buffers (%d reused) and %d went back to the pool, want 3 (0) and 3", len(first), reused, len(pool.kept))
	}
	if first[0] == first[1] || first[1] == first[2] || first[0] == first[2] {
		t.Fatal("two workers were given the same buffers")
	}
	second, reused := draw(2)
	for _, g := range second {
		if !slices.Contains(first, g) {
			t.Errorf("a draw after took new buffers, not the ones put back")
		}
	}
	if reused != 2 {
		t.Errorf("%d of the second draw's 2 workers found what the first grew in their buffers", reused)
	}
	if len(pool.kept) != 3 {
		t.Errorf("%d buffers in the pool after the second draw, want 3", len(pool.kept))
	}
}
