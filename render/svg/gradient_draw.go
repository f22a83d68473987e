package svg

import (
	"image"
	"math"
)

// shader is the paint of one fill pass: a solid colour or a gradient seen
// from device pixels.
type shader struct {
	color Paint
	alpha float64 // shape opacity times the caller's opacity
	grad  *Gradient
	inv   Matrix // device pixels to gradient space
	skip  bool   // nothing to paint (a singular gradient transform)
}

// newShader prepares paint c (or gradient g when set) drawn through m.
func newShader(c Paint, g *Gradient, m Matrix, alpha float64) shader {
	sh := shader{color: c, alpha: alpha}
	if g == nil {
		return sh
	}
	inv, ok := m.Mul(g.Transform).Invert()
	if !ok || math.IsNaN(inv[0]+inv[1]+inv[2]+inv[3]+inv[4]+inv[5]) {
		// A degenerate gradientTransform or bounding box: browsers paint
		// nothing, so do we.
		sh.skip = true
		return sh
	}
	sh.grad, sh.inv = g, inv
	return sh
}

// compositeGradient blends the gradient through an 8-bit coverage mask onto
// dst, source-over with premultiplied destination pixels. The colour is
// evaluated at each pixel's centre.
func compositeGradient(dst *image.RGBA, band image.Rectangle, mask []uint8, sh *shader) {
	g, inv := sh.grad, sh.inv
	k := sh.alpha * g.Opacity
	w := band.Dx()
	for y := band.Min.Y; y < band.Max.Y; y++ {
		mrow := mask[(y-band.Min.Y)*w : (y-band.Min.Y+1)*w]
		off := dst.PixOffset(band.Min.X, y)
		drow := dst.Pix[off : off+4*w]
		q := inv.Apply(Point{float64(band.Min.X) + 0.5, float64(y) + 0.5})
		for x, cov := range mrow {
			if cov != 0 {
				if c, ok := g.ColorAt(q); ok {
					blendPixel(drow[4*x:4*x+4:4*x+4], c, k*float64(cov)/255)
				}
			}
			q.X += inv[0]
			q.Y += inv[1]
		}
	}
}

// blendPixel composites straight-alpha colour c at opacity a over the
// premultiplied pixel px.
func blendPixel(px []uint8, c Paint, a float64) {
	a *= clamp01(c.A)
	if a <= 0 {
		return
	}
	a = math.Min(a, 1)
	inv := 1 - a
	px[0] = uint8(clamp01(c.R)*a*255 + float64(px[0])*inv + 0.5)
	px[1] = uint8(clamp01(c.G)*a*255 + float64(px[1])*inv + 0.5)
	px[2] = uint8(clamp01(c.B)*a*255 + float64(px[2])*inv + 0.5)
	px[3] = uint8(a*255 + float64(px[3])*inv + 0.5)
}
