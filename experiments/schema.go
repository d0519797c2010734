package experiments

import (
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/train"
)

// Run is one row of runs.csv: a finished run of an experiment.
type Run struct {
	Experiment string
	Sweep      string
	RunID      string
	Commit     string // the VCS revision of the binary that ran it
	ConfigHash string // every setting that changes results but the seed: the runs of one row of summary.csv
	Dataset    string
	TrainSize  int    // --train-size (0 = all)
	Model      string // the evaluation model
	// SearchModel is a maple search's model ("" for a baseline).
	SearchModel string
	Method      string // erm, maple/rex, ...
	Objective   string // a maple search's outer objective ("" for a baseline)
	// Settings are the settings that differ from the defaults of the
	// run's dataset, method and recipe, as "flag value" joined by "; ".
	Settings string
	Seed     uint64
	// Supervision is what the training reads beyond y (core.Supervision).
	Supervision string
	// Selection is the criterion the iterate and the checkpoint were
	// chosen by, on the validation split.
	Selection string
	// GroupsInTraining and GroupsInSelection tell whether the figure
	// used group labels in the method's training (its outer objective)
	// and in its model selection.
	GroupsInTraining, GroupsInSelection bool
	SelectedIterate                     int // a search's validation-selected iterate (0: none, a baseline)
	SelectedStep                        int // the final training's validation-selected step
	TestAcc, TestWorst, ValWorst        float64
	Minutes                             float64
	Precision                           string // f32 or bf16
	Backend                             string // the matrix backend recorded by the run ("" if it recorded none)
	Threads                             int    // the threads recorded by the run (0 if none)
	KeptWeights                         *float64
	// ConflictWeight is the share (%) of a search's weights u on the
	// groups whose attribute disagrees with the label (y=0,a=1 and
	// y=1,a=0), and KeepPct the share of samples kept, at the selected
	// iterate: the dashboard's own figures (nil for a baseline, or a
	// dataset without such groups).
	ConflictWeight, KeepPct *float64
}

// runsHeader is runs.csv's header, in column order.
var runsHeader = []string{"experiment", "sweep", "run_id", "commit", "config_hash", "dataset", "train_size", "model", "search_model",
	"method", "objective", "settings", "seed", "supervision", "selection", "group_labels_training", "group_labels_selection",
	"selected_iterate", "selected_step", "test_acc", "test_worst", "val_worst", "minutes", "precision", "backend", "threads", "kept_weight_pct",
	"conflict_weight_pct", "keep_pct"}

// pct formats a percentage as runs.csv prints it: the printed digits are
// what a rerun must repeat.
func pct(x float64) string { return strconv.FormatFloat(x, 'f', 4, 64) }

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func (r Run) cells() []string {
	kept := ""
	if r.KeptWeights != nil {
		kept = pct(*r.KeptWeights)
	}
	threads := ""
	if r.Threads > 0 {
		threads = strconv.Itoa(r.Threads)
	}
	opt := func(p *float64) string {
		if p == nil {
			return ""
		}
		return pct(*p)
	}
	return []string{r.Experiment, r.Sweep, r.RunID, r.Commit, r.ConfigHash, r.Dataset, strconv.Itoa(r.TrainSize), r.Model, r.SearchModel,
		r.Method, r.Objective, r.Settings, strconv.FormatUint(r.Seed, 10), r.Supervision, r.Selection, yesNo(r.GroupsInTraining), yesNo(r.GroupsInSelection),
		strconv.Itoa(r.SelectedIterate), strconv.Itoa(r.SelectedStep), pct(r.TestAcc), pct(r.TestWorst), pct(r.ValWorst),
		strconv.FormatFloat(r.Minutes, 'f', 2, 64), r.Precision, r.Backend, threads, kept, opt(r.ConflictWeight), opt(r.KeepPct)}
}

