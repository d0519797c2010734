package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/experiments"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/sweeps"
)

// ReproduceOptions are the settings of `maple reproduce`.
type ReproduceOptions struct {
	F     *Factory
	Name  string // an experiment name (docs/experiments/NAME.toml) or file; "" lists them
	Check bool   // rerun and compare with the committed runs.csv instead of writing
	NoRun bool   // write the files from the runs already finished, running nothing
	// Rerun trains every cell on this build, also those whose rows are
	// committed (default false: a committed row stands for its cell, so
	// that a rerun on another machine goes on where the files stand).
	Rerun bool
	Jobs  int // runs at a time
	// Sweeps, when given, are the only sweeps of the experiment to run
	// (default: every one); the files are written from every sweep's
	// runs all the same.
	Sweeps []string
	// Seeds, when given, are the only seeds to run (default: every
	// seed the sweeps name).
	Seeds []uint
	// Commit is the commit the binary was built from (default: its own,
	// commit()); a row is recorded only from a clean build of a commit.
	Commit string
}

// NewCmdReproduce builds `maple reproduce`; runF replaces the run
// function in tests.
func NewCmdReproduce(f *Factory, runF func(*ReproduceOptions) error) *cobra.Command {
	o := &ReproduceOptions{F: f}
	c := &cobra.Command{
		Use:   "reproduce [NAME]",
		Short: "Run a committed experiment (docs/experiments/NAME.toml) on this build, resuming it if rerun, and write its results (docs/results/NAME: runs.csv, summary.csv, figures) and the results pages",
		Long: `Run a committed experiment on this build and write its results.

An experiment is a file docs/experiments/NAME.toml in a checkout of maple:
its title, the sweeps whose runs make its figures (each a name and the
arguments of maple sweep), and the build and thread count its committed
figures were made with. maple reproduce NAME runs the sweeps' cells, the
first seed of every sweep before the second (rerunning resumes, as
maple sweep does), then writes docs/results/NAME/runs.csv (one row per
run), summary.csv (mean, sd, n, 95% interval per configuration) and its
figure; for searches on data whose groups pair the label with an
attribute (ColoredMNIST's colour, mnist-fashion's digit, the
linear case's spurious feature) also
iterations.csv (one row per search and outer iteration, from its
metrics.jsonl) and its figure; and it regenerates docs/RESULTS.md and
the README's headline table. Run it from the checkout's top directory.
Without NAME it lists the experiments, how many runs each has committed
and an estimate of the time its missing runs would take (each sweep's
missing cells at the mean minutes of its committed runs).

Run directories are not kept on every machine; the committed CSVs are.
A cell whose row runs.csv has already (same sweep, configuration and
seed) is not trained again, and its row and iterations are kept, with
the commit that made them; a cell without a row of its own takes the
committed row of another sweep's run of its configuration and seed, of
this experiment or of another made with the same build and threads. A
committed row made by a build with uncommitted changes (its commit ends
in -dirty) stands for no cell: its cell is trained again.
--rerun trains every cell on this build, and a cell finished in the runs
directory always replaces its committed row.`,
		Example: `  maple reproduce                     # the experiments, their runs, the time left
  maple reproduce synthetic           # run (or resume) one and write its results
  maple reproduce synthetic --check --runs-dir "$(mktemp -d)"   # rerun, compare
  maple reproduce cmnist --check --sweeps cm-maple --seeds 1 --runs-dir "$(mktemp -d)"   # a part
  maple reproduce ablation --no-run   # write the files from the runs finished
  maple reproduce cmnist --rerun      # train every cell, committed or not
  maple reproduce ablation --sweeps abl-preset-wd,abl-defaults --seeds 1   # part`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				o.Name = args[0]
			}
			if cmd.Flags().Changed("sweeps") && len(o.Sweeps) == 0 { // --seeds "" fails to parse
				return usageError{errors.New("--sweeps is empty: give one or more of the experiment's sweeps, comma-separated, or leave the flag out to run them all")}
			}
			if runF != nil {
				return runF(o)
			}
			return reproduceRun(cmd.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.Check, "check", false, "rerun the experiment (or its --sweeps and --seeds) and compare its figures with runs.csv digit for digit (exit 1 on a difference); writes nothing")
	c.Flags().BoolVar(&o.NoRun, "no-run", false, "run nothing: write the experiment's files from its runs finished so far")
	c.Flags().IntVar(&o.Jobs, "jobs", 1, "runs at a time")
	c.Flags().BoolVar(&o.Rerun, "rerun", false, "train every cell on this build, also those whose rows are committed (by default a committed row stands for its cell)")
	c.Flags().StringSliceVar(&o.Sweeps, "sweeps", nil, "run only these of the experiment's sweeps, comma-separated (default every one); the files are written from every sweep's runs")
	c.Flags().UintSliceVar(&o.Seeds, "seeds", nil, "run only these seeds, comma-separated (default every seed the sweeps name)")
	c.Flags().Lookup("seeds").DefValue = "" // the help states the default, not "[]"
	return c
}

