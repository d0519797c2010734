package runs

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The layout of a runs directory, which this file alone spells out:
//
//	RUNS/ID/                  one run (File names below)
//	RUNS/.sweeps/NAME.json    a sweep's record (its cells, for --status)
//	RUNS/.claims/             the sweeps' cell locks
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
func Dir(runsDir, id string) string { return filepath.Join(runsDir, id) }

// Find returns the directory of run id in runsDir, which must hold a
// run.json or a lock (a missing lock never hides a run).
func Find(runsDir, id string) (string, error) {
	dir := Dir(runsDir, id)
	for _, name := range []string{ConfigFile, LockFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil && id != "" && !strings.ContainsRune(id, os.PathSeparator) {
			return dir, nil
		}
	}
	return "", fmt.Errorf("no run %q in %s (see maple ls)", id, runsDir)
}

// sweepsDir holds the sweeps' records.
func sweepsDir(runsDir string) string { return filepath.Join(runsDir, ".sweeps") }

// SweepNames lists the sweeps recorded in runsDir.
func SweepNames(runsDir string) []string {
	recs, _ := filepath.Glob(filepath.Join(sweepsDir(runsDir), "*.json"))
	var names []string
	for _, r := range recs {
		names = append(names, strings.TrimSuffix(filepath.Base(r), ".json"))
	}
	return names
}

// FiguresDir is where maple plot writes a run's figures by default.
func FiguresDir(runDir string) string { return filepath.Join(runDir, "figures") }

// SweepFiguresDir is where maple plot writes a sweep's figures by default.
func SweepFiguresDir(runsDir, sweep string) string { return filepath.Join(runsDir, "figures-"+sweep) }
