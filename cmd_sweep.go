package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
)

// SweepOptions are the settings of `maple sweep`.
type SweepOptions struct {
	Run                                           RunOptions // every run setting, shared by the cells
	Name, Datasets, Methods, Seeds, Models, Sizes string
	Format                                        string
	Jobs                                          int
}

// NewCmdSweep builds `maple sweep`.
func NewCmdSweep(f *Factory, runF func(*SweepOptions) error) *cobra.Command {
	o := &SweepOptions{Run: RunOptions{F: f, Config: runs.DefaultConfig("synthetic")}}
	o.Run.Config.Settings.Model = runs.DefaultConfig("cmnist").Settings.Model
	c := &cobra.Command{
		Use:   "sweep --name NAME --datasets A,B --methods erm,maple:rex,... --seeds 1,2,3",
		Short: "Run a grid of datasets x methods x seeds (each cell a normal run; an interrupted sweep resumes) and print the table",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, fl := range []string{"seed", "dataset", "method"} {
				if cmd.Flags().Changed(fl) {
					return usageError{fmt.Errorf("--%s cannot be honoured by a sweep: give --%ss", fl, fl)}
				}
			}
			o.Run.ModelSet = cmd.Flags().Changed("model")
			if runF != nil {
				return runF(o)
			}
			return sweepRun(cmd.Context(), f, o)
		},
	}
	fl := c.Flags()
	fl.StringVar(&o.Name, "name", "", "sweep name (required)")
	fl.StringVar(&o.Datasets, "datasets", "synthetic", "comma-separated datasets")
	fl.StringVar(&o.Methods, "methods", "erm,oracle,maple:rex", "comma-separated methods; maple:OBJECTIVE for a search with that outer objective")
	fl.StringVar(&o.Seeds, "seeds", "1,2,3", "comma-separated seeds")
	fl.StringVar(&o.Models, "models", "", "semicolon-separated models to sweep (search and evaluation), e.g. 'mlp:64,64;mlp:390,390' (default: --model)")
	fl.StringVar(&o.Sizes, "train-sizes", "", "comma-separated training sizes to sweep (default: --train-size)")
	fl.IntVar(&o.Jobs, "jobs", 1, "runs at a time (each uses the BLAS threads of the machine)")
	fl.StringVar(&o.Format, "format", "text", "table format: text, markdown or csv")
	registerSettings(fl, &o.Run.Config, &o.Run.EvalModel)
	fl.String("dataset", "", "")
	fl.String("method", "", "")
	fl.MarkHidden("dataset")
	fl.MarkHidden("method")
	return c
}

func sweepRun(ctx context.Context, f *Factory, o *SweepOptions) error {
	if o.Name == "" {
		return usageError{errors.New("--name is required: it identifies the sweep's runs so that a rerun resumes it")}
	}
	if o.Jobs < 1 {
		return usageError{fmt.Errorf("--jobs %d: want at least 1", o.Jobs)}
	}
	if err := report.WriteTable(new(strings.Builder), nil, o.Format); err != nil {
		return usageError{err}
	}
	g, err := runs.ParseGrid(o.Datasets, o.Methods, o.Seeds, o.Models, o.Sizes)
	if err != nil {
		return usageError{err}
	}
	base := o.Run.Config
	base.Version, base.Commit, base.Args = version, commit(), os.Args
	cells, err := g.Cells(base, o.Run.ModelSet, o.Run.EvalModel)
	if err != nil {
		return usageError{err}
	}
	sw := &runs.Sweep{Name: o.Name, Dir: f.RunsDir, Cells: cells, Jobs: o.Jobs, Log: f.Err}
	_, runErr := sw.Run(ctx)
	if ctx.Err() != nil {
		fmt.Fprintf(f.Err, "sweep %s interrupted; its running cells are checkpointed: rerun the same command to resume it\n", o.Name)
		return errInterrupted
	}
	rows, err := report.Table(f.RunsDir, o.Name)
	if err != nil {
		return err
	}
	if err := report.WriteTable(f.Out, rows, o.Format); err != nil {
		return err
	}
	return runErr
}

// NewCmdTable builds `maple table`.
func NewCmdTable(f *Factory) *cobra.Command {
	var sweep, format string
	c := &cobra.Command{
		Use:   "table [--sweep NAME]",
		Short: "Print the results table of a sweep (or of every finished run)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			rows, err := report.Table(f.RunsDir, sweep)
			if err != nil {
				return err
			}
			return report.WriteTable(f.Out, rows, format)
		},
	}
	c.Flags().StringVar(&sweep, "sweep", "", "only the runs of this sweep")
	c.Flags().StringVar(&format, "format", "text", "text, markdown or csv")
	return c
}

// NewCmdPlot builds `maple plot`.
func NewCmdPlot(f *Factory) *cobra.Command {
	var out string
	c := &cobra.Command{
		Use:   "plot ID|SWEEP --out DIR",
		Short: "Write a run's figures (weight fractions, histograms, outer risk, worst-group accuracy) or a sweep's accuracy-vs-width figure, as PNG and SVG",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var files []string
			dir, err := runDir(f, args[0])
			if err != nil { // not a run: a sweep name
				if out == "" {
					out = filepath.Join(f.RunsDir, "figures-"+args[0])
				}
				files, err = report.PlotSweep(f.RunsDir, args[0], out)
			} else {
				if out == "" {
					out = filepath.Join(dir, "figures")
				}
				files, err = report.Plot(dir, out)
			}
			for _, p := range files {
				fmt.Fprintln(f.Out, p)
			}
			return err
		},
	}
	c.Flags().StringVar(&out, "out", "", "output directory (default: the run's figures/)")
	return c
}
