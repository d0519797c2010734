package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/tui"
)

func writeJSON(f *Factory, v any) error {
	enc := json.NewEncoder(f.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// runDir returns the directory of run id, which must hold a run.json or
// a lock (a missing lock never hides a run).
func runDir(f *Factory, id string) (string, error) {
	dir := filepath.Join(f.RunsDir, id)
	for _, name := range []string{runs.ConfigFile, runs.LockFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil && id != "" && !strings.ContainsRune(id, os.PathSeparator) {
			return dir, nil
		}
	}
	return "", usageError{fmt.Errorf("no run %q in %s (see maple ls)", id, f.RunsDir)}
}

// NewCmdLs builds `maple ls`.
func NewCmdLs(f *Factory) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "ls",
		Short: "List the runs (the runs browser on a terminal)",
		Args:  cobra.NoArgs,
		RunE:  func(cmd *cobra.Command, _ []string) error { return lsRun(cmd.Context(), f, asJSON) },
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the list as JSON")
	return c
}

func lsRun(ctx context.Context, f *Factory, asJSON bool) error {
	if !asJSON && f.Terminal() {
		return browse(ctx, f)
	}
	list, err := runs.List(f.RunsDir)
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(f, append([]runs.Info{}, list...))
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
	return executeRun(ctx, f, r, runs.Options{Socket: true}, false, false, sp)
}

// NewCmdShow builds `maple show`.
func NewCmdShow(f *Factory) *cobra.Command {
	var asJSON bool
	c := &cobra.Command{
		Use:   "show ID",
		Short: "Show a run's config, final summary and events",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := runDir(f, args[0])
			if err != nil {
				return err
			}
			if asJSON {
				d, problems := report.ReadShow(dir)
				for _, e := range problems { // as the text form lists them
					fmt.Fprintln(f.Err, "problem:", e)
				}
				return writeJSON(f, d)
			}
			report.WriteShow(f.Out, dir)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print as JSON")
	return c
}

// NewCmdExport builds `maple export`.
func NewCmdExport(f *Factory) *cobra.Command {
	var format, out string
	var unfinished, asJSON bool
	var ov runs.Overrides
	c := &cobra.Command{
		Use:   "export ID",
		Short: "Write a run's learned weights (u.npy to train with, w, s, mask, ids; or weights.csv) and export.json",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := runDir(f, args[0])
			if err != nil {
				return err
			}
			files, err := runs.ExportTo(dir, out, format, unfinished, ov, f.Err)
			if asJSON && err == nil {
				return writeJSON(f, map[string][]string{"files": files})
			}
			for _, p := range files {
				fmt.Fprintln(f.Out, p)
			}
			return err
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the files written as JSON")
	c.Flags().StringVar(&format, "format", "csv", "csv or npy")
	c.Flags().StringVar(&out, "out", "", "output directory (default: the run directory)")
	c.Flags().BoolVar(&unfinished, "checkpoint", false, "export the latest checkpoint of a run that is not done (export.json says so)")
	c.Flags().StringVar(&ov.DataDir, "data-dir", "", "the data directory, when it moved since the run started")
	return c
}

// NewCmdEval builds `maple eval`.
func NewCmdEval(f *Factory) *cobra.Command {
	var model string
	var steps int
	var asJSON bool
	var ov runs.Overrides
	c := &cobra.Command{
		Use:   "eval ID --model SPEC",
		Short: "Weighted ERM of another architecture on a run's learned weights (the transfer experiment)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if model == "" {
				return usageError{errors.New("--model is required (e.g. mlp:390,390 or cnn)")}
			}
			dir, err := runDir(f, args[0])
			if err != nil {
				return err
			}
			cfg, res, path, err := runs.Eval(cmd.Context(), dir, model, steps, ov, f.Err)
			if err != nil {
				return err
			}
			(&runs.Outcome{Result: res, RunID: cfg.ID, Status: core.StatusDone}).Print(f.Err)
			if asJSON {
				return writeJSON(f, map[string]any{"file": path, "result": res})
			}
			fmt.Fprintln(f.Out, path)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the result as JSON")
	c.Flags().StringVar(&model, "model", "", "architecture to train on the weights")
	c.Flags().IntVar(&steps, "eval-steps", 0, "SGD steps (default: the run's)")
	c.Flags().StringVar(&ov.DataDir, "data-dir", "", "the data directory, when it moved since the run started")
	return c
}

// NewCmdAttach builds `maple attach`.
func NewCmdAttach(f *Factory) *cobra.Command {
	var lines bool
	c := &cobra.Command{
		Use:   "attach ID",
		Short: "Open the live dashboard of a search running in another process",
		Args:  cobra.ExactArgs(1),
		RunE:  func(cmd *cobra.Command, args []string) error { return attachRun(cmd.Context(), f, args[0], lines) },
	}
	c.Flags().BoolVar(&lines, "lines", false, "print progress lines instead of the dashboard (also without a terminal)")
	return c
}

func attachRun(ctx context.Context, f *Factory, id string, lines bool) error {
	dir, err := runDir(f, id)
	if err != nil {
		return err
	}
	if in := runs.Stat(dir); !in.Status.Live() {
		if f.Terminal() && !lines {
			return tui.Replay(ctx, tui.IO{}, dir) // its recorded charts instead
		}
		return fmt.Errorf("run %s is not running (it is %s); see maple show %s", id, in.Status, id)
	}
	cl, err := runs.Attach(dir)
	if err != nil {
		return err
	}
	defer cl.Close()
	if f.Terminal() && !lines {
		return tui.RunAttached(ctx, tui.IO{}, dir, cl)
	}
	runs.Follow(f.Out, cl)
	return nil
}

// NewCmdData builds `maple data`.
func NewCmdData(f *Factory) *cobra.Command {
	var asJSON bool
	cfg := runs.DefaultConfig("")
	c := &cobra.Command{
		Use:   "data NAME",
		Short: "Describe a dataset: split sizes, label/attribute agreement per env, group counts",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg.Dataset.Name = args[0]
			cfg.Dataset = cfg.Dataset.ForNewRun()
			if err := cfg.Dataset.Check(); err != nil {
				return usageError{err}
			}
			s, err := cfg.Dataset.Load(cfg.Settings.Seed, f.Err)
			if err != nil {
				return err
			}
			sum := loaders.Describe(s)
			if asJSON {
				return writeJSON(f, sum)
			}
			report.WriteData(f.Out, sum)
			return nil
		},
	}
	c.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	registerData(c.Flags(), &cfg)
	c.Flags().Uint64Var(&cfg.Settings.Seed, "seed", 1, "seed of the dataset's random draws")
	return c
}
