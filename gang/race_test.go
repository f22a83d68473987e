//go:build trial && race

package gang

// raceEnabled: the race detector multiplies memory and time, so process tests that
// measure them build an uninstrumented child instead of re-running this binary.
const raceEnabled = true
