package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
)

// PlotOptions are the settings of `maple plot`.
type PlotOptions struct {
	F    *Factory
	Name string // a run id or a sweep name
	Out  string
	JSON bool
}

// NewCmdPlot builds `maple plot`; runF replaces the run function in tests.
func NewCmdPlot(f *Factory, runF func(*PlotOptions) error) *cobra.Command {
	o := &PlotOptions{F: f}
	c := &cobra.Command{
		Use:   "plot ID|SWEEP[,SWEEP...] --out DIR",
		Short: "Write a run's figures (weight fractions, histograms, outer risk, worst-group accuracy) or a sweep's (accuracy by method, against model width, and validation against each searched setting), as PNG and SVG",
		Args:  needArgs(1, "a run id or a sweep name", "see maple ls"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			if runF != nil {
				return runF(o)
			}
			return plotRun(o)
		},
	}
	c.Flags().StringVar(&o.Out, "out", "", "output directory (default: the run's figures/)")
	c.Flags().BoolVar(&o.JSON, "json", false, "print the files written as JSON")
	return c
}

func plotRun(o *PlotOptions) error {
	f, name, out := o.F, o.Name, o.Out
	var files []string
	dir, err := runDir(f, name)
	if err != nil { // not a run: a sweep name, or several (a grid split over sweeps)
		names := strings.Split(name, ",")
		if _, serr := report.Table(f.RunsDir, names...); serr != nil {
			return usageError{fmt.Errorf("no run or sweep named %q in %s (see maple ls)", name, f.RunsDir)}
		}
		if out == "" {
			out = f.Store().SweepFiguresDir(strings.Join(names, "+"))
		}
		files, err = report.PlotSweep(f.RunsDir, out, names...)
	} else {
		if out == "" {
			out = runs.FiguresDir(dir)
		}
		files, err = report.Plot(dir, out, warnTo(f))
	}
	if o.JSON && err == nil {
		return writeJSON(f, map[string][]string{"files": files})
	}
	for _, p := range files {
		fmt.Fprintln(f.Out, p)
	}
	return err
}
