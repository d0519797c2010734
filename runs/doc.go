// Package runs keeps searches on disk: the run directory (run.json,
// metrics.jsonl, events.jsonl, checkpoint.bin, weights.npy,
// keep_prob.npy, weights.csv, summary.json; see docs/ARCHITECTURE.md) and
// the one owner of its layout (layout.go), run.json (Config, with
// DefaultConfig and Hash), the lock that keeps two processes from writing
// one run, checkpoints and summaries, the file recorder teed behind the
// engine (Tee) and the Printer, listing, names and tags, archive and removal.
//
// The settings table from which the commands' flags are made, and the
// checks made before a run exists, are package config; exports are
// package export.
//
// What happens while a run is alive (Execute, the hub, the socket,
// detaching, signals) is package session; sweeps and their schedulers
// are package sweeps.
package runs
