package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/google/shlex"
	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/baselines"
	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/sweeps"
	"github.com/maple-ood/maple/tui"
)

// SweepOptions are the settings of `maple sweep`.
type SweepOptions struct {
	Run                                           RunOptions // every run setting, shared by the cells
	Name, Datasets, Methods, Seeds, Models, Sizes string
	Format                                        string
	Jobs                                          int
	Status, JSON, Slurm, PrintCommands            bool
	SlurmArgs, SlurmFile, Only                    string
	// Submitted is when the Slurm array of a task was submitted (hidden,
	// written into the batch script): a stop after it holds the task back.
	Submitted string
	// Search is "grid" (default) or "random": Trials draws per method
	// from the distributions its registry declares, seeded by SearchSeed;
	// EarlyStop runs them by successive halving.
	Search     string
	Trials     int
	SearchSeed uint64
	EarlyStop  bool
	// SearchAgain makes each search cell search even where a finished run
	// searched alike (default false: it takes that run's search).
	SearchAgain bool
	// Committed, when set (maple reproduce), tells the cells whose
	// finished rows an experiment has committed: they are left out of
	// this run, and the sweep prints no table of its own (the
	// experiment's files are its table). Nil runs every cell.
	Committed func(sweeps.Cell) bool
}

// NewCmdSweep builds `maple sweep`.
func NewCmdSweep(f *Factory, runF func(*SweepOptions) error) *cobra.Command {
	o := &SweepOptions{Run: RunOptions{F: f, Config: runs.DefaultConfig("synthetic")}}
	o.Run.Config.Settings.Model = runs.DefaultConfig("cmnist").Settings.Model
	c := &cobra.Command{
		Use:   "sweep --name NAME --datasets A,B --methods erm,maple:rex,... --seeds 1,2,3",
		Short: "Run a grid of datasets x methods x seeds (each cell a normal run; an interrupted sweep resumes) and print the table",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, ax := range o.axes() {
				if ax.def != "" && cmd.Flags().Changed(ax.s.Flag) {
					return usageError{fmt.Errorf("--%s cannot be honoured by a sweep: give --%s", ax.s.Flag, ax.s.Sweep)}
				}
			}
			o.Run.Set = changed(cmd)
			if runF != nil {
				return runF(o)
			}
			return sweepRun(cmd.Context(), f, o)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.Name, "name", "", "sweep name (required)")
	axes := o.axes()
	for _, ax := range axes {
		fl.StringVar(ax.p, ax.s.Sweep, ax.def, ax.help())
	}
	fl.IntVar(&o.Jobs, "jobs", 1, "runs at a time (each uses the BLAS threads of the machine)")
	fl.StringVar(&o.Format, "format", "text", "table format: text, markdown or csv")
	fl.BoolVar(&o.Status, "status", false, "show the sweep's cells: done, running, waiting, failed (with --json as JSON)")
	fl.BoolVar(&o.JSON, "json", false, "print the table (with --status, the cells) as JSON")
	fl.BoolVar(&o.Slurm, "slurm", false, "submit the grid as one Slurm job array (sbatch); each task claims cells until none is left")
	fl.StringVar(&o.SlurmArgs, "slurm-args", "", "with --slurm: more sbatch options, e.g. '--partition=gpu --time=4:00:00'")
	fl.StringVar(&o.SlurmFile, "slurm-file", "", "with --slurm: a file of #SBATCH lines to add")
	fl.StringVar(&o.Submitted, "submitted", "", "")
	fl.MarkHidden("submitted")
	fl.BoolVar(&o.PrintCommands, "print-commands", false, "print one command line per cell (for any other scheduler) instead of running")
	fl.StringVar(&o.Only, "only", "", "run only the cell with this config hash (what --print-commands prints)")
	fl.StringVar(&o.Search, "search", "grid", "grid (one cell per method) or random (--trials cells per method, settings drawn as DomainBed does)")
	fl.IntVar(&o.Trials, "trials", 20, "with --search random: draws per method (each run with every seed)")
	fl.Uint64Var(&o.SearchSeed, "search-seed", 1, "with --search random: the seed of the draws (a rerun draws the same values)")
	fl.BoolVar(&o.EarlyStop, "early-stop", false, "with --search random: stop the worse half of each method's trials at 1/4, then at 1/2 of the outer iterations")
	fl.BoolVar(&o.SearchAgain, "search-again", false, "search in every maple cell (by default a cell takes the search of a finished run that differs only in its evaluation)")
	registerSettings(fl, &o.Run.Config)
	registerLabels(fl, &o.Run.Config, false)
	for _, ax := range axes {
		if ax.def == "" {
			continue // the run's flag is the axis's default (--model for --models)
		}
		if ax.s.Axis {
			fl.String(ax.s.Flag, "", "") // only `maple run` has it: refused above
		}
		fl.MarkHidden(ax.s.Flag) // --seeds for --seed
	}
	return c
}

