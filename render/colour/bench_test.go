package colour

import (
	"syscall"
	"testing"
	"time"
)

// cpuTime is the process's user+system CPU time. The machine the figures come from is
// shared, so wall time per op overstates the cost; benchmarks also report CPU time per
// op, which divided by the cores in use is the wall time on an idle machine.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N)/1e6, "cpu-ms/op")
}

// 20 MP: 5472 x 3648, a typical 20-megapixel frame.
const benchPixels = 5472 * 3648

func benchRaster() []byte { return xorshiftBytes(4*benchPixels, 1) }

// xorshiftBytes is n pseudo-random bytes (xorshift32 from seed): every pixel in a
// different grid cell.
func xorshiftBytes(n int, seed uint32) []byte {
	b := make([]byte, n)
	x := seed
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// BenchmarkConvertNRGBA20MP is the target: CMYK conversion of a 20 MP raster
// (grid already built). Run with -cpu 2.
func BenchmarkConvertNRGBA20MP(b *testing.B) { benchConvertWarm(b, benchRaster()) }

// BenchmarkConvertNRGBA20MPPhoto is the same on a photo-like raster (smooth gradients
// with noise), whose neighbouring pixels hit the same grid cells like real artwork;
// the random raster above is the cache-hostile worst case.
func BenchmarkConvertNRGBA20MPPhoto(b *testing.B) { benchConvertWarm(b, photoRaster()) }

// benchConvertWarm times ConvertNRGBA of src after one untimed conversion, which
// builds the grid and the tables of the steep cells src touches (every one, for a
// random raster: BenchmarkConvertNRGBA20MPCold measures that), as a worker's first
// jobs would.
func benchConvertWarm(b *testing.B, src []byte) {
	tr, err := NewSRGBToCMYK(debianProfile(b, "default_cmyk.icc"), Perceptual, true)
	if err != nil {
		b.Fatal(err)
	}
	dst := make([]byte, len(src))
	tr.ConvertNRGBA(dst, src)
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	start := cpuTime()
	for b.Loop() {
		tr.ConvertNRGBA(dst, src)
	}
	reportCPU(b, start)
}

// BenchmarkConvertNRGBA20MPCold is a new transform's first 20 MP random raster: the
// grid, the steep-cell search and the table of every steep cell (a random raster
// touches them all) built on the way; the worst first conversion a process pays.
func BenchmarkConvertNRGBA20MPCold(b *testing.B) {
	p := debianProfile(b, "default_cmyk.icc")
	src := benchRaster()
	dst := make([]byte, len(src))
	b.SetBytes(int64(len(src)))
	b.ResetTimer()
	start := cpuTime()
	for b.Loop() {
		tr, err := NewSRGBToCMYK(p, Perceptual, true)
		if err != nil {
			b.Fatal(err)
		}
		tr.ConvertNRGBA(dst, src)
	}
	reportCPU(b, start)
}

func photoRaster() []byte {
	const w, h = 5472, 3648
	src := make([]byte, 4*w*h)
	noise := benchRaster()
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			i := 4 * (y*w + x)
			n := int(noise[i]%16) - 8
			src[i] = clampByte(x*255/w + n)
			src[i+1] = clampByte(y*255/h + n)
			src[i+2] = clampByte((x+y)*255/(w+h) - n)
			src[i+3] = 255
		}
	}
	return src
}

func clampByte(v int) byte { return byte(min(max(v, 0), 255)) }

// BenchmarkGridBuild is the one-off cost of sampling the 33^3 grid from the exact
// pipeline and finding its steep cells (paid on the first ConvertNRGBA of a
// Transform; the steep cells' tables are built later, as pixels reach them).
func BenchmarkGridBuild(b *testing.B) {
	p := debianProfile(b, "default_cmyk.icc")
	start := cpuTime()
	for b.Loop() {
		tr, err := NewSRGBToCMYK(p, Perceptual, true)
		if err != nil {
			b.Fatal(err)
		}
		tr.BuildGrid()
	}
	reportCPU(b, start)
}

// BenchmarkNewTransform is profile-to-transform setup including black-point detection.
func BenchmarkNewTransform(b *testing.B) {
	p := debianProfile(b, "default_cmyk.icc")
	for b.Loop() {
		if _, err := NewSRGBToCMYK(p, RelativeColorimetric, true); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkExactCMYK is one vector colour through the exact pipeline.
func BenchmarkExactCMYK(b *testing.B) {
	tr, err := NewSRGBToCMYK(debianProfile(b, "default_cmyk.icc"), Perceptual, true)
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		tr.CMYK(200, 30, 60)
	}
}

// BenchmarkProofConvertCMYK20MP is the soft-proof direction on 20 MP.
func BenchmarkProofConvertCMYK20MP(b *testing.B) {
	pr, err := NewCMYKToSRGB(debianProfile(b, "default_cmyk.icc"), Perceptual)
	if err != nil {
		b.Fatal(err)
	}
	pr.BuildGrid()
	src := benchRaster()
	dst := make([]byte, len(src))
	b.ResetTimer()
	start := cpuTime()
	for b.Loop() {
		pr.ConvertCMYK(dst, src)
	}
	reportCPU(b, start)
}

// BenchmarkProofGridBuild is the one-off cost of the 17^4 proof grid.
func BenchmarkProofGridBuild(b *testing.B) {
	p := debianProfile(b, "default_cmyk.icc")
	start := cpuTime()
	for b.Loop() {
		pr, err := NewCMYKToSRGB(p, Perceptual)
		if err != nil {
			b.Fatal(err)
		}
		pr.BuildGrid()
	}
	reportCPU(b, start)
}
