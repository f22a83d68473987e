package gang

import "math"

// placePolicy says where in the lowest gap of the skyline the best-fit packer puts
// the chosen box.
type placePolicy int

const (
	// atLeft: against the gap's left end.
	atLeft placePolicy = iota
	// byTaller: against the taller of the gap's two neighbours (the box then leaves
	// the smaller step beside it). Burke's third policy, against the shorter
	// neighbour, was 1 to 5 % longer on every generated set and is not tried.
	byTaller
)

// skyRule is one variant of the best-fit packer: where the box goes in the gap, and
// which of the boxes that fill the gap equally wide it takes (the tallest, or with
// lowFirst the lowest). Taking the largest area or the tallest box instead of the
// widest was 2 to 12 % longer on the generated sets and is not tried.
//
// With slack (per mille of the gap width) it takes instead the first box in order
// that is at most that much narrower than the widest: packBest's extra starts
// perturb the order, and slack lets the order matter.
type skyRule struct {
	pol      placePolicy
	lowFirst bool
	slack    int
}

// skyRules are the variants packBest always tries, in this order.
var skyRules = []skyRule{{atLeft, false, 0}, {atLeft, true, 0}, {byTaller, false, 0}, {byTaller, true, 0}}

// pick chooses the box for gap (index into left, turned or not, its size); -1 when
// none fits.
func (rule skyRule) pick(left []box, gap segment, h int, rotate bool) (pick int, rot bool, pw, ph int) {
	// ways calls f for each way round b fits the gap.
	ways := func(b box, f func(rot bool, bw, bh int)) {
		for _, turned := range []bool{false, true} {
			if turned && (!rotate || (b.RW == b.W && b.RH == b.H)) {
				continue
			}
			if bw, bh := b.dims(turned); bw <= gap.W && gap.Y+bh <= h {
				f(turned, bw, bh)
			}
		}
	}
	pick = -1
	for i, b := range left {
		ways(b, func(turned bool, bw, bh int) {
			taller := bh > ph
			if rule.lowFirst {
				taller = bh < ph
			}
			if bw > pw || (bw == pw && taller) {
				pick, rot, pw, ph = i, turned, bw, bh
			}
		})
	}
	if pick < 0 || rule.slack == 0 {
		return pick, rot, pw, ph
	}
	least := pw - gap.W*rule.slack/1000
	for i, b := range left {
		found := false
		ways(b, func(turned bool, bw, bh int) {
			if bw >= least && (!found || bw > pw) {
				pick, rot, pw, ph, found = i, turned, bw, bh, true
			}
		})
		if found {
			break
		}
	}
	return pick, rot, pw, ph
}

// segment is one flat piece of the skyline: [X, X+W) is filled down to Y.
type segment struct{ X, W, Y int }

// packSkyline is Burke, Kendall and Whitwell's best-fit strip packer (2004): take the
// lowest gap of the skyline (leftmost on ties), put in it the box (either way round)
// that fills most of its width, the first in order on ties; when none fits, the gap
// is wasted and raised to its lower neighbour. Unlike MaxRects, which places boxes in
// a fixed order, the box is picked for the gap, which suits a roll: the skyline stays
// flat, so the roll ends level. O(n²) in the boxes, cheaper than MaxRects.
func packSkyline(boxes []box, w, h int, rotate bool, rule skyRule) (placed []packed, rest []box) {
	left := append([]box(nil), boxes...)
	sky := []segment{{0, w, 0}}
	for len(left) > 0 {
		// The lowest segment, leftmost on ties.
		g := 0
		for i, s := range sky {
			if s.Y < sky[g].Y {
				g = i
			}
		}
		gap := sky[g]
		if gap.W == w && gap.Y >= h {
			break // the bin is full to its bottom
		}
		pick, pickRot, pickW, pickH := rule.pick(left, gap, h, rotate)
		if pick < 0 {
			if len(sky) == 1 {
				break // nothing left fits anywhere
			}
			sky = raise(sky, g)
			continue
		}
		x := gap.X
		if rule.pol != atLeft && pickW < gap.W {
			lh, rh := neighbourY(sky, g-1), neighbourY(sky, g+1)
			if rh > lh {
				x = gap.X + gap.W - pickW
			}
		}
		b := left[pick]
		left = append(left[:pick], left[pick+1:]...)
		placed = append(placed, packed{ID: b.ID, X: x, Y: gap.Y, Rot: pickRot})
		sky = fill(sky, g, x, pickW, gap.Y+pickH)
	}
	return placed, left
}

// neighbourY is how far down segment i is filled; the bin's sides count as filled to
// the end (a wall is the tallest neighbour there is). Y grows down the roll, so a
// "taller" neighbour in Burke's terms has the larger Y.
func neighbourY(sky []segment, i int) int {
	if i < 0 || i >= len(sky) {
		return math.MaxInt
	}
	return sky[i].Y
}

// raise wastes gap g: it is filled down to its shallower neighbour and merged.
func raise(sky []segment, g int) []segment {
	sky[g].Y = min(neighbourY(sky, g-1), neighbourY(sky, g+1))
	return merge(sky)
}

// fill puts a box [x, x+bw) down to y into gap g (x and bw inside it).
func fill(sky []segment, g, x, bw, y int) []segment {
	gap := sky[g]
	var mid []segment
	if x > gap.X {
		mid = append(mid, segment{gap.X, x - gap.X, gap.Y})
	}
	mid = append(mid, segment{x, bw, y})
	if end := gap.X + gap.W; x+bw < end {
		mid = append(mid, segment{x + bw, end - x - bw, gap.Y})
	}
	out := make([]segment, 0, len(sky)+2)
	out = append(out, sky[:g]...)
	out = append(out, mid...)
	out = append(out, sky[g+1:]...)
	return merge(out)
}

// merge joins neighbouring segments filled to the same depth.
func merge(sky []segment) []segment {
	out := sky[:1]
	for _, s := range sky[1:] {
		if last := &out[len(out)-1]; last.Y == s.Y {
			last.W += s.W
			continue
		}
		out = append(out, s)
	}
	return out
}
