package cmd

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
	"github.com/maple-ood/maple/sweeps"
	"github.com/maple-ood/maple/tui"
)

func writeJSON(f *Factory, v any) error {
	enc := json.NewEncoder(f.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// warnTo returns a function that writes a warning on f's error stream.
func warnTo(f *Factory) func(string) {
	return func(m string) { fmt.Fprintln(f.Err, "maple: warning:", m) }
}

// runDir returns the directory of run id (runs.Find), a usage error when
// there is none.
func runDir(f *Factory, id string) (string, error) {
	dir, err := runs.Find(f.RunsDir, id)
	if err != nil {
		return "", usageError{err}
	}
	return dir, nil
}

// lsOrders are maple ls --sort's orders.
var lsOrders = map[string]func(a, b runs.Info) int{
	"started": func(a, b runs.Info) int { return a.Started.Compare(b.Started) },
	"time":    func(a, b runs.Info) int { return cmp.Compare(a.Elapsed, b.Elapsed) },
	"name":    func(a, b runs.Info) int { return cmp.Compare(a.Name, b.Name) },
	"status":  func(a, b runs.Info) int { return cmp.Compare(a.Status.String(), b.Status.String()) },
	"test":    func(a, b runs.Info) int { return cmp.Compare(b.TestAcc, a.TestAcc) },
}

// LsOptions are the settings of `maple ls`.
type LsOptions struct {
	F        *Factory
	JSON     bool
	Tags     []string // only runs with every one of these tags
	Sort     string   // started (default), time, name, status, test
	Archived bool     // list the archive (maple archive) instead
}

// NewCmdLs builds `maple ls`; runF replaces the run function in tests.
func NewCmdLs(f *Factory, runF func(*LsOptions) error) *cobra.Command {
	o := &LsOptions{F: f}
	c := &cobra.Command{
		Use:   "ls",
		Short: "List the runs (the runs browser on a terminal)",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if runF != nil {
				return runF(o)
			}
			return lsRun(cmd.Context(), f, o)
		},
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print the list as JSON")
	c.Flags().StringArrayVar(&o.Tags, "tag", nil, "only the runs with this tag (repeat: with every one)")
	c.Flags().StringVar(&o.Sort, "sort", "started", "order: started, time (searching), name, status or test (test accuracy, best first)")
	c.Flags().BoolVar(&o.Archived, "archived", false, "list the archived runs (maple archive; --restore brings one back) instead")
	return c
}

func lsRun(ctx context.Context, f *Factory, o *LsOptions) error {
	asJSON := o.JSON
	if !asJSON && f.Terminal() && len(o.Tags) == 0 && !o.Archived {
		return browse(ctx, f)
	}
	less, ok := lsOrders[o.Sort]
	if !ok {
		return usageError{fmt.Errorf("--sort %q: want started, time, name, status or test", o.Sort)}
	}
	from := f.RunsDir
	if o.Archived {
		from = runs.ArchiveDir(f.RunsDir)
	}
	list, err := runs.List(from)
	if err != nil {
		return err
	}
	list = slices.DeleteFunc(list, func(in runs.Info) bool {
		for _, t := range o.Tags {
			if !slices.Contains(in.Tags, t) {
				return true
			}
		}
		return false
	})
	slices.SortStableFunc(list, less)
	if asJSON {
		return writeJSON(f, append([]runs.Info{}, list...))
	}
	if len(list) == 0 && o.Archived {
		fmt.Fprintf(f.Out, "no archived runs in %s (maple archive ID|SWEEP moves runs there)\n", from)
		return nil
	}
	if len(list) == 0 {
		fmt.Fprintf(f.Out, "no runs in %s; start one with: maple run --dataset synthetic --headless\n", f.RunsDir)
		return nil
	}
	return report.WriteList(f.Out, list)
}

// browse runs the runs browser and the actions it hands back (typed, with
// a run's whole config for a new run) until the person leaves it.
func browse(ctx context.Context, f *Factory) error {
	b := tui.NewBrowser(f.RunsDir)
	for ctx.Err() == nil {
		act, err := b.Run(ctx, tui.IO{})
		if err != nil || act.Kind == tui.ActionNone {
			return err
		}
		switch act.Kind {
		case tui.ActionAttach:
			err = attachRun(ctx, f, act.ID, false)
		case tui.ActionResume:
			err = resumeRun(ctx, &ResumeOptions{F: f, ID: act.ID})
		case tui.ActionNew:
			err = newRun(ctx, f, *act.Config)
		case tui.ActionSweep:
			err = attachSweep(ctx, f, act.ID, false)
		}
		if err != nil && !errors.Is(err, errInterrupted) {
			fmt.Fprintln(f.Err, "maple:", err)
			fmt.Fprint(f.Err, "press enter to go back to the runs browser ")
			fmt.Fscanln(f.In)
		}
	}
	return errInterrupted
}

// newRun starts a run of the browser's new-run form.
func newRun(ctx context.Context, f *Factory, cfg runs.Config) error {
	cfg.Version, cfg.Commit = version, commit()
	keep := map[string]bool{} // every setting as the form has it
	for k := range runs.Flags(cfg) {
		keep[k] = true
	}
	keep["model"] = true
	cfg, err := runs.Resolve(cfg, keep, cfg.Eval.Model)
	if err != nil {
		return err
	}
	sp, err := runs.Prepare(cfg, f.Err)
	if err != nil {
		return err
	}
	r, err := runs.Create(f.RunsDir, cfg)
	if err != nil {
		return err
	}
	defer r.Close()
	return executeRun(ctx, f, r, session.Options{Socket: true}, false, false, sp)
}

// ShowOptions are the settings of `maple show`.
type ShowOptions struct {
	F    *Factory
	ID   string
	JSON bool
}

// NewCmdShow builds `maple show`; runF replaces the run function in tests.
func NewCmdShow(f *Factory, runF func(*ShowOptions) error) *cobra.Command {
	o := &ShowOptions{F: f}
	c := &cobra.Command{
		Use:   "show ID",
		Short: "Show a run's config, final summary and events",
		Args:  needArgs(1, "a run id", "see maple ls"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(o)
			}
			return showRun(o)
		},
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print as JSON")
	return c
}

func showRun(o *ShowOptions) error {
	f := o.F
	dir, err := runDir(f, o.ID)
	if err != nil {
		return err
	}
	if o.JSON {
		d, problems := report.ReadShow(dir)
		for _, e := range problems { // as the text form lists them
			fmt.Fprintln(f.Err, "problem:", e)
		}
		return writeJSON(f, d)
	}
	report.WriteShow(f.Out, dir)
	return nil
}

// ExportOptions are the settings of `maple export`.
type ExportOptions struct {
	F                *Factory
	ID               string
	Format, Out      string
	Unfinished, JSON bool
	Overrides        runs.Overrides
}

// NewCmdExport builds `maple export`; runF replaces the run function in
// tests.
func NewCmdExport(f *Factory, runF func(*ExportOptions) error) *cobra.Command {
	o := &ExportOptions{F: f}
	c := &cobra.Command{
		Use:   "export ID",
		Short: "Write a run's learned weights (u.npy to train with, w, s, mask, ids; or weights.csv) and export.json, or its records (metrics-csv, tensorboard, training-csv)",
		Args:  needArgs(1, "a run id", "see maple ls"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(o)
			}
			return exportRun(o)
		},
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print the files written as JSON")
	c.Flags().StringVar(&o.Format, "format", "csv", "the weights as csv or npy; or the records of every outer iteration as metrics-csv (one row each) or tensorboard (an event file under OUT/tensorboard/ID); or the finished training's validation checks (a baseline's, a search's final weighted ERM) as training-csv (one row each)")
	c.Flags().StringVar(&o.Out, "out", "", "output directory (default: the run directory)")
	c.Flags().BoolVar(&o.Unfinished, "checkpoint", false, "export the latest checkpoint of a run that is not done (export.json says so)")
	c.Flags().StringVar(&o.Overrides.DataDir, "data-dir", "", "the data directory, when it moved since the run started")
	return c
}

func exportRun(o *ExportOptions) error {
	f := o.F
	if !slices.Contains(runs.ExportFormats, o.Format) {
		return usageError{fmt.Errorf("--format %q: want %s", o.Format, strings.Join(runs.ExportFormats, " or "))}
	}
	dir, err := runDir(f, o.ID)
	if err != nil {
		return err
	}
	var files []string
	if exp, ok := runs.RecordExports[o.Format]; ok {
		var path string
		if path, err = exp(dir, o.Out, warnTo(f)); err == nil {
			files = []string{path}
		}
	} else {
		files, err = runs.ExportTo(dir, o.Out, o.Format, o.Unfinished, o.Overrides, f.Err)
	}
	if o.JSON && err == nil {
		return writeJSON(f, map[string][]string{"files": files})
	}
	for _, p := range files {
		fmt.Fprintln(f.Out, p)
	}
	var we *runs.WriteError
	if o.Out == "" && errors.As(err, &we) && !errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("%w; or write the export elsewhere with --out DIR", err)
	}
	return err
}

// EvalOptions are the settings of `maple eval`.
type EvalOptions struct {
	F         *Factory
	ID        string
	Model     string
	Steps     int
	JSON      bool
	Overrides runs.Overrides
}

// NewCmdEval builds `maple eval`; runF replaces the run function in tests.
func NewCmdEval(f *Factory, runF func(*EvalOptions) error) *cobra.Command {
	o := &EvalOptions{F: f}
	c := &cobra.Command{
		Use:   "eval ID --model SPEC",
		Short: "Weighted ERM of another architecture on a run's learned weights (the transfer experiment)",
		Args:  needArgs(1, "a run id", "see maple ls"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if o.Model == "" {
				return usageError{errors.New("--model is required (e.g. mlp:390,390 or cnn)")}
			}
			if runF != nil {
				return runF(o)
			}
			return evalRun(cmd.Context(), o)
		},
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print the result as JSON")
	c.Flags().StringVar(&o.Model, "model", "", "architecture to train on the weights")
	c.Flags().IntVar(&o.Steps, "eval-steps", 0, "SGD steps (default: the run's)")
	c.Flags().StringVar(&o.Overrides.DataDir, "data-dir", "", "the data directory, when it moved since the run started")
	return c
}

func evalRun(ctx context.Context, o *EvalOptions) error {
	f := o.F
	dir, err := runDir(f, o.ID)
	if err != nil {
		return err
	}
	cfg, res, path, err := runs.Eval(ctx, dir, o.Model, o.Steps, o.Overrides, f.Err)
	if err != nil {
		return err
	}
	report.WriteOutcome(f.Err, &runs.Outcome{Result: res, RunID: cfg.ID, Status: core.StatusDone})
	if o.JSON {
		return writeJSON(f, map[string]any{"file": path, "result": res})
	}
	fmt.Fprintln(f.Out, path)
	return nil
}

// AttachOptions are the settings of `maple attach`.
type AttachOptions struct {
	F     *Factory
	ID    string
	Lines bool
}

// NewCmdAttach builds `maple attach`; runF replaces the run function in
// tests.
func NewCmdAttach(f *Factory, runF func(*AttachOptions) error) *cobra.Command {
	o := &AttachOptions{F: f}
	c := &cobra.Command{
		Use:   "attach ID",
		Short: "Open the live dashboard of a search running in another process, or the live view of a sweep",
		Args:  needArgs(1, "a run id", "see maple ls"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(o)
			}
			return attachRun(cmd.Context(), f, o.ID, o.Lines)
		},
	}
	c.Flags().BoolVar(&o.Lines, "lines", false, "print progress lines instead of the dashboard (also without a terminal)")
	return c
}

func attachRun(ctx context.Context, f *Factory, id string, lines bool) error {
	dir, err := runDir(f, id)
	if err != nil {
		if _, serr := sweeps.SweepStatus(f.RunsDir, id); serr == nil {
			return attachSweep(ctx, f, id, lines)
		}
		return err
	}
	id = filepath.Base(dir) // a prefix, a suffix or "latest" resolved
	if in := runs.Stat(dir); !in.Status.Live() {
		if f.Terminal() && !lines {
			return tui.Replay(ctx, tui.IO{}, dir) // its recorded charts instead
		}
		return fmt.Errorf("run %s is not running (it is %s); see maple show %s", id, in.Status, id)
	}
	if cfg, err := runs.ReadConfig(dir); err == nil && cfg.Method != core.MethodMaple {
		if !f.Terminal() || lines {
			return fmt.Errorf("run %s is a baseline (%s): its progress lines are in its log; follow them with maple logs -f %s (or maple attach %s on a terminal, for its live view)", id, cfg.Method, id, id)
		}
		if err := tui.AttachBaseline(ctx, tui.IO{}, dir); err != nil {
			return err
		}
		return baselineLeft(ctx, f, dir, *cfg)
	}
	cl, err := session.Attach(dir)
	if err != nil {
		return err
	}
	defer cl.Close()
	if f.Terminal() && !lines {
		return tui.RunAttached(ctx, tui.IO{}, dir, cl)
	}
	session.Follow(f.Out, cl)
	return nil
}

// baselineLeft says how a followed baseline stands once its view closed:
// its result, how to go on, or that it runs on.
func baselineLeft(ctx context.Context, f *Factory, dir string, cfg runs.Config) error {
	if runs.Stat(dir).Status.Live() {
		fmt.Fprintf(f.Err, "run %s runs on; maple attach %s to follow it again\n", cfg.ID, cfg.ID)
		return nil
	}
	sum, err := runs.ReadSummary(dir)
	switch {
	case err != nil:
		return err
	case sum != nil && sum.Status == core.StatusDone:
		report.WriteOutcome(f.Err, runs.NewOutcome(ctx, cfg, sum))
	default:
		if sum == nil {
			sum = &runs.Summary{Status: core.StatusInterrupted}
		}
		fmt.Fprintln(f.Err, runs.Continue(f.RunsDir, sum, cfg))
	}
	return nil
}

// DataOptions are the settings of `maple data`.
type DataOptions struct {
	F      *Factory
	Config runs.Config // its dataset spec and seed
	JSON   bool
}

// attachSweep shows a sweep's live view (on a terminal; its status table
// otherwise) and a running cell's dashboard when one is picked, until the
// person leaves.
func attachSweep(ctx context.Context, f *Factory, name string, lines bool) error {
	if !f.Terminal() || lines {
		return sweepStatus(f, &SweepOptions{Name: name})
	}
	for ctx.Err() == nil {
		id, _, err := tui.RunSweepView(ctx, tui.IO{}, f.RunsDir, name, nil)
		if err != nil || id == "" {
			return err
		}
		if err := attachRun(ctx, f, id, false); err != nil && !errors.Is(err, errInterrupted) {
			fmt.Fprintln(f.Err, "maple:", err)
		}
	}
	return nil
}

// NewCmdData builds `maple data`; runF replaces the run function in tests.
func NewCmdData(f *Factory, runF func(*DataOptions) error) *cobra.Command {
	o := &DataOptions{F: f, Config: runs.DefaultConfig("")}
	c := &cobra.Command{
		Use:   "data NAME",
		Short: "Describe a dataset: split sizes, label/attribute agreement per env, group counts",
		Args:  needArgs(1, "a dataset name", "one of "+strings.Join(loaders.Names, ", ")),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Config.Dataset.Name = args[0]
			o.Config.Dataset = o.Config.Dataset.ForNewRun()
			if err := o.Config.Dataset.Check(); err != nil {
				return usageError{err}
			}
			if runF != nil {
				return runF(o)
			}
			return dataRun(o)
		},
	}
	c.Flags().BoolVar(&o.JSON, "json", false, "print the summary as JSON")
	registerData(c.Flags(), &o.Config)
	c.Flags().Uint64Var(&o.Config.Settings.Seed, "seed", 1, "seed of the dataset's random draws")
	return c
}

func dataRun(o *DataOptions) error {
	f := o.F
	s, err := o.Config.Dataset.Load(o.Config.Settings.Seed, f.Err)
	if err != nil {
		return err
	}
	sum := loaders.Describe(s)
	if o.JSON {
		return writeJSON(f, sum)
	}
	report.WriteData(f.Out, sum)
	return nil
}
