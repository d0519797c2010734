package runs

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The layout of a runs directory, which this file alone spells out:
//
//	RUNS/ID/                  one run (File names below)
//	RUNS/.sweeps/NAME.json    a sweep's record (its cells, for --status)
//	RUNS/.claims/             the sweeps' cell locks (NAME-HASH.lock) and
//	                          each sweep's own (NAME.sweep.lock)
//	RUNS/.removing-ID/        a run that maple rm is deleting
//	RUNS/.ops/                what an unfinished maple rm or archive does
//	RUNS/figures-NAME/        maple plot of a sweep
//	RUNS/ID/figures/          maple plot of a run

// File names inside a run directory.
const (
	ConfigFile     = "run.json"
	MetricsFile    = "metrics.jsonl"
	EventsFile     = "events.jsonl"
	CheckpointFile = "checkpoint.bin"
	PrevCheckpoint = "checkpoint.prev.bin"
	WeightsNPY     = "weights.npy"
	KeepNPY        = "keep_prob.npy"
	WeightsCSV     = "weights.csv"
	SummaryFile    = "summary.json"
	LockFile       = "lock"
	SocketFile     = "sock"
	LogFile        = "log.txt"
)

// Dir returns the directory of run id in runsDir (which may not exist).
func (s Store) RunDir(id string) string { return filepath.Join(s.dir, id) }

// Find returns the directory of run id in runsDir. id is a run's id, its
// --name, a unique prefix or suffix of an id ("140715-01"), or "latest"
// (the run started last). A run directory holds a run.json or a lock (a missing
// lock never hides a run).
func (s Store) Find(id string) (string, error) {
	if isRunDir(s.dir, id) {
		return s.RunDir(id), nil
	}
	ents, _ := os.ReadDir(s.dir)
	var ids []string
	for _, e := range ents {
		if e.IsDir() && isRunDir(s.dir, e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	if id == "latest" && len(ids) > 0 {
		return s.RunDir(slices.Max(ids)), nil // ids start with their start time
	}
	var match []string
	for _, name := range ids { // a run's --name
		if cfg, err := ReadConfig(s.RunDir(name)); err == nil && cfg.Name != "" && cfg.Name == id {
			match = append(match, name)
		}
	}
	if len(match) == 1 {
		return s.RunDir(match[0]), nil
	}
	if len(match) > 1 {
		return "", fmt.Errorf("%d runs in %s are named %q: %s; give an id", len(match), s.dir, id, strings.Join(match, ", "))
	}
	for _, name := range ids {
		if id != "" && (strings.HasPrefix(name, id) || strings.HasSuffix(name, id)) {
			match = append(match, name)
		}
	}
	switch {
	case len(match) == 1:
		return s.RunDir(match[0]), nil
	case len(match) > 1:
		if len(match) > 4 {
			match = append(match[:4], "...")
		}
		return "", fmt.Errorf("run id %q is ambiguous in %s: it matches %s (give more of it)", id, s.dir, strings.Join(match, ", "))
	}
	return "", fmt.Errorf("no run %q in %s (see maple ls)", id, s.dir)
}

// isRunDir tells whether runsDir/id is a run's directory.
func isRunDir(runsDir, id string) bool {
	if id == "" || strings.ContainsRune(id, os.PathSeparator) || strings.HasPrefix(id, ".") {
		return false
	}
	for _, name := range []string{ConfigFile, LockFile} {
		if _, err := os.Stat(filepath.Join(runsDir, id, name)); err == nil {
			return true
		}
	}
	return false
}

// ClaimsDir holds the sweeps' locks: a cell's, NAME-HASH.lock, held
// while a process runs the cell, and a sweep's, NAME.sweep.lock (see
// SweepLockFile).
func (s Store) ClaimsDir() string { return filepath.Join(s.dir, ".claims") }

// SweepLockFile is sweep name's own lock: every process of the sweep
// holds it shared for its whole life, and maple rm and archive take it
// exclusively. A cell's lock, NAME-HASH.lock, never ends in .sweep.lock
// (a hash has no dot).
func (s Store) SweepLockFile(name string) (string, error) {
	if _, err := s.SweepFile(name, ""); err != nil {
		return "", err
	}
	return filepath.Join(s.ClaimsDir(), name+".sweep.lock"), nil
}

// SweepsDir holds the sweeps' records.
func (s Store) SweepsDir() string { return filepath.Join(s.dir, ".sweeps") }

// SweepFile is the file of sweep name in SweepsDir with the suffix ext
// (".json" its record, ".sbatch", ".stop"). A name that is not one file
// name (a separator, "..", a leading dot) is refused: it would name a
// file outside the directory (maple rm ../../x deleted x.json there).
func (s Store) SweepFile(name, ext string) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || strings.HasPrefix(name, ".") || !filepath.IsLocal(name) {
		return "", fmt.Errorf("%q is no sweep name: a sweep's name is a file name in the runs directory (no / and no leading dot)", name)
	}
	return filepath.Join(s.SweepsDir(), name+ext), nil
}

// sweepName is what a new sweep may be called: its name is a file name
// in the runs directory (.sweeps/NAME.json, the claims NAME-HASH.lock),
// and a Slurm job name and output file in its batch script.
var sweepName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// CheckSweepName refuses a name a new sweep cannot take.
func CheckSweepName(name string) error {
	if !sweepName.MatchString(name) || strings.Contains(name, "..") {
		return fmt.Errorf("--name %q: want letters, digits, '.', '_' and '-', starting with a letter or digit, at most 100 (the name is a file name in the runs directory and the Slurm job's)", name)
	}
	return nil
}

// SweepNames lists the sweeps recorded in runsDir.
func (s Store) SweepNames() []string {
	recs, _ := filepath.Glob(filepath.Join(s.SweepsDir(), "*.json"))
	var names []string
	for _, r := range recs {
		names = append(names, strings.TrimSuffix(filepath.Base(r), ".json"))
	}
	return names
}

// FiguresDir is where maple plot writes a run's figures by default.
func FiguresDir(runDir string) string { return filepath.Join(runDir, "figures") }

// SweepFiguresDir is where maple plot writes a sweep's figures by default.
func (s Store) SweepFiguresDir(sweep string) string { return filepath.Join(s.dir, "figures-"+sweep) }
