package export

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// To writes the exports of the run in dir in format (csv or npy)
// into out (the run directory when ""), and returns the files written. A
// run that is not done is refused unless unfinished is set: then its
// latest checkpoint is exported, and export.json says so.
func To(dir, out, format string, unfinished bool, ov Overrides, progress io.Writer) ([]string, error) {
	if format != "csv" && format != "npy" {
		return nil, fmt.Errorf("--format %q: want csv or npy", format)
	}
	if _, err := runs.ReadSummary(dir); err != nil && !unfinished {
		return nil, fmt.Errorf("%w; or export its latest checkpoint with --checkpoint", err) // not "interrupted": it may be done
	}
	status := runs.Stat(dir).Status
	if status != core.StatusDone && !unfinished {
		return nil, fmt.Errorf("run %s is %s, not done: its weights are not final; export its latest checkpoint with --checkpoint, or resume it first", filepath.Base(dir), status)
	}
	if cfg, err := runs.ReadConfig(dir); err == nil && !cfg.Searches() {
		return copyExports(dir, out, format, cfg)
	}
	cfg, sp, o, iter, err := Final(dir, ov, progress)
	if err != nil {
		return nil, err
	}
	if out == "" {
		out = dir
	}
	if err := runs.MakeDir(out); err != nil {
		return nil, err
	}
	if err := WriteExports(out, cfg, status, iter, o, sp.Train, format); err != nil {
		return nil, err
	}
	man, err := ReadExport(out)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, n := range append(man.Files, ExportJSON) {
		names = append(names, filepath.Join(out, n))
	}
	return names, nil
}

// copyExports exports a baseline's per-sample weights, which its run
// wrote when it ended (WriteSampleWeights; LfF), in format into out.
func copyExports(dir, out, format string, cfg *runs.Config) ([]string, error) {
	man, err := ReadExport(dir)
	if err != nil {
		return nil, fmt.Errorf("run %s (%s) has no per-sample weights to export (of the baselines only lff ends with some); its training's validation checks: --format training-csv", cfg.ID, cfg.Method)
	}
	if out == "" {
		out = dir
	}
	if err := runs.MakeDir(out); err != nil {
		return nil, err
	}
	want := map[string][]string{"npy": {UNPY, runs.WeightsNPY, runs.KeepNPY, MaskNPY, IDsNPY}, "csv": {runs.WeightsCSV}}[format]
	var names []string
	for _, f := range man.Files {
		if !slices.Contains(want, f) {
			continue
		}
		if out != dir {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if err != nil {
				return nil, err
			}
			if err := runs.WriteFile(filepath.Join(out, f), b); err != nil {
				return nil, err
			}
		}
		names = append(names, filepath.Join(out, f))
	}
	if out != dir {
		m := *man
		m.Files = nil
		for _, n := range names {
			m.Files = append(m.Files, filepath.Base(n))
		}
		if err := runs.WriteJSONAtomic(filepath.Join(out, ExportJSON), m); err != nil {
			return nil, err
		}
	}
	return append(names, filepath.Join(out, ExportJSON)), nil
}

// Formats are the formats maple export writes: the weights (csv,
// npy; ExportTo), the per-iteration records (metrics-csv;
// MetricsCSV; tensorboard, TensorBoard) or the finished
// training's validation checks (training-csv, TrainingCSV).
var Formats = []string{"csv", "npy", "metrics-csv", "tensorboard", "training-csv"}

// Records write a run's records into a directory (the
// per-iteration ones also for a run that is not done), by format; they
// return the file. A damaged line of the records is skipped and
// reported through the warn function.
var Records = map[string]func(dir, out string, warn func(string)) (string, error){
	"metrics-csv":  MetricsCSV,
	"tensorboard":  TensorBoard,
	"training-csv": TrainingCSV,
}
