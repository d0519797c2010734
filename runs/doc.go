// Package runs keeps searches on disk. A Store (Open) is a runs
// directory: it creates and opens runs, finds and lists them, and holds
// the sweeps' records and locks, the archive and the journals of the
// operations under way; a command is handed one (cmd's Factory.Store).
// A run's own files are read with the functions that take its directory.
// It holds the run directory (run.json,
// metrics.jsonl, events.jsonl, checkpoint.bin, weights.npy,
// keep_prob.npy, weights.csv, summary.json; see docs/ARCHITECTURE.md) and
// the one owner of its layout (layout.go), run.json (Config, package
// record's, with DefaultConfig and Hash), the lock that keeps two processes from writing
// one run, checkpoints and summaries, the file recorder teed behind the
// engine (Tee) and the Printer, listing, names and tags, archive and removal.
// It stores and reads: it trains nothing and builds no engine. The
// records it keeps are package record's types; it imports neither core,
// train nor baselines (TestStoreDoesNoWork).
//
// The settings table from which the commands' flags are made, and the
// checks made before a run exists, are package config; exports (the
// weights' files and export.json, and the search rebuilt from its
// checkpoint that they are written from: Final) are package export; the
// outcome maple run reports (NewOutcome, with its ERM reference on the
// synthetic data) is package report's.
//
// What happens while a run is alive (Execute, the hub, the socket,
// detaching, signals) is package session; sweeps and their schedulers
// are package sweeps.
package runs
