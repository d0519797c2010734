package cmd

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/export"
	"github.com/maple-ood/maple/runs"
)

// ExportOptions are the settings of `maple export`.
type ExportOptions struct {
	F                *Factory
	ID               string
	Format, Out      string
	Unfinished, JSON bool
	Overrides        export.Overrides
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
	c.Flags().StringVar(&o.Format, "format", "csv", "the weights as csv or npy, or the records as metrics-csv, tensorboard or training-csv (docs/USAGE.md says what each holds)")
	c.Flags().StringVar(&o.Out, "out", "", "output directory (default: the run directory)")
	c.Flags().BoolVar(&o.Unfinished, "checkpoint", false, "export the latest checkpoint of a run that is not done (export.json says so)")
	c.Flags().StringVar(&o.Overrides.DataDir, "data-dir", "", "the data directory, when it moved since the run started")
	return c
}

func exportRun(o *ExportOptions) error {
	f := o.F
	if !slices.Contains(export.Formats, o.Format) {
		return usageError{fmt.Errorf("--format %q: want %s", o.Format, strings.Join(export.Formats, " or "))}
	}
	dir, err := runDir(f, o.ID)
	if err != nil {
		return err
	}
	var files []string
	if exp, ok := export.Records[o.Format]; ok {
		var path string
		if path, err = exp(dir, o.Out, warnTo(f)); err == nil {
			files = []string{path}
		}
	} else {
		files, err = export.To(dir, o.Out, o.Format, o.Unfinished, o.Overrides, f.Err)
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
