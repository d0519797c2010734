// Package tui is maple's terminal interface on bubbletea: the live
// dashboard of a search (running in this process, or attached to one in
// another through its socket) with its controls, and the runs browser
// (sortable, filterable table, replay of a run's charts, comparison of two
// runs, and attach / resume / new-run actions). It is the only package
// that imports the charm libraries and asciigraph.
package tui
