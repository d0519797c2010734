// Package runs keeps searches on disk and live: the run directory of
// DESIGN.md section 5 (run.json, metrics.jsonl, events.jsonl,
// checkpoint.bin, weights.npy, keep_prob.npy, weights.csv, summary.json),
// the lock that keeps two processes from writing one run, resuming from a
// checkpoint bit for bit, listing and exports, and the owner-only unix
// socket through which `maple attach` watches and steers a running search.
package runs