// sweepAxis is an axis of a sweep's grid: a setting of config.Table with
// a Sweep flag, the option that holds the values given, and their
// default ("" when the setting's own flag gives it: --model for --models).
type sweepAxis struct {
	s   config.Setting
	p   *string
	def string
}

// axes lists the sweep's axes in the table's order.
func (o *SweepOptions) axes() []sweepAxis {
	opts := map[string]struct {
		p   *string
		def string
	}{
		"datasets":    {&o.Datasets, "synthetic"},
		"methods":     {&o.Methods, "erm,oracle,maple:rex"},
		"seeds":       {&o.Seeds, "1,2,3"},
		"models":      {&o.Models, ""},
		"train-sizes": {&o.Sizes, ""},
	}
	var out []sweepAxis
	for _, s := range config.Table {
		if s.Sweep == "" {
			continue
		}
		op, ok := opts[s.Sweep]
		if !ok {
			panic(fmt.Sprintf("setting %s: maple sweep has no option for --%s", s.Flag, s.Sweep))
		}
		out = append(out, sweepAxis{s, op.p, op.def})
	}
	return out
}

// sweepAxisOf returns the sweep's axis whose flag is name (datasets).
func sweepAxisOf(name string) (sweepAxis, bool) {
	for _, ax := range (&SweepOptions{}).axes() {
		if ax.s.Sweep == name && name != "" {
			return ax, true
		}
	}
	return sweepAxis{}, false
}

// help is the axis flag's help, written from the setting's row and the
// registry its values come from: "comma-separated datasets, a cell each
// (synthetic, cmnist, ...)"; --help shortens it before the list.
func (ax sweepAxis) help() string {
	sep, word := ax.s.SweepSep, "semicolon"
	if sep == "" {
		sep, word = ",", "comma"
	}
	what := ax.s.SweepHelp
	if what == "" {
		what = strings.ReplaceAll(ax.s.Sweep, "-", " ")
	}
	h := word + "-separated " + what
	if ax.s.Values != nil {
		var vals, objectives []string
		for _, v := range ax.s.Values() {
			if _, ok := baselines.SearcherOf(v); ok && ax.s.Flag == "method" {
				v += ":OBJECTIVE" // a search with that outer objective
				objectives = core.Objectives()
			}
			vals = append(vals, v)
		}
		switch {
		case ax.s.Axis && objectives != nil:
			h += "; " + strings.Join(baselines.Searchers(), ":OBJECTIVE, ") + ":OBJECTIVE searches by OBJECTIVE (" +
				strings.Join(vals, ", ") + "; OBJECTIVE: " + strings.Join(objectives, ", ") + ")"
		case ax.s.Axis:
			h += ", a cell each (" + strings.Join(vals, ", ") + ")"
		case len(vals) > 1:
			h += ", e.g. '" + strings.Join(vals[1:min(3, len(vals))], sep) + "'"
		}
	}
	if ax.def == "" {
		h += " (default: --" + ax.s.Flag + ")"
	}
	return h
}