// Collect returns the finished runs of the experiment's sweeps in runsDir
// as its rows, ordered by sweep, dataset, size, model, method (as the
// sweep names them), settings and seed. Unfinished runs are left out.
func Collect(runsDir string, exp *File) ([]Run, error) {
	sweeps := exp.SweepNames()
	done, err := runs.Open(runsDir).ListFinished(func(c *runs.Config) bool { return slices.Contains(sweeps, c.Sweep) })
	if err != nil {
		return nil, err
	}
	var out []Run
	for _, f := range done {
		r := row(exp.Name, f.ID, f.Config, f.Summary)
		if f.Config.Searches() {
			r.ConflictWeight, r.KeepPct = selectedShares(f.Dir, f.Summary.SelectedIter)
			if f.Config.SearchFrom == "" { // a taken search's earlier time is the other run's
				r.Minutes += earlierMinutes(f.Dir)
			}
		}
		out = append(out, r)
	}
	sortRows(exp, out)
	return out, nil
}

// sortRows orders rows as Collect returns them: by sweep (in the file's
// order), dataset, size (every image last), model (by width as a
// number), method (as the sweep names them), settings and seed.
func sortRows(exp *File, out []Run) {
	order, methods := map[string]int{}, map[string]int{}
	for i, s := range exp.Sweeps {
		order[s.Name] = i
		for j, m := range strings.Split(s.arg("methods", ""), ",") {
			m = strings.Replace(strings.TrimSpace(m), ":", "/", 1)
			if _, ok := methods[m]; !ok {
				methods[m] = j
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch {
		case a.Sweep != b.Sweep:
			return order[a.Sweep] < order[b.Sweep]
		case a.Dataset != b.Dataset:
			return a.Dataset < b.Dataset
		case a.TrainSize != b.TrainSize:
			return sizeOrder(strconv.Itoa(a.TrainSize)) < sizeOrder(strconv.Itoa(b.TrainSize))
		case a.Model != b.Model:
			return compareModels(a.Model, b.Model) < 0
		case a.Method != b.Method:
			if methods[a.Method] != methods[b.Method] {
				return methods[a.Method] < methods[b.Method]
			}
			return a.Method < b.Method
		case a.Settings != b.Settings:
			return a.Settings < b.Settings
		}
		return a.Seed < b.Seed
	})
}

// row is the schema's row of one finished run.
func row(exp, id string, cfg *runs.Config, sum *runs.Summary) Run {
	r := sum.Result
	sup := baselines.Supervision(cfg.Method, cfg.Settings.Objective)
	out := Run{Experiment: exp, Sweep: cfg.Sweep, RunID: id, Commit: cfg.Commit, ConfigHash: cfg.Hash(true), Dataset: cfg.Dataset.Name,
		TrainSize: cfg.Dataset.TrainSize, Model: cfg.Eval.Model, Method: cfg.MethodName(), Settings: Differences(*cfg), Seed: cfg.Settings.Seed,
		Supervision: string(sup), GroupsInTraining: sup.UsesGroupLabels(), SelectedStep: r.SelectedStep,
		TestAcc: 100 * r.TestAcc, TestWorst: 100 * r.TestWorst, ValWorst: 100 * r.ValWorst, Minutes: sum.Seconds / 60, Precision: "f32"}
	out.Selection, out.GroupsInSelection = selection(r)
	if cfg.Searches() {
		out.SearchModel, out.Objective, out.SelectedIterate = cfg.Settings.Model, cfg.Settings.Objective, sum.SelectedIter
		if cfg.Settings.Precision != "" {
			out.Precision = cfg.Settings.Precision
		}
		if cfg.Settings.OuterOn == "train" && sup.UsesGroupLabels() {
			out.Supervision += " (training split)"
		}
	}
	if r.KeptWeights != nil {
		k := 100 * *r.KeptWeights
		out.KeptWeights = &k
	}
	out.Backend, out.Threads = backend(cfg)
	return out
}

// selection names a result's selection criterion and tells whether it
// reads group labels (worst-group accuracy does).
func selection(r *train.Result) (string, bool) {
	c := r.Criterion
	if c == "" {
		c = "val worst-group accuracy"
	}
	return c, strings.Contains(c, "worst-group")
}

// skipped are the flags that are columns of their own, or that do not
// change what a run computes.
var skipped = map[string]bool{"dataset": true, "method": true, "objective": true, "model": true, "eval-model": true, "seed": true, "train-size": true}

// Differences names the settings of cfg that differ from what `maple run`
// gives for the same dataset, method, objective, models and (for a
// search) recipe with no other flag, as "flag value" joined by "; " in
// flag order: the fewest flags that, given with those, resolve to cfg's
// every setting. A setting that follows from the named ones is left out
// (--eval-also-shared false beside a flag of the final training), and
// one whose default the named ones change is named even at its plain
// default (--keep0 0.3 beside --keep 0.1).
func Differences(cfg runs.Config) string {
	base := runs.DefaultConfig(cfg.Dataset.Name)
	base.Dataset = loaders.DefaultSpec(cfg.Dataset.Name)
	flagDefaults(&base)
	base.Dataset.Name, base.Dataset.DataDir, base.Dataset.TrainSize = cfg.Dataset.Name, cfg.Dataset.DataDir, cfg.Dataset.TrainSize
	base.Method = cfg.Method
	base.Settings.Objective, base.Settings.Model, base.Settings.Seed = cfg.Settings.Objective, cfg.Settings.Model, cfg.Settings.Seed
	base.Eval.Model = cfg.Eval.Model
	recipe := cfg.Settings.Recipe != "" && cfg.Searches()
	if recipe {
		base.Settings.Recipe = cfg.Settings.Recipe // what the other differences are from
	}
	have := config.Flags(cfg)
	named := map[string]bool{}
	// resolve resolves base given cfg's value of every named setting and
	// returns the flags the result does not share with cfg.
	resolve := func() (differ []string, ok bool) {
		c := base
		given := map[string]bool{"recipe": recipe}
		for f := range skipped {
			given[f] = true
		}
		for _, st := range config.Table {
			if st.Field != nil && named[st.Flag] {
				reflect.ValueOf(st.Field(&c)).Elem().Set(reflect.ValueOf(st.Field(&cfg)).Elem())
				given[st.Flag] = true
			}
		}
		d, err := config.ResolveSet(c, given)
		if err != nil {
			return nil, false
		}
		got := config.Flags(d)
		for _, k := range slices.Sorted(maps.Keys(have)) {
			if !skipped[k] && k != "recipe" && got[k] != have[k] {
				differ = append(differ, k)
			}
		}
		return differ, true
	}
	// Grow: name what the named ones do not reproduce, until they do.
	for range len(have) {
		differ, ok := resolve()
		if ok && len(differ) == 0 {
			break
		}
		grew := false
		if ok {
			for _, k := range differ {
				grew = grew || !named[k]
				named[k] = true
			}
		} else {
			// The named ones do not resolve (a derived default conflicts
			// with them): name every setting away from its plain default.
			raw := config.Flags(base)
			for _, k := range slices.Sorted(maps.Keys(have)) {
				if !skipped[k] && k != "recipe" && raw[k] != have[k] && !named[k] {
					named[k], grew = true, true
				}
			}
		}
		if !grew {
			break
		}
	}
	// Shrink: leave out each one the others reproduce; of two that
	// follow from each other, one stays.
	for _, k := range slices.Sorted(maps.Keys(named)) {
		delete(named, k)
		if differ, ok := resolve(); !ok || len(differ) > 0 {
			named[k] = true
		}
	}
	var parts []string
	if recipe {
		parts = append(parts, "recipe "+cfg.Settings.Recipe)
	}
	for _, k := range slices.Sorted(maps.Keys(named)) {
		parts = append(parts, k+" "+have[k])
	}
	return strings.Join(parts, "; ")
}

// WriteRuns writes rows as runs.csv.
func WriteRuns(w io.Writer, rows []Run) error {
	return writeCSV(w, runsHeader, rows)
}

// writeCSV writes header, then each row's cells.
func writeCSV[R interface{ cells() []string }](w io.Writer, header []string, rows []R) error {
	cw := csv.NewWriter(w)
	cw.Write(header)
	for _, r := range rows {
		cw.Write(r.cells())
	}
	cw.Flush()
	return cw.Error()
}

// Table is a CSV file read back: its header and rows, cells by column
// name.
type Table struct {
	Header []string
	Rows   []map[string]string
}

// ReadCSV reads a CSV file with a header row.
func ReadCSV(path string) (*Table, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := ParseCSV(string(b))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// RunsFile and SummaryFile are an experiment's two CSVs.
const (
	RunsFile    = "runs.csv"
	SummaryFile = "summary.csv"
)

// WriteFiles writes an experiment's runs.csv and summary.csv into dir.
func WriteFiles(dir string, rows []Run) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	if err := WriteRuns(&b, rows); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, RunsFile), []byte(b.String()), 0o644); err != nil {
		return err
	}
	// summary.csv is a function of runs.csv as written (its printed
	// digits), so that it can be checked against it.
	t, err := ParseCSV(b.String())
	if err != nil {
		return err
	}
	if rows, err = RunsOf(t); err != nil {
		return err
	}
	b.Reset()
	if err := WriteSummary(&b, Summarise(rows)); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, SummaryFile), []byte(b.String()), 0o644)
}

