package gang

import "sort"

// tailSizes are how many of the deepest boxes improveTail takes out and re-packs,
// smallest first: a few boxes sticking out at the end of the roll are the usual
// loss, a larger tail gives the re-pack more to rearrange.
var tailSizes = []int{1, 2, 4, 8, 16, 32, 64}

// improveTail shortens a packing at its end, where the area bound is lost: the
// boxes reaching deepest into the roll are taken out and put back with MaxRects
// into every hole of the rest of the packing (every heuristic and order); the
// first try that ends shorter with every box back is kept, and it starts again,
// at most rounds times. The same boxes stay placed, so placed area is unchanged.
// Deterministic: fixed tries in a fixed order, ties to the earlier.
func improveTail(placed []packed, sizes map[int]box, w, h int, rotate bool, rounds, window int) []packed {
	at := func(p packed) rect {
		bw, bh := sizes[p.ID].dims(p.Rot)
		return rect{p.X, p.Y, bw, bh}
	}
	for range rounds {
		length := usedLength(placed, sizes)
		// Deepest bottom edge first, then deepest top edge, then right to left.
		ps := append([]packed(nil), placed...)
		sort.SliceStable(ps, func(i, j int) bool {
			a, b := at(ps[i]), at(ps[j])
			if a.bottom() != b.bottom() {
				return a.bottom() > b.bottom()
			}
			if a.Y != b.Y {
				return a.Y > b.Y
			}
			if a.X != b.X {
				return a.X > b.X
			}
			return ps[i].ID < ps[j].ID
		})
		// Free space of the kept boxes for every tail size, built once: place from the
		// shallowest box down and keep a copy of the free list as each tail size is
		// reached. Only the end is rebuilt: everything more than one box (window)
		// above the largest tail counts as filled, so a round costs the boxes near the
		// end, not all of them (MaxRects is quadratic).
		top := 0
		if k := min(len(ps), tailSizes[len(tailSizes)-1]); k > 0 {
			top = at(ps[k-1]).Y
			for _, p := range ps[:k] {
				top = min(top, at(p).Y)
			}
			top = max(0, top-window)
		}
		snaps := map[int][]rect{}
		m := &maxRects{w: w, h: h, free: []rect{{0, top, w, h - top}}, rotate: rotate}
		for i := len(ps) - 1; i >= 0; i-- {
			if r := at(ps[i]); r.bottom() <= top {
				continue
			}
			for _, k := range tailSizes {
				if k == i+1 {
					snaps[k] = append([]rect(nil), m.free...)
				}
			}
			m.place(at(ps[i]))
		}
		var best []packed
		bestLen := length
		trial := &maxRects{w: w, h: h, rotate: rotate}
		for _, k := range tailSizes {
			free, ok := snaps[k]
			if !ok {
				continue
			}
			var tail []box
			for _, p := range ps[:k] {
				tail = append(tail, sizes[p.ID])
			}
			for _, ord := range orders {
				tail := sortedBoxes(tail, ord)
				for _, hr := range []heuristic{bottomLeft, bestShortSide, bestArea} {
					trial.free = append(trial.free[:0], free...)
					back, rest := trial.pack(tail, hr)
					if len(rest) > 0 {
						continue
					}
					try := append(append([]packed(nil), ps[k:]...), back...)
					if l := usedLength(try, sizes); l < bestLen {
						best, bestLen = try, l
					}
				}
			}
			if best != nil {
				break // the smallest tail that helps: a larger one rarely does better
			}
		}
		if best == nil {
			return placed
		}
		placed = best
	}
	return placed
}
