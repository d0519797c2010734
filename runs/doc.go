// Package runs keeps searches on disk: the run directory layout of
// DESIGN.md section 5, its config, metrics log, checkpoints, exports and
// the live socket of a running search.
//
// Not built yet: see the project's issues.
package runs
