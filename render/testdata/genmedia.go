//go:build ignore

// genmedia writes the test media files: go run ./render/testdata/genmedia.go
// (from the module root). lossy.webp is a copy of golang.org/x/image's
// testdata/blue-purple-pink.lossy.webp (Go has no WebP encoder). image/png cannot write Adam7 interlacing, so
// interlaced.png is written by writeInterlaced below.
package main

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"log"
	"math"
	"os"
)

const dir = "render/testdata/media/"

func save(name string, img image.Image) {
	f, err := os.Create(dir + name)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	if name[len(name)-3:] == "jpg" {
		err = jpeg.Encode(f, img, &jpeg.Options{Quality: 92})
	} else {
		err = png.Encode(f, img)
	}
	if err != nil {
		log.Fatal(err)
	}
}

func main() {
	// photo: 160x100, quadrants red/green/blue/yellow with a white diagonal, so
	// orientation, scaling and cropping are all visible.
	photo := image.NewRGBA(image.Rect(0, 0, 160, 100))
	for y := 0; y < 100; y++ {
		for x := 0; x < 160; x++ {
			c := color.RGBA{220, 40, 40, 255}
			switch {
			case x >= 80 && y < 50:
				c = color.RGBA{40, 180, 60, 255}
			case x < 80 && y >= 50:
				c = color.RGBA{40, 80, 220, 255}
			case x >= 80 && y >= 50:
				c = color.RGBA{240, 210, 40, 255}
			}
			if d := float64(x)*100/160 - float64(y); math.Abs(d) < 3 {
				c = color.RGBA{255, 255, 255, 255}
			}
			photo.Set(x, y, c)
		}
	}
	save("photo.jpg", photo)
	writeEXIF("photo-exif6.jpg", photo, 6)

	// rgba: 64x64 orange disc with soft edge on transparent (8-bit NRGBA).
	disc := image.NewNRGBA(image.Rect(0, 0, 64, 64))
	for y := 0; y < 64; y++ {
		for x := 0; x < 64; x++ {
			r := math.Hypot(float64(x)-31.5, float64(y)-31.5)
			a := math.Max(0, math.Min(1, 30-r))
			disc.Set(x, y, color.NRGBA{255, 140, 0, uint8(255 * a)})
		}
	}
	save("rgba.png", disc)
	writeInterlaced("interlaced.png", disc)

	// deep16: 48x32 16-bit RGBA horizontal ramp black -> cyan, half-transparent bottom.
	deep := image.NewNRGBA64(image.Rect(0, 0, 48, 32))
	for y := 0; y < 32; y++ {
		for x := 0; x < 48; x++ {
			v := uint16(x * 65535 / 47)
			a := uint16(65535)
			if y >= 16 {
				a = 32768
			}
			deep.Set(x, y, color.NRGBA64{0, v, v, a})
		}
	}
	save("deep16.png", deep)

	// palette: 32x32 checkerboard of 4 palette colours, 8x8 squares.
	pal := color.Palette{color.RGBA{0, 0, 0, 255}, color.RGBA{255, 255, 255, 255}, color.RGBA{200, 0, 200, 255}, color.RGBA{0, 160, 160, 255}}
	pm := image.NewPaletted(image.Rect(0, 0, 32, 32), pal)
	for y := 0; y < 32; y++ {
		for x := 0; x < 32; x++ {
			pm.SetColorIndex(x, y, uint8((x/8+y/8)%2+2*((x/16+y/16)%2)))
		}
	}
	save("palette.png", pm)

	// anim.gif: two frames; the first (the palette checkerboard) is the one printed.
	second := image.NewPaletted(pm.Rect, pal)
	f, err := os.Create(dir + "anim.gif")
	if err != nil {
		log.Fatal(err)
	}
	if err := gif.EncodeAll(f, &gif.GIF{Image: []*image.Paletted{pm, second}, Delay: []int{50, 50}}); err != nil {
		log.Fatal(err)
	}
	f.Close()

	// clipart: 40x40 black five-point star on transparent (raster clipart to recolour).
	star := image.NewNRGBA(image.Rect(0, 0, 40, 40))
	var pts [10][2]float64
	for i := range pts {
		r := 19.0
		if i%2 == 1 {
			r = 8
		}
		a := -math.Pi/2 + float64(i)*math.Pi/5
		pts[i] = [2]float64{20 + r*math.Cos(a), 20 + r*math.Sin(a)}
	}
	for y := 0; y < 40; y++ {
		for x := 0; x < 40; x++ {
			px, py := float64(x)+0.5, float64(y)+0.5
			in := false
			for i, j := 0, len(pts)-1; i < len(pts); j, i = i, i+1 {
				if (pts[i][1] > py) != (pts[j][1] > py) &&
					px < (pts[j][0]-pts[i][0])*(py-pts[i][1])/(pts[j][1]-pts[i][1])+pts[i][0] {
					in = !in
				}
			}
			if in {
				star.Set(x, y, color.NRGBA{0, 0, 0, 255})
			}
		}
	}
	save("clipart.png", star)

	// template: 100x75 light grey product mockup with a dark frame.
	tpl := image.NewRGBA(image.Rect(0, 0, 100, 75))
	for y := 0; y < 75; y++ {
		for x := 0; x < 100; x++ {
			c := color.RGBA{235, 235, 230, 255}
			if x < 3 || y < 3 || x >= 97 || y >= 72 {
				c = color.RGBA{60, 60, 60, 255}
			}
			tpl.Set(x, y, c)
		}
	}
	save("template.png", tpl)
}

