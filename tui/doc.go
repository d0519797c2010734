// Package tui is maple's terminal interface on bubbletea: the live
// dashboard of a search (in this process, or attached to one running in
// another through its socket) with its controls. It is the only package
// that imports the charm libraries and asciigraph.
//
// Not built yet: the runs browser and run comparison.
package tui
