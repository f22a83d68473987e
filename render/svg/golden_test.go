package svg

import (
	"bytes"
	"context"
	"flag"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden PNGs under testdata/")

// goldenCases are rendered at scale onto a white canvas and compared with
// testdata/<name>.png as decoded pixels.
var goldenCases = []struct {
	name  string
	scale float64
	svg   string
}{
	{"badge", 2, `<svg xmlns="http://www.w3.org/2000/svg" width="120" height="120" viewBox="0 0 120 120">
  <style>.ring{fill:none;stroke:#1d3557;stroke-width:6} #check{stroke:white}</style>
  <circle cx="60" cy="60" r="54" fill="#e63946"/>
  <circle class="ring" cx="60" cy="60" r="46"/>
  <path d="M20,84 q20,-20 40,0 t40,0" fill="none" stroke="#f1faee" stroke-width="5" stroke-linecap="round"/>
  <path id="check" d="m38 56 14 14 30-32" fill="none" stroke-width="9" stroke-linejoin="round" stroke-linecap="round"/>
</svg>`},
	{"shapes", 2, `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="100">
  <rect x="5" y="5" width="60" height="40" fill="#2a9d8f"/>
  <rect x="75" y="5" width="80" height="40" rx="12" ry="8" fill="#e9c46a" stroke="#264653" stroke-width="2"/>
  <circle cx="30" cy="75" r="20" fill="rgb(231,111,81)"/>
  <ellipse cx="90" cy="75" rx="30" ry="15" fill="rgba(38,70,83,0.6)"/>
  <line x1="125" y1="55" x2="155" y2="95" stroke="black" stroke-width="3"/>
  <polyline points="125,95 135,60 145,95 155,60" fill="none" stroke="#e76f51" stroke-width="2"/>
  <polygon points="60,55 70,95 50,95" fill="#8ab17d" fill-opacity=".5" stroke="navy"/>
</svg>`},
	{"evenodd", 2, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100" width="200" height="100">
  <path d="M50,5 L79,95 L2,40 L98,40 L21,95 Z" fill="crimson" fill-rule="evenodd"/>
  <path d="M150,5 L179,95 L102,40 L198,40 L121,95 Z" fill="crimson" fill-rule="nonzero"/>
  <path d="M60 60 h30 v30 h-30 z M65 65 v20 h20 v-20 z" fill="#333" fill-rule="evenodd" opacity="0.5"/>
</svg>`},
	{"transforms", 2, `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="120" viewBox="0 0 200 120">
  <g fill="#457b9d" transform="translate(10,10)">
    <rect width="30" height="30"/>
    <rect width="30" height="30" transform="translate(50,0) rotate(30 15 15)"/>
    <rect width="30" height="30" transform="translate(100,0) skewX(20)"/>
    <rect width="30" height="30" transform="matrix(1 0.3 0 1 150 0)"/>
    <g transform="translate(0 50) scale(2 1)" fill="#e63946" opacity="0.7">
      <circle cx="15" cy="25" r="15"/>
      <circle cx="30" cy="25" r="15" fill="#1d3557"/>
    </g>
  </g>
  <defs><path id="tri" d="M0 0 l10 20 h-20z"/></defs>
  <use href="#tri" x="150" y="70" fill="#2a9d8f"/>
  <use href="#tri" x="180" y="70" fill="#f4a261" transform="rotate(10 180 80)"/>
</svg>`},
	{"strokes", 2, `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="160">
  <g fill="none" stroke="#264653" stroke-width="12">
    <path d="M20 30 L60 10 L100 30" stroke-linejoin="miter"/>
    <path d="M20 60 L60 40 L100 60" stroke-linejoin="round"/>
    <path d="M20 90 L60 70 L100 90" stroke-linejoin="bevel"/>
    <path d="M130 20 H180" stroke-linecap="butt"/>
    <path d="M130 50 H180" stroke-linecap="round"/>
    <path d="M130 80 H180" stroke-linecap="square"/>
  </g>
  <path d="M15 120 H185" stroke="#e76f51" stroke-width="6" stroke-dasharray="20 8 4 8"/>
  <circle cx="100" cy="140" r="12" fill="none" stroke="#2a9d8f" stroke-width="3" stroke-dasharray="6"/>
  <path d="M130 20 H180 M130 50 H180 M130 80 H180" stroke="white" stroke-width="1"/>
</svg>`},
	{"arcs", 2, `<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100">
  <path d="M10 50 a40 25 0 0 1 80 0" fill="none" stroke="#6a4c93" stroke-width="4"/>
  <path d="M10 55 a40 25 0 1 0 80 0" fill="none" stroke="#1982c4" stroke-width="4"/>
  <path d="M110,50 A30 30 30 0 1 170 50 L190 90 L110 90 Z" fill="#8ac926" stroke="#333" stroke-width="2" stroke-linejoin="round"/>
  <path d="M130 30a10 10 0 1 0 20 0a10 10 0 1 0-20 0" fill="#ffca3a"/>
</svg>`},
}

func renderGolden(t testing.TB, src string, scale float64) *image.RGBA {
	t.Helper()
	d, err := Parse(strings.NewReader(src), Limits{})
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	w, h := int(d.Width*scale+0.5), int(d.Height*scale+0.5)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	if err := Draw(context.Background(), img, d, Scale(scale, scale), img.Bounds(), 1); err != nil {
		t.Fatal(err)
	}
	return img
}

func TestGolden(t *testing.T) {
	for _, tc := range append(goldenCases[:len(goldenCases):len(goldenCases)], gradientCases...) {
		t.Run(tc.name, func(t *testing.T) {
			got := renderGolden(t, tc.svg, tc.scale)
			path := filepath.Join("testdata", tc.name+".png")
			if *update {
				var buf bytes.Buffer
				if err := png.Encode(&buf, got); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatalf("%v (run go test ./render/svg -update to create it)", err)
			}
			defer f.Close()
			want, err := png.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			comparePixels(t, got, want, 3, 0.002)
		})
	}
}

// comparePixels fails when more than maxFrac of the pixels differ by more
// than tol in any channel (8-bit, non-premultiplied view).
func comparePixels(t *testing.T, got, want image.Image, tol int, maxFrac float64) {
	t.Helper()
	if got.Bounds() != want.Bounds() {
		t.Fatalf("size %v, want %v", got.Bounds(), want.Bounds())
	}
	b := got.Bounds()
	bad := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			g := color.NRGBAModel.Convert(got.At(x, y)).(color.NRGBA)
			w := color.NRGBAModel.Convert(want.At(x, y)).(color.NRGBA)
			if absDiff(g.R, w.R) > tol || absDiff(g.G, w.G) > tol || absDiff(g.B, w.B) > tol || absDiff(g.A, w.A) > tol {
				bad++
			}
		}
	}
	if frac := float64(bad) / float64(b.Dx()*b.Dy()); frac > maxFrac {
		t.Errorf("%d pixels (%.2f%%) differ by more than %d", bad, 100*frac, tol)
	}
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}
