package svg

import (
	"errors"
	"strconv"
)

// numScanner reads SVG numbers in their compact forms: "1.5.5" is 1.5 and .5,
// "1-2" is 1 and -2, "1e-3" is one number; commas and whitespace separate.
type numScanner struct {
	s   string
	pos int
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

func (sc *numScanner) skipSep() {
	for sc.pos < len(sc.s) && isSpace(sc.s[sc.pos]) {
		sc.pos++
	}
	if sc.pos < len(sc.s) && sc.s[sc.pos] == ',' {
		sc.pos++
		for sc.pos < len(sc.s) && isSpace(sc.s[sc.pos]) {
			sc.pos++
		}
	}
}

func (sc *numScanner) skipSpace() {
	for sc.pos < len(sc.s) && isSpace(sc.s[sc.pos]) {
		sc.pos++
	}
}

func (sc *numScanner) done() bool { sc.skipSpace(); return sc.pos >= len(sc.s) }

// atNumber reports whether a number starts at the current position.
func (sc *numScanner) atNumber() bool {
	sc.skipSpace()
	if sc.pos >= len(sc.s) {
		return false
	}
	c := sc.s[sc.pos]
	return c == '+' || c == '-' || c == '.' || (c >= '0' && c <= '9')
}

var errNumber = errors.New("expected a number")

func (sc *numScanner) number() (float64, error) {
	sc.skipSpace()
	s, i := sc.s, sc.pos
	start := i
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	digits := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		digits++
	}
	if i < len(s) && s[i] == '.' {
		i++
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
			digits++
		}
	}
	if digits == 0 {
		return 0, errNumber
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			i = j
		}
	}
	v, err := strconv.ParseFloat(s[start:i], 64)
	if err != nil {
		// Out-of-range exponents: ParseFloat returns ±Inf with ErrRange.
		return 0, errNumber
	}
	sc.pos = i
	sc.skipSep()
	return v, nil
}

// flag reads an arc flag, which may be written without a separator ("a1 1 0 011 1").
func (sc *numScanner) flag() (bool, error) {
	sc.skipSpace()
	if sc.pos >= len(sc.s) || (sc.s[sc.pos] != '0' && sc.s[sc.pos] != '1') {
		return false, errNumber
	}
	v := sc.s[sc.pos] == '1'
	sc.pos++
	sc.skipSep()
	return v, nil
}

func (sc *numScanner) numbers(dst []float64) error {
	for i := range dst {
		v, err := sc.number()
		if err != nil {
			return err
		}
		dst[i] = v
	}
	return nil
}

