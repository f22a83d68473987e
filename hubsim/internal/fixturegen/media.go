package fixturegen

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
	"image/png"
	"math"
	"strings"

	"golang.org/x/image/vector"
)

// pt is a point in an SVG's user space.
type pt struct{ X, Y float64 }

// shape is a vector illustration: polygons in a width x height user space, written as
// SVG and rasterized for the stored export previews.
type shape struct {
	W, H   float64
	Polys  [][]pt
	Fill   string
	Stroke string
}

func (s shape) svg() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>`+"\n")
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%g" height="%g" viewBox="0 0 %g %g">`+"\n", s.W, s.H, s.W, s.H)
	for _, p := range s.Polys {
		var pts []string
		for _, q := range p {
			pts = append(pts, fmt.Sprintf("%.2f,%.2f", q.X, q.Y))
		}
		stroke := ""
		if s.Stroke != "" {
			stroke = fmt.Sprintf(` stroke="%s" stroke-width="2"`, s.Stroke)
		}
		fmt.Fprintf(&b, `  <polygon points="%s" fill="%s"%s/>`+"\n", strings.Join(pts, " "), s.Fill, stroke)
	}
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// raster draws the shape's fill at w x h pixels in col (the recolour of a colorized
// illustration) or its own fill colour.
func (s shape) raster(w, h int, col color.Color) *image.RGBA {
	if col == nil {
		col = hexColor(s.Fill)
	}
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	kx, ky := float32(float64(w)/s.W), float32(float64(h)/s.H)
	for _, p := range s.Polys {
		polygon(img, p, kx, ky, col)
	}
	return img
}

func polygon(dst draw.Image, p []pt, kx, ky float32, col color.Color) {
	b := dst.Bounds()
	z := vector.NewRasterizer(b.Dx(), b.Dy())
	for i, q := range p {
		x, y := float32(q.X)*kx, float32(q.Y)*ky
		if i == 0 {
			z.MoveTo(x, y)
		} else {
			z.LineTo(x, y)
		}
	}
	z.ClosePath()
	z.Draw(dst, b, image.NewUniform(col), image.Point{})
}

func star() shape {
	var p []pt
	for i := 0; i < 10; i++ {
		r := 48.0
		if i%2 == 1 {
			r = 20
		}
		a := -math.Pi/2 + float64(i)*math.Pi/5
		p = append(p, pt{50 + r*math.Cos(a), 52 + r*math.Sin(a)})
	}
	return shape{W: 100, H: 100, Polys: [][]pt{p}, Fill: "#333333", Stroke: "#000000"}
}

func heart() shape {
	var p []pt
	for i := 0; i < 64; i++ {
		t := float64(i) / 64 * 2 * math.Pi
		x := 16 * math.Pow(math.Sin(t), 3)
		y := 13*math.Cos(t) - 5*math.Cos(2*t) - 2*math.Cos(3*t) - math.Cos(4*t)
		p = append(p, pt{60 + x*3.4, 50 - y*3.4})
	}
	return shape{W: 120, H: 100, Polys: [][]pt{p}, Fill: "#222222"}
}

func hexColor(s string) color.RGBA {
	var r, g, b uint8
	if _, err := fmt.Sscanf(strings.TrimPrefix(s, "#"), "%02x%02x%02x", &r, &g, &b); err != nil {
		return color.RGBA{A: 255}
	}
	return color.RGBA{r, g, b, 255}
}

// garment draws a product template: a light backdrop, a garment-like silhouette and a
// dashed outline of the print area, so previews show where things sit.
func garment(w, h int, body []pt, fill string, area image.Rectangle) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(hexColor("#eef1f4")), image.Point{}, draw.Src)
	polygon(img, body, 1, 1, hexColor(fill))
	dash := hexColor("#9aa5b1")
	for x := area.Min.X; x < area.Max.X; x++ {
		if (x/6)%2 == 0 {
			img.Set(x, area.Min.Y, dash)
			img.Set(x, area.Max.Y-1, dash)
		}
	}
	for y := area.Min.Y; y < area.Max.Y; y++ {
		if (y/6)%2 == 0 {
			img.Set(area.Min.X, y, dash)
			img.Set(area.Max.X-1, y, dash)
		}
	}
	return img
}

func shirtBody(w, h float64) []pt {
	return []pt{
		{0.30 * w, 0.05 * h}, {0.42 * w, 0.09 * h}, {0.58 * w, 0.09 * h}, {0.70 * w, 0.05 * h},
		{0.95 * w, 0.20 * h}, {0.86 * w, 0.33 * h}, {0.78 * w, 0.28 * h}, {0.78 * w, 0.96 * h},
		{0.22 * w, 0.96 * h}, {0.22 * w, 0.28 * h}, {0.14 * w, 0.33 * h}, {0.05 * w, 0.20 * h},
	}
}

