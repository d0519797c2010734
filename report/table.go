package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"

	"gonum.org/v1/gonum/stat"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/sweeps"
	"github.com/maple-ood/maple/train"
)

// Row is one line of a results table: a dataset and method over seeds.
type Row struct {
	Dataset   string   `json:"dataset"`
	Method    string   `json:"method"`     // method, or maple/objective, with any differing settings
	Model     string   `json:"model"`      // the evaluation model (the search model of maple runs may differ)
	TrainSize int      `json:"train_size"` // --train-size of the dataset (0 = all)
	N         int      `json:"n"`          // distinct seeds finished
	Seeds     []uint64 `json:"seeds"`
	TestAcc   MeanSD   `json:"test_acc"`
	TestWorst MeanSD   `json:"test_worst_group_acc"`
	ValWorst  MeanSD   `json:"val_worst_group_acc"`
	Selection string   `json:"selection"` // the model selection rule
	// Sweep is the sweep of the row's first run: the methods figure names
	// rows by it where the table spans several sweeps.
	Sweep string `json:"-"`
	// Kept is the percentage of its weights a weight-masking method's
	// selected network keeps (sparseirm, mrm), over the seeds; nil for
	// other methods.
	Kept *MeanSD `json:"kept_weight_pct,omitempty"`
}

// MeanSD is a mean and the sample standard deviation (n-1). With one
// value there is no standard deviation: SD is 0, Single is set, tables
// print the mean alone, CSV leaves the sd empty and JSON writes null.
type MeanSD struct {
	Mean   float64
	SD     float64
	Single bool
}

