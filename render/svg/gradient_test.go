package svg

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/printworker/printworker/internal/imgcheck"
)

// gradientCases are golden cases (rendered and compared like goldenCases) that
// are also checked against rsvg-convert's render of the same SVG. The sources
// are testdata/<name>.svg.
var gradientCases = []struct {
	name  string
	scale float64
	svg   string
}{
	{"gradient-linear", 2, readSVG("gradient-linear")},
	{"gradient-radial", 2, readSVG("gradient-radial")},
	{"gradient-href", 2, readSVG("gradient-href")},
}

// readSVG reads testdata/<name>.svg (shared with the PDF tests of package render).
func readSVG(name string) string {
	b, err := os.ReadFile(filepath.Join("testdata", name+".svg"))
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestGradientsAgainstRSVG renders each gradient case and rsvg-convert's
// render of the same SVG at the same size on white, and requires SSIM >= 0.98.
func TestGradientsAgainstRSVG(t *testing.T) {
	bin := imgcheck.Tool(t, "rsvg-convert", "apt-get install librsvg2-bin")
	for _, tc := range gradientCases {
		t.Run(tc.name, func(t *testing.T) {
			got := renderGolden(t, tc.svg, tc.scale)
			want := rsvgRender(t, bin, tc.svg, got.Bounds().Dx(), got.Bounds().Dy())
			s := imgcheck.SSIM(got, want)
			t.Logf("SSIM %.4f against rsvg-convert", s)
			if s < 0.98 {
				t.Errorf("SSIM %.4f against rsvg-convert, want >= 0.98", s)
			}
			// The check discriminates: the old flat drawing (each gradient
			// painted with its mean colour) falls below the threshold.
			flat := renderFlat(t, tc.svg, tc.scale)
			if s := imgcheck.SSIM(flat, want); s >= 0.98 {
				t.Errorf("flat drawing scores SSIM %.4f: the threshold proves nothing", s)
			}
		})
	}
}

// renderFlat draws src with every gradient replaced by its mean colour.
func renderFlat(t *testing.T, src string, scale float64) *image.RGBA {
	return renderEdited(t, src, scale, func(s *Shape) { s.FillGradient, s.StrokeGradient = nil, nil })
}

// renderEdited draws src on white at scale after edit changed every shape.
func renderEdited(t *testing.T, src string, scale float64, edit func(*Shape)) *image.RGBA {
	d, err := Parse(strings.NewReader(src), Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range d.Shapes {
		edit(&d.Shapes[i])
	}
	w, h := int(d.Width*scale+0.5), int(d.Height*scale+0.5)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = 255
	}
	if err := Draw(context.Background(), img, d, Scale(scale, scale), img.Bounds(), 1); err != nil {
		t.Fatal(err)
	}
	return img
}

func rsvgRender(t *testing.T, bin, src string, w, h int) image.Image {
	t.Helper()
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.svg"), filepath.Join(dir, "out.png")
	if err := os.WriteFile(in, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-w", strconv.Itoa(w), "-h", strconv.Itoa(h), "-b", "white", "-o", out, in)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("rsvg-convert: %v\n%s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// TestGradientGeometry checks gradient parameters at known points.
func TestGradientGeometry(t *testing.T) {
	d := parse(t, `<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100">
<linearGradient id="l" x1="10" x2="90" gradientUnits="userSpaceOnUse" spreadMethod="reflect"><stop offset="0" stop-color="#000"/><stop offset="1" stop-color="#fff"/></linearGradient>
<radialGradient id="r" cx="50" cy="50" r="40" fx="50" fy="50" gradientUnits="userSpaceOnUse"><stop offset="0" stop-color="#000"/><stop offset="1" stop-color="#fff"/></radialGradient>
<radialGradient id="far" fx="5" fy=".5"><stop offset="0" stop-color="#000"/><stop offset="1" stop-color="#fff"/></radialGradient>
<rect width="100" height="100" fill="url(#l)"/>
<rect width="100" height="100" fill="url(#r)"/>
<rect x="20" y="20" width="50" height="10" fill="url(#far)"/>
</svg>`)
	lin, rad, far := d.Shapes[0].FillGradient, d.Shapes[1].FillGradient, d.Shapes[2].FillGradient
	for _, tc := range []struct {
		g    *Gradient
		p    Point
		want float64 // grey level 0..1
	}{
		{lin, Point{10, 0}, 0}, {lin, Point{50, 7}, 0.5}, {lin, Point{90, 0}, 1},
		{lin, Point{130, 0}, 0.5}, // reflected
		{rad, Point{50, 50}, 0}, {rad, Point{70, 50}, 0.5}, {rad, Point{50, 90}, 1}, {rad, Point{0, 0}, 1},
	} {
		inv, _ := tc.g.Transform.Invert()
		c, ok := tc.g.ColorAt(inv.Apply(tc.p))
		if !ok || math.Abs(c.R-tc.want) > 1e-6 {
			t.Errorf("at %v: %v %v, want %g", tc.p, c, ok, tc.want)
		}
	}
	// A focal point outside the end circle is moved inside it.
	if math.Hypot(far.FX-far.CX, far.FY-far.CY) >= far.R {
		t.Errorf("focal point %g,%g outside r=%g", far.FX, far.FY, far.R)
	}
}

// TestHostileGradients: degenerate and hostile gradients parse and draw in
// bounded time without panicking.
func TestHostileGradients(t *testing.T) {
	var many strings.Builder
	many.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><linearGradient id="g">`)
	for i := 0; i < 19000; i++ {
		many.WriteString(`<stop offset="` + strconv.Itoa(i%100) + `%" stop-color="#` + []string{"f00", "0f0", "00f"}[i%3] + `"/>`)
	}
	many.WriteString(`</linearGradient><rect width="64" height="64" fill="url(#g)"/></svg>`)
	cases := map[string]string{
		"many stops":         many.String(),
		"zero vector":        `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><linearGradient id="g" x1=".5" x2=".5"><stop stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient><rect width="64" height="64" fill="url(#g)"/></svg>`,
		"zero radius":        `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><radialGradient id="g" r="0"><stop stop-color="red"/><stop offset="1" stop-color="blue"/></radialGradient><rect width="64" height="64" fill="url(#g)"/></svg>`,
		"nan offsets":        `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><linearGradient id="g"><stop offset="NaN" stop-color="red"/><stop offset="1e999" stop-color="blue"/><stop offset="-inf"/></linearGradient><rect width="64" height="64" fill="url(#g)"/></svg>`,
		"href cycle":         `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><linearGradient id="a" href="#b"/><linearGradient id="b" href="#c"/><radialGradient id="c" href="#a"/><rect width="64" height="64" fill="url(#a)"/></svg>`,
		"self href":          `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><linearGradient id="a" href="#a"><stop stop-color="red"/></linearGradient><rect width="64" height="64" fill="url(#a)"/></svg>`,
		"singular transform": `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><linearGradient id="g" gradientTransform="scale(0)"><stop stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient><rect width="64" height="64" fill="url(#g)"/></svg>`,
		"huge transform":     `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><radialGradient id="g" gradientTransform="matrix(1e300 0 0 1e-300 1e308 -1e308)" fr="1e300" spreadMethod="reflect"><stop stop-color="red"/><stop offset="1" stop-color="blue"/></radialGradient><rect width="64" height="64" fill="url(#g)"/></svg>`,
		"flat bbox":          `<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><linearGradient id="g"><stop stop-color="red"/><stop offset="1" stop-color="blue"/></linearGradient><path d="M0 10 H60" stroke="url(#g)" stroke-width="4"/></svg>`,
	}
	for name, src := range cases {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			d, err := Parse(strings.NewReader(src), Limits{})
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range d.Shapes {
				if g := s.FillGradient; g != nil && (len(g.Stops) < 2 || len(g.Stops) > maxGradientStops) {
					t.Errorf("%d stops", len(g.Stops))
				}
			}
			img := image.NewRGBA(image.Rect(0, 0, 64, 64))
			if err := Draw(context.Background(), img, d, Scale(4, 4), img.Bounds(), 1); err != nil {
				t.Fatal(err)
			}
			if el := time.Since(start); el > 5*time.Second {
				t.Errorf("took %v", el)
			}
		})
	}
}
