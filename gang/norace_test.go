//go:build !race

package gang

const raceEnabled = false
