// Package tui is maple's terminal interface (bubbletea): the live
// dashboard, the runs browser and live control. It is the only package
// that imports the charm libraries and asciigraph.
//
// Not built yet: see the project's issues.
package tui