func reproduceRun(ctx context.Context, o *ReproduceOptions) error {
	f := o.F
	if o.Name == "" {
		return listExperiments(f)
	}
	if o.Check && o.NoRun {
		return usageError{errors.New("--check reruns the experiment and --no-run runs nothing: give one of them")}
	}
	if o.Rerun && (o.Check || o.NoRun) {
		return usageError{errors.New("--rerun trains every cell; --check reruns every cell already and --no-run runs nothing: give one of them")}
	}
	if o.Jobs < 1 {
		return usageError{fmt.Errorf("--jobs %d: want at least 1", o.Jobs)}
	}
	if (len(o.Sweeps) > 0 || len(o.Seeds) > 0) && o.NoRun {
		return usageError{errors.New("--sweeps and --seeds choose what to run; --no-run runs nothing: give one of them")}
	}
	if err := cleanBuild(o); err != nil {
		return err
	}
	path, err := experiments.Find(o.Name)
	if err != nil {
		return usageError{err}
	}
	exp, err := experiments.Load(path)
	if err != nil {
		return usageError{err}
	}
	docs := filepath.Dir(filepath.Dir(path)) // docs/experiments/NAME.toml -> docs
	only, err := reproduceFilter(exp, o.Sweeps, o.Seeds)
	if err != nil {
		return usageError{err}
	}
	if missing := exp.MissingEnv(os.Getenv); len(missing) > 0 && !o.NoRun {
		return usageError{fmt.Errorf("experiment %s's figures are made with %s (its file's env), and this process lacks %s: the matrix libraries read these when they load, so set them on the command: %s maple reproduce %s",
			exp.Name, exp.EnvText(), strings.Join(missing, " "), exp.EnvText(), exp.Name)}
	}
	if tags := buildTags(); tags != exp.Build {
		fmt.Fprintf(f.Err, "warning: experiment %s's figures were made by a binary built with %s; this one is built with %s: the float32 rounding, and so the figures, may differ\n",
			exp.Name, tagsText(exp.Build), tagsText(tags))
	}
	if n := runs.CurrentBuild().Threads; exp.Threads > 0 && exp.Threads != n {
		fmt.Fprintf(f.Err, "warning: experiment %s's figures were made on %d threads; this process computes on %d: the float32 rounding, and so the figures, may differ\n",
			exp.Name, exp.Threads, n)
	}
	dir := experiments.ResultsDir(docs, exp.Name)
	committed := &experiments.Committed{} // --check compares with the committed rows: it keeps none
	if !o.Check {
		if committed, err = experiments.ReadCommitted(dir); err != nil {
			return fmt.Errorf("reading the committed results of %s: %w (repair the file, or move it away to run every cell again)", exp.Name, err)
		}
		// Another experiment's (or sweep's) run of a cell's configuration
		// and seed, on the same build and thread count, stands for it.
		if err := committed.ReadLenders(docs, exp); err != nil {
			return fmt.Errorf("reading the committed results of the experiments under %s: %w", docs, err)
		}
	}
	if !o.NoRun {
		skip := committed
		if o.Rerun {
			skip = &experiments.Committed{}
		} else if n := committed.Dirty(); n > 0 {
			fmt.Fprintf(f.Err, "%s: %d committed rows were made by a build with uncommitted changes (a commit ending -dirty): their cells are trained again\n", exp.Name, n)
		}
		if err := runExperiment(ctx, f, exp, o.Jobs, skip, only); err != nil {
			return err
		}
	}
	rows, err := experiments.Collect(f.RunsDir, exp)
	if err != nil {
		return err
	}
	if o.Check {
		return checkExperiment(f, exp, docs, rows, only)
	}
	described, err := experimentCells(f, exp)
	if err != nil {
		return err
	}
	cells := map[string]bool{}
	for k := range described {
		cells[k] = true
	}
	its := experiments.Iterations(f.RunsDir, rows, func(msg string) { fmt.Fprintf(f.Err, "warning: %s\n", msg) })
	rows, its, st := committed.Merge(exp, cells, rows, its)
	experiments.DescribeCells(rows, described)
	if st.Kept > 0 {
		fmt.Fprintf(f.Err, "%s: %d committed rows kept (cells not run in %s)\n", exp.Name, st.Kept, f.RunsDir)
	}
	if st.Borrowed > 0 {
		fmt.Fprintf(f.Err, "%s: %d cells take the committed row of another sweep's run of their configuration and seed (same build and threads; its run id and commit kept)\n", exp.Name, st.Borrowed)
	}
	if st.Stale > 0 {
		fmt.Fprintf(f.Err, "%s: %d cells' runs left out: their configuration is no cell of %s as it stands (a setting or a default changed since they ran)\n", exp.Name, st.Stale, exp.Path)
	}
	if len(rows) == 0 {
		fmt.Fprintf(f.Err, "%s: no finished run in %s yet: nothing written (maple reproduce %s runs it)\n", exp.Name, f.RunsDir, exp.Name)
		return nil
	}
	if err := experiments.WriteFiles(dir, rows); err != nil {
		return fmt.Errorf("writing the results of %s: %w", exp.Name, err)
	}
	fmt.Fprintf(f.Err, "%s: %d finished runs in %s\n", exp.Name, len(rows), filepath.Join(dir, experiments.RunsFile))
	if err := experiments.WriteIterations(dir, its); err != nil {
		return fmt.Errorf("writing the iterations of %s: %w", exp.Name, err)
	}
	readme := filepath.Join(filepath.Dir(docs), "README.md")
	if _, err := os.Stat(readme); err != nil {
		readme = ""
	}
	if err := experiments.WritePages(docs, readme); err != nil {
		return fmt.Errorf("regenerating the results pages: %w", err)
	}
	fmt.Fprintf(f.Err, "regenerated %s\n", filepath.Join(docs, experiments.PagePath))
	if missing := missingCells(exp, rows); missing != "" {
		fmt.Fprintf(f.Err, "%s is not complete: %s; rerun maple reproduce %s to go on\n", exp.Name, missing, exp.Name)
	}
	return nil
}

