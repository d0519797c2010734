package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/dataset"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
	"github.com/maple-ood/maple/setting"
	"github.com/maple-ood/maple/tui"
)

// RunOptions are the settings of `maple run`.
type RunOptions struct {
	F                      *Factory
	Config                 runs.Config     // defaults, then the flags
	Set                    map[string]bool // the flags the person set
	Headless, JSON, Detach bool
}

// NewCmdRun builds `maple run`; runF replaces the run function in tests.
func NewCmdRun(f *Factory, runF func(*RunOptions) error) *cobra.Command {
	o := &RunOptions{F: f, Config: runs.DefaultConfig("synthetic")}
	o.Config.Settings.Model = core.DefaultSettings().Model
	c := &cobra.Command{
		Use:   "run",
		Short: "Start a MAPLE search (or a baseline), keep it in the runs dir and evaluate it by weighted ERM",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.Set = changed(cmd)
			if runF != nil {
				return runF(o)
			}
			return runRun(cmd.Context(), o)
		},
	}
	fl := c.Flags()
	config.Register(fl, &o.Config, func(config.Setting) bool { return true })
	registerLabels(fl, &o.Config, true)
	fl.BoolVar(&o.Headless, "headless", false, "print progress lines instead of the dashboard (also without a terminal)")
	fl.BoolVar(&o.JSON, "json", false, "print the outcome as one JSON object on the last line of stdout")
	fl.BoolVar(&o.Detach, "detach", false, "run in the background, surviving the terminal; print the run id once the search has started")
	return c
}

// changed returns the names of the flags set on cmd's command line.
func changed(cmd *cobra.Command) map[string]bool {
	set := map[string]bool{}
	cmd.Flags().Visit(func(f *pflag.Flag) { set[f.Name] = true })
	return set
}

// registerLabels adds --tag and --note (and, for a run, --name): labels
// for people, never part of what a run computes.
func registerLabels(fl *pflag.FlagSet, c *runs.Config, name bool) {
	if name {
		fl.StringVar(&c.Name, "name", "", "a name for the run (one word), usable wherever its id is (maple show NAME)")
	}
	fl.StringArrayVar(&c.Tags, "tag", nil, "a tag (one word; repeat the flag for more), shown in maple ls and the browser and filtered by maple ls --tag")
	fl.StringVar(&c.Note, "note", "", "a note on the run, shown by maple show")
}

// registerData adds the dataset options (all but --dataset) to fl.
func registerData(fl *pflag.FlagSet, c *runs.Config) {
	config.Register(fl, c, func(st config.Setting) bool { return st.Group == config.GroupData && !st.Axis })
}

// registerSettings adds the dataset options and every search and
// evaluation setting to fl (all but --dataset and --method, which a
// sweep's grid sets).
func registerSettings(fl *pflag.FlagSet, c *runs.Config) {
	config.Register(fl, c, func(st config.Setting) bool { return !st.Axis })
}

// config returns the run's config from the flags, resolved and checked.
func (o *RunOptions) config(ctx context.Context) (runs.Config, error) {
	c := o.Config
	c.Version, c.Commit, c.Args = version, commit(), os.Args
	if err := errors.Join(runs.CheckName(c.Name), runs.CheckTags(c.Tags)); err != nil {
		return c, usageError{err}
	}
	if c.Name != "" {
		if dir, err := o.F.Store().Find(c.Name); err == nil {
			return c, usageError{fmt.Errorf("--name %s: run %s already has that name (maple tag renames a run)", c.Name, filepath.Base(dir))}
		}
	}
	if err := config.CheckMethodFlags([]string{c.Method}, o.Set); err != nil {
		return c, usageError{err}
	}
	if err := config.CheckDataFlags([]string{c.Dataset.Name}, o.Set); err != nil {
		return c, usageError{err}
	}
	c, err := config.Resolve(c, o.Set, c.Eval.Model)
	if err != nil {
		return c, usageError{err}
	}
	if err := config.CheckMachine(c); err != nil {
		return c, usageError{err}
	}
	// The person's own files, as they are now: hashed under ctx, so that
	// a signal while a large file is read ends the command at once.
	c.Dataset, _ = config.UntilDone(ctx, func() (loaders.Spec, error) { return c.Dataset.WithDigest(), nil })
	if ctx.Err() != nil {
		return c, errInterrupted
	}
	return c, nil
}

func runRun(ctx context.Context, o *RunOptions) error {
	cfg, err := o.config(ctx)
	if err != nil {
		return err
	}
	sp, err := config.PrepareContext(ctx, cfg, o.F.Err) // everything checked before the run directory exists
	if ctx.Err() != nil {
		return errInterrupted // while the data loaded: nothing was created
	}
	if err != nil {
		return usageError{err}
	}
	r, err := o.F.Store().Create(cfg)
	if err != nil {
		return err
	}
	if o.Detach {
		return detach(o.F, r, nil)
	}
	defer r.Close()
	return executeRun(ctx, o.F, r, session.Options{Socket: true}, o.Headless || o.JSON, o.JSON, sp)
}

