package config

import "github.com/maple-ood/maple/record"

// Config is run.json: everything needed to repeat or resume the run. It
// is kept in package record (record.Config), with its hashes (Hash,
// SearchHash), so that the store, package runs, reads it without this
// package's imports.
type Config = record.Config

// Build is the matrix backend a process computes with (record.Build).
type Build = record.Build

// CurrentBuild is this process's matrix backend.
func CurrentBuild() *Build { return record.CurrentBuild() }

// DefaultConfig returns the config of `maple run --dataset name` with
// every other flag at its default (record.DefaultConfig).
func DefaultConfig(name string) Config { return record.DefaultConfig(name) }