// reproduceFilter checks --sweeps and --seeds against the experiment
// and returns which of its sweeps and seeds to run.
func reproduceFilter(exp *experiments.File, sweepNames []string, seeds []uint) (func(sweep string, seed uint64) bool, error) {
	names := exp.SweepNames()
	for _, n := range sweepNames {
		if !slices.Contains(names, n) {
			return nil, fmt.Errorf("--sweeps: experiment %s has no sweep %q; its sweeps: %s", exp.Name, n, strings.Join(names, ", "))
		}
	}
	all := exp.Seeds()
	for _, s := range seeds {
		if !slices.Contains(all, uint64(s)) {
			return nil, fmt.Errorf("--seeds: experiment %s's sweeps run no seed %d; they run seeds %s", exp.Name, s, strings.Trim(fmt.Sprint(all), "[]"))
		}
	}
	only := func(sweep string, seed uint64) bool {
		return (len(sweepNames) == 0 || slices.Contains(sweepNames, sweep)) && (len(seeds) == 0 || slices.Contains(seeds, uint(seed)))
	}
	for _, s := range exp.Sweeps {
		ss, _ := s.Seeds()
		if slices.ContainsFunc(ss, func(seed uint64) bool { return only(s.Name, seed) }) {
			return only, nil
		}
	}
	return nil, fmt.Errorf("--sweeps and --seeds: none of sweeps %s runs seeds %s: nothing to run", strings.Join(sweepNames, ", "), strings.Trim(fmt.Sprint(seeds), "[]"))
}

