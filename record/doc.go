// Package record holds what a run keeps on disk, as types: run.json's
// search Settings and evaluation EvalSettings, with their defaults and
// checks (run.json's whole Config, which names a dataset, is in
// record/run, so that core links no data loader), metrics.jsonl
// (Snapshot), events.jsonl (Event), the checkpoint's State, the
// Status a run is in, and summary.json's Result. Package runs stores
// them; core, train and baselines compute them and re-export each type
// under its old name (core.Settings is record.Settings).
//
// It computes nothing. What it needs to know of the registries above it
// is registered from there when they are linked: the outer objectives'
// names and scales (RegisterObjective, from core) and the methods that
// search (RegisterSearcher, from baselines). It imports neither core,
// train nor baselines, so that runs imports none of them.
package record
