package pngenc

import (
	"compress/flate"
	"context"
	"fmt"
	"hash/adler32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"os"
	"sync"
	"testing"

	"golang.org/x/image/draw"

	"github.com/printworker/printworker/internal/testcpu"
)

// stdFlate runs the strips through compress/flate, for comparison with klauspostFlate.
var stdFlate = flateFactory{
	get: func(level int, w io.Writer) compressor {
		c, err := flate.NewWriter(w, level)
		if err != nil {
			panic(err)
		}
		return c
	},
	put: func(int, compressor) {},
}

// Print canvas of one T-shirt front at 300 dpi (issue 7).
const benchW, benchH = 4167, 5000

var benchCanvases = sync.OnceValue(func() map[string]*image.RGBA {
	m := map[string]*image.RGBA{
		"photo":  photoCanvas(benchW, benchH, false),
		"design": photoCanvas(benchW, benchH, true),
	}
	if c, err := referenceCanvas(); err == nil {
		m["reference"] = c
	}
	return m
})

// referencePhoto is the 2000x2000 picture of the reference T-shirt design (issue 7).
const referencePhoto = "../../testdata/bench/media/be1c0000000000000000a001.jpg"

// referenceCanvas places the reference photo, resampled, in its 760x520 pt box at
// 300 dpi on the #f3efe6 background: the photo part of the reference render.
func referenceCanvas() (*image.RGBA, error) {
	f, err := os.Open(referencePhoto)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := jpeg.Decode(f)
	if err != nil {
		return nil, err
	}
	img := image.NewRGBA(image.Rect(0, 0, benchW, benchH))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.RGBA{0xf3, 0xef, 0xe6, 0xff}), image.Point{}, draw.Src)
	draw.CatmullRom.Scale(img, image.Rect(500, 900, 500+3167, 900+2167), src, src.Bounds(), draw.Over, nil)
	return img, nil
}

// photoCanvas draws a deterministic photo-like RGB canvas: smooth gradients plus
// per-pixel noise, so it compresses like a photograph rather than trivially. With
// design set, only a 3167x2167 box holds the photo (a 760x520 pt picture at 300 dpi)
// on a flat #f3efe6 background with a few flat shapes, like the reference T-shirt.
func photoCanvas(w, h int, design bool) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	seed := uint32(2463534242)
	noise := func() int {
		seed ^= seed << 13
		seed ^= seed >> 17
		seed ^= seed << 5
		return int(seed&31) - 16
	}
	clamp := func(v int) uint8 { return uint8(max(0, min(255, v))) }
	photo := image.Rect(0, 0, w, h)
	if design {
		photo = image.Rect(500, 900, 500+3167, 900+2167)
	}
	for y := 0; y < h; y++ {
		row := img.Pix[y*img.Stride:]
		for x := 0; x < w; x++ {
			p := row[4*x : 4*x+4 : 4*x+4]
			p[3] = 0xff
			if !image.Pt(x, y).In(photo) {
				p[0], p[1], p[2] = 0xf3, 0xef, 0xe6
				// A badge-like disc and a band of "text" strokes.
				if dx, dy := x-3300, y-4000; dx*dx+dy*dy < 500*500 {
					p[0], p[1], p[2] = 0x1d, 0x4e, 0x89
				}
				if y > 3400 && y < 3700 && (x/37)%3 == 0 && x > 400 && x < 2800 {
					p[0], p[1], p[2] = 0x20, 0x20, 0x20
				}
				continue
			}
			fx, fy := float64(x)/float64(w), float64(y)/float64(h)
			r := 128 + 100*math.Sin(6*fx+2*fy)
			g := 120 + 90*math.Cos(5*fy-3*fx)
			b := 110 + 80*math.Sin(9*fx*fy+1)
			p[0], p[1], p[2] = clamp(int(r)+noise()/2), clamp(int(g)+noise()/2), clamp(int(b)+noise()/2)
		}
	}
	return img
}

type countingWriter struct{ n int64 }

func (c *countingWriter) Write(p []byte) (int, error) { c.n += int64(len(p)); return len(p), nil }

func benchEncoder(b *testing.B, img *image.RGBA, enc func(io.Writer) error) {
	b.SetBytes(int64(len(img.Pix))) // throughput in canvas bytes (RGBA) per second
	b.ReportAllocs()
	var out countingWriter
	cpu0 := testcpu.Time(b)
	for b.Loop() {
		out.n = 0
		if err := enc(&out); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(out.n)/1e6, "MB-out")
	// CPU time (all threads of the process) per encode: on a machine shared with other
	// jobs it moves far less than wall time, and it shows what parallelism costs.
	testcpu.PerOp(b, cpu0)
}

