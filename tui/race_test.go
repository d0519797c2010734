//go:build race

package tui

// raceEnabled says the tests run under the race detector.
const raceEnabled = true
