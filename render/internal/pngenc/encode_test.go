package pngenc

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"hash/adler32"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"weak"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// decoded is what a PNG file says about itself besides its pixels.
type decoded struct {
	img       image.Image
	colorType byte
	ppm       uint32 // pHYs pixels per metre, 0 when absent
	idats     int
}

// decodeChecked decodes with image/png (which also verifies every CRC and the zlib
// Adler-32) and walks the chunk list for the header facts image/png does not expose.
func decodeChecked(t testing.TB, data []byte) decoded {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("image/png cannot decode the output: %v", err)
	}
	d := decoded{img: img}
	p := data[8:]
	for len(p) >= 12 {
		n := binary.BigEndian.Uint32(p)
		typ := string(p[4:8])
		body := p[8 : 8+n]
		switch typ {
		case "IHDR":
			d.colorType = body[9]
		case "pHYs":
			if body[8] != 1 || binary.BigEndian.Uint32(body) != binary.BigEndian.Uint32(body[4:]) {
				t.Errorf("pHYs %x: want equal x/y pixels per metre, unit 1", body)
			}
			d.ppm = binary.BigEndian.Uint32(body)
		case "IDAT":
			d.idats++
			if n > maxIDAT {
				t.Errorf("IDAT of %d bytes, want at most %d", n, maxIDAT)
			}
		}
		p = p[12+n:]
	}
	return d
}

// samePixels fails unless got holds exactly color.NRGBAModel.Convert of every pixel of
// want (got's bounds start at 0,0, want's may not).
func samePixels(t testing.TB, got, want image.Image) {
	t.Helper()
	wb := want.Bounds()
	if g := got.Bounds(); g.Dx() != wb.Dx() || g.Dy() != wb.Dy() {
		t.Fatalf("decoded size %v, want %v", g.Size(), wb.Size())
	}
	bad := 0
	for y := 0; y < wb.Dy(); y++ {
		for x := 0; x < wb.Dx(); x++ {
			g := color.NRGBAModel.Convert(got.At(x, y))
			w := color.NRGBAModel.Convert(want.At(wb.Min.X+x, wb.Min.Y+y))
			if g != w {
				if bad < 5 {
					t.Errorf("pixel (%d,%d): got %v, want %v", x, y, g, w)
				}
				bad++
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d pixels differ", bad)
	}
}

func encodeBytes(t testing.TB, img image.Image, opt Options) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, img, opt); err != nil {
		t.Fatalf("Encode: %v", err)
	}
	return buf.Bytes()
}

// noisy fills an image of the given type with deterministic pixels; alpha picks the
// opacity mix: "opaque", "mixed" (opaque, clear and translucent) or "clear".
func noisy(kind string, w, h int, alpha string, seed uint64) image.Image {
	r := rand.New(rand.NewPCG(seed, 7))
	a := func() uint8 {
		switch alpha {
		case "opaque":
			return 0xff
		case "clear":
			return 0
		}
		switch r.IntN(4) {
		case 0:
			return 0xff
		case 1:
			return 0
		}
		return uint8(r.IntN(256))
	}
	rect := image.Rect(0, 0, w, h)
	var img interface {
		image.Image
		Set(x, y int, c color.Color)
	}
	switch kind {
	case "rgba":
		img = image.NewRGBA(rect)
	case "nrgba":
		img = image.NewNRGBA(rect)
	case "gray":
		img = image.NewGray(rect)
	case "gray16":
		img = image.NewGray16(rect)
	case "rgba64":
		img = image.NewRGBA64(rect)
	case "nrgba64":
		img = image.NewNRGBA64(rect)
	case "paletted":
		img = image.NewPaletted(rect, color.Palette{
			color.NRGBA{1, 2, 3, 255}, color.NRGBA{200, 100, 50, 255}, color.NRGBA{9, 9, 9, a()}, color.NRGBA{},
		})
	default:
		panic(kind)
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			// Gradients plus noise, so every filter has something to do.
			c := color.NRGBA64{
				R: uint16(x*977 + r.IntN(2000)), G: uint16(y*1531 + r.IntN(5000)),
				B: uint16(r.Uint32()), A: uint16(a()) * 0x101,
			}
			if kind == "rgba64" && c.A != 0xffff && c.A != 0 {
				c.A += uint16(r.IntN(0xff)) // 16-bit alpha not on an 8-bit step
			}
			img.Set(x, y, c)
		}
	}
	return img
}

