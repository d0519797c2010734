package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/core"
	"github.com/maple-ood/maple/report"
	"github.com/maple-ood/maple/runs"
)

// LogsOptions are the settings of `maple logs`.
type LogsOptions struct {
	F      *Factory
	ID     string
	Follow bool
}

// NewCmdLogs builds `maple logs`; runF replaces the run function in tests.
func NewCmdLogs(f *Factory, runF func(*LogsOptions) error) *cobra.Command {
	o := &LogsOptions{F: f}
	c := &cobra.Command{
		Use:   "logs ID",
		Short: "Print a run's progress log (log.txt); with -f, follow it until the run ends",
		Args:  needArgs(1, "a run id", "see maple ls"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if runF != nil {
				return runF(o)
			}
			return logsRun(cmd.Context(), o)
		},
	}
	c.Flags().BoolVarP(&o.Follow, "follow", "f", false, "keep printing what the run logs until it ends (or Ctrl-C)")
	return c
}

// died is an error for a followed run that is no longer running and
// never ended (killed: its lock let go, no summary written), saying how
// to continue it; nil for a run that ended.
func died(dir string) error {
	if runs.Stat(dir).Status != core.StatusInterrupted {
		return nil
	}
	cfg, err := runs.ReadConfig(dir)
	if err != nil {
		return fmt.Errorf("run %s died without ending (its process was killed, or its machine went down); %w", filepath.Base(dir), err)
	}
	return fmt.Errorf("run %s died without ending (its process was killed, or its machine went down); %s", cfg.ID, report.Interrupted(dir, *cfg))
}

func logsRun(ctx context.Context, o *LogsOptions) error {
	dir, err := runDir(o.F, o.ID)
	if err != nil {
		return err
	}
	lf, err := os.Open(filepath.Join(dir, runs.LogFile))
	if errors.Is(err, os.ErrNotExist) {
		if !o.Follow {
			return fmt.Errorf("run %s has no log.txt (an older maple showed its progress on the terminal it ran on and kept no log; see maple show %s)", filepath.Base(dir), filepath.Base(dir))
		}
	} else if err != nil {
		return fmt.Errorf("%w", err)
	} else {
		defer lf.Close()
	}
	for {
		if lf == nil { // -f before the run has written its log
			if lf, err = os.Open(filepath.Join(dir, runs.LogFile)); err == nil {
				defer lf.Close()
			}
		}
		live := runs.Stat(dir).Status.Live()
		if lf != nil {
			if _, err := io.Copy(o.F.Out, lf); err != nil {
				return fmt.Errorf("%w", err)
			}
		}
		if !o.Follow {
			return nil
		}
		if !live { // a run that has ended has written all it will (read after the check)
			return died(dir)
		}
		select {
		case <-ctx.Done():
			return errInterrupted
		case <-time.After(200 * time.Millisecond):
		}
	}
}
