package gang

import "sort"

func sortPlacements(ps []Placement) {
	sort.Slice(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.Y != b.Y {
			return a.Y < b.Y
		}
		if a.X != b.X {
			return a.X < b.X
		}
		return a.Design < b.Design || (a.Design == b.Design && a.Copy < b.Copy)
	})
}
