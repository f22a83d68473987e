package colour

import "math"

// DeltaE2000 is the CIEDE2000 colour difference between two CIELAB colours (kL = kC =
// kH = 1), as in Sharma, Wu and Dalal's reference implementation.
func DeltaE2000(l1, a1, b1, l2, a2, b2 float64) float64 {
	const deg = math.Pi / 180
	c1 := math.Hypot(a1, b1)
	c2 := math.Hypot(a2, b2)
	cm := (c1 + c2) / 2
	cm7 := math.Pow(cm, 7)
	g := 0.5 * (1 - math.Sqrt(cm7/(cm7+math.Pow(25, 7))))
	a1p, a2p := (1+g)*a1, (1+g)*a2
	c1p, c2p := math.Hypot(a1p, b1), math.Hypot(a2p, b2)
	hue := func(b, a float64) float64 {
		if a == 0 && b == 0 {
			return 0
		}
		h := math.Atan2(b, a) / deg
		if h < 0 {
			h += 360
		}
		return h
	}
	h1p, h2p := hue(b1, a1p), hue(b2, a2p)
	dL := l2 - l1
	dC := c2p - c1p
	var dh float64
	switch {
	case c1p*c2p == 0:
		dh = 0
	case math.Abs(h2p-h1p) <= 180:
		dh = h2p - h1p
	case h2p-h1p > 180:
		dh = h2p - h1p - 360
	default:
		dh = h2p - h1p + 360
	}
	dH := 2 * math.Sqrt(c1p*c2p) * math.Sin(dh/2*deg)
	lm := (l1 + l2) / 2
	cmp := (c1p + c2p) / 2
	var hm float64
	switch {
	case c1p*c2p == 0:
		hm = h1p + h2p
	case math.Abs(h1p-h2p) <= 180:
		hm = (h1p + h2p) / 2
	case h1p+h2p < 360:
		hm = (h1p + h2p + 360) / 2
	default:
		hm = (h1p + h2p - 360) / 2
	}
	t := 1 - 0.17*math.Cos((hm-30)*deg) + 0.24*math.Cos(2*hm*deg) + 0.32*math.Cos((3*hm+6)*deg) - 0.20*math.Cos((4*hm-63)*deg)
	dTheta := 30 * math.Exp(-((hm-275)/25)*((hm-275)/25))
	cmp7 := math.Pow(cmp, 7)
	rc := 2 * math.Sqrt(cmp7/(cmp7+math.Pow(25, 7)))
	lm50 := (lm - 50) * (lm - 50)
	sl := 1 + 0.015*lm50/math.Sqrt(20+lm50)
	sc := 1 + 0.045*cmp
	sh := 1 + 0.015*cmp*t
	rt := -math.Sin(2*dTheta*deg) * rc
	return math.Sqrt((dL/sl)*(dL/sl) + (dC/sc)*(dC/sc) + (dH/sh)*(dH/sh) + rt*(dC/sc)*(dH/sh))
}
