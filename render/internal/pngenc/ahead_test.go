package pngenc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"testing"
)

// Compressing strips ahead, whatever rows are declared final and in whatever order,
// writes the same bytes as encoding the finished image at once (translucent pixels:
// TestOpaqueDeclared).
func TestAheadSameBytes(t *testing.T) {
	const w, h, stripRows = 61, 100, 8 // 13 strips, the last one short
	type span struct{ y0, y1 int }
	for _, tc := range []struct {
		name  string
		spans []span
		// ahead: the number of strips expected compressed ahead.
		ahead int
	}{
		{"nothing final", nil, 0},
		{"everything at once", []span{{0, h}}, 13},
		{"top and bottom", []span{{0, 20}, {60, h}}, 2 + 5},
		// Strip 7 (rows 56..63) needs row 55 above it, which is not final.
		{"bottom from a strip's first row", []span{{56, h}}, 5},
		{"row by row, bottom up", func() (s []span) {
			for y := h - 1; y >= 0; y-- {
				s = append(s, span{y, y + 1})
			}
			return
		}(), 13},
		{"overlapping and out of range", []span{{-5, 30}, {10, 50}, {90, 200}, {40, 41}}, 6 + 1},
	} {
		for _, workers := range []int{1, 3} {
			t.Run(fmt.Sprintf("%s/workers=%d", tc.name, workers), func(t *testing.T) {
				img := noisy("rgba", w, h, "opaque", 11).(*image.RGBA)
				opt := Options{StripRows: stripRows, Workers: workers, DPI: 300}
				want := encodeBytes(t, img, opt)
				opt.Opaque = true

				a, err := NewAhead(img, opt)
				if err != nil {
					t.Fatal(err)
				}
				for _, s := range tc.spans {
					a.Final(s.y0, s.y1)
				}
				// What was compressed ahead, once the queue has drained.
				a.wg.Wait()
				a.mu.Lock()
				got := len(a.done)
				a.mu.Unlock()
				if got != tc.ahead {
					t.Errorf("%d strips compressed ahead, want %d", got, tc.ahead)
				}
				var buf bytes.Buffer
				if err := a.Encode(context.Background(), &buf); err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(buf.Bytes(), want) {
					t.Fatalf("Ahead wrote %d bytes differing from Encode's %d", buf.Len(), len(want))
				}
				decodeChecked(t, buf.Bytes())
			})
		}
	}
}

// A render that fails after rows were declared final discards the work ahead; a
// cancelled context or a failing writer ends Encode with their errors.
func TestAheadDiscardAndErrors(t *testing.T) {
	img := noisy("rgba", 40, 64, "opaque", 3).(*image.RGBA)
	if _, err := NewAhead(img, Options{StripRows: 4}); err == nil {
		t.Error("NewAhead of an image not declared opaque: no error")
	}
	opt := Options{StripRows: 4, Opaque: true}
	a, err := NewAhead(img, opt)
	if err != nil {
		t.Fatal(err)
	}
	a.Final(0, 64)
	a.Discard()
	a.Final(0, 64) // after Discard: ignored, starts nothing
	a.wg.Wait()
	if a.done != nil || a.running {
		t.Errorf("after Discard: %d strips held, running %v", len(a.done), a.running)
	}

	a, _ = NewAhead(img, opt)
	a.Final(0, 32)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := a.Encode(ctx, &bytes.Buffer{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Encode with a cancelled context: %v, want context.Canceled", err)
	}

	a, _ = NewAhead(img, opt)
	a.Final(0, 64)
	if err := a.Encode(context.Background(), &failingWriter{limit: 100, err: errors.New("disk full")}); err == nil {
		t.Error("Encode into a failing writer: no error")
	}

	if _, err := NewAhead(image.NewRGBA(image.Rect(0, 0, 0, 5)), opt); err == nil {
		t.Error("NewAhead of an empty image: no error")
	}
	if _, err := NewAhead(img, Options{Workers: -1, Opaque: true}); err == nil {
		t.Error("NewAhead with negative workers: no error")
	}
}

// Options.Opaque: an opaque *image.RGBA gives the bytes the scan would; a translucent
// pixel fails the encoding (never an RGB file that dropped it), compressed ahead or
// not; other image types ignore the declaration.
func TestOpaqueDeclared(t *testing.T) {
	img := noisy("rgba", 45, 70, "opaque", 5).(*image.RGBA)
	opt := Options{StripRows: 8}
	want := encodeBytes(t, img, opt)
	opt.Opaque = true
	if got := encodeBytes(t, img, opt); !bytes.Equal(got, want) {
		t.Error("declared opaque: bytes differ from the scanned encoding")
	}
	a, err := NewAhead(img, opt)
	if err != nil {
		t.Fatal(err)
	}
	a.Final(0, 30)
	var buf bytes.Buffer
	if err := a.Encode(context.Background(), &buf); err != nil || !bytes.Equal(buf.Bytes(), want) {
		t.Errorf("Ahead, declared opaque: err %v, same bytes %v", err, bytes.Equal(buf.Bytes(), want))
	}

	for _, row := range []int{0, 33, 69} {
		bad := noisy("rgba", 45, 70, "opaque", 5).(*image.RGBA)
		bad.Pix[bad.PixOffset(44, row)+3] = 0xfe
		var ie *InputError
		if err := Encode(&bytes.Buffer{}, bad, opt); !errors.As(err, &ie) {
			t.Errorf("translucent pixel in row %d: %v, want an *InputError", row, err)
		}
		a, _ := NewAhead(bad, opt)
		a.Final(0, 70)
		if err := a.Encode(context.Background(), &bytes.Buffer{}); !errors.As(err, &ie) {
			t.Errorf("Ahead, translucent pixel in row %d: %v, want an *InputError", row, err)
		}
	}

	nrgba := noisy("nrgba", 20, 20, "mixed", 2)
	if got, want := encodeBytes(t, nrgba, opt), encodeBytes(t, nrgba, Options{StripRows: 8}); !bytes.Equal(got, want) {
		t.Error("an *image.NRGBA declared opaque is not encoded as without the declaration")
	}
}
