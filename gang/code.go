package gang

import (
	"image"
	"path"
	"strconv"
	"strings"

	"github.com/boombuler/barcode/code128"
)

// Codes under gang copies (docs/gang.md "Output"): a Code 128 barcode of the copy's
// order, line and copy ("ORDER-LINE-COPY"; a loose file's base name and copy) in a
// band under the copy (under its label band when labels are on), as the press sheets
// of package impose carry, so copies cut from a sheet can be scanned back to their
// order.

// CodePx is the height of the code band under each copy at dpi: 4 mm, at least 12 px.
func CodePx(dpi float64) int { return max(12, int(dpi*4/25.4)) }

// codeQuiet is the clear space (in modules) each side of the bars: Code 128's minimum.
const codeQuiet = 10

// codeText is a copy's code: printable ASCII only.
func codeText(d Design, copy int) string {
	s := strings.TrimSuffix(path.Base(d.Key), path.Ext(d.Key)) + "-" + strconv.Itoa(copy)
	if d.OrderID != "" {
		s = d.OrderID + "-" + strconv.Itoa(d.Line) + "-" + strconv.Itoa(copy)
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e {
			return '_'
		}
		return r
	}, s)
}

// code is the barcode element under a copy: its bars as runs of columns, modules of
// 0.25 mm (at least 1 px), narrowed by whole pixels to fit the copy's width with the
// quiet zones; ok is false when it fits not even at 1 px (the copy has no code).
func code(c Config, d Design, p *Placement) (e element, ok bool) {
	bc, err := code128.Encode(codeText(d, p.Copy))
	if err != nil {
		return element{}, false
	}
	n := bc.Bounds().Dx()
	mod := max(1, int(c.DPI*0.25/25.4+0.5))
	for mod > 1 && (n+2*codeQuiet)*mod > p.W {
		mod--
	}
	if (n+2*codeQuiet)*mod > p.W {
		return element{}, false
	}
	x0 := p.X + codeQuiet*mod
	var runs [][2]int
	for i := 0; i < n; {
		if r, _, _, _ := bc.At(i, 0).RGBA(); r >= 0x8000 {
			i++
			continue
		}
		j := i
		for j < n {
			if r, _, _, _ := bc.At(j, 0).RGBA(); r >= 0x8000 {
				break
			}
			j++
		}
		runs = append(runs, [2]int{x0 + i*mod, x0 + j*mod})
		i = j
	}
	// One pixel clear of the copy (and its label) above.
	y0 := p.Y + p.H + c.Label + 1
	return element{kind: elemCode, r: image.Rect(x0, y0, x0+n*mod, y0+c.Code-1), p: p, runs: runs}, true
}