// runExperiment runs the experiment's sweeps, seed by seed: the first
// seed of every sweep before the second, leaving out the cells whose
// rows are committed and the sweeps and seeds only leaves out.
func runExperiment(ctx context.Context, f *Factory, exp *experiments.File, jobs int, committed *experiments.Committed, only func(sweep string, seed uint64) bool) error {
	sub := *f
	sub.Out = io.Discard // each sweep's table: the experiment's files replace them
	for _, seed := range exp.Seeds() {
		for _, s := range exp.Sweeps {
			seeds, _ := s.Seeds()
			if !slices.Contains(seeds, seed) || !only(s.Name, seed) {
				continue
			}
			fmt.Fprintf(f.Err, "== %s: sweep %s, seed %d\n", exp.Name, s.Name, seed)
			name := s.Name
			c := NewCmdSweep(&sub, func(so *SweepOptions) error {
				so.Committed = func(c sweeps.Cell) bool {
					return committed.Stands(name, c.Config.Hash(true), c.Config.Settings.Seed)
				}
				return sweepRun(ctx, &sub, so)
			})
			c.SilenceErrors, c.SilenceUsage = true, true
			c.SetArgs(append(s.WithSeed(seed), "--name", s.Name, "--jobs", fmt.Sprint(jobs), "--format", "csv"))
			c.SetOut(io.Discard)
			c.SetErr(f.Err)
			if err := c.ExecuteContext(ctx); err != nil {
				if errors.Is(err, errInterrupted) {
					return err
				}
				var u usageError
				if errors.As(err, &u) || ctx.Err() == nil && isFlagError(err) {
					return usageError{fmt.Errorf("experiment %s, sweep %s: %w", exp.Name, s.Name, err)}
				}
				// A failed cell: the sweep went on with the others; so does
				// the experiment, and its files leave the cell out.
				fmt.Fprintf(f.Err, "warning: experiment %s, sweep %s: %v\n", exp.Name, s.Name, err)
			}
		}
	}
	return nil
}

// experimentCells returns the keys (experiments.CellKey) of the
// experiment's cells, every sweep's and seed's, as the file and this
// build define them, each with its settings as this build names them
// (experiments.Differences).
func experimentCells(f *Factory, exp *experiments.File) (map[string]string, error) {
	keys := map[string]string{}
	for _, s := range exp.Sweeps {
		name := s.Name
		c := NewCmdSweep(f, func(so *SweepOptions) error {
			_, cells, err := sweepGrid(so)
			for _, cell := range cells {
				keys[experiments.CellKey(name, cell.Config.Hash(true), cell.Config.Settings.Seed)] = experiments.Differences(cell.Config)
			}
			return err
		})
		c.SilenceErrors, c.SilenceUsage = true, true
		c.SetArgs(append(slices.Clone(s.Args), "--name", name))
		c.SetOut(io.Discard)
		c.SetErr(io.Discard)
		if err := c.Execute(); err != nil {
			return nil, usageError{fmt.Errorf("experiment %s, sweep %s: %w", exp.Name, name, err)}
		}
	}
	return keys, nil
}

// isFlagError tells a flag-parsing error of cobra from a run's.
func isFlagError(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "unknown flag") || strings.HasPrefix(s, "invalid argument") || strings.Contains(s, "flag needs an argument")
}

// missingCells says how many of the experiment's cells have no finished
// run among rows ("" when none is missing).
func missingCells(exp *experiments.File, rows []experiments.Run) string {
	have := map[string]int{}
	for _, r := range rows {
		have[r.Sweep]++
	}
	var parts []string
	for _, s := range exp.Sweeps {
		if n := s.Cells(); n > have[s.Name] {
			parts = append(parts, fmt.Sprintf("sweep %s has %d of %d cells finished", s.Name, have[s.Name], n))
		}
	}
	return strings.Join(parts, "; ")
}

// buildTags returns the -tags this binary was built with ("" for none).
func buildTags() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-tags" {
				return s.Value
			}
		}
	}
	return ""
}

func tagsText(tags string) string {
	if tags == "" {
		return "no build tags (pure Go)"
	}
	return "-tags " + tags
}