// photo is a synthetic landscape (sky, sun, hills): smooth areas like a real photo.
func photo(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			t := float64(y) / float64(h)
			c := color.RGBA{uint8(90 + 100*t), uint8(150 + 70*t), 235, 255}
			hill := 0.62*float64(h) + 0.08*float64(h)*math.Sin(float64(x)/float64(w)*5)
			if float64(y) > hill {
				c = color.RGBA{uint8(60 + 40*t), uint8(140 - 30*t), 60, 255}
			}
			dx, dy := float64(x)-0.75*float64(w), float64(y)-0.25*float64(h)
			if dx*dx+dy*dy < float64(h*h)/64 {
				c = color.RGBA{255, 214, 90, 255}
			}
			img.SetRGBA(x, y, c)
		}
	}
	return img
}

// badge is a logo with a transparent background (a ring and a square).
func badge(n int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, n, n))
	c := float64(n) / 2
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			dx, dy := float64(x)+0.5-c, float64(y)+0.5-c
			d := math.Hypot(dx, dy)
			switch {
			case d < c*0.95 && d > c*0.75:
				img.SetNRGBA(x, y, color.NRGBA{0x1b, 0x2a, 0x4a, 255})
			case math.Abs(dx) < c*0.35 && math.Abs(dy) < c*0.35:
				img.SetNRGBA(x, y, color.NRGBA{0xd0, 0x02, 0x1b, 200})
			}
		}
	}
	return img
}

func encodePNG(img image.Image, dpi float64) []byte {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&b, img); err != nil {
		panic(err)
	}
	if dpi <= 0 {
		return b.Bytes()
	}
	return withPHYs(b.Bytes(), dpi)
}

// withPHYs inserts a pHYs chunk (pixels per metre) after IHDR so the PNG carries its dpi.
func withPHYs(p []byte, dpi float64) []byte {
	const ihdrEnd = 8 + 4 + 4 + 13 + 4
	ppm := uint32(math.Round(dpi / 0.0254))
	data := make([]byte, 9)
	binary.BigEndian.PutUint32(data[0:], ppm)
	binary.BigEndian.PutUint32(data[4:], ppm)
	data[8] = 1 // unit: metre
	var chunk bytes.Buffer
	_ = binary.Write(&chunk, binary.BigEndian, uint32(len(data)))
	chunk.WriteString("pHYs")
	chunk.Write(data)
	_ = binary.Write(&chunk, binary.BigEndian, crc32.ChecksumIEEE(append([]byte("pHYs"), data...)))
	out := append([]byte(nil), p[:ihdrEnd]...)
	out = append(out, chunk.Bytes()...)
	return append(out, p[ihdrEnd:]...)
}

func encodeJPEG(img image.Image, q int) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: q}); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// cardArt is a greeting card's printed background: warm paper with a soft vertical
// gradient, a plum frame inset from the trim and blush dots along it (no guides: it is
// printed as it is).
func cardArt(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		t := float64(y) / float64(h)
		c := color.RGBA{255, uint8(248 - 10*t), uint8(238 - 18*t), 255}
		for x := 0; x < w; x++ {
			img.SetRGBA(x, y, c)
		}
	}
	m := float64(w) * 0.045 // frame inset: 19 pt on the 420 pt card
	frame := hexColor("#8e4b8f")
	line := math.Max(2, float64(w)/420*1.5)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			fx, fy := float64(x)+0.5, float64(y)+0.5
			inX, inY := fx >= m && fx <= float64(w)-m, fy >= m && fy <= float64(h)-m
			onV := inY && (math.Abs(fx-m) < line || math.Abs(fx-(float64(w)-m)) < line)
			onH := inX && (math.Abs(fy-m) < line || math.Abs(fy-(float64(h)-m)) < line)
			if onV || onH {
				img.SetRGBA(x, y, frame)
			}
		}
	}
	dot := hexColor("#f4b6c2")
	r := float64(w) / 140
	step := float64(w) / 28
	for cx := m + step/2; cx < float64(w)-m; cx += step {
		for _, cy := range []float64{m / 2, float64(h) - m/2} {
			disc(img, cx, cy, r, dot)
		}
	}
	for cy := m + step/2; cy < float64(h)-m; cy += step {
		for _, cx := range []float64{m / 2, float64(w) - m/2} {
			disc(img, cx, cy, r, dot)
		}
	}
	return img
}

// disc fills a circle of radius r at (cx, cy) with a one-pixel soft edge.
func disc(img *image.RGBA, cx, cy, r float64, c color.RGBA) {
	for y := int(cy - r - 1); y <= int(cy+r+1); y++ {
		for x := int(cx - r - 1); x <= int(cx+r+1); x++ {
			if !(image.Point{x, y}.In(img.Bounds())) {
				continue
			}
			a := math.Min(1, math.Max(0, r+0.5-math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)))
			if a == 0 {
				continue
			}
			o := img.RGBAAt(x, y)
			mix := func(p, q uint8) uint8 { return uint8(float64(p)*(1-a) + float64(q)*a + 0.5) }
			img.SetRGBA(x, y, color.RGBA{mix(o.R, c.R), mix(o.G, c.G), mix(o.B, c.B), 255})
		}
	}
}
