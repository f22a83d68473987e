package render

import (
	"bytes"
	"fmt"
	"image"
	"image/draw"
	"math/rand/v2"
	"testing"
)

// TestNRGBABandYCbCr: a decoded JPEG's bands (the row converter of the picture path)
// are the bytes draw.Draw's conversion gives, for every subsampling, odd widths and
// sub-images starting on an odd column or row (the visible window of a cropped
// picture).
func TestNRGBABandYCbCr(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 13))
	for _, c := range []struct {
		ratio image.YCbCrSubsampleRatio
		rect  image.Rectangle // the whole picture
		sub   image.Rectangle // the part converted
	}{
		{image.YCbCrSubsampleRatio420, image.Rect(0, 0, 67, 41), image.Rect(0, 0, 67, 41)},
		{image.YCbCrSubsampleRatio420, image.Rect(0, 0, 67, 41), image.Rect(3, 5, 60, 40)},
		{image.YCbCrSubsampleRatio422, image.Rect(0, 0, 50, 33), image.Rect(1, 1, 49, 33)},
		{image.YCbCrSubsampleRatio444, image.Rect(0, 0, 31, 17), image.Rect(2, 3, 31, 17)},
		{image.YCbCrSubsampleRatio440, image.Rect(0, 0, 31, 18), image.Rect(0, 1, 30, 18)},
		{image.YCbCrSubsampleRatio411, image.Rect(0, 0, 35, 9), image.Rect(1, 0, 35, 9)},
	} {
		t.Run(fmt.Sprintf("%v/%v", c.ratio, c.sub), func(t *testing.T) {
			m := image.NewYCbCr(c.rect, c.ratio)
			for _, p := range [][]uint8{m.Y, m.Cb, m.Cr} {
				for i := range p {
					p[i] = uint8(rng.IntN(256))
				}
			}
			img := m.SubImage(c.sub).(*image.YCbCr)
			w, h := c.sub.Dx(), c.sub.Dy()
			want := image.NewRGBA(image.Rect(0, 0, w, h))
			draw.Draw(want, want.Rect, img, c.sub.Min, draw.Src)
			for _, rows := range []int{1, 4, h} {
				band := image.NewRGBA(image.Rect(0, 0, w, rows))
				for y := c.sub.Min.Y; y < c.sub.Max.Y; y += rows {
					n := min(rows, c.sub.Max.Y-y)
					got := nrgbaBand(img, y, n, band)
					r := y - c.sub.Min.Y
					if exp := want.Pix[r*want.Stride : (r+n)*want.Stride]; !bytes.Equal(got, exp) {
						t.Fatalf("%d-row bands: rows %d..%d differ from draw.Draw", rows, y, y+n)
					}
				}
			}
		})
	}
}
