package render

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/printworker/printworker/internal/imgcheck"
	"github.com/printworker/printworker/internal/printcheck"
	"github.com/printworker/printworker/model"
)

// hostileSVG is a document whose one shape carries attrs inside a group with the
// transform tr.
func hostileSVG(tr, attrs string) []byte {
	return []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="60" height="60"><g transform="` + tr +
		`"><rect x="1" y="1" width="10" height="10" fill="#f00" stroke="#000" stroke-width="1" ` + attrs + `/></g></svg>`)
}

// numberCase is a design made hostile (or near the limits) in one way: an SVG
// illustration (svg set), the text design or the pictures design changed by mutate.
type numberCase struct {
	name   string
	svg    []byte
	design string
	mutate func(e *model.Element)
	elem   string // the element the error must name
	want   string // in the error
}

// load returns the case's design, view and media.
func (tc numberCase) load(t testing.TB, typ string) (*model.DesignDetail, string, MediaSource) {
	t.Helper()
	var d *model.DesignDetail
	var view string
	var src MediaSource = DirSource(mediaDir)
	switch {
	case tc.svg != nil:
		d, view = loadDesign(t, "illustrations.json"), "art"
		d.Views[0].Elements = d.Views[0].Elements[:1] // "plain", the star
		src = memSource{"star": tc.svg}
	case tc.design == "pictures.json":
		d, view = loadDesign(t, tc.design), "main"
	default:
		d, view = loadDesign(t, "text.json"), "words"
	}
	for i := range d.Views[0].Elements {
		if e := &d.Views[0].Elements[i]; tc.mutate != nil && e.ID == tc.elem {
			tc.mutate(e)
		}
	}
	d.Views[0].Export.Type = typ
	return d, view, src
}

