package pngenc

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/png"
	"math/rand/v2"
	"testing"
)

// TestEncodeZlib decodes EncodeZlib's stream with image/png (wrapped as the IDAT of
// a PNG whose colour type has the same bytes per pixel: gray for 1, RGB for 3, RGBA
// for 4, which is laid out exactly like CMYK) and compares every sample.
func TestEncodeZlib(t *testing.T) {
	cases := []struct {
		name      string
		w, h, bpp int
		opt       Options
	}{
		{"cmyk auto", 301, 517, 4, Options{}},
		{"cmyk up small strips", 64, 300, 4, Options{Filter: FilterUp, StripRows: 7, Workers: 3}},
		{"cmyk none level 6", 50, 40, 4, Options{Filter: FilterNone, Level: 6}},
		{"gray paeth", 99, 260, 1, Options{Filter: FilterPaeth}},
		{"rgb one row", 10, 1, 3, Options{}},
		{"huffman only", 120, 300, 4, Options{Level: LevelHuffmanOnly}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(uint64(c.w), uint64(c.h)))
			stride := c.w*c.bpp + 3 // loosely packed: the padding must not leak in
			pix := make([]byte, stride*c.h)
			for i := range pix {
				// Smooth gradients with noise: filters and matches both matter.
				pix[i] = byte(i/stride + i%stride/7 + rng.IntN(8))
			}
			var z bytes.Buffer
			if err := EncodeZlib(context.Background(), &z, pix, c.w, c.h, stride, c.bpp, c.opt); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(bytes.NewReader(wrapPNG(c.w, c.h, c.bpp, z.Bytes())))
			if err != nil {
				t.Fatal(err)
			}
			got := decodedSamples(t, img, c.bpp)
			for y := range c.h {
				want := pix[y*stride : y*stride+c.w*c.bpp]
				if row := got[y*c.w*c.bpp : (y+1)*c.w*c.bpp]; !bytes.Equal(row, want) {
					t.Fatalf("row %d differs", y)
				}
			}
		})
	}
}

func TestEncodeZlibRejects(t *testing.T) {
	pix := make([]byte, 100)
	for _, c := range []struct {
		name             string
		w, h, stride, bp int
	}{
		{"short buffer", 10, 10, 40, 4},
		{"stride too small", 10, 2, 30, 4},
		{"bpp 5", 2, 2, 10, 5},
		{"zero size", 0, 10, 0, 1},
	} {
		err := EncodeZlib(context.Background(), &bytes.Buffer{}, pix, c.w, c.h, c.stride, c.bp, Options{})
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Errorf("%s: got %v, want *InputError", c.name, err)
		}
	}
}

func wrapPNG(w, h, bpp int, z []byte) []byte {
	var out bytes.Buffer
	out.WriteString(pngSignature)
	chunk := func(typ string, data []byte) {
		var hdr [8]byte
		binary.BigEndian.PutUint32(hdr[:4], uint32(len(data)))
		copy(hdr[4:], typ)
		out.Write(hdr[:])
		out.Write(data)
		binary.BigEndian.PutUint32(hdr[:4], crc32.Update(crc32.ChecksumIEEE([]byte(typ)), crc32.IEEETable, data))
		out.Write(hdr[:4])
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8] = 8
	ihdr[9] = map[int]byte{1: colorGray, 3: colorRGB, 4: colorRGBA}[bpp]
	chunk("IHDR", ihdr)
	chunk("IDAT", z)
	chunk("IEND", nil)
	return out.Bytes()
}

func decodedSamples(t *testing.T, img image.Image, bpp int) []byte {
	t.Helper()
	switch m := img.(type) {
	case *image.Gray:
		return m.Pix
	case *image.NRGBA:
		if bpp == 4 {
			return m.Pix
		}
		out := make([]byte, 0, len(m.Pix)/4*3)
		for i := 0; i < len(m.Pix); i += 4 {
			out = append(out, m.Pix[i:i+3]...)
		}
		return out
	case *image.RGBA:
		out := make([]byte, 0, len(m.Pix)/4*3)
		for i := 0; i < len(m.Pix); i += 4 {
			out = append(out, m.Pix[i:i+3]...)
		}
		return out
	}
	t.Fatalf("decoded %T", img)
	return nil
}

// FuzzEncodeZlib: any size, stride, bytes per pixel and options either give an
// *InputError or a stream that decodes (as a PNG's IDAT) to exactly the input rows.
func FuzzEncodeZlib(f *testing.F) {
	f.Add(uint8(10), uint8(10), uint8(4), uint8(0), uint8(0), uint8(0), []byte("seed"))
	f.Add(uint8(70), uint8(33), uint8(1), uint8(3), uint8(5), uint8(2), []byte{1, 2, 3, 250})
	f.Add(uint8(0), uint8(3), uint8(5), uint8(0), uint8(1), uint8(1), []byte{})
	f.Fuzz(func(t *testing.T, w, h, bpp, pad, stripRows, knobs uint8, data []byte) {
		width, height, bp := int(w)%80, int(h)%80, int(bpp)%6
		stride := width*max(bp, 1) + int(pad)%4
		pix := make([]byte, stride*height)
		for i := range pix {
			if len(data) > 0 {
				pix[i] = data[i%len(data)] + byte(i/7)
			}
		}
		levels := []int{0, 1, 6, LevelHuffmanOnly}
		filters := []string{"", FilterNone, FilterSub, FilterUp, FilterPaeth}
		opt := Options{Level: levels[int(knobs)%len(levels)], Filter: filters[int(knobs/4)%len(filters)], StripRows: int(stripRows) % 9, Workers: 1 + int(knobs)%3}
		var z bytes.Buffer
		err := EncodeZlib(context.Background(), &z, pix, width, height, stride, bp, opt)
		if width == 0 || height == 0 || bp < 1 || bp > 4 {
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("%dx%d bpp %d: got %v, want *InputError", width, height, bp, err)
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if bp == 2 {
			return // no 8-bit PNG colour type has 2 bytes a pixel to decode with
		}
		img, err := png.Decode(bytes.NewReader(wrapPNG(width, height, bp, z.Bytes())))
		if err != nil {
			t.Fatal(err)
		}
		got := decodedSamples(t, img, bp)
		for y := range height {
			if !bytes.Equal(got[y*width*bp:(y+1)*width*bp], pix[y*stride:y*stride+width*bp]) {
				t.Fatalf("row %d differs", y)
			}
		}
	})
}
