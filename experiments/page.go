package experiments

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/gonum/stat"

	"github.com/maple-ood/maple/internal/figure/methodsfig"
)

// Results is an experiment with its committed CSVs read back.
type Results struct {
	File    *File
	Summary *Table // nil when the experiment has not been run
	Runs    *Table
	// Iterations is iterations.csv, nil for an experiment without one
	// (no search, or no colour-conflicting groups).
	Iterations *Table
}

// ReadAll reads every experiment of docs/experiments with its results
// under docs/results.
func ReadAll(docs string) ([]Results, error) {
	files, err := List(filepath.Join(docs, "experiments"))
	if err != nil {
		return nil, err
	}
	var out []Results
	for _, f := range files {
		r := Results{File: f}
		dir := ResultsDir(docs, f.Name)
		if r.Summary, err = ReadCSV(filepath.Join(dir, SummaryFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if r.Runs, err = ReadCSV(filepath.Join(dir, RunsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if r.Iterations, err = ReadCSV(filepath.Join(dir, IterationsFile)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		out = append(out, r)
	}
	return out, nil
}

// PagePath is the generated results page below docs.
const PagePath = "RESULTS.md"

// Page returns docs/RESULTS.md: every experiment's summary as a table.
func Page(docs string, all []Results) string {
	var b strings.Builder
	b.WriteString(`# Results

<!-- Generated from docs/experiments/*.toml and docs/results/*/ by maple reproduce; do not edit by hand: go test ./experiments -run TestPagesUpToDate -update rewrites it from the committed CSVs. -->

Every table on this page is the ` + "`summary.csv`" + ` of one experiment file
under [experiments/](experiments/). ` + "`maple reproduce NAME`" + ` writes it
from the experiment's finished runs. Each run is one row of its
` + "`runs.csv`" + `, with run id, commit and configuration hash. A test checks
each table against those files.

## How to read these tables

- **Figures** are percentages on the test split. Each gives the mean
  over seeds, the sample standard deviation (n-1), and n. The compared
  figure also gets the 95% interval of the mean. The interval is
  Student's t with n-1 degrees of freedom. It is cut to 0-100, the range
  of an accuracy, where the seeds' spread takes it past either end.
- **The compared figure** is test accuracy by default. An experiment
  file may set ` + "`metric = \"test_worst\"`" + `, as the group-robustness
  experiments do. Then its interval, tests and differences are of test
  worst-group accuracy. Its comparison headers name it.
- **Selection.** Each run's figure is the model the validation split
  chose. A search's iterate is chosen by its inner model's validation
  worst-group accuracy. Then the final training's checkpoint is chosen
  by the same criterion. Where a dataset has no groups, the criterion is
  validation accuracy.
- **Group labels in selection.** That criterion reads the *validation
  split's group labels*. So every figure on this page uses group labels
  in selection (column "groups in selection"). DomainBed's
  training-domain validation does the same when groups are known. No
  figure here is chosen on the test split.
- **The split that steers.** By default maple's outer objective is also
  computed on the validation split (` + "`--outer-on val`" + `). So the split
  that selects also steers the search.
- **Training reads.** Column "training reads" says what a method's
  training reads beyond the class label. For maple it is what its outer
  objective reads:
  - *none*;
  - *environments*: which environment a sample came from (IRMv1, REx);
  - *groups*: the attribute x class group of each sample (group DRO,
    group upweighting, maple/worst-group);
  - *oracle data*: data without the spurious signal, a reference no real
    dataset offers.
- **Weights.** Two columns describe maple's learned weights u = w·m at
  the selected iterate, as a mean over seeds. They are the dashboard's
  group weight fractions.
  - "u on a≠y" is the share of u on the groups whose attribute disagrees
    with the label. On ColoredMNIST these are the colour-conflicting
    samples, about 15% of its training samples. Equal weight per group
    would put 50% on them.
  - "kept" is the share of samples kept.
- **Significance.** Each maple row is compared with one row of its
  table. That row's training reads no group labels. Its final model is
  trained by the same recipe: the optimizer, learning rate, momentum,
  weight decay, steps, checks and L2 of the final weighted ERM, as the
  row's settings resolve. A baseline at a published recipe of its own is
  compared only where that recipe is the maple row's. Of such rows, the
  one validation ranks first is taken.
- **Ranked by validation.** Validation ranks rows by the highest mean
  validation worst-group accuracy, the criterion every figure is
  selected by. A comparator chosen by test accuracy would pick, on
  ColoredMNIST, a model that inverts colour: high test accuracy, a worst
  group near 0.
- **A comparison's cell** gives the difference of the means of the
  compared figure and the two-sided p-value of Welch's t-test. The test
  needs n >= 2 on both sides. No test can judge a row of one run. It
  gives its difference from the other side's run at the same seed, "at
  seed N", where there is one.
- **maple at its default.** Its final training is chosen per run on
  validation, between the MAPLE code's and the shared one. It is
  compared with the baselines whose final training is chosen per seed
  the same way: the experiment's choice between those two trainings. Of
  those, it takes the one whose chosen runs validation ranks first.
- **A reference sweep.** An experiment may name one, such as an
  ablation's full recipe. Then every row is compared instead with that
  sweep's row of the same method, dataset, training size and model.
  Should the sweep have several, validation ranks them. A row whose
  sweep names another (against) is compared with that sweep's row. The
  cell names it.
- **vs best reading what it reads.** This column compares each maple row
  with the method validation ranks first among those whose training
  reads the same. For maple/irmv1 and maple/rex that is IRMv1 or REx,
  at any training.
- **Many tests.** The tests of one column of one table are one family.
  Where a column makes two or more, each p is followed by its
  Holm-adjusted value over that column ("Holm p"). Below each table, a
  difference is called significant only where its Holm p is below 0.05.
- **Uncommitted builds.** A row or cell marked ` + dirtyMark + ` rests on runs made by a
  binary built with uncommitted changes (a commit ending ` + "`-dirty`" + ` in
  runs.csv). Its commit names its code only up to those changes. Nobody can
  rebuild that binary; ` + "`maple reproduce`" + ` trains such cells again.
- **Near the oracle.** Column "vs the oracle, same training" compares
  each maple row with the oracle of its dataset, training size and
  model, trained the same way. At maple's default, the oracle's final
  training is chosen per seed the same way: the experiment's choice
  between the two trainings. A row trained by one recipe is compared
  with the oracle trained by it. The cell ends with that oracle's mean
  of the compared figure.
- **Chosen per seed.** A table named after a choice (such as
  cm-maple-chosen) keeps, per seed, the run validation ranks first among
  the sweeps it names. That is the highest validation worst-group
  accuracy. A tie goes to the sweep listed first.
- **Bars.** Each section's figure draws its table's rows as bars, top to
  bottom: mean test accuracy and test worst-group accuracy, ± sample sd
  where n > 1.

## Experiments

`)
	for _, r := range all {
		fmt.Fprintf(&b, "- [%s](#%s)\n", r.File.Title, anchor(r.File.Title))
	}
	for _, r := range all {
		b.WriteString("\n")
		section(&b, docs, r)
		choiceSection(&b, r)
		widthsFigure(&b, docs, r)
		iterationsFigure(&b, r)
	}
	rerunsSection(&b, all)
	spreadSection(&b, all)
	return b.String()
}

// anchor is GitHub's heading anchor of title.
func anchor(title string) string {
	var b strings.Builder
	for _, c := range strings.ToLower(title) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '-', c == '_':
			b.WriteRune(c)
		case c == ' ':
			b.WriteRune('-')
		}
	}
	return b.String()
}

func section(b *strings.Builder, docs string, r Results) {
	f := r.File
	fmt.Fprintf(b, "## %s\n\n", f.Title)
	if r.Summary == nil || len(r.Summary.Rows) == 0 {
		setup(b, docs, r)
		return
	}
	methodsFigure(b, docs, r)
	want := 0
	for _, s := range f.Sweeps {
		want += s.Cells()
	}
	if r.Runs != nil && len(r.Runs.Rows) < want {
		fmt.Fprintf(b, "**In progress: %d of its %d runs finished**; the table is of those.\n\n", len(r.Runs.Rows), want)
	}
	rows := r.Summary.Rows
	varying := func(col string) bool {
		for _, x := range rows {
			if x[col] != rows[0][col] {
				return true
			}
		}
		return false
	}
	var cols []string
	for _, c := range []string{"dataset", "train_size", "model"} {
		if varying(c) {
			cols = append(cols, c)
		}
	}
	shares := false // a search's weight on the conflicting groups, and kept samples
	for _, x := range rows {
		shares = shares || x["conflict_weight_pct_mean"] != ""
	}
	// Several sweeps: each row names its own, as the figure's labels do
	// where the rows of one method differ by their sweep.
	sweeps := len(sweepsOf(rows)) > 1
	head := append(slices.Clone(cols), "method")
	if sweeps {
		head = append(head, "sweep")
	}
	// The 95% interval is of the compared figure, in the column after it.
	m := r.compared()
	withInterval := func(head, col string) []string {
		if col == m.Column {
			return []string{head, "95% interval"}
		}
		return []string{head}
	}
	head = append(head, "settings", "final training", "training reads", "n")
	head = append(head, withInterval("test acc", "test_acc")...)
	if len(f.Anchors) > 0 {
		head = append(head, "published, or the authors' code (test acc)")
	}
	head = append(head, withInterval("test worst-group", "test_worst")...)
	head = append(head, "val worst-group")
	if shares {
		head = append(head, "u on a≠y", "kept")
	}
	_, heads, versus := comparisons(r)
	head = append(head, heads...)
	fmt.Fprintf(b, "| %s |\n|%s\n", strings.Join(head, " | "), strings.Repeat("---|", len(head)))
	dirty := false
	for i, x := range rows {
		var cells []string
		for _, c := range cols {
			v := x[c]
			if c == "train_size" {
				v = size(v)
			}
			cells = append(cells, v)
		}
		settings := x["settings"]
		if settings == "" {
			settings = "defaults"
		}
		method := x["method"]
		if rowDirty(r.Runs, x["config_hash"]) {
			method += " " + dirtyMark
		}
		cells = append(cells, method)
		if sweeps {
			cells = append(cells, sweepText(x["sweep"]))
		}
		figure := func(col string) []string {
			out := []string{pm(x[col+"_mean"], x[col+"_sd"])}
			if col == m.Column {
				out = append(out, interval(x[col+"_ci95_lo"], x[col+"_ci95_hi"]))
			}
			return out
		}
		cells = append(cells, settings, FinalTraining(x), x["supervision"], x["n"])
		cells = append(cells, figure("test_acc")...)
		if len(f.Anchors) > 0 {
			cells = append(cells, anchorCell(f.Anchors, x["method"]))
		}
		cells = append(cells, figure("test_worst")...)
		cells = append(cells, pm(x["val_worst_mean"], x["val_worst_sd"]))
		if shares {
			cells = append(cells, share(x["conflict_weight_pct_mean"]), share(x["keep_pct_mean"]))
		}
		for _, c := range versus[i] {
			cells = append(cells, c.String())
			dirty = dirty || c.dirty
		}
		dirty = dirty || rowDirty(r.Runs, x["config_hash"])
		fmt.Fprintf(b, "| %s |\n", strings.Join(cells, " | "))
	}
	if !varying("dataset") && !varying("train_size") && !varying("model") {
		fmt.Fprintf(b, "\nDataset %s, training size %s, model %s; selection: %s (validation).\n", rows[0]["dataset"], size(rows[0]["train_size"]), rows[0]["model"], rows[0]["selection"])
	}
	if dirty {
		b.WriteString("\n" + dirtyNote + "\n")
	}
	significance(b, rows, heads, versus, sweeps)
	anchorNotes(b, f.Anchors)
	b.WriteString("\n")
	setup(b, docs, r)
}

// setup writes what an experiment runs (its about, as the set-up) and
// how to rerun it: the command, the build, the files and their
// provenance; "Not run yet" when no run is committed.
func setup(b *strings.Builder, docs string, r Results) {
	f := r.File
	if about := strings.TrimSpace(f.About); about != "" {
		b.WriteString("**Set-up.** " + about + "\n\n")
	}
	build := "the pure-Go build (`go build .`)"
	if f.Build != "" {
		build = fmt.Sprintf("`go build -tags %s`", f.Build)
	}
	threads := ""
	if f.Threads > 0 {
		threads = fmt.Sprintf(", %d threads", f.Threads)
	}
	fmt.Fprintf(b, "Experiment [%s](experiments/%s.toml): `maple reproduce %s` (figures made with %s%s).", f.Name, f.Name, f.Name, build, threads)
	if r.Summary == nil || len(r.Summary.Rows) == 0 {
		b.WriteString(" **Not run yet**: no finished run is committed.\n")
		return
	}
	dir := "results/" + f.Name
	fmt.Fprintf(b, " Files: [runs.csv](%s/runs.csv), [summary.csv](%s/summary.csv)", dir, dir)
	if _, err := os.Stat(filepath.Join(docs, dir, "methods.png")); err == nil {
		fmt.Fprintf(b, ", [figure](%s/methods.png)", dir)
	}
	b.WriteString(".")
	b.WriteString(provenance(r.Runs))
	b.WriteString("\n")
}

// Comparison columns of a results table, by key.
const (
	colAlike  = "alike"  // vs best without group labels, same training
	colAny    = "any"    // vs best without group labels, any training
	colReads  = "reads"  // vs best that reads what the row reads
	colOracle = "oracle" // vs the oracle, same training
	colRef    = "ref"    // vs the reference sweep, or the sweep named
)

// comparisons returns the keys and heads of an experiment's comparison
// columns and each summary row's cells, in the rows' order. The tests of
// one column are one family: where it makes two or more, each cell's p
// is also adjusted by Holm's method over them.
func comparisons(r Results) (keys, heads []string, cells [][]cell) {
	f := r.File
	rows := r.Summary.Rows
	m := r.compared()
	// A column whose comparator validation chooses names the metric
	// after it where it is not the default.
	chosen := "(on validation)"
	if !m.isDefault() {
		chosen = "(on validation; " + m.Head + ", Welch)"
	}
	if f.Reference != "" {
		against := ""
		for _, s := range f.Sweeps {
			if s.Against != "" {
				against = ", or the sweep named"
			}
		}
		keys, heads = []string{colRef}, []string{"vs " + sweepText(f.Reference) + against + " (" + m.Head + ", Welch)"}
	} else {
		keys = []string{colAlike, colAny, colReads, colOracle}
		heads = []string{"vs best without group labels, same training " + chosen, "vs best without group labels, any training " + chosen,
			"vs best reading what it reads, any training " + chosen, "vs the oracle, same training (" + m.Head + ", Welch)"}
	}
	for _, x := range rows {
		var row []cell
		for _, k := range keys {
			switch k {
			case colRef:
				row = append(row, versusAgainstCell(x, rows, r.Runs, f))
			case colAlike:
				row = append(row, versusCell(x, rows, r, true))
			case colAny:
				row = append(row, versusCell(x, rows, r, false))
			case colReads:
				row = append(row, versusReads(x, rows, r))
			case colOracle:
				row = append(row, versusOracleCell(x, rows, r))
			}
		}
		cells = append(cells, row)
	}
	for j := range keys {
		p := make([]float64, len(cells))
		tests := 0
		for i := range cells {
			p[i] = cells[i][j].p
			if !math.IsNaN(p[i]) {
				tests++
			}
		}
		if tests < 2 {
			continue
		}
		for i, h := range Holm(p) {
			cells[i][j].holm = h
		}
	}
	return keys, heads, cells
}

// significance says, below a table, which of its comparisons stand at
// the 0.05 level after Holm's correction over their column: one
// sentence per column of two or more tests.
func significance(b *strings.Builder, rows []map[string]string, heads []string, cells [][]cell, sweeps bool) {
	var out []string
	for j, h := range heads {
		tests := 0
		var hits []string
		for i, x := range rows {
			c := cells[i][j]
			if math.IsNaN(c.p) {
				continue
			}
			tests++
			if !math.IsNaN(c.holm) && c.holm < 0.05 {
				name := x["method"]
				if sweeps {
					name += " (" + sweepText(x["sweep"]) + ")"
				}
				hits = append(hits, name+" "+c.pre)
			}
		}
		if tests < 2 {
			continue
		}
		switch len(hits) {
		case 0:
			out = append(out, fmt.Sprintf("Column %q: %d tests, none significant after Holm's correction.", h, tests))
		default:
			out = append(out, fmt.Sprintf("Column %q: %d tests, significant after Holm's correction only %s.", h, tests, strings.Join(hits, "; ")))
		}
	}
	if len(out) > 0 {
		b.WriteString("\n- " + strings.Join(out, "\n- ") + "\n")
	}
}

// provenance says how many of an experiment's runs were made by a
// binary whose commit does not identify its code (built from a checkout
// with uncommitted changes: a commit ending "-dirty") or record no
// backend or thread count; "" when every run is identified.
func provenance(runs *Table) string {
	if runs == nil {
		return ""
	}
	dirty, unrecorded := 0, 0
	for _, r := range runs.Rows {
		if strings.HasSuffix(r["commit"], "-dirty") {
			dirty++
		}
		if r["backend"] == "" || r["threads"] == "" {
			unrecorded++
		}
	}
	var parts []string
	if dirty > 0 {
		parts = append(parts, fmt.Sprintf(" %d of its %d runs were made by a binary built from a checkout with uncommitted changes.", dirty, len(runs.Rows)))
	}
	if unrecorded > 0 {
		parts = append(parts, fmt.Sprintf(" %d record no backend or thread count. For them the build and threads above are the file's word, not the runs'.", unrecorded))
	}
	return strings.Join(parts, "")
}

// pm prints mean ± sd with one decimal (the mean alone without an sd).
func pm(mean, sd string) string {
	m, err := strconv.ParseFloat(mean, 64)
	if err != nil {
		return "-"
	}
	if s, err := strconv.ParseFloat(sd, 64); err == nil {
		return fmt.Sprintf("%.1f ± %.1f", m, s)
	}
	return fmt.Sprintf("%.1f", m)
}

// interval prints a 95% interval of an accuracy's mean with one
// decimal, cut to the accuracy's range ("-" without one).
func interval(lo, hi string) string {
	l, err1 := strconv.ParseFloat(lo, 64)
	h, err2 := strconv.ParseFloat(hi, 64)
	if err1 != nil || err2 != nil {
		return "-"
	}
	// An accuracy lies in 0-100; Student's interval over few seeds of a
	// wide spread reaches past either end (t = 4.3 at 2 degrees of
	// freedom, 12.7 at 1).
	return fmt.Sprintf("[%.1f, %.1f]", max(l, 0), min(h, 100))
}

// cell is a table cell that may hold one Welch's test: the text before
// its p-value, the p-value (NaN where the cell makes no test), the text
// after it, and the p-value adjusted by Holm's method over the tests of
// the cell's column (NaN until comparisons sets it, and where the
// column makes fewer than two tests).
type cell struct {
	pre, post string
	p, holm   float64
	// dirty: the cell rests on a run made by a binary built from a
	// checkout with uncommitted changes (a commit ending "-dirty").
	dirty bool
}

// plain is a cell of text alone, without a test.
func plain(s string) cell { return cell{pre: s, p: math.NaN(), holm: math.NaN()} }

// String prints the cell: "pre, p = X (Holm p = Y)post", then the mark
// of a cell resting on a run of an uncommitted build.
func (c cell) String() string {
	s := c.pre
	if !math.IsNaN(c.p) {
		s += fmt.Sprintf(", p = %.2g", c.p)
		if !math.IsNaN(c.holm) {
			s += fmt.Sprintf(" (Holm p = %.2g)", c.holm)
		}
	}
	s += c.post
	if c.dirty {
		s += " " + dirtyMark
	}
	return s
}

// named is c with name and ": " before it.
func named(name string, c cell) cell {
	c.pre = name + ": " + c.pre
	return c
}

// dirtyMark marks a row or cell resting on a run made by an uncommitted
// build; dirtyNote explains it below a table that has one.
const (
	dirtyMark = "†"
	dirtyNote = dirtyMark + " Rests on runs made by a binary built with uncommitted changes (a commit ending `-dirty` in runs.csv). Nobody can rebuild that binary. `maple reproduce` trains such cells again."
)

// dirtyCommit tells whether a runs.csv commit names a binary built from
// a checkout with uncommitted changes.
func dirtyCommit(commit string) bool { return strings.HasSuffix(commit, "-dirty") }

// anyDirty tells whether any of runs (runs.csv's rows) was made by such
// a binary.
func anyDirty(runs ...[]map[string]string) bool {
	for _, rs := range runs {
		for _, r := range rs {
			if dirtyCommit(r["commit"]) {
				return true
			}
		}
	}
	return false
}

// rowDirty tells whether any run of a summary row's configuration was
// made by such a binary.
func rowDirty(runs *Table, hash string) bool {
	if runs == nil {
		return false
	}
	for _, r := range runs.Rows {
		if r["config_hash"] == hash && dirtyCommit(r["commit"]) {
			return true
		}
	}
	return false
}

// versus compares a maple row with the row of the same dataset, size and
// model whose training reads no group labels and whose final model is
// trained by the same recipe (Evaluation: like with like) that validation
// ranks first (the highest mean validation worst-group accuracy, the
// criterion every figure is selected by; never the test split): the
// difference of the means of the experiment's metric and Welch's p. A
// maple row at its default, whose final training is chosen per run on
// validation between the MAPLE code's and the shared one, is compared
// with the baselines whose final training is chosen per seed the same
// way (chosenAlike), the one validation ranks first (its chosen runs'
// mean).
//
// With alike false the comparator is the row validation ranks first of
// every training: each method at its own recipe (IRMv1 and REx at their
// papers', the others at the shared evaluation or maple's), the strictest
// comparison the table offers.
func versus(x map[string]string, rows []map[string]string, r Results, alike bool) string {
	return versusCell(x, rows, r, alike).String()
}

func versusCell(x map[string]string, rows []map[string]string, r Results, alike bool) cell {
	if !searched(x) || r.Runs == nil {
		return plain("")
	}
	recipe, ok := Evaluation(x)
	if !ok && alike {
		return plain("its training recipe does not resolve")
	}
	admissible := func(y map[string]string) bool {
		return !searched(y) && y["group_labels_training"] != "yes" &&
			y["dataset"] == x["dataset"] && y["train_size"] == x["train_size"] && y["model"] == x["model"]
	}
	if alike && FinalTraining(x) == TrainingChosen {
		best, ok := highest(chosenAlike(x, rows, r, admissible), func(c alikeRuns) float64 { return stat.Mean(column(c.runs, "val_worst"), nil) })
		if !ok {
			return plain("no baseline chosen the same way")
		}
		return named(best.method+" ("+TrainingChosen+")", compareCell(runsOf(r.Runs, x["config_hash"]), best.runs, r.compared().Column))
	}
	best := bestOnValidation(rows, func(y map[string]string) bool {
		if !admissible(y) {
			return false
		}
		if !alike {
			return true
		}
		r, ok := Evaluation(y)
		return ok && r == recipe
	})
	if best == nil {
		return plain("no such row")
	}
	name := best["method"]
	if !alike {
		name += " (" + FinalTraining(best) + ")" // which of its trainings
	}
	return named(name, compareCell(runsOf(r.Runs, x["config_hash"]), runsOf(r.Runs, best["config_hash"]), r.compared().Column))
}

// versusReads compares a maple row with the method that reads what its
// outer objective reads beyond the class label (column "training reads":
// environments for maple/irmv1 and maple/rex, so IRMv1 or REx), of the
// same dataset, size and model, any training, that validation ranks
// first: the difference of the means of the experiment's metric and
// Welch's p.
func versusReads(x map[string]string, rows []map[string]string, r Results) cell {
	if !searched(x) || r.Runs == nil {
		return plain("")
	}
	best := bestOnValidation(rows, func(y map[string]string) bool {
		return !searched(y) && y["supervision"] == x["supervision"] &&
			y["dataset"] == x["dataset"] && y["train_size"] == x["train_size"] && y["model"] == x["model"]
	})
	if best == nil {
		return plain("no such row")
	}
	return named(best["method"]+" ("+FinalTraining(best)+")", compareCell(runsOf(r.Runs, x["config_hash"]), runsOf(r.Runs, best["config_hash"]), r.compared().Column))
}

// versusReference compares a row with the row of the reference sweep
// of the same method, dataset, size and model (the one with the highest
// mean validation worst-group accuracy where the sweep has several): the
// difference of the mean test accuracies and Welch's p (the default
// metric; versusReferenceCell takes another). The reference sweep's own
// rows read "reference".
func versusReference(x map[string]string, rows []map[string]string, runs *Table, ref string) string {
	return versusReferenceCell(x, rows, runs, ref, DefaultMetric).String()
}

// versusReferenceCell is versusReference's cell, on runs.csv's column
// col.
func versusReferenceCell(x map[string]string, rows []map[string]string, runs *Table, ref, col string) cell {
	in := func(y map[string]string) bool { return slices.Contains(strings.Fields(y["sweep"]), ref) }
	if in(x) {
		return plain("reference")
	}
	if runs == nil {
		return plain("")
	}
	// A reference sweep with several configurations of the method (a
	// random search's trials): the one validation ranks first, as every
	// choice here is made.
	anchor := bestOnValidation(rows, func(y map[string]string) bool {
		return in(y) && y["method"] == x["method"] && y["dataset"] == x["dataset"] && y["train_size"] == x["train_size"] && y["model"] == x["model"]
	})
	if anchor == nil {
		return plain("no reference row")
	}
	return compareCell(runsOf(runs, x["config_hash"]), runsOf(runs, anchor["config_hash"]), col)
}

// versusAgainst is versusReference with the sweep a row is compared
// with: the file's reference, or the one its sweep names with against,
// then named in the cell.
func versusAgainst(x map[string]string, rows []map[string]string, runs *Table, f *File) string {
	return versusAgainstCell(x, rows, runs, f).String()
}

func versusAgainstCell(x map[string]string, rows []map[string]string, runs *Table, f *File) cell {
	ref := f.referenceOf(x["sweep"])
	c := versusReferenceCell(x, rows, runs, ref, f.Compared().Column)
	if ref != f.Reference && c.pre != "reference" {
		return named("vs "+sweepText(ref), c)
	}
	return c
}

// compareText is welchText over two sets of runs (runs.csv's rows, one
// per seed) on their column col; see compareRuns.
func compareText(a, b []map[string]string, col string) string {
	return compareCell(a, b, col).String()
}

func compareCell(a, b []map[string]string, col string) cell {
	c, _, _ := compareRuns(a, b, col)
	return c
}

// compareRuns compares two sets of runs on runs.csv's column col (the
// experiment's metric). Where either side is a single run no test can
// be made, and a difference from the other side's mean would mix the
// seeds' spread into it: the difference is taken at that run's seed
// where the other side has a run there, and says which seed; seed and
// other (the other side's figure there) are then set. Where no seed is
// shared, welchCell gives the difference of the means and
// says so. The cell is marked dirty where either side holds a run of an
// uncommitted build.
func compareRuns(a, b []map[string]string, col string) (c cell, seed string, other float64) {
	if d, v, s, ok := atSameSeed(a, b, col); ok {
		c, seed, other = plain(signed(d)+" at seed "+s+" (n too small for a test)"), s, v
	} else {
		c = welchCell(column(a, col), column(b, col))
	}
	c.dirty = anyDirty(a, b)
	return c, seed, other
}

// atSameSeed returns, where a or b is a single run and the other side
// has a run at its seed, the difference of the two runs' figures in
// column col (a's less b's), b's figure and the seed; ok is false
// otherwise.
func atSameSeed(a, b []map[string]string, col string) (diff, other float64, seed string, ok bool) {
	switch {
	case len(a) == 1:
		seed = a[0]["seed"]
	case len(b) == 1:
		seed = b[0]["seed"]
	default:
		return 0, 0, "", false
	}
	x, okA := figureAt(a, seed, col)
	v, okB := figureAt(b, seed, col)
	if !okA || !okB {
		return 0, 0, "", false
	}
	return x - v, v, seed, true
}

// figureAt returns the figure in column col of the run at seed, the
// first where there are several.
func figureAt(runs []map[string]string, seed, col string) (float64, bool) {
	for _, r := range runs {
		if r["seed"] == seed {
			v, err := strconv.ParseFloat(r[col], 64)
			return v, err == nil
		}
	}
	return 0, false
}

// welchText prints the difference of a's and b's means and Welch's p;
// the difference alone where the test cannot be made. A side of a
// single run reaches it only from compareRuns, where the other side has
// no run at that seed: the text says so.
func welchText(a, b []float64) string { return welchCell(a, b).String() }

func welchCell(a, b []float64) cell {
	diff, _, _, p, ok := Welch(a, b)
	if !ok {
		if len(a) == 0 || len(b) == 0 {
			return plain("no runs")
		}
		d := stat.Mean(a, nil) - stat.Mean(b, nil)
		if len(a) < 2 || len(b) < 2 {
			return plain(signed(d) + " (n too small for a test; no run at a common seed)")
		}
		return plain(signed(d) + " (no spread: no test)")
	}
	c := plain(signed(diff))
	c.p = p
	return c
}

// signed prints a difference with its sign to one decimal, a difference
// that rounds to zero as "0.0" (neither "+0.0" nor "-0.0").
func signed(d float64) string {
	if t := fmt.Sprintf("%+.1f", d); t != "-0.0" && t != "+0.0" {
		return t
	}
	return "0.0"
}

// versusOracle compares a maple row with the oracle trained the same way
// (oracleRuns): the paper's yardstick, "near the oracle", as like with
// like. The difference of the means of the experiment's metric (over
// the oracle's chosen seeds) and Welch's p, then the oracle's mean: the
// oracle it is compared with is not always a row of the table (one chosen per seed).
func versusOracle(x map[string]string, rows []map[string]string, r Results) string {
	return versusOracleCell(x, rows, r).String()
}

func versusOracleCell(x map[string]string, rows []map[string]string, r Results) cell {
	if !searched(x) || r.Runs == nil {
		return plain("")
	}
	oracle, why := oracleRuns(x, rows, r)
	if oracle == nil {
		return plain(why)
	}
	m := r.compared()
	o := column(oracle, m.Column)
	if len(o) == 0 {
		return plain("the oracle's runs have no " + m.Name)
	}
	own := runsOf(r.Runs, x["config_hash"])
	c, seed, v := compareRuns(own, oracle, m.Column)
	if seed != "" {
		c.post += fmt.Sprintf(" (oracle %.1f at seed %s)", v, seed)
		return c
	}
	c.post += fmt.Sprintf(" (oracle %.1f)", stat.Mean(o, nil))
	return c
}

// oracleRuns returns the runs (runs.csv's rows, one per seed) of the
// oracle of a row's dataset, training size and model trained the same
// way: for a row whose final training is chosen on validation (maple's
// default), the oracle's runs chosen per seed the same way, by the first
// [[choice]] of the experiment whose sweeps trained the oracle by the
// two candidates, the MAPLE code's training and the shared one, and by
// nothing else; for a row trained by one recipe, the oracle row trained
// by that recipe; for a baseline at its published recipe, the oracle at
// the shared evaluation (the oracle has no published recipe). Where
// there is none, why says so.
func oracleRuns(x map[string]string, rows []map[string]string, r Results) (runs []map[string]string, why string) {
	oracle := func(y map[string]string) bool {
		return y["method"] == "oracle" && y["dataset"] == x["dataset"] && y["train_size"] == x["train_size"] && y["model"] == x["model"]
	}
	if !slices.ContainsFunc(rows, oracle) {
		return nil, "no oracle at this size and model"
	}
	training := FinalTraining(x)
	if training == TrainingChosen {
		if cs := chosenAlike(x, rows, r, oracle); len(cs) > 0 {
			return cs[0].runs, ""
		}
		return nil, "no oracle chosen the same way"
	}
	recipe, ok := Evaluation(x)
	if !ok {
		return nil, "its training recipe does not resolve"
	}
	o := bestOnValidation(rows, func(y map[string]string) bool {
		if !oracle(y) {
			return false
		}
		if training == TrainingOwn {
			return FinalTraining(y) == TrainingShared
		}
		rec, ok := Evaluation(y)
		return ok && rec == recipe
	})
	if o == nil {
		return nil, "no oracle trained the same way"
	}
	return runsOf(r.Runs, o["config_hash"]), ""
}

// alikeRuns are one method's runs, one per seed, chosen on validation.
type alikeRuns struct {
	method string
	runs   []map[string]string
}

// chosenAlike returns, for each method with a row keep admits (in the
// rows' order), its runs at x's dataset, training size and model chosen
// per seed as a maple search at its default chooses its final training:
// by the first [[choice]] of the experiment whose sweeps trained the
// method by the two candidates, the MAPLE code's training and the shared
// one, one configuration each, and by nothing else. A method no such
// choice covers is left out.
func chosenAlike(x map[string]string, rows []map[string]string, r Results, keep func(map[string]string) bool) []alikeRuns {
	if r.File == nil {
		return nil
	}
	var out []alikeRuns
	done := map[string]bool{}
	for _, y := range rows {
		m := y["method"]
		if done[m] || !keep(y) {
			continue
		}
		done[m] = true
	choices:
		for _, c := range r.File.Choices {
			trainings := map[string]int{} // configurations per final training
			for _, z := range rows {
				if z["method"] == m && keep(z) && slices.ContainsFunc(strings.Fields(z["sweep"]), func(sw string) bool { return slices.Contains(c.Sweeps, sw) }) {
					trainings[FinalTraining(z)]++
				}
			}
			if len(trainings) != 2 || trainings[TrainingCode] != 1 || trainings[TrainingShared] != 1 {
				continue // not the choice maple's runs make: one configuration by each of the two trainings
			}
			for _, ch := range c.Choose(r.Runs) {
				if ch.Method == m && ch.Dataset == x["dataset"] && ch.TrainSize == x["train_size"] && ch.Model == x["model"] && len(ch.Runs) > 0 {
					out = append(out, alikeRuns{m, ch.Runs})
					break choices
				}
			}
		}
	}
	return out
}

// bestOnValidation returns the row keep admits with the highest mean
// validation worst-group accuracy (a row without one ranks last), nil
// when keep admits none.
func bestOnValidation(rows []map[string]string, keep func(map[string]string) bool) map[string]string {
	best, _ := highest(slices.DeleteFunc(slices.Clone(rows), func(y map[string]string) bool { return !keep(y) }), func(y map[string]string) float64 {
		v, err := strconv.ParseFloat(y["val_worst_mean"], 64)
		if err != nil {
			return math.NaN()
		}
		return v
	})
	return best
}

// highest returns the first of xs with the highest score, a NaN score
// ranking last; ok is false when xs is empty.
func highest[T any](xs []T, score func(T) float64) (best T, ok bool) {
	bestVal := math.Inf(-1)
	for _, x := range xs {
		v := score(x)
		if math.IsNaN(v) {
			v = math.Inf(-1)
		}
		if !ok || v > bestVal {
			best, bestVal, ok = x, v, true
		}
	}
	return best, ok
}

// runsOf returns the runs of one configuration, one per seed (a
// configuration two sweeps ran counts each seed once).
func runsOf(runs *Table, hash string) []map[string]string {
	var out []map[string]string
	seen := map[string]bool{}
	for _, r := range runs.Rows {
		if r["config_hash"] != hash || seen[r["seed"]] {
			continue
		}
		seen[r["seed"]] = true
		out = append(out, r)
	}
	return out
}

// Headline markers delimit the README's generated headline table.
const (
	HeadlineStart = "<!-- headline:start (generated by maple reproduce from docs/results; do not edit) -->"
	HeadlineEnd   = "<!-- headline:end -->"
)

// Headline returns the README's headline table: the rows each
// experiment's headline names (METHOD: a method's row on its defaults
// where the experiment has one, else its every row; SWEEP:METHOD: the
// method's rows in that sweep), linked to its experiment file. Its
// comparisons are the experiment table's cells, Holm-adjusted over the
// table's column. They and the interval are on each experiment's
// metric: where a quoted experiment's is not the default, the oracle's
// header names no metric, such a row's interval names its own, and a
// note below the table says which rows compare which.
func Headline(all []Results) string {
	var b strings.Builder
	others := map[string][]string{} // experiments quoted, by a metric not the default
	for _, r := range all {
		if m := r.compared(); r.Summary != nil && len(r.File.Headline) > 0 && !m.isDefault() {
			others[m.Name] = append(others[m.Name], r.File.Name)
		}
	}
	oracleHead := "vs the oracle, same training (test acc, Welch)"
	if len(others) > 0 {
		oracleHead = "vs the oracle, same training (Welch)"
	}
	b.WriteString("| experiment | data | method | final training | training reads | n | test acc | 95% interval | test worst-group | vs best without group labels, same training (on validation) | vs best reading what it reads, any training (on validation) | " + oracleHead + " |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n")
	dirty := false
	for _, r := range all {
		if r.Summary == nil {
			continue
		}
		m := r.compared()
		keys, _, cells := comparisons(r)
		at := func(i int, key string) (cell, bool) {
			if j := slices.Index(keys, key); j >= 0 {
				return cells[i][j], true
			}
			return plain(""), false
		}
		for _, want := range r.File.Headline {
			sweep, method, inSweep := strings.Cut(want, ":")
			if !inSweep {
				method = want
			}
			// A method on its defaults where the experiment has that row
			// (not also its runs with another recipe), else every row.
			defaults := !inSweep && slices.ContainsFunc(r.Summary.Rows, func(x map[string]string) bool { return x["method"] == method && x["settings"] == "" })
			for i, x := range r.Summary.Rows {
				if x["method"] != method || defaults && x["settings"] != "" || inSweep && !slices.Contains(strings.Fields(x["sweep"]), sweep) {
					continue
				}
				data := x["dataset"]
				if s := size(x["train_size"]); s != "all" {
					data += " n=" + s
				}
				first, ok := at(i, colAlike)
				if !ok {
					first, _ = at(i, colRef) // an experiment with a reference sweep: as its table compares
				}
				reads, _ := at(i, colReads)
				oracle, ok := at(i, colOracle)
				if !ok {
					oracle = versusOracleCell(x, r.Summary.Rows, r)
				}
				name := x["method"]
				if rowDirty(r.Runs, x["config_hash"]) {
					name += " " + dirtyMark
					dirty = true
				}
				dirty = dirty || first.dirty || reads.dirty || oracle.dirty
				ci := interval(x[m.Column+"_ci95_lo"], x[m.Column+"_ci95_hi"])
				if m.Short != "" {
					ci = m.Short + " " + ci
				}
				fmt.Fprintf(&b, "| [%s](docs/experiments/%s.toml) | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", r.File.Name, r.File.Name, data, name, FinalTraining(x), x["supervision"],
					x["n"], pm(x["test_acc_mean"], x["test_acc_sd"]), ci, pm(x["test_worst_mean"], x["test_worst_sd"]), first, reads, oracle)
			}
		}
	}
	if len(others) > 0 {
		b.WriteString("\n")
		names := slices.Sorted(maps.Keys(others))
		for _, name := range names {
			fmt.Fprintf(&b, "In the rows of %s, the interval and the comparisons are of %s, the experiment file's metric. ", and(others[name]), name)
		}
		fmt.Fprintf(&b, "In the other rows they are of %s.\n", Metrics[DefaultMetric].Name)
	}
	if dirty {
		b.WriteString("\n" + dirtyNote + "\n")
	}
	return b.String()
}

// Splice returns text with the part between the headline markers
// replaced by table; an error when the markers are missing.
func Splice(text, table string) (string, error) {
	i := strings.Index(text, HeadlineStart)
	j := strings.Index(text, HeadlineEnd)
	if i < 0 || j < i {
		return "", fmt.Errorf("no headline markers (%s ... %s)", HeadlineStart, HeadlineEnd)
	}
	return text[:i+len(HeadlineStart)] + "\n" + table + text[j:], nil
}

// methodsFigure shows an experiment's methods figure below its table,
// when it has one.
func methodsFigure(b *strings.Builder, docs string, r Results) {
	if r.Summary == nil || len(r.Summary.Rows) == 0 {
		return
	}
	dir := "results/" + r.File.Name
	if _, err := os.Stat(filepath.Join(docs, dir, MethodsFigure+".png")); err != nil {
		return
	}
	fmt.Fprintf(b, "![%s: test and test worst-group accuracy per configuration](%s/%s.png)\n\n", r.File.Name, dir, MethodsFigure)
	b.WriteString("The table's rows as bars, each named by its method")
	_, kinds := methodsfig.ConfigLabels(r.Summary.Rows)
	switch {
	case kinds.Sweep && kinds.Settings:
		b.WriteString(". Where rows share a method, a bar also names its sweep (column \"sweep\"), or else the settings it does not share")
	case kinds.Sweep:
		b.WriteString(". Where rows share a method, a bar also names its sweep (column \"sweep\")")
	case kinds.Settings:
		b.WriteString(". Where rows share a method, a bar also names the settings it does not share. They are wrapped, and cut with … past three lines")
	}
	b.WriteString(".\n\n")
}

// widthsFigure shows an experiment's width figure, where it has one.
func widthsFigure(b *strings.Builder, docs string, r Results) {
	dir := "results/" + r.File.Name
	if _, err := os.Stat(filepath.Join(docs, dir, WidthsFigure+".png")); err != nil {
		return
	}
	fmt.Fprintf(b, "\nThe same rows against the model's width, the first hidden layer's. Each method is a line, each training size a row of panels. Left: mean test accuracy. Right: test worst-group accuracy. Both are ± sample sd where n > 1. The differences the paper's claim is about, a few points, are read in the next figure. It draws each line less its oracle's.\n\n![%s: accuracy against model width](%s/%s.png)\n", r.File.Name, dir, WidthsFigure)
	if _, err := os.Stat(filepath.Join(docs, dir, GapsFigure+".png")); err != nil {
		return
	}
	lines, left, err := gapLines(r)
	if err != nil {
		return // TestPagesUpToDate reports it
	}
	fmt.Fprintf(b, "\nThe next figure tests the paper's claim: MAPLE near the oracle at every width. It draws each row's mean less the mean of its oracle, in points; 0 is the oracle. That oracle is of the row's training size and width, trained the same way. For maple's rows it is the table's last column. At maple's default, the oracle's final training is chosen per seed on validation. A baseline at its published recipe is set against the oracle at the shared evaluation.")
	switch {
	case left == 1:
		b.WriteString(" 1 row has no such oracle beside it yet and is left out.")
	case left > 1:
		fmt.Fprintf(b, " %d rows have no such oracle beside them yet and are left out.", left)
	}
	acc, worst := gapsBelow(lines)
	if len(acc) > 0 {
		fmt.Fprintf(b, "\n\nBelow %d points, cut at the panels' floor:\n\n- %s", gapFloor, strings.Join(acc, "\n- "))
	}
	if len(worst) > 0 {
		fmt.Fprintf(b, "\n\nBelow %d points in the worst-group panel alone:\n\n- %s", gapFloor, strings.Join(worst, "\n- "))
	}
	fmt.Fprintf(b, "\n\n![%s: accuracy less the oracle's against model width](%s/%s.png)\n", r.File.Name, dir, GapsFigure)
}

// iterationsFigure shows an experiment's per-iteration figure below its
// table, when it has an iterations.csv.
func iterationsFigure(b *strings.Builder, r Results) {
	if r.Iterations == nil || r.Summary == nil {
		return
	}
	dir := "results/" + r.File.Name
	fmt.Fprintf(b, "\nThe searches per outer iteration, from [%s](%s/%s): one row per run and iteration. Left: the share of u on the groups whose attribute disagrees with the label. Right: the search model's validation worst-group accuracy. Each line is a configuration's mean over its seeds. A dot marks each seed's selected iterate.\n\n![%s: the searches per outer iteration](%s/%s.png)\n",
		IterationsFile, dir, IterationsFile, r.File.Name, dir, IterationsFigure)
}

// WritePages regenerates docs/RESULTS.md and the README's headline table
// (readme, "" for none) from the committed files, and each experiment's
// figures: the methods figure (and, where a method ran at several
// widths, the width figure) from its summary.csv, the per-iteration
// figure from its iterations.csv.
func WritePages(docs, readme string) error {
	all, err := ReadAll(docs)
	if err != nil {
		return err
	}
	for _, r := range all {
		if r.Summary != nil && len(r.Summary.Rows) > 0 {
			if err := WriteMethodsFigure(ResultsDir(docs, r.File.Name), r.Summary); err != nil {
				return fmt.Errorf("experiment %s: %w", r.File.Name, err)
			}
			if err := WriteWidthFigure(ResultsDir(docs, r.File.Name), r.Summary); err != nil {
				return fmt.Errorf("experiment %s: %w", r.File.Name, err)
			}
			if err := WriteGapFigure(ResultsDir(docs, r.File.Name), r); err != nil {
				return fmt.Errorf("experiment %s: %w", r.File.Name, err)
			}
		}
		if r.Iterations == nil {
			continue
		}
		if err := WriteIterationFigure(ResultsDir(docs, r.File.Name), r.Iterations); err != nil {
			return fmt.Errorf("experiment %s: %w", r.File.Name, err)
		}
	}
	if err := os.WriteFile(filepath.Join(docs, PagePath), []byte(Page(docs, all)), 0o644); err != nil {
		return err
	}
	if readme == "" {
		return nil
	}
	text, err := os.ReadFile(readme)
	if err != nil {
		return err
	}
	out, err := Splice(string(text), Headline(all))
	if err != nil {
		return fmt.Errorf("%s: %w", readme, err)
	}
	return os.WriteFile(readme, []byte(out), 0o644)
}

// share prints a percentage with one decimal, "-" when there is none.
func share(v string) string {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", x)
}

// TimeLeft estimates the minutes the experiment's cells without a
// committed row would take: per sweep, its missing cells times the mean
// `minutes` of its committed rows (measured where those ran). A sweep
// with no timed row yet counts its missing cells in untimed instead. A
// row of a -dirty build counts as missing (maple reproduce trains its
// cell again), its minutes in the mean.
func (r Results) TimeLeft() (minutes float64, untimed int) {
	for _, s := range r.File.Sweeps {
		done, sum, timed := 0, 0.0, 0
		if r.Runs != nil {
			for _, row := range r.Runs.Rows {
				if row["sweep"] != s.Name {
					continue
				}
				if !dirtyCommit(row["commit"]) {
					done++
				}
				if m, err := strconv.ParseFloat(row["minutes"], 64); err == nil && m > 0 {
					sum, timed = sum+m, timed+1
				}
			}
		}
		left := max(s.Cells()-done, 0)
		switch {
		case left == 0:
		case timed > 0:
			minutes += float64(left) * sum / float64(timed)
		default:
			untimed += left
		}
	}
	return minutes, untimed
}

// anchorCell is the anchors' column of a row of method: each anchor of
// the method, its figure and whose it is.
func anchorCell(anchors []Anchor, method string) string {
	var parts []string
	for _, a := range anchors {
		if a.Method == method {
			parts = append(parts, a.Figure+" ("+a.Label+")")
		}
	}
	return strings.Join(parts, "; ")
}

// anchorNotes lists an experiment's anchors below its table: each with
// its source, and why maple's rows differ from it.
func anchorNotes(b *strings.Builder, anchors []Anchor) {
	if len(anchors) == 0 {
		return
	}
	b.WriteString("\nThe column \"published, or the authors' code\":\n\n")
	for _, a := range anchors {
		fmt.Fprintf(b, "- **%s %s** (%s). Source: %s.", a.Method, a.Figure, a.Label, strings.TrimSuffix(strings.TrimSpace(a.Source), "."))
		if why := strings.Join(strings.Fields(a.Why), " "); why != "" {
			b.WriteString(" " + why)
		}
		b.WriteString("\n")
	}
}

// and joins names as a sentence lists them: "a", "a and b", "a, b and c".
func and(names []string) string {
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}