// parsePathData parses the d attribute. As SVG requires, a syntax error ends
// the path but the part read so far is kept; ok reports whether all was read.
func parsePathData(d string) (p Path, ok bool) {
	sc := &numScanner{s: d}
	var cur, start, lastCtrl Point
	var prevCmd byte
	var cmd byte
	var a [7]float64
	started := false
	for {
		if sc.done() {
			return p, true
		}
		c := sc.s[sc.pos]
		if isCmd(c) {
			cmd = c
			sc.pos++
		} else if cmd == 0 || !sc.atNumber() {
			return p, false
		} else if cmd == 'M' {
			// Extra coordinate pairs after a moveto are implicit linetos.
			cmd = 'L'
		} else if cmd == 'm' {
			cmd = 'l'
		} else if cmd == 'z' || cmd == 'Z' {
			return p, false
		}
		rel := cmd >= 'a'
		up := cmd &^ 0x20
		var base Point
		if rel {
			base = cur
		}
		if up != 'M' && up != 'Z' && !started {
			return p, false
		}
		switch up {
		case 'M':
			if err := sc.numbers(a[:2]); err != nil {
				return p, false
			}
			cur = Point{base.X + a[0], base.Y + a[1]}
			start = cur
			started = true
			p = append(p, Segment{Op: MoveTo, Pts: [3]Point{cur}})
		case 'L':
			if err := sc.numbers(a[:2]); err != nil {
				return p, false
			}
			cur = Point{base.X + a[0], base.Y + a[1]}
			p = append(p, Segment{Op: LineTo, Pts: [3]Point{cur}})
		case 'H':
			if err := sc.numbers(a[:1]); err != nil {
				return p, false
			}
			cur = Point{base.X + a[0], cur.Y}
			p = append(p, Segment{Op: LineTo, Pts: [3]Point{cur}})
		case 'V':
			if err := sc.numbers(a[:1]); err != nil {
				return p, false
			}
			cur = Point{cur.X, base.Y + a[0]}
			p = append(p, Segment{Op: LineTo, Pts: [3]Point{cur}})
		case 'C':
			if err := sc.numbers(a[:6]); err != nil {
				return p, false
			}
			c1 := Point{base.X + a[0], base.Y + a[1]}
			lastCtrl = Point{base.X + a[2], base.Y + a[3]}
			cur = Point{base.X + a[4], base.Y + a[5]}
			p = append(p, Segment{Op: CubicTo, Pts: [3]Point{c1, lastCtrl, cur}})
		case 'S':
			if err := sc.numbers(a[:4]); err != nil {
				return p, false
			}
			c1 := cur
			if pu := prevCmd &^ 0x20; pu == 'C' || pu == 'S' {
				c1 = Point{2*cur.X - lastCtrl.X, 2*cur.Y - lastCtrl.Y}
			}
			lastCtrl = Point{base.X + a[0], base.Y + a[1]}
			cur = Point{base.X + a[2], base.Y + a[3]}
			p = append(p, Segment{Op: CubicTo, Pts: [3]Point{c1, lastCtrl, cur}})
		case 'Q':
			if err := sc.numbers(a[:4]); err != nil {
				return p, false
			}
			lastCtrl = Point{base.X + a[0], base.Y + a[1]}
			cur = Point{base.X + a[2], base.Y + a[3]}
			p = append(p, Segment{Op: QuadTo, Pts: [3]Point{lastCtrl, cur}})
		case 'T':
			if err := sc.numbers(a[:2]); err != nil {
				return p, false
			}
			c := cur
			if pu := prevCmd &^ 0x20; pu == 'Q' || pu == 'T' {
				c = Point{2*cur.X - lastCtrl.X, 2*cur.Y - lastCtrl.Y}
			}
			lastCtrl = c
			cur = Point{base.X + a[0], base.Y + a[1]}
			p = append(p, Segment{Op: QuadTo, Pts: [3]Point{c, cur}})
		case 'A':
			if err := sc.numbers(a[:3]); err != nil {
				return p, false
			}
			large, err := sc.flag()
			if err != nil {
				return p, false
			}
			sweep, err := sc.flag()
			if err != nil {
				return p, false
			}
			if err := sc.numbers(a[3:5]); err != nil {
				return p, false
			}
			end := Point{base.X + a[3], base.Y + a[4]}
			p = arcToCubics(p, cur, a[0], a[1], a[2], large, sweep, end)
			cur = end
		case 'Z':
			if started {
				p = append(p, Segment{Op: Close})
			}
			cur = start
			// A segment after closepath without moveto starts at the
			// subpath's start point (SVG 1.1 8.3.3).
			if !sc.done() && !isCmd(sc.s[sc.pos]) {
				return p, false
			}
			if !sc.done() {
				if n := sc.s[sc.pos] &^ 0x20; n != 'M' && n != 'Z' {
					p = append(p, Segment{Op: MoveTo, Pts: [3]Point{start}})
				}
			}
		}
		prevCmd = cmd
	}
}

func isCmd(c byte) bool {
	switch c &^ 0x20 {
	case 'M', 'L', 'H', 'V', 'C', 'S', 'Q', 'T', 'A', 'Z':
		return true
	}
	return false
}
