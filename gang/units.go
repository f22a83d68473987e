package gang

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Length is a physical length in millimetres, parsed from "22in", "56cm", "5mm",
// "1.5m" or "300px" (pixels, resolved against the sheet dpi).
type Length struct {
	MM   float64
	PX   int // set instead of MM for a "px" value
	px   bool
	text string // as given, for String
}

// Bounds on a parsed length: no roll is longer than 100 m.
const (
	maxMM     = 100_000
	maxPixels = 10_000_000
)

// ParseLength reads a length with its unit; a bare number is refused so "22" never
// silently means millimetres to one user and inches to another.
func ParseLength(s string) (Length, error) {
	t := strings.TrimSpace(strings.ToLower(s))
	units := []struct {
		suffix string
		mm     float64
	}{{"mm", 1}, {"cm", 10}, {"in", 25.4}, {"px", 0}, {"m", 1000}}
	for _, u := range units {
		num, ok := strings.CutSuffix(t, u.suffix)
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return Length{}, fmt.Errorf("length %q: want a non-negative number and a unit (mm, cm, m, in, px)", s)
		}
		if (u.suffix == "px" && v > maxPixels) || v*u.mm > maxMM {
			return Length{}, fmt.Errorf("length %q: longer than any roll (at most 100 m or %d px)", s, maxPixels)
		}
		if u.suffix == "px" {
			if v != math.Trunc(v) {
				return Length{}, fmt.Errorf("length %q: pixels must be whole", s)
			}
			return Length{PX: int(v), px: true, text: t}, nil
		}
		return Length{MM: v * u.mm, text: t}, nil
	}
	return Length{}, fmt.Errorf("length %q: missing unit (mm, cm, m, in or px)", s)
}

// Pixels is the length at dpi, rounded to the nearest pixel.
func (l Length) Pixels(dpi float64) int {
	if l.px {
		return l.PX
	}
	return int(math.Round(l.MM / 25.4 * dpi))
}

// String gives the length back as it was written.
func (l Length) String() string {
	if l.text != "" {
		return l.text
	}
	if l.px {
		return fmt.Sprintf("%dpx", l.PX)
	}
	return strconv.FormatFloat(l.MM, 'f', -1, 64) + "mm"
}

// Set and the pointer String make *Length a flag.Value.
func (l *Length) Set(s string) error {
	v, err := ParseLength(s)
	if err != nil {
		return err
	}
	*l = v
	return nil
}

// pxToMM converts sheet pixels to millimetres rounded to 0.01 mm for manifests.
func pxToMM(px int, dpi float64) float64 {
	return math.Round(float64(px)/dpi*25.4*100) / 100
}
