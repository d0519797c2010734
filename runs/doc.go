// Package runs keeps searches on disk and live: the run directory
// (run.json, metrics.jsonl, events.jsonl, checkpoint.bin, weights.npy,
// keep_prob.npy, weights.csv, summary.json; see docs/ARCHITECTURE.md),
// the lock that keeps two processes from writing one run, the checks made
// before a run exists (Config.Check, Prepare), Execute (a run from its
// checkpoint to its summary, bit for bit across resumes), the recorders
// teed behind the engine (files, hub, Printer), the sweep scheduler with
// its per-cell claims, detaching, the process's one signal handler
// (Interrupts), listing and exports, and the owner-only unix socket
// through which `maple attach` watches and steers a running search.
package runs
