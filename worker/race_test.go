//go:build race

package worker_test

// raceEnabled: the race detector multiplies CPU several-fold, so a test whose point
// is the amount of work (not the goroutines sharing it) runs in the plain tier only.
const raceEnabled = true
