//go:build !race

package pngenc

const raceEnabled = false
