package export

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
)

// MetricsFile is the file MetricsCSV writes.
const MetricsFile = "metrics.csv"

// MetricsCSV writes every record of the run in dir's metrics.jsonl
// as one CSV row per outer iteration into out (the run directory when
// ""): the scalars, the learning rates and timings, each group's weight
// fraction and validation accuracy (a column per group), and, with
// --eval-each-iter, the evaluation model's figures. It works on a run
// that is not done: the records are what they are. A damaged line is
// skipped and reported through warn. It returns the file.
func MetricsCSV(dir, out string, warn func(string)) (string, error) {
	snaps, out, err := records(dir, out, warn)
	if err != nil {
		return "", err
	}
	groups := snaps[len(snaps)-1].GroupNames
	evals := false
	for _, s := range snaps {
		evals = evals || s.IterEval != nil
	}
	head := []string{"iter", "total", "outer_risk", "inner_loss", "val_acc", "val_worst_group_acc", "test_acc", "test_worst_group_acc",
		"keep_frac", "keep_size", "temperature", "hypergrad_norm", "keepgrad_norm", "seconds_inner", "seconds_outer_grad", "seconds_hypergrad",
		"lr_weight", "lr_keep", "lr_inner", "selected_iter", "elapsed", "status"}
	for _, g := range groups {
		head = append(head, "group_frac["+g+"]")
	}
	for _, g := range groups {
		head = append(head, "val_group_acc["+g+"]")
	}
	if evals {
		head = append(head, "eval_val_acc", "eval_val_worst_group_acc", "eval_test_acc", "eval_test_worst_group_acc", "eval_selected_step",
			"eval_reference_test_acc", "eval_last_step_test_acc", "eval_last_step_train_acc")
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	rows := [][]string{head}
	for _, s := range snaps {
		r := []string{strconv.Itoa(s.Iter), strconv.Itoa(s.Total), f(s.OuterRisk), f(s.InnerLoss), f(s.ValAcc), f(s.ValWorst), f(s.TestAcc), f(s.TestWorst),
			f(s.KeepFrac), f(s.KeepSize), f(s.Temp), f(s.HyperNorm), f(s.KeepNorm), f(s.Seconds.Inner), f(s.Seconds.OuterGrad), f(s.Seconds.Hyper),
			f(s.LR.Weight), f(s.LR.Keep), f(s.LR.Inner), strconv.Itoa(s.Selected), f(s.Elapsed), s.Status.String()}
		r = append(r, byGroup(s.GroupNames, s.GroupFrac, groups, f)...)
		r = append(r, byGroup(s.GroupNames, s.ValGroups, groups, f)...)
		if evals {
			r = append(r, evalCells(s.IterEval, f)...)
		}
		rows = append(rows, r)
	}
	path := filepath.Join(out, MetricsFile)
	return path, writeCSV(path, rows)
}

// TrainingFile is the file TrainingCSV writes.
const TrainingFile = "training.csv"

// TrainingCSV writes the validation checks of the run in dir's
// finished training (a baseline's, or a search's final weighted ERM;
// summary.json's curve) as one CSV row per check into out (the run
// directory when ""): the step, the validation figures that select, the
// test figures beside them, and whether the step is the selected one. It
// returns the file.
func TrainingCSV(dir, out string, _ func(string)) (string, error) {
	sum, err := runs.ReadSummary(dir)
	if err != nil {
		return "", err
	}
	if sum == nil || sum.Result == nil || len(sum.Result.Curve) == 0 {
		return "", fmt.Errorf("run %s has no finished training with its curve (not done, or recorded before maple kept training curves)", filepath.Base(dir))
	}
	if out == "" {
		out = dir
	}
	if err := runs.MakeDir(out); err != nil {
		return "", err
	}
	f := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	rows := [][]string{{"step", "val_acc", "val_worst_group_acc", "test_acc", "test_worst_group_acc", "selected"}}
	for _, c := range sum.Result.Curve {
		rows = append(rows, []string{strconv.Itoa(c.Step), f(c.ValAcc), f(c.ValWorst), f(c.TestAcc), f(c.TestWorst),
			strconv.FormatBool(c.Step == sum.Result.SelectedStep)})
	}
	path := filepath.Join(out, TrainingFile)
	return path, writeCSV(path, rows)
}

// writeCSV writes rows to path through a temporary file renamed into
// place, so that a reader never sees half a file.
func writeCSV(path string, rows [][]string) error {
	return runs.WriteWith(path, func(f *os.File) error {
		w := csv.NewWriter(f)
		w.WriteAll(rows)
		return w.Error()
	})
}

// records reads the run in dir's per-iteration records for an export
// into out (the run directory when ""), refusing a run with none, and
// creates out.
func records(dir, out string, warn func(string)) ([]*core.Snapshot, string, error) {
	snaps, err := runs.ReadMetrics(dir)
	if err = runs.SkipDamaged(err, warn); err != nil {
		return nil, "", err
	}
	if snaps, err = screen(dir, snaps, warn); err != nil {
		return nil, "", err
	}
	if len(snaps) == 0 {
		return nil, "", fmt.Errorf("run %s has no outer iterations recorded (a baseline, or not started)", filepath.Base(dir))
	}
	if out == "" {
		out = dir
	}
	if err := runs.MakeDir(out); err != nil {
		return nil, "", err
	}
	return snaps, out, nil
}

// byGroup lays out v (in names' order) in the order of groups, "" where
// a record lacks a group.
func byGroup(names []string, v []float64, groups []string, f func(float64) string) []string {
	out := make([]string, len(groups))
	for i, g := range groups {
		for j, n := range names {
			if n == g && j < len(v) {
				out[i] = f(v[j])
			}
		}
	}
	return out
}

func evalCells(e *core.IterEval, f func(float64) string) []string {
	if e == nil {
		return make([]string, 8)
	}
	out := []string{f(e.ValAcc), f(e.ValWorst), f(e.TestAcc), f(e.TestWorst), strconv.Itoa(e.Step), "", "", ""}
	if e.Reference != nil {
		out[5] = f(e.Reference.TestAcc)
	}
	if e.Last != nil {
		out[6], out[7] = f(e.Last.TestAcc), f(e.Last.TrainAcc)
	}
	return out
}

// maxRecordLine is the longest metrics.jsonl line an export takes for a
// record: one is a few kB (its groups' figures and histograms).
const maxRecordLine = 1 << 20

// screen leaves out of snaps (the records of dir's metrics.jsonl, in
// order) those no search wrote: on a line over maxRecordLine, beyond the
// run's iterations, or not after the record before (repeated or out of
// sequence), each named by its line through warn. The file is left as it
// is.
func screen(dir string, snaps []*core.Snapshot, warn func(string)) ([]*core.Snapshot, error) {
	sizes, err := recordLines(filepath.Join(dir, runs.MetricsFile))
	if err != nil {
		return nil, err
	}
	if len(sizes) != len(snaps) {
		return snaps, nil // the file changed between the reads: as read
	}
	total := 0
	if cfg, err := runs.ReadConfig(dir); err == nil && cfg.Searches() {
		total = cfg.Settings.OuterIters
	}
	var kept []*core.Snapshot
	var left []string
	last := 0
	for i, s := range snaps {
		why := ""
		switch l := sizes[i]; {
		case l.bytes > maxRecordLine:
			why = fmt.Sprintf("is %.1f MB, and a record is a few kB", float64(l.bytes)/(1<<20))
		case total > 0 && (s.Iter < 1 || s.Iter > total):
			why = fmt.Sprintf("is beyond the run's %d iterations", total)
		case s.Iter <= last:
			why = fmt.Sprintf("comes after iteration %d", last)
		}
		if why == "" {
			kept = append(kept, s)
			last = s.Iter
			continue
		}
		left = append(left, fmt.Sprintf("line %d (iteration %d) %s", sizes[i].line, s.Iter, why))
	}
	if len(left) > 0 && warn != nil {
		const most = 5
		more := ""
		if len(left) > most {
			more = fmt.Sprintf("; and %d more", len(left)-most)
			left = left[:most]
		}
		warn(fmt.Sprintf("%s: %s%s; left out of the export, as no search wrote them (the file is left as it is)",
			filepath.Join(dir, runs.MetricsFile), strings.Join(left, "; "), more))
	}
	return kept, nil
}

// recordLine is a line of metrics.jsonl that holds a record.
type recordLine struct{ line, bytes int }

// recordLines returns the lines of path that hold a record, in order:
// those runs.ReadMetrics takes (not blank, and read as a snapshot).
func recordLines(path string) ([]recordLine, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%w", err)
	}
	defer f.Close()
	var out []recordLine
	r := bufio.NewReader(f)
	for n := 1; ; n++ {
		b, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			var s core.Snapshot
			if json.Unmarshal(b, &s) == nil {
				out = append(out, recordLine{line: n, bytes: len(bytes.TrimRight(b, "\n"))})
			}
		}
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%w", err)
		}
	}
}
