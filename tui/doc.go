// Package tui is maple's terminal interface on bubbletea: the live
// dashboard of a search (running in this process, or attached to one in
// another through its socket) with its controls, and the runs browser
// (sortable, filterable table, replay of a run's charts, comparison of two
// runs, and attach / resume / new-run actions handed back typed). The
// reusable components are packages of their own, each with its KeyMap,
// as bubbles' are: tui/chart, tui/form, tui/list and tui/picker. One key
// map per view drives both the keys and the help (bubbles key and help),
// one Styles struct (tui/styles) holds every style, and every disk read
// and socket call runs as a tea.Cmd. tui and its packages are the only
// ones that import the charm libraries and asciigraph. See
// docs/ARCHITECTURE.md.
package tui
