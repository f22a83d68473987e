//go:build trial && !race

package gang

const raceEnabled = false
