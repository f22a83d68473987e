// Command imgdiff compares two images of the same size, so the benchmark can show that
// the peers drew the same picture as printworker (bench/peers.sh):
//
//	go run ./bench/imgdiff reference.png other.png
//
// It prints the mean absolute difference per 8-bit channel (RGB, after compositing both
// over white), the share of pixels differing by more than 32 levels in some channel,
// and the PSNR in dB. Antialiasing, resampling kernels and text hinting differ between
// renderers, so small differences are expected; a misplaced layer shows as a large
// share of differing pixels.
package main

import (
	"errors"
	"fmt"
	"image"
	_ "image/jpeg"
	_ "image/png"
	"math"
	"os"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: imgdiff A B")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "imgdiff:", err)
		os.Exit(1)
	}
}

func load(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, _, err := image.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return img, nil
}

func run(pa, pb string) error {
	a, err := load(pa)
	if err != nil {
		return err
	}
	b, err := load(pb)
	if err != nil {
		return err
	}
	ab, bb := a.Bounds(), b.Bounds()
	if ab.Dx() != bb.Dx() || ab.Dy() != bb.Dy() {
		return errors.New("sizes differ: " + ab.Size().String() + " vs " + bb.Size().String())
	}
	var sum, sq float64
	var far int
	for y := range ab.Dy() {
		for x := range ab.Dx() {
			ca, cb := overWhite(a, ab.Min.X+x, ab.Min.Y+y), overWhite(b, bb.Min.X+x, bb.Min.Y+y)
			big := false
			for i := range 3 {
				d := math.Abs(ca[i] - cb[i])
				sum += d
				sq += d * d
				big = big || d > 32
			}
			if big {
				far++
			}
		}
	}
	n := float64(ab.Dx() * ab.Dy() * 3)
	psnr := math.Inf(1)
	if sq > 0 {
		psnr = 10 * math.Log10(255*255/(sq/n))
	}
	fmt.Printf("mean |diff| %.2f levels, %.2f%% pixels differ by > 32, PSNR %.1f dB\n",
		sum/n, 100*float64(far)/float64(ab.Dx()*ab.Dy()), psnr)
	return nil
}

// overWhite returns the pixel's RGB in 0..255 composited over white.
func overWhite(img image.Image, x, y int) [3]float64 {
	r, g, b, al := img.At(x, y).RGBA() // premultiplied, 16-bit
	bg := float64(0xffff - al)
	return [3]float64{(float64(r) + bg) / 257, (float64(g) + bg) / 257, (float64(b) + bg) / 257}
}
