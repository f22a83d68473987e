package resample

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"testing"

	"github.com/printworker/printworker/render/svg"
)

// TestPixelArtEnlargedStaysSoft enlarges a 4x3 picture of hard colour steps 52 times
// (opaque, and with alpha: the integer and the float paths) at every tier, and
// requires what Chromium's bilinear filter draws: each pixel the linear
// interpolation of its four source neighbours at its position rounded down to a
// sixteenth of a pixel, as Skia's sampler (within 1 of the float value), and so
// never outside their range. Catmull-Rom rang there: dark rims and bright spots
// up to about 7 % of a step beyond it (TestPixelArtCatmullRomRings).
func TestPixelArtEnlargedStaysSoft(t *testing.T) {
	const k = 52.0
	for _, alpha := range []uint8{255, 200} {
		src := pixelArt(alpha)
		sw, sh := src.Rect.Dx(), src.Rect.Dy()
		for ti, isa := range tierKernels() {
			t.Run(fmt.Sprintf("alpha%d-tier%d", alpha, ti), func(t *testing.T) {
				dst := image.NewRGBA(image.Rect(0, 0, int(k)*sw, int(k)*sh))
				isa.scaleAxisAligned(dst, dst.Rect, src, k, 0, k, 0, 2, bandEnv{})
				bad := 0
				for y := 0; y < dst.Rect.Dy(); y++ {
					for x := 0; x < dst.Rect.Dx(); x++ {
						want := bilinearAt(src, (float64(x)+0.5)/k-0.5, (float64(y)+0.5)/k-0.5)
						got := dst.RGBAAt(x, y)
						for c, g := range []uint8{got.R, got.G, got.B, got.A} {
							if math.Abs(float64(g)-want[c]) > 1 {
								if bad++; bad <= 5 {
									t.Errorf("pixel %d,%d channel %d = %d, want %.1f (bilinear)", x, y, c, g, want[c])
								}
							}
						}
					}
				}
				if bad > 5 {
					t.Errorf("%d channel values off in all", bad)
				}
			})
		}
	}
}

// TestPixelArtCatmullRomRings shows what the test above guards against: up to 4x
// Catmull-Rom is kept, and it overshoots a hard step.
func TestPixelArtCatmullRomRings(t *testing.T) {
	src := pixelArt(255)
	dst := image.NewRGBA(image.Rect(0, 0, 4*src.Rect.Dx(), 4*src.Rect.Dy()))
	hostISA.scaleAxisAligned(dst, dst.Rect, src, 4, 0, 4, 0, 1, bandEnv{})
	// Row 1 of the source steps 20 -> 240 -> 20 in red: at 4x the red of pixels
	// next to the step goes below 20 or above 240.
	lo, hi := 255, 0
	for x := 0; x < dst.Rect.Dx(); x++ {
		r := int(dst.RGBAAt(x, 6).R)
		lo, hi = min(lo, r), max(hi, r)
	}
	if lo >= 20 && hi <= 240 {
		t.Errorf("Catmull-Rom at 4x stayed within [20, 240] (%d..%d): the kernel changed below linearAbove", lo, hi)
	}
}

// pixelArt is a 4x3 picture of hard steps between far colours, alpha a.
func pixelArt(a uint8) *image.NRGBA {
	src := image.NewNRGBA(image.Rect(0, 0, 4, 3))
	cs := []color.NRGBA{{20, 20, 200, a}, {240, 240, 40, a}, {20, 200, 20, a}, {240, 20, 240, a}}
	for y := range 3 {
		for x := range 4 {
			src.SetNRGBA(x, y, cs[(x+y)%len(cs)])
		}
	}
	// Row 1: red 20 -> 240 -> 20 -> 240 for the ringing check.
	for x := range 4 {
		src.SetNRGBA(x, 1, color.NRGBA{uint8(20 + 220*(x%2)), 40, 40, a})
	}
	return src
}

// bilinearAt is the premultiplied bilinear interpolation of src at (u, v) (pixel
// centres at integers, edge pixels extended) rounded down to 1/16 of a pixel, as
// 0..255 floats.
func bilinearAt(src *image.NRGBA, u, v float64) [4]float64 {
	w, h := src.Rect.Dx(), src.Rect.Dy()
	u, v = math.Floor(u*16)/16, math.Floor(v*16)/16
	u = math.Max(0, math.Min(float64(w-1), u))
	v = math.Max(0, math.Min(float64(h-1), v))
	x0, y0 := int(u), int(v)
	x1, y1 := min(x0+1, w-1), min(y0+1, h-1)
	fx, fy := u-float64(x0), v-float64(y0)
	var out [4]float64
	for _, p := range []struct {
		x, y int
		wt   float64
	}{{x0, y0, (1 - fx) * (1 - fy)}, {x1, y0, fx * (1 - fy)}, {x0, y1, (1 - fx) * fy}, {x1, y1, fx * fy}} {
		c := src.NRGBAAt(p.x, p.y)
		a := float64(c.A) / 255
		out[0] += p.wt * float64(c.R) * a
		out[1] += p.wt * float64(c.G) * a
		out[2] += p.wt * float64(c.B) * a
		out[3] += p.wt * float64(c.A)
	}
	return out
}

// TestPixelArtRotatedEnlargedStaysSoft: the rotated path (two 1D passes) enlarging
// 52x takes the tent as well: opaque and with alpha, every channel of every pixel
// stays within the source's range (Catmull-Rom's overshoot left it by up to about
// 7 % of a step), and every tier draws the bytes TierGo draws.
func TestPixelArtRotatedEnlargedStaysSoft(t *testing.T) {
	const k = 52.0
	for _, alpha := range []uint8{255, 200} {
		src := pixelArt(alpha)
		// Premultiplied channel range of the source.
		lo, hi := [4]int{255, 255, 255, 255}, [4]int{}
		for y := range src.Rect.Dy() {
			for x := range src.Rect.Dx() {
				c := color.RGBAModel.Convert(src.At(x, y)).(color.RGBA)
				for i, v := range []uint8{c.R, c.G, c.B, c.A} {
					lo[i], hi[i] = min(lo[i], int(v)), max(hi[i], int(v))
				}
			}
		}
		m := svg.Translate(150, 20).Mul(svg.Rotate(30)).Mul(svg.Scale(k, k))
		var ref *image.RGBA
		for _, tier := range Tiers {
			if !Supported(tier) {
				continue
			}
			dst := image.NewRGBA(image.Rect(0, 0, 360, 300))
			NewTier(2, tier).Draw(context.Background(), dst, Rect{W: 360, H: 300}, m, src, src.Rect.Dx(), src.Rect.Dy(), 1)
			if ref == nil {
				ref = dst
			} else if !bytes.Equal(ref.Pix, dst.Pix) {
				t.Errorf("alpha %d: tier %v draws other bytes than TierGo", alpha, tier)
			}
			bad := 0
			for y := 0; y < dst.Rect.Dy(); y++ {
				for x := 0; x < dst.Rect.Dx(); x++ {
					c := dst.RGBAAt(x, y)
					if c.A < 255 {
						continue // the picture's anti-aliased edge and the outside
					}
					for i, v := range []uint8{c.R, c.G, c.B} {
						if int(v) < lo[i]-1 || int(v) > hi[i]+1 {
							if bad++; bad <= 3 {
								t.Errorf("alpha %d tier %v: pixel %d,%d channel %d = %d outside the source's %d..%d", alpha, tier, x, y, i, v, lo[i], hi[i])
							}
						}
					}
				}
			}
		}
	}
}