// backend is the matrix backend and thread count a run recorded in
// run.json's build ("" and 0 for a run that recorded none).
func backend(cfg *runs.Config) (string, int) {
	if cfg.Build == nil {
		return "", 0
	}
	return cfg.Build.MatrixProducts, cfg.Build.Threads
}

// ParseCSV reads CSV text with a header row.
func ParseCSV(text string) (*Table, error) {
	recs, err := csv.NewReader(strings.NewReader(text)).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("empty CSV (want a header row)")
	}
	t := &Table{Header: recs[0]}
	for _, rec := range recs[1:] {
		m := map[string]string{}
		for i, h := range t.Header {
			if i < len(rec) {
				m[h] = rec[i]
			}
		}
		t.Rows = append(t.Rows, m)
	}
	return t, nil
}

// figures are the columns of runs.csv a rerun must repeat digit for
// digit: what the run computed, not when, where or how fast.
var figures = []string{"dataset", "train_size", "model", "search_model", "method", "objective", "settings", "supervision", "selection",
	"selected_iterate", "selected_step", "test_acc", "test_worst", "val_worst", "precision", "kept_weight_pct"}

// Compare lists the differences between two runs.csv tables, matching
// rows by sweep, configuration hash and seed: a row in one and not the
// other, or a figure that differs.
func Compare(want, got *Table) []string {
	key := func(r map[string]string) string { return r["sweep"] + " " + r["config_hash"] + " seed " + r["seed"] }
	index := map[string]map[string]string{}
	for _, r := range got.Rows {
		index[key(r)] = r
	}
	var out []string
	matched := map[string]bool{}
	for _, w := range want.Rows {
		k := key(w)
		g, ok := index[k]
		if !ok {
			out = append(out, fmt.Sprintf("%s (%s): committed, but the rerun has no finished run", k, w["method"]))
			continue
		}
		matched[k] = true
		for _, c := range figures {
			if w[c] != g[c] {
				out = append(out, fmt.Sprintf("%s (%s): %s %q committed, %q now", k, w["method"], c, w[c], g[c]))
			}
		}
	}
	for _, g := range got.Rows {
		if !matched[key(g)] {
			out = append(out, fmt.Sprintf("%s (%s): a finished run the committed file does not have", key(g), g["method"]))
		}
	}
	return out
}

