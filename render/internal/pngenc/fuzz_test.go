package pngenc

import (
	"bytes"
	"image"
	"testing"
)

// FuzzEncode checks the encoder's one promise: whatever the image type, size, opacity
// mix, strip size, worker count, level and filter, image/png decodes the output to
// exactly color.NRGBAModel.Convert of the input pixels, and pHYs is there when DPI is.
func FuzzEncode(f *testing.F) {
	f.Add(uint8(0), uint8(1), uint8(1), uint8(0), uint8(0), uint8(1), uint8(0), uint16(300), uint64(1))
	f.Add(uint8(1), uint8(40), uint8(33), uint8(1), uint8(5), uint8(3), uint8(2), uint16(0), uint64(2))
	f.Add(uint8(2), uint8(7), uint8(90), uint8(0), uint8(1), uint8(2), uint8(4), uint16(72), uint64(3))
	f.Add(uint8(3), uint8(64), uint8(3), uint8(2), uint8(9), uint8(4), uint8(1), uint16(600), uint64(4))
	f.Add(uint8(4), uint8(13), uint8(17), uint8(1), uint8(2), uint8(1), uint8(3), uint16(1), uint64(5))
	f.Add(uint8(5), uint8(5), uint8(5), uint8(1), uint8(0), uint8(2), uint8(5), uint16(0), uint64(6))
	f.Add(uint8(6), uint8(30), uint8(20), uint8(1), uint8(3), uint8(2), uint8(0), uint16(0), uint64(7))
	f.Add(uint8(7), uint8(30), uint8(20), uint8(1), uint8(3), uint8(2), uint8(6), uint16(150), uint64(8))
	f.Fuzz(func(t *testing.T, kind, w, h, alpha, stripRows, workers, knobs uint8, dpi uint16, seed uint64) {
		kinds := []string{"rgba", "nrgba", "gray", "gray16", "rgba64", "nrgba64", "paletted"}
		alphas := []string{"opaque", "mixed", "clear"}
		levels := []int{0, 1, 2, 6, 9, LevelHuffmanOnly}
		filters := []string{"", FilterAuto, FilterNone, FilterSub, FilterUp, FilterPaeth}
		width, height := 1+int(w)%70, 1+int(h)%70
		var img image.Image = noisy(kinds[int(kind)%len(kinds)], width+3, height+2, alphas[int(alpha)%len(alphas)], seed)
		if kind >= 128 {
			// A sub-image: non-zero Min and a stride wider than the row.
			if s, ok := img.(interface {
				SubImage(image.Rectangle) image.Image
			}); ok {
				img = s.SubImage(image.Rect(2, 1, width+3, height+2))
			}
		}
		opt := Options{
			Level:     levels[int(knobs)%len(levels)],
			Filter:    filters[int(knobs/8)%len(filters)],
			StripRows: int(stripRows) % 20,
			Workers:   int(workers) % 5,
			DPI:       float64(dpi),
		}
		var buf bytes.Buffer
		if err := Encode(&buf, img, opt); err != nil {
			t.Fatalf("Encode(%+v): %v", opt, err)
		}
		d := decodeChecked(t, buf.Bytes())
		samePixels(t, d.img, img)
		if (d.ppm != 0) != (dpi > 0) {
			t.Errorf("DPI %d: pHYs %d pixels per metre", dpi, d.ppm)
		}
	})
}