// MarshalJSON writes {"mean": m, "sd": s}, sd null for a single value.
func (m MeanSD) MarshalJSON() ([]byte, error) {
	var sd *float64
	if !m.Single {
		sd = &m.SD
	}
	return json.Marshal(struct {
		Mean float64  `json:"mean"`
		SD   *float64 `json:"sd"`
	}{m.Mean, sd})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (m *MeanSD) UnmarshalJSON(b []byte) error {
	var v struct {
		Mean float64  `json:"mean"`
		SD   *float64 `json:"sd"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = MeanSD{Mean: v.Mean, Single: v.SD == nil}
	if v.SD != nil {
		m.SD = *v.SD
	}
	return nil
}

func meanSD(v []float64) MeanSD {
	if len(v) == 1 {
		return MeanSD{Mean: v[0], Single: true}
	}
	m, sd := stat.MeanStdDev(v, nil) // sample sd, n-1
	return MeanSD{Mean: m, SD: sd}
}

// Selection names the model selection rule, in DomainBed's terms: the
// validation split is held out of the training domains.
const Selection = "training-domain validation"

// Caption states how the table's figures were obtained.
const Caption = "Test accuracy and test worst-group accuracy (%) at the checkpoint selected by validation worst-group accuracy " +
	"(validation accuracy where a dataset has no groups) — " + Selection + " selection; " +
	"val worst-group is the final model's at that checkpoint, not the search's best (SEARCH VAL WG in the browser); mean ± sample standard deviation (n-1) over seeds (the mean alone for one seed); " +
	"n = distinct seeds of one configuration (runs whose settings differ are never pooled: the differing settings are named in brackets)."

// inSweeps reports whether a run of sweep is among the runs of the named
// sweeps: every run is when no name is given ("" names none).
func inSweeps(names []string, sweep string) bool {
	all := true
	for _, n := range names {
		if n != "" {
			all = false
			if n == sweep {
				return true
			}
		}
	}
	return all
}

// checkSweeps names the first of names (a sweep) that holds no run and
// is not a sweep of runsDir; found holds the sweeps the runs were of.
func checkSweeps(runsDir string, names []string, found map[string]bool) error {
	for _, n := range names {
		if n == "" || found[n] {
			continue
		}
		var damaged *sweeps.DamagedSweepError
		if _, err := sweeps.ReadSweep(runsDir, n); errors.As(err, &damaged) {
			return err
		} else if err != nil {
			return &NoSweepError{Name: n, RunsDir: runsDir}
		}
	}
	return nil
}

// NoSweepError is a sweep name that names no sweep of the runs directory
// (a person's typo: a usage error).
type NoSweepError struct{ Name, RunsDir string }

func (e *NoSweepError) Error() string {
	return fmt.Sprintf("no sweep %q in %s (see maple ls)", e.Name, e.RunsDir)
}

// LeftOut names the runs of the named sweeps (every run when none is
// named) that Table and Runs leave out although they may have finished:
// those whose summary.json cannot be read, one message each with the
// file and why.
func LeftOut(runsDir string, names ...string) []string {
	infos, err := runs.Open(runsDir).List()
	if err != nil {
		return nil
	}
	var out []string
	for _, in := range infos {
		dir := runs.Open(runsDir).RunDir(in.ID)
		cfg, err := runs.ReadConfig(dir)
		if err != nil {
			out = append(out, fmt.Sprintf("run %s: %v; left out of the table", in.ID, err))
			continue
		}
		if !inSweeps(names, cfg.Sweep) {
			continue
		}
		if _, err := runs.ReadSummary(dir); err != nil {
			out = append(out, fmt.Sprintf("run %s: %v; left out of the table", in.ID, err))
		}
	}
	return out
}

// Table aggregates the finished runs of the named sweeps (every finished
// run when none is named) in runsDir, rows sorted by dataset then
// method: runs of one configuration pool over the sweeps, so a grid
// split over several sweeps makes one table.
func Table(runsDir string, names ...string) ([]Row, error) {
	infos, err := runs.Open(runsDir).List()
	if err != nil {
		return nil, err
	}
	type acc struct {
		eval             bool   // figures of maple eval on the learned weights
		label            string // dataset|method label|model|size
		cfg              *runs.Config
		seeds            []uint64
		seen             map[uint64]bool
		test, worst, val []float64
		kept             []float64 // the masking methods' kept weights (%)
		note             string    // a random search's best trial: which, of how many
	}
	groups := map[string]*acc{} // by config hash without the seed
	found := map[string]bool{}  // the sweeps with runs
	for _, in := range infos {
		dir := runs.Open(runsDir).RunDir(in.ID)
		cfg, err := runs.ReadConfig(dir)
		if err != nil || !inSweeps(names, cfg.Sweep) {
			continue
		}
		found[cfg.Sweep] = true
		sum, err := runs.ReadSummary(dir)
		if err != nil || sum == nil || !sum.Done || sum.Result == nil {
			continue
		}
		add := func(key string, cfg *runs.Config, r *train.Result, eval bool) {
			a := groups[key]
			if a == nil {
				a = &acc{cfg: cfg, seen: map[uint64]bool{}, eval: eval}
				groups[key] = a
			}
			if a.seen[cfg.Settings.Seed] {
				return // a repeat of a seed already counted (same config, same seed)
			}
			a.seen[cfg.Settings.Seed] = true
			a.seeds = append(a.seeds, cfg.Settings.Seed)
			a.test = append(a.test, 100*r.TestAcc)
			a.worst = append(a.worst, 100*r.TestWorst)
			a.val = append(a.val, 100*r.ValWorst)
			if r.KeptWeights != nil {
				a.kept = append(a.kept, 100**r.KeptWeights)
			}
		}
		add(cfg.Hash(true), cfg, sum.Result, false)
		// maple eval ID --model M: the learned weights under another model.
		evals, _ := runs.ReadEvals(dir) // damaged ones are named by maple ls and show
		for _, e := range evals {
			ec := *cfg
			ec.Eval.Model = e.Result.Model
			add(cfg.Hash(true)+"|eval|"+e.File, &ec, &e.Result, true)
		}
	}
	if err := checkSweeps(runsDir, names, found); err != nil {
		return nil, err
	}
	groups = bestTrials(groups, func(a *acc) (int, string, float64, *runs.Config) {
		return runs.TrialOf(a.cfg.Cell), a.cfg.Sweep, mean(a.val), a.cfg
	}, func(a *acc, note string) { a.note = note })
	// Groups that would print alike differ in some setting: name it.
	alike := map[string][]*acc{}
	for _, a := range groups {
		c := a.cfg
		a.label = fmt.Sprintf("%s|%s|%s|%d|%v", c.Dataset.Name, methodLabel(c.MethodName(), c), c.Eval.Model, c.Dataset.TrainSize, a.eval)
		alike[a.label] = append(alike[a.label], a)
	}
	var rows []Row
	for _, set := range alike {
		var cfgs []*runs.Config
		for _, a := range set {
			cfgs = append(cfgs, a.cfg)
		}
		diffs := differences(cfgs)
		for i, a := range set {
			c := a.cfg
			method := methodLabel(c.MethodName(), c)
			if a.eval {
				method += " (maple eval)"
			}
			if a.note != "" {
				method += " " + a.note
			}
			if diffs[i] != "" {
				method += " [" + diffs[i] + "]"
			}
			rows = append(rows, Row{Selection: Selection, Sweep: c.Sweep, Dataset: c.Dataset.Name, Method: method, Model: c.Eval.Model, TrainSize: c.Dataset.TrainSize,
				N: len(a.test), Seeds: a.seeds, TestAcc: meanSD(a.test), TestWorst: meanSD(a.worst), ValWorst: meanSD(a.val)})
			if len(a.kept) > 0 {
				k := meanSD(a.kept)
				rows[len(rows)-1].Kept = &k
			}
		}
	}
	sort.Slice(rows, func(i, j int) bool {
		a, b := rows[i], rows[j]
		switch {
		case a.Dataset != b.Dataset:
			return a.Dataset < b.Dataset
		case a.TrainSize != b.TrainSize:
			return a.TrainSize < b.TrainSize
		case a.Model != b.Model:
			return a.Model < b.Model
		}
		return a.Method < b.Method
	})
	return rows, nil
}

// pm prints a figure over seeds: mean ± sd with one decimal, the mean
// alone for one value.
func pm(s MeanSD) string {
	if s.Single {
		return fmt.Sprintf("%.1f", s.Mean)
	}
	return fmt.Sprintf("%.1f ± %.1f", s.Mean, s.SD)
}

// writeText writes a table for people, as text (aligned columns) or
// Markdown, under its head and over its caption; ok is false for
// another format (csv, which each table writes its own way).
func writeText(w io.Writer, format string, head []string, rows [][]string, caption string) (ok bool, err error) {
	switch format {
	case "text":
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, strings.Join(head, "\t"))
		for _, r := range rows {
			fmt.Fprintln(tw, strings.Join(r, "\t"))
		}
		if err := tw.Flush(); err != nil {
			return true, err
		}
		_, err := fmt.Fprintln(w, caption)
		return true, err
	case "markdown":
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
		for _, r := range rows {
			fmt.Fprintf(w, "| %s |\n", strings.Join(r, " | "))
		}
		_, err := fmt.Fprintf(w, "\n%s\n", caption)
		return true, err
	}
	return false, nil
}

// TableFormats are the formats WriteTable and WriteGroups write.
var TableFormats = []string{"text", "markdown", "csv"}

// WriteTable writes rows as text, markdown or csv.
func WriteTable(w io.Writer, rows []Row, format string) error {
	head := []string{"dataset", "train size", "model", "method", "n", "test acc", "test worst-group", "val worst-group"}
	// A table with a weight-masking method has a column for the weights
	// kept ("-" for the other methods).
	masks := slices.ContainsFunc(rows, func(r Row) bool { return r.Kept != nil })
	if masks {
		head = append(head, "kept weights")
	}
	cells := func(r Row) []string {
		size := "all"
		if r.TrainSize != 0 {
			size = fmt.Sprint(r.TrainSize)
		}
		c := []string{r.Dataset, size, r.Model, r.Method, fmt.Sprint(r.N), pm(r.TestAcc), pm(r.TestWorst), pm(r.ValWorst)}
		if masks {
			kept := "-"
			if r.Kept != nil {
				kept = pm(*r.Kept) + "%"
			}
			c = append(c, kept)
		}
		return c
	}
	var text [][]string
	for _, r := range rows {
		text = append(text, cells(r))
	}
	if ok, err := writeText(w, format, head, text, Caption); ok {
		return err
	}
	switch format {
	case "csv":
		cw := csv.NewWriter(w)
		cw.Write([]string{"dataset", "train_size", "model", "method", "n", "test_acc_mean", "test_acc_sd", "test_worst_mean", "test_worst_sd", "val_worst_mean", "val_worst_sd", "selection",
			"kept_weight_pct_mean", "kept_weight_pct_sd"})
		for _, r := range rows {
			f := func(x float64) string { return fmt.Sprintf("%.4f", x) }
			sd := func(m MeanSD) string {
				if m.Single {
					return ""
				}
				return f(m.SD)
			}
			keptMean, keptSD := "", "" // not a weight-masking method
			if r.Kept != nil {
				keptMean, keptSD = f(r.Kept.Mean), sd(*r.Kept)
			}
			cw.Write([]string{r.Dataset, fmt.Sprint(r.TrainSize), r.Model, r.Method, fmt.Sprint(r.N), f(r.TestAcc.Mean), sd(r.TestAcc), f(r.TestWorst.Mean), sd(r.TestWorst), f(r.ValWorst.Mean), sd(r.ValWorst), Selection,
				keptMean, keptSD})
		}
		cw.Flush()
		return cw.Error()
	}
	return fmt.Errorf("table format %q: want text, markdown or csv", format)
}

// differences names, for each config, the settings (as flag=value) in
// which the configs differ, the seed left out; "" when there is one.
func differences(cfgs []*runs.Config) []string {
	out := make([]string, len(cfgs))
	if len(cfgs) < 2 {
		return out
	}
	flat := make([]map[string]string, len(cfgs))
	keys := map[string]bool{}
	for i, c := range cfgs {
		flat[i] = config.Flags(*c)
		// The data's digest is no flag, but it tells two runs of one
		// file's versions apart (the first 8 hex digits; "none": a run
		// recorded before digests were taken).
		flat[i]["data digest"] = "none"
		if dg := c.Dataset.Digest; dg != "" {
			flat[i]["data digest"] = dg[:min(8, len(dg))]
		}
		for k := range flat[i] {
			keys[k] = true
		}
	}
	var differ []string
	for k := range keys {
		for i := 1; i < len(flat); i++ {
			if flat[i][k] != flat[0][k] {
				differ = append(differ, k)
				break
			}
		}
	}
	sort.Strings(differ)
	for i := range cfgs {
		var parts []string
		for _, k := range differ {
			parts = append(parts, k+" "+flat[i][k])
		}
		out[i] = strings.Join(parts, ", ")
	}
	return out
}

// methodLabel names a table row's method: a maple search whose model
// differs from the evaluation model (the transfer experiment) or whose
// final keep fraction is not the default's (the sparsity experiment) says
// so, so that such cells never pool with the plain ones.
func methodLabel(method string, cfg *runs.Config) string {
	if !cfg.Searches() {
		return method
	}
	if cfg.Settings.Model != cfg.Eval.Model {
		method += " search " + cfg.Settings.Model
	}
	if cfg.Settings.Keep != core.DefaultSettings().Keep {
		method += fmt.Sprintf(" keep %g", cfg.Settings.Keep)
	}
	return method
}

// RunRow is one finished run of `maple table --per-run`.
type RunRow struct {
	RunID      string  `json:"run_id"`
	ConfigHash string  `json:"config_hash"` // the run's settings less its seed: the row of Table it pools into
	Dataset    string  `json:"dataset"`
	TrainSize  int     `json:"train_size"`
	Model      string  `json:"model"`
	Method     string  `json:"method"`
	Seed       uint64  `json:"seed"`
	TestAcc    float64 `json:"test_acc"`
	TestWorst  float64 `json:"test_worst_group_acc"`
	ValWorst   float64 `json:"val_worst_group_acc"`
	Selection  string  `json:"selection"`
	// KeptWeights is the percentage of its weights a weight-masking
	// method's selected network keeps (sparseirm, mrm); nil for others.
	KeptWeights *float64 `json:"kept_weight_pct,omitempty"`
}

// Runs lists the finished runs of the named sweeps (every finished run
// when none is named), one row each, oldest first.
func Runs(runsDir string, names ...string) ([]RunRow, error) {
	done, err := runs.Open(runsDir).ListFinished(func(c *runs.Config) bool { return inSweeps(names, c.Sweep) })
	if err != nil {
		return nil, err
	}
	var out []RunRow
	for _, f := range done {
		cfg, r := f.Config, f.Summary.Result
		out = append(out, RunRow{RunID: f.ID, ConfigHash: cfg.Hash(true), Dataset: cfg.Dataset.Name, TrainSize: cfg.Dataset.TrainSize,
			Model: cfg.Eval.Model, Method: methodLabel(cfg.MethodName(), cfg), Seed: cfg.Settings.Seed,
			TestAcc: 100 * r.TestAcc, TestWorst: 100 * r.TestWorst, ValWorst: 100 * r.ValWorst, Selection: Selection})
		if r.KeptWeights != nil {
			kept := 100 * *r.KeptWeights
			out[len(out)-1].KeptWeights = &kept
		}
	}
	return out, nil
}

// WriteRunsCSV writes one CSV row per run (kept_weight_pct empty for a
// method that masks no weights).
func WriteRunsCSV(w io.Writer, rows []RunRow) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"run_id", "config_hash", "dataset", "train_size", "model", "method", "seed", "test_acc", "test_worst", "val_worst", "selection", "kept_weight_pct"})
	f := func(x float64) string { return fmt.Sprintf("%.4f", x) }
	for _, r := range rows {
		kept := "" // not a weight-masking method
		if r.KeptWeights != nil {
			kept = f(*r.KeptWeights)
		}
		cw.Write([]string{r.RunID, r.ConfigHash, r.Dataset, fmt.Sprint(r.TrainSize), r.Model, r.Method, fmt.Sprint(r.Seed),
			f(r.TestAcc), f(r.TestWorst), f(r.ValWorst), r.Selection, kept})
	}
	cw.Flush()
	return cw.Error()
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return -1
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// bestTrials keeps, of a random search's trials (configurations whose
// cell has a trial number), the one per sweep, dataset, size, model and
// method with the best mean validation worst-group accuracy over its
// seeds: tables select the trial on validation only. The kept one is
// noted with its trial number and how many trials finished; the drawn
// settings that tell it apart are named by the table as usual.
func bestTrials[A any](groups map[string]A, info func(A) (trial int, sweep string, val float64, cfg *runs.Config), note func(A, string)) map[string]A {
	type best struct {
		key   string
		val   float64
		trial int
		n     int
	}
	bests := map[string]*best{}
	for key, a := range groups {
		t, sweep, val, c := info(a)
		if t == 0 {
			continue
		}
		bracket := fmt.Sprintf("%s|%s|%s|%s|%d", sweep, c.Dataset.Name, c.MethodName(), c.Eval.Model, c.Dataset.TrainSize)
		b := bests[bracket]
		if b == nil {
			b = &best{val: math.Inf(-1)}
			bests[bracket] = b
		}
		b.n++
		if val > b.val || val == b.val && t < b.trial {
			b.key, b.val, b.trial = key, val, t
		}
	}
	out := map[string]A{}
	for key, a := range groups {
		if t, _, _, _ := info(a); t == 0 {
			out[key] = a
		}
	}
	for _, b := range bests {
		a := groups[b.key]
		_, _, _, c := info(a)
		var drawn []string // the trial's drawn settings, as a random search draws them
		method := c.Method
		if c.Searches() {
			method += ":" + c.Settings.Objective
		}
		for _, p := range sweeps.Space(method) {
			if st, ok := config.SettingOf(p.Field); ok {
				drawn = append(drawn, st.Flag+" "+st.Get(c))
			}
		}
		note(a, fmt.Sprintf("(trial %d, the best on validation of %d finished trials: %s)", b.trial, b.n, strings.Join(drawn, ", ")))
		out[b.key] = a
	}
	return out
}