// flagDefaults sets c's settings to their command-line defaults (the
// settings table's Default, where it has one), as a command with no flag
// records them.
func flagDefaults(c *runs.Config) {
	for _, st := range config.Table {
		if st.NoFlag || st.Default == nil || st.Field == nil {
			continue
		}
		switch p := st.Field(c).(type) {
		case *string:
			*p = st.Default.(string)
		case *int:
			*p = st.Default.(int)
		case *uint64:
			*p = st.Default.(uint64)
		case *float64:
			*p = st.Default.(float64)
		case *bool:
			*p = st.Default.(bool)
		}
	}
}

// cellNumber returns a reader of row m's (the table's i-th) numeric
// cells: the cell as a number, the first cell that is none recorded in
// *err.
func cellNumber(m map[string]string, i int, err *error) func(col string) float64 {
	return func(col string) float64 {
		v, e := strconv.ParseFloat(m[col], 64)
		if e != nil && *err == nil {
			*err = fmt.Errorf("row %d: %s %q: want a number", i+2, col, m[col])
		}
		return v
	}
}

// RunsOf reads the rows of a runs.csv table back into runs.
func RunsOf(t *Table) ([]Run, error) {
	var out []Run
	for i, m := range t.Rows {
		var err error
		num := cellNumber(m, i, &err)
		whole := func(col string) int {
			if m[col] == "" {
				return 0
			}
			return int(num(col))
		}
		r := Run{Experiment: m["experiment"], Sweep: m["sweep"], RunID: m["run_id"], Commit: m["commit"], ConfigHash: m["config_hash"],
			Dataset: m["dataset"], TrainSize: whole("train_size"), Model: m["model"], SearchModel: m["search_model"], Method: m["method"],
			Objective: m["objective"], Settings: m["settings"], Supervision: m["supervision"], Selection: m["selection"],
			GroupsInTraining: m["group_labels_training"] == "yes", GroupsInSelection: m["group_labels_selection"] == "yes",
			SelectedIterate: whole("selected_iterate"), SelectedStep: whole("selected_step"), TestAcc: num("test_acc"), TestWorst: num("test_worst"),
			ValWorst: num("val_worst"), Minutes: num("minutes"), Precision: m["precision"], Backend: m["backend"], Threads: whole("threads")}
		r.Seed = uint64(whole("seed"))
		for col, p := range map[string]**float64{"kept_weight_pct": &r.KeptWeights, "conflict_weight_pct": &r.ConflictWeight, "keep_pct": &r.KeepPct} {
			if m[col] != "" {
				v := num(col)
				*p = &v
			}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// selectedShares reads the selected iterate's record (the last one when
// selected is 0) from the run's metrics.jsonl: the share of u on the
// groups whose attribute disagrees with the label, and the keep fraction,
// both in %.
func selectedShares(dir string, selected int) (conflict, keep *float64) {
	snaps, _ := runs.ReadMetrics(dir) // a damaged line is skipped
	s := selectedRecord(snaps, selected)
	if s == nil {
		return nil, nil
	}
	k := 100 * s.KeepFrac
	return conflictShare(s), &k
}

// earlierMinutes is the time, in minutes, that the processes before the
// last one spent on a search's iterations: the summary's seconds are the
// last process's alone, and a run restarted at iteration k had spent the
// elapsed time its metrics record at iteration k (pauses excluded). 0
// for a run never restarted, or restarted before its first iteration.
// A restart is a resume event marked so; in runs recorded before the
// mark, a resume that follows no pause (an unpausing follows one), so
// that a search paused, stopped and restarted counts as its last
// process alone, as it did before.
func earlierMinutes(dir string) float64 {
	ev, _ := runs.ReadEvents(dir) // a damaged line is skipped
	from, paused := 0, false
	for _, e := range ev {
		switch e.Kind {
		case core.EventPause:
			paused = true
		case core.EventResume:
			if e.Restart || !paused {
				from = e.Iter
			}
			paused = false
		}
	}
	if from == 0 {
		return 0
	}
	snaps, _ := runs.ReadMetrics(dir)
	for i := len(snaps) - 1; i >= 0; i-- {
		if snaps[i].Iter == from {
			return snaps[i].Elapsed / 60
		}
	}
	return 0
}

// selectedRecord returns the record of the selected iterate among snaps,
// the last one when selected is 0 (nil when there is none).
func selectedRecord(snaps []*core.Snapshot, selected int) *core.Snapshot {
	var s *core.Snapshot
	for _, x := range snaps {
		if x.Iter == selected || selected == 0 {
			s = x
		}
	}
	return s
}

// conflictShare is the share (%) of a record's weights u on the training
// groups whose attribute disagrees with the label (groups named
// "y=Y,a=A" with Y != A); nil when no group is named so.
func conflictShare(s *core.Snapshot) *float64 {
	var c float64
	found := false
	for g, name := range s.GroupNames {
		var y, a int
		if _, err := fmt.Sscanf(name, "y=%d,a=%d", &y, &a); err != nil || g >= len(s.GroupFrac) {
			continue
		}
		found = true
		if y != a {
			c += s.GroupFrac[g]
		}
	}
	if !found {
		return nil
	}
	c *= 100
	return &c
}