// The hostile numbers of issue 32: an element whose font size, line height,
// charSpacing, scale, position or SVG transform makes its geometry infinite, NaN or
// absurd is a permanent InputError naming the element, in every output type, and
// nothing is written (before, the vector PDF held "+Inf", "NaN" and 300-digit reals
// and the PNG came out blank, both reported as success).
func TestHostileNumbersRefused(t *testing.T) {
	t.Parallel()
	cases := []numberCase{
		{name: "svg scale 1e308", svg: hostileSVG("scale(1e308)", ""), elem: "plain", want: "+Inf"},
		{name: "svg scale 1e200", svg: hostileSVG("scale(1e200)", ""), elem: "plain", want: "not a number a print file holds"},
		{name: "svg scale 1e9", svg: hostileSVG("scale(1e9)", ""), elem: "plain", want: "not a number a print file holds"},
		{name: "svg inf times zero", svg: hostileSVG("scale(1e308) scale(10)", ""), elem: "plain", want: "NaN"},
		{name: "svg huge negative translate", svg: hostileSVG("translate(-1e300 -1e300)", ""), elem: "plain", want: "path coordinate"},
		{name: "svg matrix", svg: hostileSVG("matrix(1e308 1e308 -1e308 1e308 1e308 -1e308)", ""), elem: "plain", want: "not a number"},
		{name: "svg stroke width", svg: hostileSVG("", `stroke-width="1e308"`), elem: "plain", want: "stroke width"},
		{name: "svg miter limit", svg: hostileSVG("", `stroke-miterlimit="1e308"`), elem: "plain", want: "miter limit"},
		{name: "svg dash", svg: hostileSVG("", `stroke-dasharray="1e308 1"`), elem: "plain", want: "dash"},
		{name: "svg coordinates", svg: []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="60" height="60"><path d="M0 0 L1e300 1e300 L0 1e300 Z" fill="#00f"/></svg>`),
			elem: "plain", want: "path coordinate"},
		{name: "illustration scale", svg: hostileSVG("", ""), elem: "plain",
			mutate: func(e *model.Element) { e.Scale = ptr(1e308) }, want: "not a number"},
		// Small on the page, but a transform the PDF writes (y up) as a 6e8 pt translation.
		{name: "svg tiny document hugely scaled and turned",
			svg:  []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="0.000001" height="0.000001" viewBox="0 0 1 1"><rect width="1" height="1" fill="red"/></svg>`),
			elem: "plain", mutate: func(e *model.Element) { e.Scale, e.Rotation = ptr(5e6), ptr(90.0) }, want: "transform"},
		{name: "picture scale 1e308", design: "pictures.json", elem: "topleft",
			mutate: func(e *model.Element) { e.Scale = ptr(1e308) }, want: "not a number"},
		{name: "picture huge negative position", design: "pictures.json", elem: "topleft",
			mutate: func(e *model.Element) { e.PositionX, e.PositionY = ptr(-1e308), ptr(-1e308) }, want: "transform -1e+308"},
		{name: "font size 1e308", design: "text.json", elem: "centered",
			mutate: func(e *model.Element) { e.Fontsize = ptr(1e308) }, want: "font size 1e+308"},
		{name: "font size over the cap", design: "text.json", elem: "centered",
			mutate: func(e *model.Element) { e.Fontsize = ptr(MaxFontSize * 2) }, want: "font size 2e+05 is outside"},
		{name: "line height 1e308", design: "text.json", elem: "centered",
			mutate: func(e *model.Element) { e.LineHeightRaw = []byte("1e308") }, want: "line height 1e+308"},
		{name: "line height times font size", design: "text.json", elem: "centered",
			mutate: func(e *model.Element) { e.LineHeightRaw, e.Fontsize = []byte("1e4"), ptr(1e4) }, want: "line height 1e+04"},
		{name: "charSpacing 1e308", design: "text.json", elem: "centered",
			mutate: func(e *model.Element) { e.CharSpacingRaw = []byte("1e308") }, want: "charSpacing 1e+308"},
		{name: "charSpacing huge negative", design: "text.json", elem: "centered",
			mutate: func(e *model.Element) { e.CharSpacingRaw = []byte("-1e300") }, want: "charSpacing -1e+300"},
		{name: "text huge negative position", design: "text.json", elem: "centered",
			mutate: func(e *model.Element) { e.PositionX = ptr(-1e300) }, want: "transform -1e+300"},
		{name: "text far off the page", design: "text.json", elem: "centered",
			mutate: func(e *model.Element) { e.PositionY = ptr(2e7) }, want: "not a number"},
	}
	r := newRenderer(t, Options{})
	for _, tc := range cases {
		for _, typ := range []string{model.ExportPNG, model.ExportPDF, model.ExportPDFSimple} {
			t.Run(tc.name+"/"+typ, func(t *testing.T) {
				t.Parallel()
				d, view, src := tc.load(t, typ)
				var buf bytes.Buffer
				_, err := r.RenderView(context.Background(), d, view, src, &buf)
				var ie *InputError
				if !errors.As(err, &ie) {
					t.Fatalf("err = %v (%T), want *InputError; wrote %d bytes", err, err, buf.Len())
				}
				if ie.Retryable() || ie.ElementID != tc.elem || ie.ViewID != view {
					t.Errorf("err = %v: retryable %v, element %q view %q; want permanent, element %q view %q",
						err, ie.Retryable(), ie.ElementID, ie.ViewID, tc.elem, view)
				}
				if !strings.Contains(err.Error(), tc.want) {
					t.Errorf("err = %q, want it to contain %q", err, tc.want)
				}
				if buf.Len() != 0 {
					t.Errorf("wrote %d bytes before failing", buf.Len())
				}
			})
		}
	}
}

