package runs

import (
	"fmt"
	"strings"

	"github.com/maple-ood/maple/record/run"
)

// Config is run.json (run.Config), kept here under its old name for
// the store's callers.
type Config = run.Config

// Build is the matrix backend a process computes with (run.Build).
type Build = run.Build

// CurrentBuild is this process's matrix backend.
func CurrentBuild() *Build { return run.CurrentBuild() }

// DefaultConfig returns the config of `maple run --dataset name` with
// every other flag at its default (run.DefaultConfig).
func DefaultConfig(name string) Config { return run.DefaultConfig(name) }

// BuildChange says how this process's backend differs from the one run
// cfg started on, "" when it does not (or the run recorded none: maple
// before it recorded them).
func BuildChange(cfg Config) string {
	now := CurrentBuild()
	if cfg.Build == nil || *cfg.Build == *now {
		return ""
	}
	return fmt.Sprintf("run %s started on %s and continues on %s: %s (a run is repeatable bit for bit on one backend and thread count; OPENBLAS_NUM_THREADS and GOMAXPROCS set the threads)", cfg.ID, cfg.Build, now, buildChangeMark)
}

// buildChangeMark is the part of BuildChange's warning IsBuildChange
// finds in a run's events.
const buildChangeMark = "its results may differ in their last digits from a run on one backend"

// IsBuildChange tells whether a warning is BuildChange's: the run went on
// with another backend or thread count than it started with.
func IsBuildChange(warning string) bool { return strings.Contains(warning, buildChangeMark) }
