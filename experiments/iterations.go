package experiments

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// Iteration is one row of iterations.csv: one outer iteration of one
// search of an experiment, read from its run's metrics.jsonl (the
// dashboard's own figures), so that the searches' paths are kept as
// data where run directories are not.
type Iteration struct {
	Experiment, Sweep, RunID string
	// ConfigHash, Dataset, TrainSize, Model, Method and Settings are the
	// run's as runs.csv gives them: the configuration (the row of
	// summary.csv) the run belongs to.
	ConfigHash, Dataset string
	TrainSize           int
	Model, Method       string
	Settings            string
	Seed                uint64
	Iter                int     // outer iterations completed (1-based)
	OuterRisk           float64 // the outer objective at this iterate
	SearchValWorst      float64 // the search's inner model's validation worst-group accuracy (%)
	KeepPct             float64 // the share of training samples kept (%)
	// ConflictWeight is the share (%) of the weights u on the groups
	// whose attribute disagrees with the label, as runs.csv's
	// conflict_weight_pct (nil for a dataset without such groups).
	ConflictWeight *float64
	// KeepGrad is the norm of the outer objective's gradient in the keep
	// scores s before clipping (the dashboard's |dR/ds|); KeepHigh is the
	// share (%) of training samples whose keep probability is 0.95 or
	// more (the top bin of the dashboard's keep histogram). Both are nil
	// in rows kept from a commit made before they were recorded, and
	// KeepHigh in records without the histogram.
	KeepGrad, KeepHigh *float64
	// Selected marks the iterate the run's final training used (runs.csv's
	// selected_iterate; the last one for a run that selected none).
	Selected bool
}

// iterationsHeader is iterations.csv's header, in column order.
var iterationsHeader = []string{"experiment", "sweep", "run_id", "config_hash", "dataset", "train_size", "model", "method", "settings", "seed",
	"iter", "outer_risk", "search_val_worst", "keep_pct", "conflict_weight_pct", "selected",
	"keep_grad_norm", "keep_high_pct"}

// IterationsFile is an experiment's per-iteration CSV, beside runs.csv.
const IterationsFile = "iterations.csv"

func (it Iteration) cells() []string {
	conflict, grad, high := "", "", ""
	if it.ConflictWeight != nil {
		conflict = pct(*it.ConflictWeight)
	}
	if it.KeepGrad != nil {
		grad = strconv.FormatFloat(*it.KeepGrad, 'g', 3, 64)
	}
	if it.KeepHigh != nil {
		high = pct(*it.KeepHigh)
	}
	return []string{it.Experiment, it.Sweep, it.RunID, it.ConfigHash, it.Dataset, strconv.Itoa(it.TrainSize), it.Model, it.Method, it.Settings,
		strconv.FormatUint(it.Seed, 10), strconv.Itoa(it.Iter), strconv.FormatFloat(it.OuterRisk, 'g', 6, 64), pct(it.SearchValWorst),
		pct(it.KeepPct), conflict, yesNo(it.Selected), grad, high}
}

// isSearch tells a maple search's row (which has an outer objective)
// from a baseline's.
func (r Run) isSearch() bool { return r.Objective != "" }

// Iterations returns the per-iteration rows of the searches among rows
// (baselines have none), read from their run directories in runsDir, in
// rows' order. A damaged metrics line is skipped and said through warn
// with the run it belongs to; so is a run whose records cannot be read,
// which is left out.
func Iterations(runsDir string, rows []Run, warn func(string)) []Iteration {
	var out []Iteration
	for _, r := range rows {
		if !r.isSearch() {
			continue
		}
		its, err := runIterations(runs.Open(runsDir).RunDir(r.RunID), r)
		if err != nil && warn != nil {
			var d *runs.DamagedLinesError
			if errors.As(err, &d) {
				warn(fmt.Sprintf("run %s: %v; its other iterations are used", r.RunID, err))
			} else {
				warn(fmt.Sprintf("run %s: its iterations are left out: %v", r.RunID, err))
			}
		}
		out = append(out, its...)
	}
	return out
}

