package gang

import (
	"math"
	"sort"
)

// rect is an axis-aligned rectangle in sheet pixels, half-open: [X, X+W) x [Y, Y+H).
type rect struct{ X, Y, W, H int }

func (r rect) right() int  { return r.X + r.W }
func (r rect) bottom() int { return r.Y + r.H }

func (r rect) contains(o rect) bool {
	return o.X >= r.X && o.Y >= r.Y && o.right() <= r.right() && o.bottom() <= r.bottom()
}

func (r rect) intersects(o rect) bool {
	return r.X < o.right() && o.X < r.right() && r.Y < o.bottom() && o.Y < r.bottom()
}

// box is one copy to pack: its padded size (artwork plus gap and label band), its
// padded size when the artwork is turned (the label band stays under the artwork, so
// this is not simply H x W), and the index of the copy it stands for.
type box struct {
	W, H   int
	RW, RH int
	ID     int
}

// dims is the box's size, turned or not.
func (b box) dims(rot bool) (int, int) {
	if rot {
		return b.RW, b.RH
	}
	return b.W, b.H
}

// packed is where a box went; Rot means it is turned 90 degrees (W and H swapped).
type packed struct {
	ID  int
	X   int
	Y   int
	Rot bool
}

// heuristic picks the free rectangle for a box in maxRects.
type heuristic int

const (
	// bestShortSide: smallest leftover on the shorter side (Jylänki's BSSF).
	bestShortSide heuristic = iota
	// bottomLeft: lowest top-of-box edge, then leftmost (keeps the roll short).
	bottomLeft
	// bestArea: smallest free rectangle that fits, then best short side.
	bestArea
)

// maxRects is Jylänki's MaxRects bin: the free space as maximal, possibly
// overlapping, rectangles. Deterministic: ties break on position, then list order.
type maxRects struct {
	w, h   int
	free   []rect
	rotate bool
	// fresh and add are place's scratch space.
	fresh, add []rect
}

func newMaxRects(w, h int, rotate bool) *maxRects {
	return &maxRects{w: w, h: h, free: []rect{{0, 0, w, h}}, rotate: rotate}
}

// score is lower-is-better: primary, then secondary, then position.
type score struct{ a, b int }

func (s score) less(o score) bool {
	if s.a != o.a {
		return s.a < o.a
	}
	return s.b < o.b
}

// find returns the best spot for a w x h box (or its rotation), ok false if none fits.
func (m *maxRects) find(b box, hr heuristic) (r rect, rot bool, ok bool) {
	best := score{math.MaxInt, math.MaxInt}
	try := func(fr rect, bw, bh int, turned bool) {
		if bw > fr.W || bh > fr.H {
			return
		}
		cand := rect{fr.X, fr.Y, bw, bh}
		var s score
		switch hr {
		case bestShortSide:
			lw, lh := fr.W-bw, fr.H-bh
			s = score{min(lw, lh), max(lw, lh)}
		case bottomLeft:
			s = score{cand.bottom(), cand.X}
		case bestArea:
			s = score{fr.W*fr.H - bw*bh, min(fr.W-bw, fr.H-bh)}
		}
		if s.less(best) || (s == best && ok && (cand.Y < r.Y || (cand.Y == r.Y && cand.X < r.X))) {
			best, r, rot, ok = s, cand, turned, true
		}
	}
	turn := m.rotate && (b.RW != b.W || b.RH != b.H)
	for _, fr := range m.free {
		try(fr, b.W, b.H, false)
		if turn {
			try(fr, b.RW, b.RH, true)
		}
	}
	return r, rot, ok
}