// writeInterlaced writes an 8-bit RGBA Adam7-interlaced PNG (filter 0 on every row).
func writeInterlaced(name string, img *image.NRGBA) {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	passes := [7][4]int{{0, 0, 8, 8}, {4, 0, 8, 8}, {0, 4, 4, 8}, {2, 0, 4, 4}, {0, 2, 2, 4}, {1, 0, 2, 2}, {0, 1, 1, 2}}
	var raw bytes.Buffer
	for _, p := range passes {
		for y := p[1]; y < h; y += p[3] {
			if p[0] >= w {
				break
			}
			raw.WriteByte(0)
			for x := p[0]; x < w; x += p[2] {
				c := img.NRGBAAt(x, y)
				raw.Write([]byte{c.R, c.G, c.B, c.A})
			}
		}
	}
	var z bytes.Buffer
	zw := zlib.NewWriter(&z)
	zw.Write(raw.Bytes())
	zw.Close()
	var out bytes.Buffer
	out.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		binary.Write(&out, binary.BigEndian, uint32(len(data)))
		out.WriteString(typ)
		out.Write(data)
		binary.Write(&out, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9], ihdr[12] = 8, 6, 1 // 8-bit, RGBA, Adam7
	chunk("IHDR", ihdr)
	chunk("IDAT", z.Bytes())
	chunk("IEND", nil)
	if err := os.WriteFile(dir+name, out.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}

// writeEXIF writes img as JPEG with an EXIF APP1 segment holding only the orientation
// (big-endian TIFF, one IFD entry).
func writeEXIF(name string, img image.Image, orientation uint16) {
	var j bytes.Buffer
	if err := jpeg.Encode(&j, img, &jpeg.Options{Quality: 92}); err != nil {
		log.Fatal(err)
	}
	var tiff bytes.Buffer
	tiff.WriteString("MM\x00\x2a")
	binary.Write(&tiff, binary.BigEndian, uint32(8)) // IFD0 offset
	binary.Write(&tiff, binary.BigEndian, uint16(1)) // one entry
	binary.Write(&tiff, binary.BigEndian, []uint16{0x0112, 3})
	binary.Write(&tiff, binary.BigEndian, uint32(1))
	binary.Write(&tiff, binary.BigEndian, []uint16{orientation, 0})
	binary.Write(&tiff, binary.BigEndian, uint32(0)) // no next IFD
	payload := append([]byte("Exif\x00\x00"), tiff.Bytes()...)
	var out bytes.Buffer
	out.Write(j.Bytes()[:2])
	out.Write([]byte{0xff, 0xe1})
	binary.Write(&out, binary.BigEndian, uint16(len(payload)+2))
	out.Write(payload)
	out.Write(j.Bytes()[2:])
	if err := os.WriteFile(dir+name, out.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
