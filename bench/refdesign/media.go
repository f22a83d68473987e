package refdesign

import (
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// Photo draws a deterministic photo-like picture of w x h pixels: a sky gradient, a
// sun, two rows of hills and a textured field, plus per-pixel noise of about +-noise
// levels. The noise is what a camera sensor leaves in real photos; without it a JPEG
// of smooth gradients compresses to almost nothing and decodes unrealistically fast,
// and a PNG encoder would look better than it is. Equal arguments give equal pixels.
func Photo(w, h int, seed uint64, noise int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	workers := runtime.GOMAXPROCS(0)
	rows := (h + workers - 1) / workers
	var wg sync.WaitGroup
	for y0 := 0; y0 < h; y0 += rows {
		y1 := min(y0+rows, h)
		wg.Go(func() { photoRows(img, y0, y1, seed, noise) })
	}
	wg.Wait()
	return img
}

func photoRows(img *image.RGBA, y0, y1 int, seed uint64, noise int) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	fw, fh := float64(w), float64(h)
	sunX, sunY, sunR := 0.72*fw, 0.22*fh, 0.07*math.Min(fw, fh)
	for y := y0; y < y1; y++ {
		// One generator per row keyed by (seed, row): the result does not depend on
		// how rows are split between goroutines.
		rng := rand.New(rand.NewPCG(seed, uint64(y)))
		fy := float64(y)
		v := fy / fh
		row := img.Pix[y*img.Stride : y*img.Stride+4*w]
		for x := range w {
			fx := float64(x)
			u := fx / fw
			// Far and near hill lines.
			far := 0.52 + 0.06*math.Sin(u*7.1+0.4) + 0.025*math.Sin(u*23.0)
			near := 0.66 + 0.08*math.Sin(u*4.3+1.9) + 0.02*math.Sin(u*31.0+0.7)
			var r, g, b float64
			switch {
			case v < far:
				// Sky: deep blue at the top to a warm haze at the horizon.
				t := v / far
				r, g, b = 40+175*t*t, 90+120*t, 190+30*t
				if d := math.Hypot(fx-sunX, fy-sunY); d < sunR {
					r, g, b = 255, 240, 190
				} else if d < 3*sunR {
					k := 1 - (d-sunR)/(2*sunR)
					r, g, b = r+(255-r)*k*k*0.6, g+(230-g)*k*k*0.5, b+(180-b)*k*k*0.3
				}
			case v < near:
				t := (v - far) / (near - far)
				r, g, b = 70-25*t, 110-20*t, 90-30*t
			default:
				// Field with rows of crops: stripes converging towards the horizon.
				t := (v - near) / (1 - near)
				stripe := 0.5 + 0.5*math.Sin((u-0.5)/(0.15+t)*60+t*8)
				r = 150 + 60*t + 25*stripe
				g = 130 + 30*t + 20*stripe
				b = 50 + 10*t
			}
			// Soft texture (leaves, clouds) at a few scales.
			tex := 6 * math.Sin(fx*0.031+fy*0.017) * math.Sin(fy*0.043-fx*0.011)
			n := 0
			if noise > 0 {
				n = rng.IntN(2*noise+1) - noise
			}
			row[4*x+0] = clamp8(r + tex + float64(n))
			row[4*x+1] = clamp8(g + tex + float64(n))
			row[4*x+2] = clamp8(b + tex*0.5 + float64(n))
			row[4*x+3] = 255
		}
	}
}

func clamp8(v float64) uint8 {
	switch {
	case v <= 0:
		return 0
	case v >= 255:
		return 255
	}
	return uint8(v + 0.5)
}

// ShirtTemplate draws the view's template image: a T-shirt silhouette on transparent
// ground, the mock-up the designer shows (not exported: exportTemplate is false).
func ShirtTemplate(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	shirt := color.NRGBA{R: 0xe8, G: 0xe8, B: 0xe8, A: 0xff}
	fw, fh := float64(w), float64(h)
	for y := range h {
		v := float64(y) / fh
		for x := range w {
			u := math.Abs(float64(x)/fw - 0.5)
			body := u < 0.3 && v > 0.08
			sleeve := v > 0.08 && v < 0.35 && u < 0.3+0.2*(0.35-v)/0.27
			neck := v < 0.14 && u < 0.09
			if (body || sleeve) && !neck {
				img.SetNRGBA(x, y, shirt)
			}
		}
	}
	return img
}

// BadgeSVG is the illustration of references 1 and 2: a shield, a star, a ribbon and
// a stroked curve, 260 x 260 user units. Opacities differ so that the badge keeps
// its structure once colourized to one colour.
const BadgeSVG = `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="260" height="260" viewBox="0 0 260 260">
  <path d="M130 12 L232 52 C232 150 196 212 130 248 C64 212 28 150 28 52 Z" fill="#1d4f91" fill-opacity="0.25" stroke="#1d4f91" stroke-width="8"/>
  <path d="M130 62 L146 104 L192 106 L156 134 L168 178 L130 152 L92 178 L104 134 L68 106 L114 104 Z" fill="#d4a017"/>
  <path d="M52 196 Q130 226 208 196 L200 222 Q130 246 60 222 Z" fill="#b22222" fill-opacity="0.8"/>
  <path d="M48 70 C90 30 170 30 212 70" fill="none" stroke="#333333" stroke-width="6" stroke-linecap="round"/>
  <circle cx="130" cy="120" r="10" fill="#ffffff"/>
</svg>
`
