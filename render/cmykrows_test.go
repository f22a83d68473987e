package render

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"os"
	"regexp"
	"testing"

	"github.com/printworker/printworker/model"
)

// TestCMYKPDFDecodesVisibleRows: a CMYK vector PDF decodes its JPEGs only down to the
// rows its page and thumbnail read (limitRowsCMYKPDF), and writes the same PDF and
// the same thumbnail as when they are decoded whole. The reference T-shirt's photo is
// cropped by its area at the bottom, so the limit must leave rows out.
func TestCMYKPDFDecodesVisibleRows(t *testing.T) {
	t.Parallel()
	b, err := os.ReadFile("../testdata/bench/designs/tshirt-front.json")
	if err != nil {
		t.Fatal(err)
	}
	var d model.DesignDetail
	if err := json.Unmarshal(b, &d); err != nil {
		t.Fatal(err)
	}
	for i := range d.Views {
		d.Views[i].Export.Type = model.ExportPDF
	}
	media := DirSource("../testdata/bench/media")
	p := testPrint(t, 3*72/25.4)
	for _, thumbs := range []int{0, DefaultThumbnailPx, 40} {
		r := newRenderer(t, Options{}).WithPrint(p).WithThumbnails(thumbs)
		ctx := context.Background()
		// Limited, as Render does.
		lim, err := r.PrepareView(ctx, &d, "front", media)
		if err != nil {
			t.Fatal(err)
		}
		r.limitRowsCMYKPDF(lim.scene, lim.pending)
		cut := false
		for _, pd := range lim.pending {
			cut = cut || (pd.kind == kindJPEG && pd.rows > 0 && pd.rows < pd.cfg.Height)
		}
		if !cut {
			t.Fatalf("thumbnails %d: no JPEG's rows limited", thumbs)
		}
		var got bytes.Buffer
		gotRes, err := lim.Render(ctx, &got)
		if err != nil {
			t.Fatal(err)
		}
		// Whole: decoded without a limit, then drawn as Render draws.
		whole, err := r.PrepareView(ctx, &d, "front", media)
		if err != nil {
			t.Fatal(err)
		}
		s := whole.scene
		if err := whole.decode(ctx); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		wantRes, err := r.renderScene(ctx, &d, s, &want)
		if err != nil {
			t.Fatal(err)
		}
		// The photo's own coverage, converted here: the reported maximum (pictures
		// join it once the document is written, afterPictures) includes it.
		var photo *Layer
		for i := range s.Layers {
			if s.Layers[i].Kind == LayerImage && s.Layers[i].Image.MimeType == kindJPEG {
				photo = &s.Layers[i]
			}
		}
		meter := r.inkMeter()
		if _, err := cmykRaw(ctx, subImage(photo.Image.Image, visiblePixels(photo)), false, meter, nil); err != nil {
			t.Fatal(err)
		}
		if gotRes.Colour.MaxInkPercent != wantRes.Colour.MaxInkPercent || gotRes.Colour.MaxInkPercent < meter.percent() {
			t.Errorf("thumbnails %d: max ink %v, decoded whole %v, the photo alone %v", thumbs, gotRes.Colour, wantRes.Colour, meter.percent())
		}
		t.Logf("max ink %v %%, the photo alone %v %%", gotRes.Colour.MaxInkPercent, meter.percent())
		if !bytes.Equal(boxOrderFree(got.Bytes()), boxOrderFree(want.Bytes())) {
			t.Errorf("thumbnails %d: the PDF differs from the whole picture's (%d and %d bytes)", thumbs, got.Len(), want.Len())
		}
		if (gotRes.Thumbnail == nil) != (thumbs == 0) {
			t.Fatalf("thumbnails %d: thumbnail %v", thumbs, gotRes.Thumbnail != nil)
		}
		if thumbs > 0 {
			g, w := gotRes.Thumbnail.(*image.RGBA), wantRes.Thumbnail.(*image.RGBA)
			if !bytes.Equal(g.Pix, w.Pix) {
				t.Errorf("thumbnails %d: the thumbnail differs from the whole picture's", thumbs)
			}
		}
	}
}

// boxOrderFree blanks what fpdf writes in an order of its own: a page's TrimBox and
// BleedBox lines come out in Go map order (fpdf keeps the boxes in a map), so the
// same document may differ in their order (the two lines together are the same
// length either way) and hence in its trailer /ID.
func boxOrderFree(pdf []byte) []byte {
	out := bytes.Clone(pdf)
	for _, re := range []*regexp.Regexp{
		regexp.MustCompile(`/(Trim|Bleed)Box \[[^\]]*\]\n/(Trim|Bleed)Box \[[^\]]*\]`),
		regexp.MustCompile(`/ID \[<[0-9a-f]+> <[0-9a-f]+>\]`),
	} {
		for _, m := range re.FindAllIndex(out, -1) {
			clear(out[m[0]:m[1]])
		}
	}
	return out
}