// checkExperiment compares rows, a rerun's, with the committed runs.csv:
// every figure the schema prints, keyed by sweep, configuration and seed.
func checkExperiment(f *Factory, exp *experiments.File, docs string, rows []experiments.Run, only func(sweep string, seed uint64) bool) error {
	path := filepath.Join(experiments.ResultsDir(docs, exp.Name), experiments.RunsFile)
	committed, err := experiments.ReadCSV(path)
	if err != nil {
		return fmt.Errorf("no committed results to check against: %w (run maple reproduce %s first)", err, exp.Name)
	}
	// --sweeps and --seeds check their part: the committed rows of the
	// other cells are not asked of the rerun, nor its other runs compared.
	committed.Rows = slices.DeleteFunc(committed.Rows, func(r map[string]string) bool {
		seed, err := strconv.ParseUint(r["seed"], 10, 64)
		return err == nil && !only(r["sweep"], seed)
	})
	rows = slices.DeleteFunc(rows, func(r experiments.Run) bool { return !only(r.Sweep, r.Seed) })
	var fresh strings.Builder
	if err := experiments.WriteRuns(&fresh, rows); err != nil {
		return err
	}
	got, err := experiments.ParseCSV(fresh.String())
	if err != nil {
		return err
	}
	diffs := experiments.Compare(committed, got)
	if len(diffs) == 0 {
		fmt.Fprintf(f.Out, "%s: %d runs, every figure as committed in %s\n", exp.Name, len(got.Rows), path)
		return nil
	}
	for _, d := range diffs {
		fmt.Fprintln(f.Out, d)
	}
	return fmt.Errorf("%s: %d differences from %s", exp.Name, len(diffs), path)
}

// listExperiments prints the experiments of docs/experiments with how
// many runs each has committed.
func listExperiments(f *Factory) error {
	all, err := experiments.ReadAll("docs")
	if err != nil {
		return err
	}
	if len(all) == 0 {
		return usageError{fmt.Errorf("no experiment files in %s: run maple reproduce from the top directory of a checkout of maple", experiments.Dir)}
	}
	tw := tabwriter.NewWriter(f.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tRUNS COMMITTED\tTIME LEFT (ESTIMATE)\tTITLE")
	for _, r := range all {
		n, dirty, want := 0, 0, 0
		if r.Runs != nil {
			for _, row := range r.Runs.Rows {
				if strings.HasSuffix(row["commit"], "-dirty") {
					dirty++
				} else {
					n++
				}
			}
		}
		for _, s := range r.File.Sweeps {
			want += s.Cells()
		}
		committed := fmt.Sprintf("%d of %d", n, want)
		if dirty > 0 {
			committed += fmt.Sprintf(" (+%d -dirty)", dirty)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.File.Name, committed, timeLeft(r.TimeLeft()), r.File.Title)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintln(f.Out, "(time left: each sweep's missing cells at the mean minutes of its committed runs, on the machine that ran them; a row of a -dirty build counts as missing: its cell is trained again)")
	return err
}

// timeLeft words an experiment's estimate: "-" when nothing is left,
// minutes under 90, else hours; cells of sweeps with no timed run yet
// are counted apart.
func timeLeft(minutes float64, untimed int) string {
	var parts []string
	switch {
	case minutes == 0:
	case minutes < 90:
		parts = append(parts, fmt.Sprintf("%.0f min", math.Ceil(minutes)))
	default:
		parts = append(parts, fmt.Sprintf("%.1f h", minutes/60))
	}
	if untimed > 0 {
		noun := "cells"
		if untimed == 1 {
			noun = "cell"
		}
		parts = append(parts, fmt.Sprintf("%d untimed %s", untimed, noun))
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " + ")
}

// cleanBuild refuses to train and record an experiment's rows with a
// binary that names no commit, or one built from a checkout with
// uncommitted changes: nobody could rebuild the binary a row names.
// --check (which records nothing) and --no-run (which trains nothing)
// are let through.
func cleanBuild(o *ReproduceOptions) error {
	if o.Check || o.NoRun {
		return nil
	}
	c := o.Commit
	if c == "" {
		c = commit()
	}
	switch {
	case c == "unknown":
		return errors.New("maple reproduce records rows that name the commit of their binary, and this binary names none (built outside the repository, or with -buildvcs=false): build it in the repository with go build; --check reruns and compares without recording")
	case strings.HasSuffix(c, "-dirty"):
		return fmt.Errorf("maple reproduce records rows that name the commit of their binary, and this one was built from a checkout with uncommitted changes (%s), which nobody could build again: commit them and build again; --check reruns and compares without recording", c)
	}
	return nil
}