func sweepRun(ctx context.Context, f *Factory, o *SweepOptions) error {
	if o.Name == "" {
		return usageError{errors.New("--name is required: it identifies the sweep's runs so that a rerun resumes it")}
	}
	// A sweep recorded before names were checked keeps its name.
	if err := runs.CheckSweepName(o.Name); err != nil && !slices.Contains(f.Store().SweepNames(), o.Name) {
		return usageError{err}
	}
	if o.Jobs < 1 {
		return usageError{fmt.Errorf("--jobs %d: want at least 1", o.Jobs)}
	}
	if _, err := slurmOptions(o.SlurmArgs); err != nil && o.Slurm {
		return usageError{err} // before the sweep's record is written
	}
	if o.Slurm && o.SlurmFile != "" {
		if _, err := os.ReadFile(o.SlurmFile); err != nil {
			return usageError{fmt.Errorf("--slurm-file: %w", err)}
		}
	}
	if err := report.WriteTable(new(strings.Builder), nil, o.Format); err != nil {
		return usageError{err}
	}
	if o.Status {
		return sweepStatus(f, o)
	}
	gc, err := config.UntilDone(ctx, func() (gridCells, error) { // hashes the person's files: a signal ends it
		g, cells, err := sweepGrid(o)
		return gridCells{g, cells}, err
	})
	if ctx.Err() != nil {
		return errInterrupted
	}
	if err != nil {
		return err
	}
	g, cells := gc.g, gc.cells
	if !o.Slurm && !o.PrintCommands { // the cells run here: this machine must compute them
		for _, c := range cells {
			if err := config.CheckMachine(c.Config); err != nil {
				return usageError{err}
			}
		}
	}
	if note := g.RecipeNote(o.Run.Set); note != "" {
		fmt.Fprintln(f.Err, note)
	}
	sw := &sweeps.Sweep{Name: o.Name, Dir: f.RunsDir, Cells: cells, Jobs: o.Jobs, Log: f.Err, EarlyStop: o.EarlyStop, SearchAgain: o.SearchAgain}
	if o.Submitted != "" {
		t, err := time.Parse(time.RFC3339Nano, o.Submitted)
		if err != nil {
			return usageError{fmt.Errorf("--submitted %q: want a time as RFC 3339 (a Slurm task's script writes it)", o.Submitted)}
		}
		sw.Since = t
	}
	// The grid's record, which --status and table read; printing the
	// commands records nothing (each printed command records the grid
	// when it runs): a mistyped grid printed to look at it stays out of
	// the sweep's table. A Slurm submission records it once sbatch has
	// taken the array: one sbatch refused leaves no sweep of waiting cells.
	record := func() error { return sw.Record() }
	if o.Slurm {
		grid := *sw
		record = func() error { return grid.Record() } // all the grid's cells, whatever --only keeps
		if _, err := sweeps.ReadSweep(f.RunsDir, o.Name); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err // a damaged record, refused before anything is submitted
		}
	}
	// The sweep's own lock, held shared from its record to its table:
	// maple rm and archive refuse the sweep while it is held, between
	// cells too (a cell's claim covers the cell alone).
	if !o.PrintCommands {
		lock, err := sweeps.Hold(f.RunsDir, o.Name)
		if err != nil {
			return err
		}
		defer lock.Release()
	}
	if !o.PrintCommands && !o.Slurm {
		if err := record(); err != nil {
			return err
		}
	}
	if o.Only != "" {
		sw.Cells = nil
		for _, c := range cells {
			if c.Config.Hash(false) == o.Only {
				sw.Cells = append(sw.Cells, c)
			}
		}
		if len(sw.Cells) == 0 {
			return usageError{fmt.Errorf("--only %s: no cell of this grid has that hash (see --print-commands)", o.Only)}
		}
	}
	// Successive halving compares a random search's trials with each
	// other: it runs them all or none (committed trials are trained again).
	if o.Committed != nil && !o.EarlyStop {
		var left []sweeps.Cell
		for _, c := range sw.Cells {
			if !o.Committed(c) {
				left = append(left, c)
			}
		}
		if n := len(sw.Cells) - len(left); n > 0 {
			fmt.Fprintf(f.Err, "sweep %s: %d of %d cells have committed results: not rerun (--rerun reruns them)\n", o.Name, n, len(sw.Cells))
		}
		if sw.Cells = left; len(left) == 0 {
			return nil
		}
	}
	if o.PrintCommands || o.Slurm {
		return submit(f, o, sw, record) // the cells run elsewhere: their machine asks
	}
	var results []sweeps.CellResult
	var runErr error
	if f.Terminal() && !o.JSON {
		results, runErr = sweepOnTerminal(ctx, f, sw)
	} else {
		results, runErr = sw.Run(ctx)
	}
	if ctx.Err() != nil {
		fmt.Fprintf(f.Err, "sweep %s interrupted; %s: rerun the same command to resume it\n", o.Name, sweeps.StopKeeps(sw.Kinds()))
		return errInterrupted
	}
	if o.Committed != nil {
		return sweepEnd(results, runErr)
	}
	rows, err := report.Table(f.RunsDir, o.Name)
	if err != nil {
		return err
	}
	warnLeftOut(f, o.Name)
	if o.JSON {
		err = writeJSON(f, append([]report.Row{}, rows...))
	} else {
		err = writeTable(f, rows, o.Format, o.Name)
	}
	if err != nil {
		return err
	}
	format := o.Format
	if o.JSON {
		format = "json"
	}
	noteMissing(f, format, o.Name)
	return sweepEnd(results, runErr)
}

// gridCells is what sweepGrid returns.
type gridCells struct {
	g     sweeps.Grid
	cells []sweeps.Cell
}

