package gang

import (
	"context"
	"fmt"
	"image"
	"math/rand/v2"
)

// synthSet is a generated, deterministic set of designs for the packing and render
// tests: no stored images.
type synthSet struct {
	name           string
	seed           uint64
	designs        int
	minIn, maxIn   float64 // artwork side range in inches
	minQty, maxQty int
	// mixed: sizes spread over a wide range (the "mixed sizes" sets, held to
	// 85 % of the area bound). stickers-200 is not: all its copies are 1 to 4 in,
	// where the 5 mm gap alone takes 10 to 25 % of each copy's box.
	mixed bool
}

var synthSets = []synthSet{
	{name: "mixed-50", seed: 1, designs: 50, minIn: 1.5, maxIn: 10, minQty: 1, maxQty: 4, mixed: true},
	{name: "stickers-200", seed: 2, designs: 200, minIn: 1, maxIn: 4, minQty: 1, maxQty: 8},
	{name: "mixed-500", seed: 3, designs: 500, minIn: 1, maxIn: 12, minQty: 1, maxQty: 3, mixed: true},
	{name: "shirts-120", seed: 4, designs: 120, minIn: 3, maxIn: 12, minQty: 1, maxQty: 6, mixed: true},
}

// limitSets are the plan-time checks for the copy limit (maxCopies): 5000 and 10000
// copies of 1-4 in stickers (BenchmarkPlan only).
var limitSets = []synthSet{
	{name: "stickers-5000", seed: 5, designs: 1000, minIn: 1, maxIn: 4, minQty: 5, maxQty: 5},
	{name: "stickers-10000", seed: 6, designs: 2000, minIn: 1, maxIn: 4, minQty: 5, maxQty: 5},
}

// build makes the designs at dpi: sizes log-uniform-ish in the range, a transparent
// border of up to 10 % around the artwork, quantities uniform.
func (s synthSet) build(dpi float64) []Design {
	r := rand.New(rand.NewPCG(s.seed, 0x9a46))
	out := make([]Design, 0, s.designs)
	for i := range s.designs {
		side := func() int {
			u := r.Float64()
			return int((s.minIn + (s.maxIn-s.minIn)*u*u) * dpi)
		}
		w, h := side(), side()
		bx, by := r.IntN(w/10+1), r.IntN(h/10+1)
		out = append(out, Design{
			Key:      fmt.Sprintf("%s/%03d.png", s.name, i),
			OrderID:  fmt.Sprintf("%d", 1000+i/3),
			Line:     i%3 + 1,
			Quantity: s.minQty + r.IntN(s.maxQty-s.minQty+1),
			Width:    w + 2*bx, Height: h + 2*by,
			Trim: image.Rect(bx, by, bx+w, by+h),
		})
	}
	return out
}

// synthLoader draws generated designs: transparent outside Trim, inside a pattern
// that depends on the design, x and y (so a misplaced or mis-rotated copy shows), with
// some translucent pixels.
type synthLoader struct {
	designs map[string]Design
	loads   map[string]int
}

func newSynthLoader(ds []Design) *synthLoader {
	l := &synthLoader{designs: map[string]Design{}, loads: map[string]int{}}
	for _, d := range ds {
		l.designs[d.Key] = d
	}
	return l
}

func (l *synthLoader) Load(_ context.Context, key string) (image.Image, error) {
	d, ok := l.designs[key]
	if !ok {
		return nil, fmt.Errorf("no design %s", key)
	}
	return synthImage(d), nil
}

func synthImage(d Design) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, d.Width, d.Height))
	h := uint32(0)
	for _, c := range d.Key {
		h = h*31 + uint32(c)
	}
	for y := d.Trim.Min.Y; y < d.Trim.Max.Y; y++ {
		for x := d.Trim.Min.X; x < d.Trim.Max.X; x++ {
			p := img.Pix[img.PixOffset(x, y):]
			p[0] = uint8(x*7 + int(h))
			p[1] = uint8(y*5 + int(h>>8))
			p[2] = uint8((x ^ y) + int(h>>16))
			p[3] = 0xff
			if (x+y)%17 == 0 {
				p[3] = 0x80
			}
		}
	}
	// The trimmed box's corner pixels are opaque so AlphaBounds(img) == Trim.
	for _, pt := range []image.Point{d.Trim.Min, {d.Trim.Max.X - 1, d.Trim.Max.Y - 1}} {
		img.Pix[img.PixOffset(pt.X, pt.Y)+3] = 0xff
	}
	return img
}