// BenchmarkEncode compares image/png with this encoder on print canvases.
func BenchmarkEncode(b *testing.B) {
	for _, canvas := range []string{"photo", "design", "reference"} {
		img := benchCanvases()[canvas]
		if img == nil {
			b.Logf("canvas %s skipped: %s not readable", canvas, referencePhoto)
			continue
		}
		b.Run("canvas="+canvas+"/enc=stdlib-default", func(b *testing.B) {
			benchEncoder(b, img, func(w io.Writer) error { return png.Encode(w, img) })
		})
		b.Run("canvas="+canvas+"/enc=stdlib-bestspeed", func(b *testing.B) {
			e := png.Encoder{CompressionLevel: png.BestSpeed}
			benchEncoder(b, img, func(w io.Writer) error { return e.Encode(w, img) })
		})
		for _, o := range []Options{
			{},
			{Level: 2},
			{Level: 4},
			{Level: LevelHuffmanOnly},
			{Filter: FilterUp},
			{Filter: FilterPaeth},
		} {
			b.Run(fmt.Sprintf("canvas=%s/enc=pngenc/%s", canvas, optName(o)), func(b *testing.B) {
				benchEncoder(b, img, func(w io.Writer) error { return Encode(w, img, o) })
			})
		}
		b.Run("canvas="+canvas+"/enc=pngenc-stdflate/level=1", func(b *testing.B) {
			cfg, err := Options{}.resolve()
			if err != nil {
				b.Fatal(err)
			}
			benchEncoder(b, img, func(w io.Writer) error {
				return encode(context.Background(), w, newSource(img, cfg.workers), cfg, stdFlate)
			})
		})
	}
}

// BenchmarkEncodeTune sweeps the knobs behind the defaults.
func BenchmarkEncodeTune(b *testing.B) {
	for _, canvas := range []string{"photo", "design", "reference"} {
		img := benchCanvases()[canvas]
		if img == nil {
			continue
		}
		for _, level := range []int{1, 2, 3, 4, 6} {
			o := Options{Level: level}
			b.Run(fmt.Sprintf("canvas=%s/%s", canvas, optName(o)), func(b *testing.B) {
				benchEncoder(b, img, func(w io.Writer) error { return Encode(w, img, o) })
			})
		}
		for _, rows := range []int{32, 64, 256, 512, 1024} {
			o := Options{StripRows: rows}
			b.Run(fmt.Sprintf("canvas=%s/%s", canvas, optName(o)), func(b *testing.B) {
				benchEncoder(b, img, func(w io.Writer) error { return Encode(w, img, o) })
			})
		}
		for _, f := range []string{FilterNone, FilterSub, FilterUp, FilterPaeth} {
			o := Options{Filter: f}
			b.Run(fmt.Sprintf("canvas=%s/%s", canvas, optName(o)), func(b *testing.B) {
				benchEncoder(b, img, func(w io.Writer) error { return Encode(w, img, o) })
			})
		}
	}
}

func optName(o Options) string {
	level := o.Level
	if level == 0 {
		level = DefaultLevel
	}
	rows := o.StripRows
	if rows == 0 {
		rows = DefaultStripRows
	}
	filter := o.Filter
	if filter == "" {
		filter = FilterAuto
	}
	l := fmt.Sprint(level)
	if level == LevelHuffmanOnly {
		l = "huffman"
	}
	return fmt.Sprintf("level=%s/strip=%d/filter=%s", l, rows, filter)
}

// BenchmarkAdler32 compares the strip checksum with hash/adler32 on one strip of
// filtered canvas rows.
func BenchmarkAdler32(b *testing.B) {
	img := benchCanvases()["photo"]
	data := img.Pix[:DefaultStripRows*(3*benchW+1)]
	b.Run("impl=pngenc", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			adlerSum(data)
		}
	})
	b.Run("impl=hash-adler32", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			adler32.Checksum(data)
		}
	})
}

// BenchmarkFilter measures each filter on one strip of canvas rows (RGB).
func BenchmarkFilter(b *testing.B) {
	img := benchCanvases()["photo"]
	const rows = 64
	n := 3 * benchW
	raw := make([]byte, (rows+1)*n)
	for y := 0; y <= rows; y++ {
		rgbaToRGB(raw[y*n:(y+1)*n], img.Pix[(1000+y)*img.Stride:][:4*benchW])
	}
	dst := make([]byte, n+1)
	for _, f := range []struct {
		name string
		ft   byte
	}{{"none", ftNone}, {"sub", ftSub}, {"up", ftUp}, {"paeth", ftPaeth}} {
		b.Run("filter="+f.name, func(b *testing.B) {
			b.SetBytes(int64(rows * n))
			for b.Loop() {
				for y := 1; y <= rows; y++ {
					filterRow(dst, raw[y*n:(y+1)*n], raw[(y-1)*n:y*n], 3, f.ft)
				}
			}
		})
	}
}
