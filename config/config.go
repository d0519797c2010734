package config

import "github.com/maple-ood/maple/record/run"

// Config is run.json: everything needed to repeat or resume the run. It
// is kept in package record (run.Config), with its hashes (Hash,
// SearchHash), so that the store, package runs, reads it without this
// package's imports.
type Config = run.Config

// Build is the matrix backend a process computes with (run.Build).
type Build = run.Build

// CurrentBuild is this process's matrix backend.
func CurrentBuild() *Build { return run.CurrentBuild() }

// DefaultConfig returns the config of `maple run --dataset name` with
// every other flag at its default (run.DefaultConfig).
func DefaultConfig(name string) Config { return run.DefaultConfig(name) }