// place marks r used: every free rectangle it overlaps is split into the up to four
// maximal pieces around it, then pieces contained in others are dropped.
func (m *maxRects) place(r rect) {
	// Filtered in place, and the new pieces go to scratch slices kept on m: place runs
	// for every box of every try and was mostly allocation otherwise.
	kept := m.free[:0]
	fresh := m.fresh[:0]
	for _, fr := range m.free {
		if !fr.intersects(r) {
			kept = append(kept, fr)
			continue
		}
		if r.X > fr.X {
			fresh = append(fresh, rect{fr.X, fr.Y, r.X - fr.X, fr.H})
		}
		if r.right() < fr.right() {
			fresh = append(fresh, rect{r.right(), fr.Y, fr.right() - r.right(), fr.H})
		}
		if r.Y > fr.Y {
			fresh = append(fresh, rect{fr.X, fr.Y, fr.W, r.Y - fr.Y})
		}
		if r.bottom() < fr.bottom() {
			fresh = append(fresh, rect{fr.X, r.bottom(), fr.W, fr.bottom() - r.bottom()})
		}
	}
	// Old free rectangles never contain each other; only the new pieces need checking,
	// against each other and against the kept ones.
	add := m.add[:0]
	for i, f := range fresh {
		redundant := false
		for _, k := range kept {
			if k.contains(f) {
				redundant = true
				break
			}
		}
		for j, g := range fresh {
			if redundant {
				break
			}
			if i != j && g.contains(f) && (g != f || j < i) {
				redundant = true
			}
		}
		if !redundant {
			add = append(add, f)
		}
	}
	out := kept[:0]
	for _, k := range kept {
		covered := false
		for _, a := range add {
			if a.contains(k) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, k)
		}
	}
	m.free = append(out, add...)
	m.fresh, m.add = fresh, add
}

// packMaxRects packs boxes into a w x h bin in the given order with heuristic hr,
// returning the placed boxes and the ones that did not fit (in order).
func packMaxRects(boxes []box, w, h int, rotate bool, hr heuristic) (placed []packed, rest []box) {
	return newMaxRects(w, h, rotate).pack(boxes, hr)
}

// pack places boxes in order into m's free space with heuristic hr.
func (m *maxRects) pack(boxes []box, hr heuristic) (placed []packed, rest []box) {
	for _, b := range boxes {
		r, rot, ok := m.find(b, hr)
		if !ok {
			rest = append(rest, b)
			continue
		}
		m.place(r)
		placed = append(placed, packed{ID: b.ID, X: r.X, Y: r.Y, Rot: rot})
	}
	return placed, rest
}

// packShelf is the simple comparison packer: boxes tallest first, left to right on
// shelves; a new shelf starts under the tallest box of the last one. Rotation, when
// allowed, lays each box on its long side (shorter shelves).
func packShelf(boxes []box, w, h int, rotate bool) (placed []packed, rest []box) {
	order := sortedBoxes(boxes, func(b box) (int, int) { return shelfH(b, w, rotate), b.W })
	x, y, shelf := 0, 0, 0
	for _, b := range order {
		rot := shelfRot(b, w, rotate)
		bw, bh := b.dims(rot)
		if x+bw > w {
			x, y, shelf = 0, y+shelf, 0
		}
		if bw > w || y+bh > h {
			rest = append(rest, b)
			continue
		}
		placed = append(placed, packed{ID: b.ID, X: x, Y: y, Rot: rot})
		x += bw
		shelf = max(shelf, bh)
	}
	return placed, rest
}

func shelfH(b box, w int, rotate bool) int {
	_, h := b.dims(shelfRot(b, w, rotate))
	return h
}

// shelfRot: the shelf packer turns a box when that makes it lower and it still fits
// the width.
func shelfRot(b box, w int, rotate bool) bool {
	return rotate && b.RH < b.H && b.RW <= w
}

// sortedBoxes orders boxes by key descending (primary, secondary), then by ID, so
// the same input always gives the same order.
func sortedBoxes(boxes []box, key func(box) (int, int)) []box {
	out := append([]box(nil), boxes...)
	sort.SliceStable(out, func(i, j int) bool {
		a1, a2 := key(out[i])
		b1, b2 := key(out[j])
		if a1 != b1 {
			return a1 > b1
		}
		if a2 != b2 {
			return a2 > b2
		}
		return out[i].ID < out[j].ID
	})
	return out
}

