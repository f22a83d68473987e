package pngenc

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"testing"
)

// TestEncodeNRGBARows: rows given on demand decode to exactly those rows, for strip
// sizes that do and do not divide the height.
func TestEncodeNRGBARows(t *testing.T) {
	for _, strip := range []int{1, 7, 128} {
		w, h := 37, 101
		want := image.NewNRGBA(image.Rect(0, 0, w, h))
		for i := range want.Pix {
			want.Pix[i] = byte(i*7 + i/13)
		}
		row := func(y int, dst []byte) {
			copy(dst, want.Pix[y*want.Stride:y*want.Stride+4*w])
		}
		var buf bytes.Buffer
		if err := EncodeNRGBARows(context.Background(), &buf, w, h, row, Options{StripRows: strip, Workers: 3}); err != nil {
			t.Fatal(err)
		}
		got, err := png.Decode(&buf)
		if err != nil {
			t.Fatal(err)
		}
		n, ok := got.(*image.NRGBA)
		if !ok || !bytes.Equal(n.Pix, want.Pix) {
			t.Fatalf("strip %d: decoded %T differs", strip, got)
		}
	}
	if err := EncodeNRGBARows(context.Background(), &bytes.Buffer{}, 0, 5, func(int, []byte) {}, Options{}); err == nil {
		t.Fatal("zero width accepted")
	}
}
