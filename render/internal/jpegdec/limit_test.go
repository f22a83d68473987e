package jpegdec

import (
	"bytes"
	"context"
	"errors"
	"github.com/printworker/printworker/internal/testctx"
	"image"
	"image/color"
	"image/jpeg"
	"testing"

	"go.uber.org/goleak"
)

// manyScans returns a progressive greyscale JPEG of w x h pixels (multiples of 8) with
// the given number of scans: a DC first scan at Al=1, then DC refinement scans of one
// bit a block, the "thousands of tiny refinement scans" a hostile file repeats (each
// costs a pass over every block however few bytes it has).
func manyScans(w, h, scans int) []byte {
	var b bytes.Buffer
	seg := func(marker byte, body ...byte) {
		b.Write([]byte{0xff, marker, byte((len(body) + 2) >> 8), byte(len(body) + 2)})
		b.Write(body)
	}
	b.Write([]byte{0xff, soiMarker})
	q := make([]byte, 65)
	for i := 1; i < 65; i++ {
		q[i] = 1
	}
	seg(dqtMarker, q...)
	seg(sof2Marker, 8, byte(h>>8), byte(h), byte(w>>8), byte(w), 1, 1, 0x11, 0)
	// DC table 0: one code, "0", for category 0 (a zero difference).
	dht := []byte{0x00, 1}
	dht = append(dht, make([]byte, 15)...)
	dht = append(dht, 0)
	seg(dhtMarker, dht...)
	blocks := (w / 8) * (h / 8)
	data := make([]byte, (blocks+7)/8) // one zero bit a block, both in the first scan and the refinements
	if blocks%8 != 0 {
		data[len(data)-1] = 0xff >> (blocks % 8) // padding bits are ones
	}
	seg(sosMarker, 1, 1, 0x00, 0, 0, 0x01) // Ss=0 Se=0 Ah=0 Al=1
	b.Write(data)
	for range scans - 1 {
		seg(sosMarker, 1, 1, 0x00, 0, 0, 0x10) // Ss=0 Se=0 Ah=1 Al=0
		b.Write(data)
	}
	b.Write([]byte{0xff, eoiMarker})
	return b.Bytes()
}

// TestManyScansDecodes checks the generated file is a JPEG image/jpeg decodes too, so
// the limit tests below refuse a valid file, not a broken one.
func TestManyScansDecodes(t *testing.T) {
	t.Parallel()
	data := manyScans(64, 64, 20)
	want, err := jpeg.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("image/jpeg: %v", err)
	}
	got, err := DecodeContext(context.Background(), bytes.NewReader(data), Options{MaxScans: 20})
	if err != nil {
		t.Fatal(err)
	}
	if d := sameImage(got, want); d != "" {
		t.Fatal(d)
	}
	if g, ok := got.(*image.Gray); !ok || g.At(3, 3) != (color.Gray{Y: 128}) {
		t.Fatalf("got %T %v, want mid grey", got, got.At(3, 3))
	}
}

// TestScanLimit: a file with more scans than the limit is refused when the scan past
// the limit begins, before a block of it is decoded; a file within the limit decodes.
func TestScanLimit(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name         string
		scans, limit int
		refused      bool
		decodedScans int
		startedScans int
	}{
		{"5000 scans, limit 100", 5000, 100, true, 100, 101},
		{"101 scans, limit 100", 101, 100, true, 100, 101},
		{"100 scans, limit 100", 100, 100, false, 100, 100},
		{"10 scans, no limit", 10, 0, false, 10, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			data := manyScans(64, 64, tc.scans)
			d := &decoder{pipeMin: pipeMinBlocks, ctx: context.Background(), maxScans: tc.limit}
			_, err := d.decode(bytes.NewReader(data), false)
			var se *ScanLimitError
			if got := errors.As(err, &se); got != tc.refused {
				t.Fatalf("err %v, refused %v", err, tc.refused)
			}
			if tc.refused && se.Limit != tc.limit {
				t.Errorf("limit %d named, want %d", se.Limit, tc.limit)
			}
			if !tc.refused && err != nil {
				t.Fatal(err)
			}
			if d.decoded != tc.decodedScans || d.scans != tc.startedScans {
				t.Errorf("decoded %d scans of %d begun, want %d of %d", d.decoded, d.scans, tc.decodedScans, tc.startedScans)
			}
		})
	}
}

// TestDecodeContextCancel: a decode whose context ends mid-way returns the context's
// error within one more check of it (one MCU row, or one scan), not at the end of the
// file; the sequential decoder's second goroutine is joined before it returns.
func TestDecodeContextCancel(t *testing.T) {
	big := func() []byte {
		img := image.NewGray(image.Rect(0, 0, 512, 512))
		for i := range img.Pix {
			img.Pix[i] = uint8(i * 7)
		}
		var b bytes.Buffer
		if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: 90}); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}()
	for _, tc := range []struct {
		name  string
		data  []byte
		after int64
	}{
		{"progressive, 5000 scans, no limit", manyScans(256, 256, 5000), 300},
		{"progressive, while transforming blocks", manyScans(256, 256, 3), 3*(1+32) + 5},
		{"sequential, mid-scan", big, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := testctx.CancelAt(tc.after)
			d := &decoder{pipeMin: 0, ctx: ctx}
			_, err := d.decode(bytes.NewReader(tc.data), false)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("err %v, want context.Canceled", err)
			}
			// Each goroutine stops at its next check: the progressive blocks are
			// transformed in two halves at once, so one more check may see the end.
			if n := ctx.Calls(); n < tc.after || n > tc.after+1 {
				t.Errorf("context checked %d times, want it to stop at check %d", n, tc.after)
			}
			// The inverse DCT goroutine (pipeMin 0: always) is joined.
			goleak.VerifyNone(t)
		})
	}
}

// FuzzDecodeContext: with a scan limit and a context that ends after a number of
// checks, hostile input neither panics nor decodes differently from image/jpeg when
// it completes, and a file with more scans than the limit is always refused.
func FuzzDecodeContext(f *testing.F) {
	f.Add(manyScans(64, 64, 5000), uint16(100), uint16(0))
	f.Add(manyScans(64, 64, 50), uint16(100), uint16(0))
	f.Add(manyScans(128, 64, 200), uint16(0), uint16(20))
	f.Add(manyScans(64, 64, 3), uint16(2), uint16(1))
	for _, data := range testFiles(f) {
		if len(data) < 30_000 {
			f.Add(data, uint16(3), uint16(0))
			f.Add(data, uint16(0), uint16(7))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, maxScans, cancelAfter uint16) {
		cfg, err := DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width*cfg.Height > 1e6 {
			return
		}
		ctx := context.Context(context.Background())
		if cancelAfter > 0 {
			ctx = testctx.CancelAt(int64(cancelAfter))
		}
		d := &decoder{pipeMin: 0, ctx: ctx, maxScans: int(maxScans)}
		got, err := d.decode(bytes.NewReader(data), false)
		if maxScans > 0 && d.decoded > int(maxScans) {
			t.Fatalf("decoded %d scans over the limit of %d", d.decoded, maxScans)
		}
		if err != nil {
			return
		}
		want, wantErr := jpeg.Decode(bytes.NewReader(data))
		if wantErr != nil {
			t.Fatalf("decoded, image/jpeg: %v", wantErr)
		}
		if diff := sameImage(got, want); diff != "" {
			t.Fatal(diff)
		}
	})
}