// runIterations reads the records of the search r from its run directory
// dir. A damaged line is skipped: the rows of the others come back with
// a *runs.DamagedLinesError naming it.
func runIterations(dir string, r Run) ([]Iteration, error) {
	snaps, err := runs.ReadMetrics(dir)
	var d *runs.DamagedLinesError
	if err != nil && !errors.As(err, &d) {
		return nil, err
	}
	if len(snaps) == 0 && err == nil {
		return nil, fmt.Errorf("no records in %s", filepath.Join(dir, runs.MetricsFile))
	}
	selected := selectedRecord(snaps, r.SelectedIterate)
	out := make([]Iteration, 0, len(snaps))
	for _, s := range snaps {
		grad := s.KeepNorm
		out = append(out, Iteration{Experiment: r.Experiment, Sweep: r.Sweep, RunID: r.RunID, ConfigHash: r.ConfigHash, Dataset: r.Dataset,
			TrainSize: r.TrainSize, Model: r.Model, Method: r.Method, Settings: r.Settings, Seed: r.Seed, Iter: s.Iter, OuterRisk: s.OuterRisk,
			SearchValWorst: 100 * s.ValWorst, KeepPct: 100 * s.KeepFrac, ConflictWeight: conflictShare(s), Selected: s == selected,
			KeepGrad: &grad, KeepHigh: keepHigh(s.KeepHist)})
	}
	return out, err
}

// keepHigh is the share (%) of h's samples in its top bin, nil without
// a histogram or samples.
func keepHigh(h *core.Histogram) *float64 {
	if h == nil || len(h.Counts) == 0 {
		return nil
	}
	n := 0
	for _, c := range h.Counts {
		n += c
	}
	if n == 0 {
		return nil
	}
	v := 100 * float64(h.Counts[len(h.Counts)-1]) / float64(n)
	return &v
}

// WriteIterations writes its as iterations.csv in dir. Where no row has
// a share on the groups whose attribute disagrees with the label (no
// search, or a dataset without such groups), it writes no file and
// removes the files an earlier run left: iterations.csv and its figure.
func WriteIterations(dir string, its []Iteration) error {
	grouped := false
	for _, it := range its {
		grouped = grouped || it.ConflictWeight != nil
	}
	if !grouped {
		for _, name := range append([]string{IterationsFile}, IterationsFigure+".png", IterationsFigure+".svg") {
			if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	if err := writeIterationsCSV(&b, its); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, IterationsFile), []byte(b.String()), 0o644)
}

func writeIterationsCSV(w io.Writer, its []Iteration) error {
	return writeCSV(w, iterationsHeader, its)
}

// checkIterations compares an experiment's iterations.csv with its
// runs.csv: every search of runs.csv has its rows, exactly one of them
// selected, at runs.csv's selected iterate and with its shares, and no
// row belongs to a run runs.csv lacks. It lists the differences.
func checkIterations(its, runsTab *Table) []string {
	var out []string
	byRun := map[string][]map[string]string{}
	for _, it := range its.Rows {
		byRun[it["run_id"]] = append(byRun[it["run_id"]], it)
	}
	searches := map[string]bool{}
	for _, r := range runsTab.Rows {
		if r["objective"] == "" {
			continue
		}
		id := r["run_id"]
		searches[id] = true
		var sel []map[string]string
		mismatch := ""
		for _, it := range byRun[id] {
			if it["selected"] == "yes" {
				sel = append(sel, it)
			}
			if mismatch == "" && (it["config_hash"] != r["config_hash"] || it["seed"] != r["seed"] || it["sweep"] != r["sweep"]) {
				mismatch = it["iter"]
			}
		}
		if mismatch != "" {
			out = append(out, fmt.Sprintf("run %s, iteration %s: sweep, configuration or seed is not runs.csv's", id, mismatch))
		}
		if len(sel) != 1 {
			out = append(out, fmt.Sprintf("run %s: %d rows selected, want 1", id, len(sel)))
			continue
		}
		s := sel[0]
		if it := r["selected_iterate"]; it != "0" && s["iter"] != it {
			out = append(out, fmt.Sprintf("run %s: iteration %s selected, runs.csv says %s", id, s["iter"], it))
		}
		for _, col := range []string{"conflict_weight_pct", "keep_pct"} {
			if s[col] != r[col] {
				out = append(out, fmt.Sprintf("run %s: %s %q at the selected iterate, runs.csv says %q", id, col, s[col], r[col]))
			}
		}
	}
	for id := range byRun {
		if !searches[id] {
			out = append(out, fmt.Sprintf("run %s has iterations but is no search of runs.csv", id))
		}
	}
	slices.Sort(out)
	return out
}
