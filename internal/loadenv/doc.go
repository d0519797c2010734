// Package loadenv gives native libraries the environment they read once,
// at load time, before the process has run a line of Go: when a default
// is missing from the environment, Exec re-executes the process with it
// set. A variable the user has set (even to the empty string) is kept.
package loadenv