// sweepGrid returns the sweep's grid and its cells, each a run's config.
func sweepGrid(o *SweepOptions) (sweeps.Grid, []sweeps.Cell, error) {
	g, err := sweeps.ParseGrid(o.Datasets, o.Methods, o.Seeds, o.Models, o.Sizes)
	if err != nil {
		return sweeps.Grid{}, nil, usageError{err}
	}
	switch {
	case o.Search != "grid" && o.Search != "random":
		return sweeps.Grid{}, nil, usageError{fmt.Errorf("--search %q: want grid or random", o.Search)}
	case o.Search == "random" && o.Trials < 1:
		return sweeps.Grid{}, nil, usageError{fmt.Errorf("--trials %d: want at least 1", o.Trials)}
	case o.Search == "grid" && o.EarlyStop:
		return sweeps.Grid{}, nil, usageError{errors.New("--early-stop stops the worse trials of a random search: give --search random too")}
	case o.Search == "random":
		g.Search = sweeps.Search{Trials: o.Trials, Seed: o.SearchSeed}
	}
	base := o.Run.Config
	base.Version, base.Commit, base.Args = version, commit(), os.Args
	if err := runs.CheckTags(base.Tags); err != nil {
		return sweeps.Grid{}, nil, usageError{err}
	}
	cells, err := g.Cells(base, o.Run.Set, base.Eval.Model)
	if err != nil {
		return sweeps.Grid{}, nil, usageError{err}
	}
	// The person's own files, as they are now, each read once: their
	// digest keys the cells, so that changed data are run again.
	digests := map[[2]string]string{}
	for i := range cells {
		d := &cells[i].Config.Dataset
		key := [2]string{d.CSV, d.Features}
		if _, ok := digests[key]; !ok {
			digests[key] = d.WithDigest().Digest
		}
		d.Digest = digests[key]
	}
	return g, cells, nil
}

// sweepEnd is a finished sweep's error: its failed cells', else
// errInterrupted when it was stopped (maple stop) before every cell
// finished.
func sweepEnd(results []sweeps.CellResult, runErr error) error {
	if runErr == nil {
		for _, r := range results {
			if r.Status == core.StatusStopped || strings.HasPrefix(r.Note, "not started: the sweep was stopped") {
				return errInterrupted // stopped (maple stop): not finished
			}
		}
	}
	return runErr
}

// sweepOnTerminal runs sw while its live view shows (maple attach SWEEP's
// view); its per-cell lines are printed when the view closes. Leaving the
// view (q, then y) stops the sweep: its running searches are
// checkpointed (its baselines train again when it reruns).
func sweepOnTerminal(parent context.Context, f *Factory, sw *sweeps.Sweep) ([]sweeps.CellResult, error) {
	var lines strings.Builder
	sw.Log = &syncWriter{w: &lines}
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	done := make(chan struct{})
	var results []sweeps.CellResult
	var err error
	go func() {
		defer close(done)
		results, err = sw.Run(ctx)
	}()
	for {
		id, stop, verr := tui.RunSweepView(ctx, tui.IO{}, f.RunsDir, sw.Name, done)
		if stop || verr != nil {
			cancel()
		}
		if id != "" && !stop && verr == nil {
			if aerr := attachRun(ctx, f, id, false); aerr != nil && !errors.Is(aerr, errInterrupted) {
				fmt.Fprintln(f.Err, "maple:", aerr)
			}
			continue
		}
		break
	}
	<-done
	fmt.Fprint(f.Err, lines.String())
	// Left from the view (the caller says a signal's interruption).
	if ctx.Err() != nil && parent.Err() == nil && err == nil {
		fmt.Fprintf(f.Err, "sweep %s stopped; %s: rerun the same command to resume it\n", sw.Name, sweeps.StopKeeps(sw.Kinds()))
		return results, errInterrupted
	}
	return results, err
}

// syncWriter serialises writes from the sweep's cells.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// cellArgs are the arguments of the sweep command a printed command or
// a Slurm task runs: argv without the submission flags, with the runs
// directory absolute. Each printed command names its cell (--only, put
// by the caller); a Slurm task keeps the --only given, and gets the
// time of its submission (now), so that a later maple stop holds it
// back.
func cellArgs(o *SweepOptions, argv []string, absRunsDir string, now time.Time) []string {
	// The flags left out, each with whether it takes a value.
	drop := map[string]bool{"slurm": false, "print-commands": false, "slurm-args": true, "slurm-file": true, "runs-dir": true, "submitted": true}
	if o.PrintCommands {
		drop["only"] = true
	}
	args := append(sweeps.SubmissionArgs(argv, drop), "--runs-dir", absRunsDir)
	if o.Slurm && !o.PrintCommands {
		args = append(args, "--submitted", now.UTC().Format(time.RFC3339Nano))
	}
	return args
}