// orders are the box orders tried: area, longer side, height, perimeter, all
// descending.
var orders = []func(box) (int, int){
	func(b box) (int, int) { return b.W * b.H, max(b.W, b.H) },
	func(b box) (int, int) { return max(b.W, b.H), min(b.W, b.H) },
	func(b box) (int, int) { return b.H, b.W },
	func(b box) (int, int) { return b.W + b.H, max(b.W, b.H) },
}

// usedLength is the bottom edge of the lowest placed box.
func usedLength(placed []packed, sizes map[int]box) int {
	l := 0
	for _, p := range placed {
		_, bh := sizes[p.ID].dims(p.Rot)
		l = max(l, p.Y+bh)
	}
	return l
}

// packBest tries MaxRects with every heuristic and box order, and the best-fit
// skyline packer with every rule and its extra starts, and keeps the result that
// places the most area, then is shortest; ties keep the earlier try. The tries are a
// fixed list, so the result is deterministic.
//
// Why both packers: on a roll the skyline packer is 1 to 4 % shorter than the best
// MaxRects try on every generated set, but it never fills a hole it left behind, so
// on a fixed sheet MaxRects can place more (on 1 m sheets it put 0.4 and 1.8 % more
// area on the first sheet of two of the four sets).
func packBest(boxes []box, w, h int, rotate bool) (placed []packed, rest []box) {
	sizes := make(map[int]box, len(boxes))
	for _, b := range boxes {
		sizes[b.ID] = b
	}
	area := func(ps []packed) int {
		a := 0
		for _, p := range ps {
			a += sizes[p.ID].W * sizes[p.ID].H
		}
		return a
	}
	topArea, bestLen := -1, 0
	keep := func(p []packed, r []box) {
		a, l := area(p), usedLength(p, sizes)
		if a > topArea || (a == topArea && l < bestLen) {
			placed, rest, topArea, bestLen = p, r, a, l
		}
	}
	for _, hr := range []heuristic{bestShortSide, bottomLeft, bestArea} {
		for _, ord := range orders {
			keep(packMaxRects(sortedBoxes(boxes, ord), w, h, rotate, hr))
		}
	}
	// The skyline packer picks the box for each gap itself; the order only breaks
	// ties between equal boxes, so one order is enough.
	byArea := sortedBoxes(boxes, orders[0])
	for _, rule := range skyRules {
		keep(packSkyline(byArea, w, h, rotate, rule))
	}
	for i := range skyStarts(len(boxes)) {
		keep(packSkyline(perturbed(byArea, uint64(i)), w, h, rotate, skyRule{
			pol: placePolicy(i % 2), lowFirst: i/2%2 == 1, slack: startSlack[i%len(startSlack)],
		}))
	}
	return placed, rest
}

// Extra skyline starts (multi-start): each packs a perturbed order with some slack
// (skyRule). Over the four plain rules they took mixed-50 from 86.2 to 86.9 % of the
// area bound (32 starts), stickers-200 from 78.9 to 79.6 % (10), shirts-120 from 89.9
// to 90.6 % (32), and did not change mixed-500 (8). Their cost grows with the square of the copies, so the number of starts shrinks
// as the copies grow: at most maxStarts, and starts x copies² at most startWork
// (32 starts up to 500 copies, 8 at 1000, none from 2829).
const (
	maxStarts = 32
	startWork = maxStarts * 500 * 500
)

// startSlack are the slacks the extra starts take in turn (per mille of the gap
// width); 30 did best on three of the four generated sets, 200 on none.
var startSlack = []int{30, 10, 60}

func skyStarts(copies int) int {
	if copies == 0 {
		return 0
	}
	return min(maxStarts, startWork/(copies*copies))
}

// perturbed is boxes with each one swapped with one up to four places later,
// chosen by a splitmix64 stream seeded with seed: a fixed, version-independent
// sequence, so the same input always gives the same placements.
func perturbed(boxes []box, seed uint64) []box {
	out := append([]box(nil), boxes...)
	x := seed*0x9e3779b97f4a7c15 + 0x2545f4914f6cdd1d
	for j := range out {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		z ^= z >> 31
		k := min(len(out)-1, j+int(z%5))
		out[j], out[k] = out[k], out[j]
	}
	return out
}
