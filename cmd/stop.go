package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
	"github.com/maple-ood/maple/sweeps"
)

// StopOptions are the settings of `maple stop`.
type StopOptions struct {
	F    *Factory
	Name string        // a run id or a sweep name
	Wait time.Duration // how long to wait for a run to let go
}

// NewCmdStop builds `maple stop`; runF replaces the run function in tests.
func NewCmdStop(f *Factory, runF func(*StopOptions) error) *cobra.Command {
	o := &StopOptions{F: f}
	c := &cobra.Command{
		Use:   "stop ID|SWEEP",
		Short: "Stop a running search (checkpointed, resumable) or baseline, or a sweep (its running cells, and no new ones)",
		Args:  needArgs(1, "a run id or a sweep name", "see maple ls"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.Name = args[0]
			if runF != nil {
				return runF(o)
			}
			return stopRun(cmd.Context(), o)
		},
	}
	c.Flags().DurationVar(&o.Wait, "wait", 2*time.Minute, "how long to wait for a search to checkpoint and let go")
	return c
}

func stopRun(ctx context.Context, o *StopOptions) error {
	f := o.F
	ctx, cancel := context.WithTimeout(ctx, o.Wait)
	defer cancel()
	if dir, err := f.Store().Find(o.Name); err == nil {
		id := filepath.Base(dir)
		if st := runs.Stat(dir).Status; !st.Live() {
			return fmt.Errorf("run %s is not running (it is %s)", id, st)
		}
		in, err := session.StopRun(ctx, dir)
		if err != nil {
			return err
		}
		if cfg, err := runs.ReadConfig(dir); err == nil && !cfg.Searches() {
			if sum, err := runs.ReadSummary(dir); err == nil && sum != nil {
				fmt.Fprintln(f.Out, f.Store().Continue(sum, *cfg)) // a baseline: no checkpoint, no iteration
				return nil
			}
		}
		fmt.Fprintf(f.Out, "run %s %s at iteration %d; continue it with: maple resume %s --runs-dir %s\n", id, in.Status, in.Iter, id, f.RunsDir)
		return nil
	}
	if err := unreadableRun(f.RunsDir, o.Name, statPath); err != nil {
		return err
	}
	cells, err := sweeps.SweepStatus(f.RunsDir, o.Name)
	var damaged *sweeps.DamagedSweepError
	if errors.As(err, &damaged) {
		return err
	}
	if err != nil {
		return usageError{fmt.Errorf("no run or sweep named %q in %s (see maple ls)", o.Name, f.RunsDir)}
	}
	if err := sweeps.AskSweepStop(f.RunsDir, o.Name); err != nil {
		return err
	}
	var errs []error
	n := 0
	for _, c := range cells {
		if c.State != "running" || c.RunID == "" {
			continue
		}
		n++
		in, err := session.StopRun(ctx, f.Store().RunDir(c.RunID))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s (%s): %w", sweeps.LabelText(c.Label), c.RunID, err))
			continue
		}
		if in.Total == 0 { // a baseline: no iterations
			fmt.Fprintf(f.Out, "%-40s %s (%s)\n", sweeps.LabelText(c.Label), in.Status, c.RunID)
			continue
		}
		fmt.Fprintf(f.Out, "%-40s %s at iteration %d (%s)\n", sweeps.LabelText(c.Label), in.Status, in.Iter, c.RunID)
	}
	fmt.Fprintf(f.Out, "sweep %s stopped: %s stopped, no new cell starts; rerun the sweep to go on\n", o.Name, plural(n, "running cell"))
	return errors.Join(errs...)
}
