package cmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/export"
	"github.com/maple-ood/maple/report"
)

// EvalOptions are the settings of `maple eval`.
type EvalOptions struct {
	F         *Factory
	ID        string
	Model     string
	Steps     int
	JSON      bool
	Overrides export.Overrides
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
	cfg, res, path, err := export.Eval(ctx, dir, o.Model, o.Steps, o.Overrides, f.Err)
	if err != nil {
		return err
	}
	report.WriteOutcome(f.Err, &report.Outcome{Result: res, RunID: cfg.ID, Status: core.StatusDone})
	if o.JSON {
		return writeJSON(f, map[string]any{"file": path, "result": res})
	}
	fmt.Fprintln(f.Out, path)
	return nil
}
