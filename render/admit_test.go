package render

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/printworker/printworker/model"
)

// memSource serves media from memory by id.
type memSource map[string][]byte

func (m memSource) OpenMedia(_ context.Context, media model.Media) (io.ReadCloser, error) {
	b, ok := m[media.ID]
	if !ok {
		return nil, fmt.Errorf("no media %s", media.ID)
	}
	return io.NopCloser(bytes.NewReader(b)), nil
}

// onePicture is pictures.json's main view with one picture whose media object
// declares w x h in its meta, whatever the file holds.
func onePicture(t *testing.T, id string, w, h float64) *model.DesignDetail {
	t.Helper()
	d := loadDesign(t, "pictures.json")
	v := &d.Views[0]
	var keep []model.Element
	for _, e := range v.Elements {
		if e.ID == "topleft" {
			raw, _ := json.Marshal(map[string]any{"_id": id, "token": "t", "mimetype": "image/png",
				"meta": map[string]any{"width": w, "height": h}})
			e.Value = &model.Value{}
			if err := json.Unmarshal(raw, e.Value); err != nil {
				t.Fatal(err)
			}
			keep = append(keep, e)
		}
	}
	v.Elements = keep
	return d
}

func encodePNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The plan of a prepared view counts the media at the size their own headers give,
// in the decoder's layout, however small the design declares them: the memory budget
// admits that, never the declared size.
func TestPrepareMeasuresMediaByTheirHeaders(t *testing.T) {
	var jpg bytes.Buffer
	if err := jpeg.Encode(&jpg, image.NewYCbCr(image.Rect(0, 0, 2000, 1000), image.YCbCrSubsampleRatio444), nil); err != nil {
		t.Fatal(err)
	}
	exif, err := os.ReadFile("testdata/media/photo-exif6.jpg")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		file     []byte
		declW    float64
		declH    float64
		minBytes int64 // at least this is admitted
		maxBytes int64 // and at most this (the estimate is not absurd)
	}{
		// The first three declare a tiny picture (under 1000 px); the turned JPEG
		// declares its true pixel count, turned.
		{"8-bit RGBA PNG declared 200x200", encodePNG(t, image.NewNRGBA(image.Rect(0, 0, 3000, 2000))), 200, 200, 4 * 6e6, 5 * 6e6},
		{"16-bit PNG: 8 bytes a pixel, then the 8-bit copy", encodePNG(t, image.NewNRGBA64(image.Rect(0, 0, 1000, 800))), 10, 10, 12 * 8e5, 13 * 8e5},
		{"JPEG by its SOF", jpg.Bytes(), 20, 10, 3 * 2e6, 4 * 2e6},
		{"EXIF-rotated JPEG declared by its displayed size", exif, 100, 160, 3 * 160 * 100, 4*160*100 + int64(len(exif))},
	}
	r := newRenderer(t, Options{})
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d := onePicture(t, "m", tc.declW, tc.declH)
			declared, err := r.Plan(d, "main")
			if err != nil {
				t.Fatal(err)
			}
			if want := int64(4 * tc.declW * tc.declH); declared.SourceBytes != want {
				t.Fatalf("design plan counts %d source bytes, want the declared %d", declared.SourceBytes, want)
			}
			p, err := r.PrepareView(context.Background(), d, "main", memSource{"m": tc.file})
			if err != nil {
				t.Fatal(err)
			}
			got := p.Plan().SourceBytes
			if got < tc.minBytes || got > tc.maxBytes {
				t.Errorf("prepared plan counts %d source bytes, want %d..%d", got, tc.minBytes, tc.maxBytes)
			}
			if tc.declW*tc.declH < 1000 && p.Plan().PeakBytes() <= declared.PeakBytes() {
				t.Errorf("prepared peak %d not above the declared %d", p.Plan().PeakBytes(), declared.PeakBytes())
			}
			if _, err := p.Render(context.Background(), io.Discard); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// Nothing is decoded before Render: a prepared view holds headers and file bytes only.
