package render

import (
	"errors"
	"image"
	"os"
	"testing"

	"github.com/printworker/printworker/model"
)

// Every accepted source format decodes to its natural size, into a pixel type the
// resampler reads directly; anything else is an InputError.
func TestDecodeFormats(t *testing.T) {
	r := newRenderer(t, Options{})
	tests := []struct {
		file       string
		w, h       float64
		kind       string
		alpha, svg bool
	}{
		{file: "photo.jpg", w: 160, h: 100, kind: kindJPEG},
		{file: "photo-exif6.jpg", w: 100, h: 160, kind: kindJPEG},
		{file: "rgba.png", w: 64, h: 64, kind: kindPNG, alpha: true},
		{file: "deep16.png", w: 48, h: 32, kind: kindPNG, alpha: true},
		{file: "palette.png", w: 32, h: 32, kind: kindPNG},
		{file: "interlaced.png", w: 64, h: 64, kind: kindPNG, alpha: true},
		{file: "anim.gif", w: 32, h: 32, kind: kindGIF},
		{file: "lossy.webp", w: 150, h: 100, kind: kindWebP},
		{file: "star.svg", w: 60, h: 60, svg: true},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			data, err := os.ReadFile("testdata/media/" + tc.file)
			if err != nil {
				t.Fatal(err)
			}
			s, err := r.decodeMedia(data, model.Media{ID: tc.file}, "")
			if err != nil {
				t.Fatal(err)
			}
			if w, h := s.size(); w != tc.w || h != tc.h {
				t.Errorf("natural size %gx%g, want %gx%g", w, h, tc.w, tc.h)
			}
			if tc.svg {
				if s.doc == nil {
					t.Error("not decoded as SVG")
				}
				return
			}
			if s.img.MimeType != tc.kind || s.img.HasAlpha != tc.alpha || len(s.img.Data) != len(data) {
				t.Errorf("kind %s alpha %v data %d bytes, want %s %v %d", s.img.MimeType, s.img.HasAlpha, len(s.img.Data), tc.kind, tc.alpha, len(data))
			}
			switch s.img.Image.(type) {
			case *image.RGBA, *image.NRGBA, *image.YCbCr, *image.Gray:
			default:
				t.Errorf("decoded to %T", s.img.Image)
			}
		})
	}
	var ie *InputError
	if _, err := r.decodeMedia([]byte("%PDF-1.4 not an image"), model.Media{ID: "doc", MimeType: "application/pdf"}, ""); !errors.As(err, &ie) {
		t.Errorf("a PDF upload: err = %v, want an InputError", err)
	}
	if _, err := r.decodeMedia([]byte("\x89PNG\r\n\x1a\ntruncated"), model.Media{ID: "bad"}, ""); !errors.As(err, &ie) {
		t.Errorf("a truncated PNG: err = %v, want an InputError", err)
	}
}

// Recolouring raster clipart keeps each pixel's alpha and drops the pass-through bytes.
func TestTintKeepsAlpha(t *testing.T) {
	data, err := os.ReadFile("testdata/media/rgba.png")
	if err != nil {
		t.Fatal(err)
	}
	r := newRenderer(t, Options{})
	plain, _ := r.decodeMedia(data, model.Media{ID: "rgba"}, "")
	tinted, err := r.decodeMedia(data, model.Media{ID: "rgba"}, "#0080ff")
	if err != nil {
		t.Fatal(err)
	}
	if tinted.img.Data != nil {
		t.Error("recoloured image still offers the original bytes for pass-through")
	}
	p, q := plain.img.Image.(*image.NRGBA), tinted.img.Image.(*image.NRGBA)
	for i := 0; i < len(p.Pix); i += 4 {
		if q.Pix[i+3] != p.Pix[i+3] || (q.Pix[i+3] != 0 && (q.Pix[i] != 0 || q.Pix[i+1] != 0x80 || q.Pix[i+2] != 0xff)) {
			t.Fatalf("pixel %d: %v from %v", i/4, q.Pix[i:i+4], p.Pix[i:i+4])
		}
	}
}
