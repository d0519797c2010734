package cmd

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/maple-ood/maple/config"
	"github.com/maple-ood/maple/loaders"
	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
)

// DataOptions are the settings of `maple data`.
type DataOptions struct {
	F      *Factory
	Config runs.Config // its dataset spec and seed
	JSON   bool

	ctx context.Context // a signal ends the reading
}

// NewCmdData builds `maple data`; runF replaces the run function in tests.
func NewCmdData(f *Factory, runF func(*DataOptions) error) *cobra.Command {
	o := &DataOptions{F: f, Config: runs.DefaultConfig("")}
	c := &cobra.Command{
		Use:   "data NAME",
		Short: "Describe a dataset: split sizes, label/attribute agreement per env, group counts",
		Args:  needArgs(1, "a dataset name", "one of "+strings.Join(loaders.Names(), ", ")),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ctx = cmd.Context()
			o.Config.Dataset.Name = args[0]
			o.Config.Dataset = o.Config.Dataset.ForNewRun()
			if err := o.Config.Dataset.Check(); err != nil {
				return usageError{err}
			}
			set := map[string]bool{}
			cmd.Flags().Visit(func(f *pflag.Flag) { set[f.Name] = true })
			if err := config.CheckDataFlags([]string{args[0]}, set); err != nil {
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
	d, err := o.Config.Dataset.Abs()
	if err != nil {
		return usageError{err}
	}
	ctx := o.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	// As a new run reads it; a signal ends the reading at once (a large
	// or endless file read on and ignored SIGTERM).
	s, err := config.UntilDone(ctx, func() (*loaders.Splits, error) {
		return d.WithDigest().Load(o.Config.Settings.Seed, f.Err)
	})
	if ctx.Err() != nil {
		return errInterrupted
	}
	if err != nil {
		return usageError{err} // the data cannot be read: exit 2, as maple run's
	}
	for _, w := range s.Warnings { // as maple run says them
		fmt.Fprintf(f.Err, "warning: %s\n", w)
	}
	sum := loaders.Describe(s)
	if o.JSON {
		return writeJSON(f, sum)
	}
	report.WriteData(f.Out, sum)
	return nil
}