func TestPrepareDecodesNothing(t *testing.T) {
	file := encodePNG(t, image.NewNRGBA(image.Rect(0, 0, 300, 200)))
	p, err := newRenderer(t, Options{}).PrepareView(context.Background(), onePicture(t, "m", 300, 200), "main", memSource{"m": file})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.pending) != 1 || p.pending[0].il.Image != nil {
		t.Fatalf("pending %+v: want one undecoded file", p.pending)
	}
	if _, err := p.Render(context.Background(), io.Discard); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Render(context.Background(), io.Discard); err == nil {
		t.Error("a prepared view rendered twice")
	}
}

// The decoder refuses an image larger than the header that was measured and admitted.
func TestDecodeRefusesMoreThanAdmitted(t *testing.T) {
	file := encodePNG(t, image.NewNRGBA(image.Rect(0, 0, 300, 200)))
	p := &pendingDecode{id: "m", kind: kindPNG, data: file, il: &ImageLayer{},
		cfg: image.Config{ColorModel: color.NRGBAModel, Width: 30, Height: 20}}
	err := p.decode(context.Background())
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "larger than its header") {
		t.Fatalf("err = %v, want an InputError for decoding beyond the header", err)
	}
	if p.il.Image != nil {
		t.Error("the oversized image was kept")
	}
}

func TestJPEGProgressive(t *testing.T) {
	sof := func(marker byte) []byte {
		return []byte{0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, 0x00, 0x00, 0xff, marker, 0x00, 0x02}
	}
	for _, tc := range []struct {
		data []byte
		want bool
	}{
		{sof(0xc0), false}, {sof(0xc1), false}, {sof(0xc2), true}, {sof(0xca), true},
		{[]byte{0xff, 0xd8, 0xff, 0xda}, false}, {[]byte("not a jpeg"), false}, {[]byte{0xff, 0xd8, 0xff, 0xe0, 0x00}, false},
	} {
		if got := jpegProgressive(tc.data); got != tc.want {
			t.Errorf("jpegProgressive(% x) = %v, want %v", tc.data, got, tc.want)
		}
	}
}

// FuzzMeasureMedia: any bytes are measured without a panic, and an accepted raster
// file is never counted at less than its own size.
func FuzzMeasureMedia(f *testing.F) {
	for _, name := range []string{"photo.jpg", "photo-exif6.jpg", "deep16.png", "interlaced.png", "anim.gif", "lossy.webp"} {
		b, err := os.ReadFile("testdata/media/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte{0xff, 0xd8, 0xff, 0xc2, 0x00, 0x02})
	r := newRenderer(f, Options{MaxSourcePixels: 1 << 20})
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = jpegProgressive(data)
		_, p, err := r.measureMedia(data, model.Media{ID: "m"}, "")
		if err != nil || p == nil {
			return
		}
		if p.bytes < int64(len(data)) {
			t.Fatalf("counted %d bytes for a %d-byte file", p.bytes, len(data))
		}
	})
}

// A picture whose header reads but whose pixels do not fails the render with an
// InputError naming the view, though it is decoded while the canvas is prepared (a
// raster) or while the page is made and the picture already registered (a CMYK PDF,
// cmykImage), with the same error from the sRGB PDF, which decodes first.
func TestRenderReportsDecodeErrorOfAPicture(t *testing.T) {
	full, err := os.ReadFile("testdata/media/photo.jpg")
	if err != nil {
		t.Fatal(err)
	}
	cut := full[:len(full)/2]
	for _, tc := range []struct {
		name, typ string
		print     *Print
	}{
		{"png", model.ExportPNG, nil},
		{"pdf", model.ExportPDF, nil},
		{"cmyk-pdf", model.ExportPDF, testPrint(t, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := onePicture(t, "m", 300, 200)
			for i := range d.Views {
				d.Views[i].Export.Type = tc.typ
			}
			p, err := newRenderer(t, Options{}).WithPrint(tc.print).PrepareView(context.Background(), d, "main", memSource{"m": cut})
			if err != nil {
				t.Fatal(err)
			}
			_, err = p.Render(context.Background(), io.Discard)
			var ie *InputError
			if !errors.As(err, &ie) || ie.ViewID != "main" || !strings.Contains(err.Error(), "cannot decode") {
				t.Fatalf("err = %v, want an InputError of view main for the undecodable picture", err)
			}
		})
	}
}
