package render

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/model"
)

// dieSVG is clipart with its own die line: a white disc marked id="cut" under a red
// square. Natural size 60 x 60 px; the disc is 56/120 of it in radius (28).
const dieSVG = `<svg xmlns="http://www.w3.org/2000/svg" width="60" height="60" viewBox="0 0 120 120">
  <g id="cut"><circle cx="60" cy="60" r="56" fill="#ffffff"/></g>
  <rect x="30" y="30" width="60" height="60" fill="#cc0000"/>
</svg>`

const dieDesign = `{"_id": "die", "name": "Die", "productId": "sticker", "_created": "2024-03-01T10:00:00Z",
 "views": [{"id": "v", "name": {"en": "V"}, "width": 200, "height": 150,
  "export": {"areaType": "template", "dpi": 144, "exportTemplate": false, "type": "pdf"},
  "elements": [{"id": "die", "type": "illustration", "weight": 0, "positionX": 100, "positionY": 75,
   "value": {"_id": "die", "originalname": "die.svg", "token": "t", "mimetype": "image/svg+xml", "size": 0, "meta": {"hasAlpha": true, "width": 60, "height": 60}}}]}]}`

// TestCutFromSVGID: a cut whose source is svg-id follows the marked element's own
// geometry, mapped to the page: Ghostscript's CutContour separation is a ring of
// the disc's 28 pt radius around its centre, with no warning; an id the clipart
// lacks falls back to the art's outline with a cut-contour warning.
func TestCutFromSVGID(t *testing.T) {
	t.Parallel()
	needTools(t, "gs")
	media := t.TempDir()
	must(t, os.WriteFile(filepath.Join(media, "die.svg"), []byte(dieSVG), 0o644))
	var d model.DesignDetail
	must(t, json.Unmarshal([]byte(dieDesign), &d))
	render := func(id string) ([]byte, *Result) {
		r := newRenderer(t, Options{}).WithPrint(&Print{Cut: &CutContour{Source: CutSourceSVGID, ID: id, HairlinePt: 0.5}})
		var buf bytes.Buffer
		res, err := r.RenderView(context.Background(), &d, "v", DirSource(media), &buf)
		if err != nil {
			t.Fatal(err)
		}
		return buf.Bytes(), res
	}
	const dpi = 144
	b, res := render("cut")
	for _, w := range res.Warnings {
		if w.Code == WarnCutContour {
			t.Errorf("warning %v: the element exists", w)
		}
	}
	p := tiffsepPlates(t, b, dpi, "CutContour")["CutContour"]
	var xs, ys []float64
	for y := p.Rect.Min.Y; y < p.Rect.Max.Y; y++ {
		for x := p.Rect.Min.X; x < p.Rect.Max.X; x++ {
			if p.GrayAt(x, y).Y >= 128 {
				xs, ys = append(xs, float64(x)+0.5), append(ys, float64(y)+0.5)
			}
		}
	}
	if len(xs) < 100 {
		t.Fatalf("%d cut pixels, want the ring", len(xs))
	}
	var cx, cy float64
	for i := range xs {
		cx, cy = cx+xs[i], cy+ys[i]
	}
	cx, cy = cx/float64(len(xs)), cy/float64(len(xs))
	px := dpi / 72.0
	if math.Abs(cx-100*px) > 2 || math.Abs(cy-75*px) > 2 {
		t.Errorf("ring centre (%.1f, %.1f) px, want the element's (%.1f, %.1f)", cx, cy, 100*px, 75*px)
	}
	want := 28 * px
	off := 0
	for i := range xs {
		if math.Abs(math.Hypot(xs[i]-cx, ys[i]-cy)-want) > 0.5*mmPt*px {
			off++
		}
	}
	if off > 0 {
		t.Errorf("%d of %d cut pixels off the %.1f px circle by more than 0.5 mm", off, len(xs), want)
	}

	b, res = render("nope")
	warned := false
	for _, w := range res.Warnings {
		warned = warned || (w.Code == WarnCutContour && strings.Contains(w.Message, `"nope"`))
	}
	if !warned {
		t.Errorf("warnings %v, want the missing element named", res.Warnings)
	}
	if components(tiffsepPlates(t, b, dpi, "CutContour")["CutContour"], 64) == 0 {
		t.Error("no fallback cut along the art's outline")
	}
}