func TestEncodeRoundTrip(t *testing.T) {
	big := noisy("rgba", 300, 200, "opaque", 1).(*image.RGBA)
	tests := []struct {
		name      string
		img       image.Image
		opt       Options
		colorType byte
	}{
		{"1x1 opaque", noisy("rgba", 1, 1, "opaque", 2), Options{}, colorRGB},
		{"1x1 translucent", noisy("rgba", 1, 1, "mixed", 3), Options{}, colorRGBA},
		{"width 1", noisy("nrgba", 1, 57, "mixed", 4), Options{StripRows: 8}, colorRGBA},
		{"height 1", noisy("nrgba", 77, 1, "opaque", 5), Options{}, colorRGB},
		{"height below strip rows", noisy("rgba", 40, 30, "opaque", 6), Options{StripRows: 128}, colorRGB},
		{"rows not divisible by strips", noisy("rgba", 33, 101, "mixed", 7), Options{StripRows: 10, Workers: 3}, colorRGBA},
		{"strip of one row", noisy("rgba", 20, 13, "mixed", 8), Options{StripRows: 1, Workers: 4}, colorRGBA},
		{"fully transparent rgba", noisy("rgba", 50, 20, "clear", 9), Options{}, colorRGBA},
		{"fully transparent nrgba keeps colour", noisy("nrgba", 50, 20, "clear", 10), Options{}, colorRGBA},
		{"gray", noisy("gray", 65, 70, "opaque", 11), Options{StripRows: 16}, colorGray},
		{"gray16 to 8 bit", noisy("gray16", 65, 70, "opaque", 12), Options{StripRows: 16}, colorGray},
		{"rgba64 to 8 bit", noisy("rgba64", 31, 29, "mixed", 13), Options{StripRows: 7}, colorRGBA},
		{"nrgba64 opaque to 8 bit", noisy("nrgba64", 31, 29, "opaque", 14), Options{StripRows: 7}, colorRGB},
		{"paletted", noisy("paletted", 31, 29, "mixed", 15), Options{}, colorRGBA},
		{"sub-image with offset and wide stride", big.SubImage(image.Rect(17, 33, 211, 190)), Options{StripRows: 20}, colorRGB},
		{"sub-image nrgba", noisy("nrgba", 90, 90, "mixed", 16).(*image.NRGBA).SubImage(image.Rect(3, 5, 80, 71)), Options{StripRows: 9}, colorRGBA},
		{"sub-image gray", noisy("gray", 90, 90, "opaque", 17).(*image.Gray).SubImage(image.Rect(1, 80, 90, 90)), Options{StripRows: 3}, colorGray},
		{"one worker", big, Options{Workers: 1, StripRows: 16}, colorRGB},
		{"filter none", big, Options{Filter: FilterNone, StripRows: 64}, colorRGB},
		{"filter sub", big, Options{Filter: FilterSub, StripRows: 64}, colorRGB},
		{"filter up", big, Options{Filter: FilterUp, StripRows: 64}, colorRGB},
		{"filter paeth", big, Options{Filter: FilterPaeth, StripRows: 64}, colorRGB},
		{"huffman only", big, Options{Level: LevelHuffmanOnly}, colorRGB},
		{"level 9", big, Options{Level: 9, StripRows: 50}, colorRGB},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := decodeChecked(t, encodeBytes(t, tt.img, tt.opt))
			if d.colorType != tt.colorType {
				t.Errorf("colour type %d, want %d", d.colorType, tt.colorType)
			}
			if d.ppm != 0 {
				t.Errorf("pHYs written without DPI")
			}
			samePixels(t, d.img, tt.img)
		})
	}
}

func TestEncodeRGB(t *testing.T) {
	const w, h, stride = 37, 41, 37*3 + 5
	pix := make([]byte, (h-1)*stride+3*w) // the last row is not padded
	r := rand.New(rand.NewPCG(1, 2))
	want := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := color.NRGBA{uint8(r.IntN(256)), uint8(x), uint8(y), 0xff}
			copy(pix[y*stride+3*x:], []byte{c.R, c.G, c.B})
			want.SetNRGBA(x, y, c)
		}
	}
	var buf bytes.Buffer
	if err := EncodeRGB(context.Background(), &buf, pix, w, h, stride, Options{StripRows: 4, DPI: 300}); err != nil {
		t.Fatal(err)
	}
	d := decodeChecked(t, buf.Bytes())
	if d.colorType != colorRGB {
		t.Errorf("colour type %d, want 2", d.colorType)
	}
	samePixels(t, d.img, want)

	for _, bad := range []struct {
		name                  string
		pix                   []byte
		width, height, stride int
		opt                   Options
	}{
		{"short buffer", pix[:len(pix)-1], w, h, stride, Options{}},
		{"stride below row", pix, w, h, 3*w - 1, Options{}},
		{"zero height", pix, w, 0, stride, Options{}},
		{"bad options", pix, w, h, stride, Options{Filter: "avg"}},
	} {
		var out bytes.Buffer
		err := EncodeRGB(context.Background(), &out, bad.pix, bad.width, bad.height, bad.stride, bad.opt)
		var ie *InputError
		if !errors.As(err, &ie) || ie.Retryable() || out.Len() != 0 {
			t.Errorf("%s: got %v after %d bytes, want a non-retryable *InputError and no output", bad.name, err, out.Len())
		}
	}
}

