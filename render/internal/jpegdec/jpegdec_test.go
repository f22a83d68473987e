package jpegdec

import (
	"bytes"
	"fmt"
	"image"
	"image/jpeg"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// testFiles are the JPEGs the decoder is checked on: this package's testdata (Go's own
// image/jpeg test files, and the gen-*.jpg written by testdata/gen.c with libjpeg: odd
// sizes, 4:4:4, 4:2:2, 4:2:0, 4:4:0, 4:1:1, grey, RGB, Adobe CMYK and YCCK, restart
// markers, progressive), and every JPEG under the repository's testdata directories
// (the render fixtures, the hub simulator's, and the benchmark photos when generated).
func testFiles(t testing.TB) map[string][]byte {
	t.Helper()
	var names []string
	for _, pat := range []string{
		"testdata/*.jp*g",
		"../testdata/media/*.jpg",
		"../../hubsim/testdata/designs/media/*.jpg",
		"../../testdata/bench/media/*.jpg",
	} {
		m, err := filepath.Glob(pat)
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, m...)
	}
	files := map[string][]byte{}
	for _, n := range names {
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		files[n] = b
	}
	if len(files) < 40 {
		t.Fatalf("found only %d test JPEGs", len(files))
	}
	return files
}

// sameImage reports how got differs from want (type, bounds, layout and every byte), or "".
func sameImage(got, want image.Image) string {
	if reflect.TypeOf(got) != reflect.TypeOf(want) {
		return fmt.Sprintf("type %T, want %T", got, want)
	}
	if !reflect.DeepEqual(got, want) {
		return fmt.Sprintf("%T %v differs", got, got.Bounds())
	}
	return ""
}

// TestSameAsImageJPEG decodes every test file with image/jpeg and with this package,
// with the second goroutine always (pipeMin 0), never (-1) and by the default
// threshold, and wants the same image or the same error.
func TestSameAsImageJPEG(t *testing.T) {
	for name, data := range testFiles(t) {
		want, wantErr := jpeg.Decode(bytes.NewReader(data))
		for _, pipeMin := range []int{0, -1, pipeMinBlocks} {
			got, err := decodeWith(bytes.NewReader(data), 0, pipeMin)
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Errorf("%s pipeMin %d: error %v, image/jpeg's %v", name, pipeMin, err, wantErr)
				continue
			}
			if err != nil {
				continue
			}
			if d := sameImage(got, want); d != "" {
				t.Errorf("%s pipeMin %d: %s", name, pipeMin, d)
			}
		}
		cfg, err := DecodeConfig(bytes.NewReader(data))
		wantCfg, wantErr := jpeg.DecodeConfig(bytes.NewReader(data))
		if cfg != wantCfg || (err == nil) != (wantErr == nil) {
			t.Errorf("%s: DecodeConfig %+v %v, image/jpeg's %+v %v", name, cfg, err, wantCfg, wantErr)
		}
	}
}

// TestTruncated cuts every generated file at several lengths: both decoders fail the
// same way, or give the same image.
func TestTruncated(t *testing.T) {
	for name, data := range testFiles(t) {
		if len(data) > 200_000 {
			continue
		}
		for _, frac := range []int{1, 10, 33, 50, 90, 99} {
			cut := data[:len(data)*frac/100]
			want, wantErr := jpeg.Decode(bytes.NewReader(cut))
			got, err := decodeWith(bytes.NewReader(cut), 0, 0)
			if (err == nil) != (wantErr == nil) || (err != nil && err.Error() != wantErr.Error()) {
				t.Errorf("%s cut at %d%%: error %v, image/jpeg's %v", name, frac, err, wantErr)
				continue
			}
			if err == nil {
				if d := sameImage(got, want); d != "" {
					t.Errorf("%s cut at %d%%: %s", name, frac, d)
				}
			}
		}
	}
}

// TestDecodeRows wants the rows above the limit exactly as a whole decode gives them,
// and the image at its full bounds.
func TestDecodeRows(t *testing.T) {
	for name, data := range testFiles(t) {
		full, err := Decode(bytes.NewReader(data))
		if err != nil {
			continue // the broken fixtures; TestSameAsImageJPEG covers them
		}
		b := full.Bounds()
		if b.Dx()*b.Dy() > 1_000_000 {
			continue // the benchmark photos: too slow pixel by pixel under -race
		}
		for _, rows := range []int{1, 7, 8, 9, 16, 17, b.Dy() / 2, b.Dy() - 1, b.Dy(), b.Dy() + 5} {
			for _, pipeMin := range []int{0, -1} {
				got, err := decodeWith(bytes.NewReader(data), rows, pipeMin)
				if err != nil {
					t.Errorf("%s rows %d: %v", name, rows, err)
					continue
				}
				if reflect.TypeOf(got) != reflect.TypeOf(full) || got.Bounds() != b {
					t.Errorf("%s rows %d: %T %v, want %T %v", name, rows, got, got.Bounds(), full, b)
					continue
				}
				if rows >= b.Dy() {
					if d := sameImage(got, full); d != "" {
						t.Errorf("%s rows %d (all): %s", name, rows, d)
					}
					continue
				}
				if y := firstRowDiff(got, full, rows); y >= 0 {
					t.Errorf("%s rows %d: row %d differs", name, rows, y)
				}
			}
		}
	}
}

