package render

import (
	"bytes"
	"context"
	"encoding/json"
	"image/color"
	"image/png"
	"testing"

	"github.com/printworker/printworker/model"
)

// TestColorizeToColorKeepsAlpha: an illustration recoloured with an 8-digit hex,
// #00000066, is drawn 40% opaque black (alpha 0x66), as text and backgrounds keep
// their alpha, for SVG clipart and for raster clipart; #000000 stays opaque.
func TestColorizeToColorKeepsAlpha(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, element, colour string
		want                  uint8
	}{
		{"svg 8-digit", "tocolor", "#00000066", 0x66},
		{"svg 4-digit", "tocolor", "#0006", 0x66},
		{"svg opaque", "tocolor", "#000000", 0xff},
		{"raster 8-digit", "raster", "#00000066", 0x66},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d := loadDesign(t, "illustrations.json")
			v := &d.Views[0]
			var keep []model.Element
			for _, e := range v.Elements {
				if e.ID != tc.element {
					continue
				}
				e.ColorizeToColor, _ = json.Marshal(tc.colour)
				e.ColorizeRaw = json.RawMessage("false")
				e.Rotation, e.Scale = nil, nil
				keep = append(keep, e)
			}
			v.Elements = keep
			var buf bytes.Buffer
			if _, err := newRenderer(t, Options{}).RenderView(context.Background(), d, v.ID, DirSource("testdata/media"), &buf); err != nil {
				t.Fatal(err)
			}
			img, err := png.Decode(&buf)
			if err != nil {
				t.Fatal(err)
			}
			// Where one shape paints, the pixel is black at the colour's alpha; where two
			// overlap (the star's outline on its fill) at most 1-(1-a)^2: never opaque.
			at, most := 0, uint8(0)
			b := img.Bounds()
			for y := b.Min.Y; y < b.Max.Y; y++ {
				for x := b.Min.X; x < b.Max.X; x++ {
					c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
					most = max(most, c.A)
					if d := int(c.A) - int(tc.want); d >= -2 && d <= 2 && c.R <= 2 && c.G <= 2 && c.B <= 2 {
						at++
					}
				}
			}
			a := float64(tc.want) / 255
			if limit := int(255*(1-(1-a)*(1-a))) + 2; at < 100 || int(most) > limit {
				t.Errorf("%d pixels black at alpha %#x (want at least 100), most opaque alpha %#x (want at most %#x)", at, tc.want, most, limit)
			}
		})
	}
}