func TestEncodePHYs(t *testing.T) {
	for _, tt := range []struct {
		dpi float64
		ppm uint32
	}{{300, 11811}, {72, 2835}, {600, 23622}, {0.5, 20}} {
		d := decodeChecked(t, encodeBytes(t, noisy("rgba", 3, 3, "opaque", 1), Options{DPI: tt.dpi}))
		if d.ppm != tt.ppm {
			t.Errorf("dpi %v: pHYs %d pixels per metre, want %d", tt.dpi, d.ppm, tt.ppm)
		}
	}
}

func TestEncodeSplitsLargeStripsIntoBoundedIDATs(t *testing.T) {
	// Noise compresses badly, so one strip of 1200x400 RGB is well over maxIDAT.
	img := noisy("rgba", 1200, 400, "opaque", 3)
	d := decodeChecked(t, encodeBytes(t, img, Options{StripRows: 400, Filter: FilterNone}))
	if d.idats < 3 { // at least two data chunks plus the trailer chunk
		t.Errorf("%d IDAT chunks, want the strip split", d.idats)
	}
	samePixels(t, d.img, img)
}

func TestEncodeRejectsBadInput(t *testing.T) {
	ok := noisy("rgba", 2, 2, "opaque", 1)
	tests := []struct {
		name string
		img  image.Image
		opt  Options
	}{
		{"empty image", image.NewRGBA(image.Rect(0, 0, 0, 5)), Options{}},
		{"level 10", ok, Options{Level: 10}},
		{"level -1", ok, Options{Level: -1}},
		{"negative workers", ok, Options{Workers: -1}},
		{"negative strip rows", ok, Options{StripRows: -2}},
		{"negative dpi", ok, Options{DPI: -300}},
		{"unknown filter", ok, Options{Filter: "average"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := Encode(&buf, tt.img, tt.opt)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Fatalf("got %v, want *InputError", err)
			}
			if ie.Retryable() || !strings.HasPrefix(err.Error(), "pngenc: ") {
				t.Errorf("error %q: want a non-retryable error naming the package", err)
			}
			if buf.Len() != 0 {
				t.Errorf("wrote %d bytes before refusing", buf.Len())
			}
		})
	}
}

// failingWriter accepts limit bytes, then fails.
type failingWriter struct {
	limit int
	err   error
}

func (f *failingWriter) Write(p []byte) (int, error) {
	if len(p) > f.limit {
		n := f.limit
		f.limit = 0
		return n, f.err
	}
	f.limit -= len(p)
	return len(p), nil
}

