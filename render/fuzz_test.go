package render

import (
	"bytes"
	"context"
	"errors"
	"strconv"
	"testing"

	"github.com/printworker/printworker/internal/printcheck"
	"github.com/printworker/printworker/model"
)

func formatFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// checkOutcome is what every render fuzzer asks of one render: a refusal is always an
// InputError, and a vector PDF that is written holds only numbers a reader takes,
// within pdfMaxNumber (no "Inf", "NaN" or 300-digit reals).
func checkOutcome(t *testing.T, typ string, out []byte, err error) {
	t.Helper()
	if err != nil {
		var ie *InputError
		if !errors.As(err, &ie) {
			t.Fatalf("error %v (%T) is not an InputError", err, err)
		}
		return
	}
	if typ == model.ExportPDF {
		if err := printcheck.Numbers(out, pdfMaxNumber); err != nil {
			t.Fatalf("vector PDF: %v", err)
		}
	}
}

// FuzzGeometry renders the pictures and text designs, as PNG and as vector PDF, with
// fuzzed positions, scales, rotations, font sizes, charSpacing and line heights: never
// a panic, a refusal is always an InputError, and a PDF written is well-formed.
func FuzzGeometry(f *testing.F) {
	f.Add(160.0, 50.0, 0.5, 30.0, 16.0, 0.0, 1.2)
	f.Add(-1e6, 1e6, 1e6, 1e9, 1e6, -1e6, 0.0)
	f.Add(1e300, -1e300, 1e-300, 360.0, 1e-300, 1e300, 1e-300)
	// Issue 32: scale, font size and line height of 1e308 put +Inf and NaN in the PDF.
	f.Add(0.0, 0.0, 1e308, 0.0, 1e308, 0.0, 1e308)
	f.Add(10.0, 10.0, 1e308, 1e308, 18.0, 1e308, 1.0)
	f.Add(-1e308, -1e308, 1e-308, -1e308, 1e5, -1e5, 1e5)
	f.Add(9e6, -9e6, 1e3, 45.0, 1e4, 100.0, 1e3)
	r := newRenderer(f, Options{})
	f.Fuzz(func(t *testing.T, x, y, scale, rot, size, spacing, lineHeight float64) {
		pd := loadDesign(t, "pictures.json")
		for i := range pd.Views[0].Elements {
			e := &pd.Views[0].Elements[i]
			if e.Type == "picture" {
				e.PositionX, e.PositionY, e.Scale, e.Rotation = &x, &y, &scale, &rot
			}
		}
		td := loadDesign(t, "text.json")
		for i := range td.Views[0].Elements {
			e := &td.Views[0].Elements[i]
			e.PositionX, e.PositionY, e.Rotation, e.Fontsize = &x, &y, &rot, &size
			e.CharSpacingRaw = []byte(formatFloat(spacing))
			e.LineHeightRaw = []byte(formatFloat(lineHeight))
		}
		for _, typ := range []string{model.ExportPNG, model.ExportPDF} {
			for _, c := range []struct {
				d    *model.DesignDetail
				view string
			}{{pd, "main"}, {td, "words"}} {
				c.d.Views[0].Export.Type = typ
				var buf bytes.Buffer
				_, err := r.RenderView(context.Background(), c.d, c.view, DirSource(mediaDir), &buf)
				checkOutcome(t, typ, buf.Bytes(), err)
			}
		}
	})
}

// FuzzIllustration renders an SVG illustration, as vector PDF and as PNG, with a
// fuzzed document: never a panic, a refusal is always an InputError, and a PDF written
// holds only numbers a reader takes.
func FuzzIllustration(f *testing.F) {
	for _, s := range [][]byte{
		hostileSVG("rotate(30) translate(5 5)", ""),
		// Issue 32's hostile transforms and strokes.
		hostileSVG("scale(1e308)", ""),
		hostileSVG("scale(1e308) scale(10)", ""),
		hostileSVG("scale(0) scale(1e308) scale(1e308)", ""),
		hostileSVG("translate(-1e300 -1e300)", ""),
		hostileSVG("matrix(1e308 1e308 -1e308 1e308 1e308 -1e308)", ""),
		hostileSVG("scale(1e-300)", `stroke-width="1e308"`),
		hostileSVG("", `stroke-miterlimit="1e308" stroke-dasharray="1e308 1e-308" stroke-dashoffset="-1e308"`),
		[]byte(`<svg xmlns="http://www.w3.org/2000/svg" width="1e308" height="1e308" viewBox="0 0 1e-308 1e-308"><circle r="1e308" fill="red"/></svg>`),
		[]byte(`<svg xmlns="http://www.w3.org/2000/svg" width="60" height="60"><text x="1e300" font-size="1e300" stroke="red" stroke-width="1e308">big<tspan dy="-1e308" x="NaN">dy</tspan></text><text transform="scale(1e308)" text-anchor="middle">AV</text></svg>`),
		[]byte(`<svg xmlns="http://www.w3.org/2000/svg" width="60" height="60"><g transform="scale(1e-9 1e9) skewX(89)"><path d="M0 0 L8e7 1e-9" stroke="red" stroke-width="4e-6" stroke-dasharray="1 2" fill="none"/></g></svg>`),
		[]byte(`<svg xmlns="http://www.w3.org/2000/svg" width="60" height="60"><clipPath id="c"><text>x</text><circle r="1e308"/></clipPath><g clip-path="url(#c)" transform="scale(1 1e-300)"><rect width="60" height="60" stroke="red" stroke-width="9"/></g></svg>`),
		[]byte(`<svg xmlns="http://www.w3.org/2000/svg" width="60" height="60"><linearGradient id="g" gradientTransform="scale(1e308)"><stop stop-color="red"/><stop offset="1"/></linearGradient><path d="M0 0 L1e300 1e300 L0 1e300 Z" fill="url(#g)"/></svg>`),
	} {
		f.Add(s)
	}
	r := newRenderer(f, Options{})
	f.Fuzz(func(t *testing.T, doc []byte) {
		for _, typ := range []string{model.ExportPDF, model.ExportPNG} {
			d, view, src := numberCase{svg: doc}.load(t, typ)
			var buf bytes.Buffer
			_, err := r.RenderView(context.Background(), d, view, src, &buf)
			checkOutcome(t, typ, buf.Bytes(), err)
		}
	})
}