// firstRowDiff is the first of the top rows pixel rows where got and want (of the
// same type and bounds) differ, or -1, comparing the planes' bytes: for YCbCr, the
// chroma rows those rows use.
func firstRowDiff(got, want image.Image, rows int) int {
	same := func(a, b []byte, stride, y, n int) bool {
		return bytes.Equal(a[y*stride:][:n], b[y*stride:][:n])
	}
	w := got.Bounds().Dx()
	for y := range rows {
		switch g := got.(type) {
		case *image.YCbCr:
			f := want.(*image.YCbCr)
			hsub, vsub := 1, 1
			switch g.SubsampleRatio {
			case image.YCbCrSubsampleRatio422:
				hsub = 2
			case image.YCbCrSubsampleRatio420:
				hsub, vsub = 2, 2
			case image.YCbCrSubsampleRatio440:
				vsub = 2
			case image.YCbCrSubsampleRatio411:
				hsub = 4
			case image.YCbCrSubsampleRatio410:
				hsub, vsub = 4, 2
			}
			cw := (w + hsub - 1) / hsub
			if !same(g.Y, f.Y, g.YStride, y, w) || !same(g.Cb, f.Cb, g.CStride, y/vsub, cw) || !same(g.Cr, f.Cr, g.CStride, y/vsub, cw) {
				return y
			}
		case *image.Gray:
			if !same(g.Pix, want.(*image.Gray).Pix, g.Stride, y, w) {
				return y
			}
		case *image.CMYK:
			if !same(g.Pix, want.(*image.CMYK).Pix, g.Stride, y, 4*w) {
				return y
			}
		case *image.RGBA:
			if !same(g.Pix, want.(*image.RGBA).Pix, g.Stride, y, 4*w) {
				return y
			}
		default:
			panic(fmt.Sprintf("firstRowDiff: %T", got))
		}
	}
	return -1
}

// TestDecodeRowsStopsEarly shows that a single-scan sequential file is not read past
// the rows wanted: cut below them, it still decodes, the rows wanted intact.
func TestDecodeRowsStopsEarly(t *testing.T) {
	data, err := os.ReadFile("testdata/gen-420.jpg")
	if err != nil {
		t.Fatal(err)
	}
	full, err := Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	cut := data[:len(data)*6/10]
	if _, err := Decode(bytes.NewReader(cut)); err == nil {
		t.Fatal("the cut file decodes whole")
	}
	got, err := DecodeRows(bytes.NewReader(cut), 100)
	if err != nil {
		t.Fatalf("first 100 rows of a file cut at 60%%: %v", err)
	}
	for y := range 100 {
		for x := range full.Bounds().Dx() {
			if g, w := got.At(x, y), full.At(x, y); g != w {
				t.Fatalf("pixel %d,%d is %v, want %v", x, y, g, w)
			}
		}
	}
}

// FuzzDecode checks that hostile input neither panics nor leaves a goroutine behind,
// and decodes as image/jpeg does (same error or same image), with and without a row
// limit. Like image/jpeg's fuzz test it skips inputs over a megapixel.
func FuzzDecode(f *testing.F) {
	for _, data := range testFiles(f) {
		if len(data) < 100_000 {
			f.Add(data, uint16(0))
			f.Add(data, uint16(40))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, rows uint16) {
		cfg, err := DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width*cfg.Height > 1e6 {
			return
		}
		want, wantErr := jpeg.Decode(bytes.NewReader(data))
		got, err := decodeWith(bytes.NewReader(data), 0, 0)
		if (err == nil) != (wantErr == nil) {
			t.Fatalf("error %v, image/jpeg's %v", err, wantErr)
		}
		if err == nil {
			if d := sameImage(got, want); d != "" {
				t.Fatal(d)
			}
		}
		// Stopping early reads a prefix of what a whole decode reads: a file that
		// decodes whole decodes with a row limit too, to an image of the same type
		// and bounds.
		img, err := decodeWith(bytes.NewReader(data), int(rows), 0)
		if wantErr == nil && (err != nil || reflect.TypeOf(img) != reflect.TypeOf(want) || img.Bounds() != want.Bounds()) {
			t.Fatalf("rows %d: %T %v %v, whole %T %v", rows, img, err, boundsOf(img), want, want.Bounds())
		}
	})
}

func boundsOf(img image.Image) image.Rectangle {
	if img == nil {
		return image.Rectangle{}
	}
	return img.Bounds()
}