// Values large but within the range render, and the PDF holds only numbers a reader
// takes: qpdf finds no error, poppler rasterizes the page without a complaint, and
// every content stream number is within pdfMaxNumber.
func TestNumbersNearTheLimitsWellFormed(t *testing.T) {
	t.Parallel()
	cases := []numberCase{
		{name: "svg scale 1e4", svg: hostileSVG("scale(1e4)", "")},
		{name: "svg tiny scale", svg: hostileSVG("scale(1e-300)", "")},
		{name: "svg inf then zero", svg: hostileSVG("scale(0) scale(1e308) scale(1e308)", "")},
		{name: "text font size 1e4", design: "text.json", elem: "centered", mutate: func(e *model.Element) { e.Fontsize = ptr(1e4) }},
		{name: "text far left", design: "text.json", elem: "centered", mutate: func(e *model.Element) { e.PositionX = ptr(-9e6) }},
		{name: "text line height 1000", design: "text.json", elem: "centered", mutate: func(e *model.Element) { e.LineHeightRaw = []byte("1000") }},
		{name: "picture scale 1000", design: "pictures.json", elem: "topleft", mutate: func(e *model.Element) { e.Scale = ptr(1000.0) }},
	}
	r := newRenderer(t, Options{})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			d, view, src := tc.load(t, model.ExportPDF)
			var buf bytes.Buffer
			if _, err := r.RenderView(context.Background(), d, view, src, &buf); err != nil {
				t.Fatal(err)
			}
			if err := printcheck.Numbers(buf.Bytes(), pdfMaxNumber); err != nil {
				t.Error(err)
			}
			printcheck.PDF(t, tc.name, buf.Bytes())
			checkPopplerReads(t, buf.Bytes())
		})
	}
}

// checkPopplerReads rasterizes a PDF with pdftoppm and fails on any message from it
// (poppler reports "Syntax Error: ... Unknown operator 'Inf'" and goes on).
func checkPopplerReads(t *testing.T, b []byte) {
	t.Helper()
	tool := imgcheck.Tool(t, "pdftoppm", "apt-get install poppler-utils")
	dir := t.TempDir()
	p := filepath.Join(dir, "in.pdf")
	must(t, os.WriteFile(p, b, 0o600))
	out, err := exec.Command(tool, "-r", "10", "-png", "-singlefile", p, filepath.Join(dir, "out")).CombinedOutput()
	if err != nil || len(bytes.TrimSpace(out)) > 0 {
		t.Errorf("pdftoppm: %v\n%s", err, out)
	}
}

// The vector PDF writer checks each layer itself before writing it: a scene changed
// after its build (or built by a future path that forgets the check) still cannot put
// a number outside the range into the file.
func TestPDFWriterRefusesNumbers(t *testing.T) {
	t.Parallel()
	r := newRenderer(t, Options{})
	for _, bad := range []float64{math.Inf(1), math.NaN(), -1e300, 2 * maxCoord} {
		d := loadDesign(t, "text.json")
		d.Views[0].Export.Type = model.ExportPDF
		s, err := r.BuildScene(context.Background(), d, "words", DirSource(mediaDir))
		if err != nil {
			t.Fatal(err)
		}
		s.Layers[0].Text.Lines[0].Baseline = bad
		var buf bytes.Buffer
		_, err = r.renderScene(context.Background(), d, s, &buf)
		var ie *InputError
		if !errors.As(err, &ie) || ie.ElementID != s.Layers[0].ElementID || !strings.Contains(err.Error(), "baseline") {
			t.Errorf("baseline %v: err = %v, want an InputError about element %s's baseline", bad, err, s.Layers[0].ElementID)
		}
		if buf.Len() != 0 {
			t.Errorf("baseline %v: wrote %d bytes", bad, buf.Len())
		}
	}
}

// A page longer than the range is refused by the plan, whatever the type.
func TestPageBeyondRange(t *testing.T) {
	t.Parallel()
	r := newRenderer(t, Options{})
	d := loadDesign(t, "basic.json")
	v := &d.Views[0]
	v.Export.AreaType, v.Export.X, v.Export.Y, v.Export.Width, v.Export.Height, v.Export.DPI = "custom", 0, 0, 2e7, 1, 1
	for _, typ := range []string{model.ExportPNG, model.ExportPDF} {
		v.Export.Type = typ
		_, err := r.Plan(d, "front")
		var ie *InputError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), "larger than the 1e+07 pt a print file holds") {
			t.Errorf("%s: err = %v, want the page refused", typ, err)
		}
	}
}