// submit prints one command per cell, or submits the grid to Slurm.
func submit(f *Factory, o *SweepOptions, sw *sweeps.Sweep, record func() error) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	abs, err := filepath.Abs(f.RunsDir)
	if err != nil {
		return err
	}
	args := cellArgs(o, os.Args[1:], abs, time.Now())
	if o.PrintCommands {
		for _, c := range sw.Cells {
			line := []string{sweeps.ShellQuote(exe)}
			for _, a := range append(args, "--only", c.Config.Hash(false)) {
				line = append(line, sweeps.ShellQuote(a))
			}
			fmt.Fprintln(f.Out, strings.Join(line, " "))
		}
		return nil
	}
	extra, err := slurmOptions(o.SlurmArgs)
	if err != nil {
		return usageError{err}
	}
	if o.SlurmFile != "" {
		b, err := os.ReadFile(o.SlurmFile)
		if err != nil {
			return usageError{fmt.Errorf("--slurm-file: %w", err)}
		}
		for _, l := range strings.Split(string(b), "\n") {
			if l = strings.TrimSpace(l); strings.HasPrefix(l, "#SBATCH") {
				extra = append(extra, strings.TrimSpace(strings.TrimPrefix(l, "#SBATCH")))
			}
		}
	}
	if jobs, _ := sweeps.QueuedJobs(abs, o.Name); len(jobs) > 0 {
		fmt.Fprintf(f.Err, "maple: warning: sweep %s has Slurm job %s queued or running already; the new array shares its cells (each cell still runs once)\n", o.Name, strings.Join(jobs, ", "))
	}
	id, path, err := sweeps.SubmitSlurm(abs, o.Name, sweeps.SlurmScript(o.Name, abs, exe, args, len(sw.Cells), extra))
	if err != nil {
		return err
	}
	if err := record(); err != nil { // each task records the grid too, when it starts
		fmt.Fprintf(f.Err, "maple: warning: the record of sweep %s: %v; its tasks write it when they start\n", o.Name, err)
	}
	fmt.Fprintln(f.Out, id)
	fmt.Fprintf(f.Err, "submitted job array %s (%d tasks, script %s); follow it with maple sweep --name %s --status --runs-dir %s, then maple table --sweep %s\n",
		id, len(sw.Cells), path, o.Name, abs, o.Name)
	return nil
}

// slurmOptions splits --slurm-args as a shell would (quotes keep a
// value with spaces whole), one sbatch option per #SBATCH line: an
// option and the value after it (-p debug) share one, and a value with
// spaces is quoted for sbatch.
func slurmOptions(args string) ([]string, error) {
	words, err := shlex.Split(args)
	if err != nil {
		return nil, fmt.Errorf("--slurm-args %q: %w (quote a value with spaces)", args, err)
	}
	quote := func(w string) string { // --comment='a b', not '--comment=a b'
		if k, v, ok := strings.Cut(w, "="); ok && strings.HasPrefix(k, "-") {
			return k + "=" + sweeps.ShellQuote(v)
		}
		return sweeps.ShellQuote(w)
	}
	var out []string
	for i := 0; i < len(words); i++ {
		w := quote(words[i])
		if !strings.HasPrefix(words[i], "-") {
			return nil, fmt.Errorf("--slurm-args %q: %q is not an sbatch option (they start with -)", args, words[i])
		}
		if !strings.Contains(words[i], "=") && i+1 < len(words) && !strings.HasPrefix(words[i+1], "-") {
			w += " " + quote(words[i+1])
			i++
		}
		out = append(out, w)
	}
	return out, nil
}

// sweepStatus prints the state of each recorded cell of the sweep.
func sweepStatus(f *Factory, o *SweepOptions) error {
	cells, err := sweeps.SweepStatus(f.RunsDir, o.Name)
	var none *sweeps.NoSweepError
	if errors.As(err, &none) {
		return usageError{err} // exit 2, as table's
	}
	if err != nil {
		return err
	}
	if o.JSON {
		return writeJSON(f, cells)
	}
	count := map[string]int{}
	tw := tabwriter.NewWriter(f.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CELL\tHASH\tSTATE\tRUN\tITER")
	for _, c := range cells {
		count[c.State]++
		it := "-"
		if c.Info != nil {
			it = c.Info.IterText()
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", sweeps.LabelText(c.Label), c.Hash, c.State, c.RunID, it)
	}
	tw.Flush()
	fmt.Fprintf(f.Out, "%d cells: %d done, %d running, %d waiting, %d failed, %d stopped or interrupted\n", len(cells),
		count["done"], count["running"], count["waiting"], count["failed"], count["stopped"]+count["interrupted"])
	return nil
}