func TestEncodeStopsOnWriteErrorAndCancel(t *testing.T) {
	img := noisy("rgba", 200, 300, "opaque", 5)
	boom := errors.New("disk full")
	for _, limit := range []int{0, 10, 40, 5000, 50000} {
		err := Encode(&failingWriter{limit: limit, err: boom}, img, Options{StripRows: 8, Workers: 3})
		if !errors.Is(err, boom) {
			t.Errorf("limit %d: got %v, want the writer's error", limit, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := EncodeContext(ctx, &bytes.Buffer{}, img, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled context: got %v", err)
	}
	// Cancel once the header is out, while strips are in flight.
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	w := &cancelingWriter{after: 2, cancel: cancel}
	if err := EncodeContext(ctx, w, img, Options{StripRows: 4, Workers: 2}); !errors.Is(err, context.Canceled) {
		t.Errorf("canceled mid-way: got %v", err)
	}
	// goleak (TestMain) checks that no worker outlived the calls.
}

type cancelingWriter struct {
	after  int
	cancel func()
}

func (c *cancelingWriter) Write(p []byte) (int, error) {
	c.after--
	if c.after == 0 {
		c.cancel()
	}
	return len(p), nil
}

func TestAdler32(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	ff := bytes.Repeat([]byte{0xff}, 3<<20) // maximum sums across several reduction blocks
	for _, n := range []int{0, 1, 7, 8, 9, 63, 5552, 65521, 1 << 20, 1<<20 + 13, len(ff)} {
		p := make([]byte, n)
		for i := range p {
			p[i] = uint8(r.IntN(256))
		}
		for _, data := range [][]byte{p, ff[:n]} {
			if got, want := adlerSum(data), adler32.Checksum(data); got != want {
				t.Errorf("%d bytes: got %08x, want %08x", n, got, want)
			}
		}
	}
}

func TestAdler32Combine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 300000)
	for i := range data {
		data[i] = uint8(r.IntN(256))
	}
	data[len(data)-70000] = 0xff
	for _, split := range []int{0, 1, 5551, 5552, 65520, 65521, 65522, 150000, len(data) - 1, len(data)} {
		a, b := data[:split], data[split:]
		got := adler32Combine(adler32.Checksum(a), adler32.Checksum(b), int64(len(b)))
		if want := adler32.Checksum(data); got != want {
			t.Errorf("split at %d: got %08x, want %08x", split, got, want)
		}
	}
	// All-0xff input drives both sums to their maximum residues.
	ff := bytes.Repeat([]byte{0xff}, 200000)
	for _, split := range []int{1, 65521, 131042, 199999} {
		got := adler32Combine(adler32.Checksum(ff[:split]), adler32.Checksum(ff[split:]), int64(len(ff)-split))
		if want := adler32.Checksum(ff); got != want {
			t.Errorf("0xff split at %d: got %08x, want %08x", split, got, want)
		}
	}
}

func TestStdlibFlateProducesTheSameImage(t *testing.T) {
	// The benchmarks compare compress/flate with klauspost/compress/flate; both must
	// produce valid files through the same strip machinery.
	img := noisy("rgba", 120, 90, "mixed", 8)
	cfg, err := Options{StripRows: 16, Workers: 2}.resolve()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := encode(context.Background(), &buf, newSource(img, 2), cfg, stdFlate); err != nil {
		t.Fatal(err)
	}
	samePixels(t, decodeChecked(t, buf.Bytes()).img, img)
}

func TestEncodeAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop entries at random")
	}
	img := noisy("rgba", 400, 400, "opaque", 9)
	var buf bytes.Buffer
	allocs := testing.AllocsPerRun(5, func() {
		buf.Reset()
		if err := Encode(&buf, img, Options{StripRows: 16, Workers: 2}); err != nil {
			t.Fatal(err)
		}
	})
	// 25 strips: a result channel per strip, then a fixed set per call (goroutines,
	// scratch rows); nothing per row.
	t.Logf("%v allocations per Encode", allocs)
	if allocs > 50 {
		t.Errorf("%v allocations per Encode of 25 strips, want at most 50", allocs)
	}
}

func TestEncodeMemoryIsBoundedByStripsNotCanvas(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("needs a full print canvas and undisturbed pools")
	}
	// A 300-dpi T-shirt canvas (83 MB) of noisy pixels: the worst case for the strip
	// buffers, which are sized by the uncompressed strip.
	const w, h = 4167, 5000
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(11, 12))
	noise := make([]byte, 65521) // a prime period, so rows do not repeat
	for i := range noise {
		noise[i] = uint8(r.IntN(16))
	}
	for i := range img.Pix {
		img.Pix[i] = uint8(i/4%w/17) + noise[i%len(noise)]
		if i%4 == 3 {
			img.Pix[i] = 0xff
		}
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := Encode(io.Discard, img, Options{Workers: 2}); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	// Two workers' scratch and strips in flight plus the deflate writers: about 14 MB
	// with cold pools, independent of the canvas height.
	const limit = 24 << 20
	if got := after.TotalAlloc - before.TotalAlloc; got > limit {
		t.Errorf("Encode allocated %d MB for a %d MB canvas, want at most %d MB", got>>20, len(img.Pix)>>20, limit>>20)
	}
}

// TestEncodeReleasesPixels checks the encoder keeps no reference to the image's
// pixels once Encode returns: the pools it reuses must not pin a whole canvas.
func TestEncodeReleasesPixels(t *testing.T) {
	for _, opaque := range []bool{true, false} {
		img := image.NewRGBA(image.Rect(0, 0, 300, 700))
		for i := range img.Pix {
			img.Pix[i] = byte(i * 7)
			if i%4 == 3 && opaque {
				img.Pix[i] = 255
			}
		}
		pix := weak.Make(&img.Pix[0])
		if err := Encode(io.Discard, img, Options{Workers: 2, StripRows: 16}); err != nil {
			t.Fatal(err)
		}
		img = nil
		runtime.GC()
		if pix.Value() != nil {
			t.Fatalf("opaque=%v: the image's pixels are still reachable after Encode returned and one GC ran", opaque)
		}
	}
}