// executeRun runs r in this process: under the dashboard on a terminal
// (a maple search), else with progress lines on stderr; then prints the
// outcome, or how to continue.
func executeRun(ctx context.Context, f *Factory, r *runs.Run, opt session.Options, headless, asJSON bool, splits *dataset.Splits) error {
	var sum *runs.Summary
	var err error
	if f.Terminal() && !headless {
		sum, err = tui.Execute(ctx, r, splits, opt)
	} else {
		sum, err = session.Headless(ctx, r, splits, opt, f.Err)
	}
	if sum == nil {
		return err
	}
	if sum.Status != core.StatusDone {
		fmt.Fprintln(f.Err, f.Store().Continue(sum, r.Config))
		switch {
		case sum.Status == core.StatusInterrupted, sum.Status == core.StatusStopped:
			// Stopped from the dashboard or by a signal: not finished, so
			// `maple run ... && next` must not go on (exit 130).
			return errInterrupted
		case err != nil:
			return fmt.Errorf("run %s failed", r.Config.ID)
		}
		return nil
	}
	out := report.NewOutcome(ctx, r.Config, sum)
	report.WriteOutcome(f.Err, out)
	if asJSON {
		b, _ := json.Marshal(out)
		fmt.Fprintln(f.Out, string(b))
	}
	return nil
}

// detach continues r in the background and prints its id once its
// search has started.
func detach(f *Factory, r *runs.Run, extra []string) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if err := session.Detach(exe, r, f.Store(), extra); err != nil {
		return err
	}
	id := r.Config.ID
	fmt.Fprintln(f.Out, id)
	if !r.Config.Searches() {
		fmt.Fprintf(f.Err, "baseline %s (%s) runs in the background (log: %s); follow it with maple logs -f %s, stop it with maple stop %s\n",
			id, r.Config.Method, r.Path(runs.LogFile), id, id)
		return nil
	}
	fmt.Fprintf(f.Err, "search %s runs in the background (log: %s); watch it with maple attach %s\n", id, r.Path(runs.LogFile), id)
	return nil
}

// ResumeOptions are the settings of `maple resume`.
type ResumeOptions struct {
	F              *Factory
	ID             string
	Headless, JSON bool
	Detach         bool
	// Config holds the settings resume's flags change (config.RegisterResume:
	// the learning rates, the data directory); Set names the flags given.
	Config  runs.Config
	Set     map[string]bool
	ReadyFD int // internal: the detaching parent's pipe
}

// NewCmdResume builds `maple resume`.
func NewCmdResume(f *Factory, runF func(*ResumeOptions) error) *cobra.Command {
	o := &ResumeOptions{F: f}
	c := &cobra.Command{
		Use:   "resume ID",
		Short: "Continue an interrupted, stopped or failed run from its checkpoint (optionally with new learning rates)",
		Args:  needArgs(1, "a run id", "see maple ls"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID, o.Set = args[0], changed(cmd)
			if runF != nil {
				return runF(o)
			}
			return resumeRun(cmd.Context(), o)
		},
	}
	fl := c.Flags()
	fl.BoolVar(&o.Headless, "headless", false, "print progress lines instead of the dashboard (also without a terminal)")
	fl.BoolVar(&o.JSON, "json", false, "print the outcome as one JSON object on the last line of stdout")
	fl.BoolVar(&o.Detach, "detach", false, "continue in the background; print the run id once the search has started")
	config.RegisterResume(fl, &o.Config)
	fl.IntVar(&o.ReadyFD, "ready-fd", 0, "")
	fl.MarkHidden("ready-fd")
	return c
}

func resumeRun(ctx context.Context, o *ResumeOptions) error {
	dir, err := runDir(o.F, o.ID)
	if err != nil {
		return err // no such run: a usage error, as for show
	}
	o.ID = filepath.Base(dir) // a prefix, a suffix or "latest" resolved
	r, rates, extra, err := session.Reopen(o.F.Store(), o.ID, o.Config, o.Set)
	var bad *setting.Error
	if errors.As(err, &bad) {
		return usageError{err} // a flag's value refused: exit 2, as for run
	}
	if err != nil {
		return err
	}
	if o.Detach {
		return detach(o.F, r, extra)
	}
	os.Remove(r.Path(runs.SummaryFile)) // a stopped or failed run goes on
	defer r.Close()
	opt := session.Options{Socket: true, Rates: rates}
	if o.ReadyFD > 0 {
		opt.Ready = session.ReadyPipe(o.ReadyFD) // once the socket listens, a baseline's too
	}
	return executeRun(ctx, o.F, r, opt, o.Headless || o.JSON, o.JSON, nil)
}
