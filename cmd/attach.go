package cmd

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
	"github.com/maple-ood/maple/session"
	"github.com/maple-ood/maple/sweeps"
	"github.com/maple-ood/maple/tui"
)

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
	if u := (usageError{}); err != nil && !errors.As(err, &u) {
		return err // a run the user may not read
	}
	if err != nil {
		_, serr := sweeps.SweepStatus(f.RunsDir, id)
		var none *sweeps.NoSweepError
		var damaged *sweeps.DamagedSweepError
		if serr == nil {
			return attachSweep(ctx, f, id, lines)
		} else if errors.As(serr, &damaged) {
			return serr
		} else if errors.As(serr, &none) {
			return usageError{fmt.Errorf("no run or sweep named %q in %s (see maple ls)", id, f.RunsDir)}
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
	if cfg, err := runs.ReadConfig(dir); err == nil && !cfg.Searches() {
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
		report.WriteOutcome(f.Err, report.NewOutcome(ctx, cfg, sum))
	default:
		if sum == nil {
			sum = &runs.Summary{Status: core.StatusInterrupted}
		}
		fmt.Fprintln(f.Err, f.Store().Continue(sum, cfg))
	}
	return nil
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
