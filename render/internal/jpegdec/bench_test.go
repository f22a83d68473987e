package jpegdec

import (
	"bytes"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"testing"

	"github.com/printworker/printworker/internal/testcpu"
)

// benchMedia is the benchmark references' media (testdata/bench at the module's root).
var benchMedia = filepath.Join("..", "..", "..", "testdata", "bench", "media")

// BenchmarkJPEGDecode: the reference photos decoded alone from memory by image/jpeg and
// by this package (docs/benchmarks.md, "JPEG decoding"): the T-shirt's 2000 x 2000
// photo whole and down to row 1697, the rows its render reads (the export box crops the
// rest), and the poster's 5100 x 7200 photo (written by go run ./bench/gen; skipped when
// absent), which its render reads whole. jpegdec's inverse DCT runs on a second
// goroutine: compare GOMAXPROCS=1 with GOMAXPROCS=2 set in the environment, one run
// each (-test.cpu 1,2 would measure its first entry at the default GOMAXPROCS, as
// for every b.Loop benchmark: docs/benchmarks.md, "How to read these figures").
func BenchmarkJPEGDecode(b *testing.B) {
	photos := []struct {
		name, file string
		rows       int
	}{
		{"tshirt", "be1c0000000000000000a001.jpg", 1697},
		{"poster", "be1c0000000000000000a004.jpg", 0},
	}
	decoders := []struct {
		name   string
		decode func(data []byte, rows int) (image.Image, error)
	}{
		{"image-jpeg", func(data []byte, _ int) (image.Image, error) { return jpeg.Decode(bytes.NewReader(data)) }},
		{"jpegdec", func(data []byte, _ int) (image.Image, error) { return Decode(bytes.NewReader(data)) }},
		{"jpegdec-rows", func(data []byte, rows int) (image.Image, error) {
			return DecodeRows(bytes.NewReader(data), rows)
		}},
	}
	for _, p := range photos {
		b.Run(p.name, func(b *testing.B) {
			data, err := os.ReadFile(filepath.Join(benchMedia, p.file))
			if os.IsNotExist(err) {
				b.Skipf("%s not generated (go run ./bench/gen)", p.file)
			}
			if err != nil {
				b.Fatal(err)
			}
			for _, d := range decoders {
				if d.name == "jpegdec-rows" && p.rows == 0 {
					continue
				}
				b.Run(d.name, func(b *testing.B) {
					b.ReportAllocs()
					start := testcpu.Time(b)
					for b.Loop() {
						if _, err := d.decode(data, p.rows); err != nil {
							b.Fatal(err)
						}
					}
					testcpu.PerOp(b, start)
				})
			}
		})
	}
}
