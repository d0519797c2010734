package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/maple-ood/maple/core"
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
	if dir, err := runs.Find(f.RunsDir, o.Name); err == nil {
		id := filepath.Base(dir)
		if st := runs.Stat(dir).Status; !st.Live() {
			return fmt.Errorf("run %s is not running (it is %s)", id, st)
		}
		in, err := session.StopRun(ctx, dir)
		if err != nil {
			return err
		}
		if cfg, err := runs.ReadConfig(dir); err == nil && cfg.Method != core.MethodMaple {
			if sum, err := runs.ReadSummary(dir); err == nil && sum != nil {
				fmt.Fprintln(f.Out, runs.Continue(f.RunsDir, sum, *cfg)) // a baseline: no checkpoint, no iteration
				return nil
			}
		}
		fmt.Fprintf(f.Out, "run %s %s at iteration %d; continue it with: maple resume %s --runs-dir %s\n", id, in.Status, in.Iter, id, f.RunsDir)
		return nil
	}
	cells, err := sweeps.SweepStatus(f.RunsDir, o.Name)
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
		in, err := session.StopRun(ctx, runs.Dir(f.RunsDir, c.RunID))
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
	fmt.Fprintf(f.Out, "sweep %s stopped: %d running cells stopped, no new cell starts; rerun the sweep to go on\n", o.Name, n)
	return errors.Join(errs...)
}

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
		if !o.Follow || !live {
			return nil // a run that has ended has written all it will (read after the check)
		}
		select {
		case <-ctx.Done():
			return errInterrupted
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// TagOptions are the settings of `maple tag`.
type TagOptions struct {
	F           *Factory
	ID          string
	Name, Note  *string // nil: unchanged
	Add, Remove []string
}

// NewCmdTag builds `maple tag`; runF replaces the run function in tests.
func NewCmdTag(f *Factory, runF func(*TagOptions) error) *cobra.Command {
	o := &TagOptions{F: f}
	var name, note string
	c := &cobra.Command{
		Use:   "tag ID [--name NAME] [--add TAG] [--remove TAG] [--note TEXT]",
		Short: "Name a run, tag it or write a note on it (also while it runs); with no flag, print its labels",
		Args:  needArgs(1, "a run id", "see maple ls"),
		RunE: func(cmd *cobra.Command, args []string) error {
			o.ID = args[0]
			if cmd.Flags().Changed("name") {
				o.Name = &name
			}
			if cmd.Flags().Changed("note") {
				o.Note = &note
			}
			if err := errors.Join(runs.CheckTags(o.Add), checkName(o.Name)); err != nil {
				return usageError{err}
			}
			if runF != nil {
				return runF(o)
			}
			return tagRun(o)
		},
	}
	c.Flags().StringVar(&name, "name", "", "the run's name (\"\" removes it)")
	c.Flags().StringArrayVar(&o.Add, "add", nil, "add a tag (repeat for more)")
	c.Flags().StringArrayVar(&o.Remove, "remove", nil, "remove a tag (repeat for more)")
	c.Flags().StringVar(&note, "note", "", "the run's note (\"\" removes it)")
	return c
}

func checkName(name *string) error {
	if name == nil {
		return nil
	}
	return runs.CheckName(*name)
}

func tagRun(o *TagOptions) error {
	dir, err := runDir(o.F, o.ID)
	if err != nil {
		return err
	}
	if o.Name != nil && *o.Name != "" {
		if other, err := runs.Find(o.F.RunsDir, *o.Name); err == nil && other != dir {
			return usageError{fmt.Errorf("--name %s: run %s already has that name", *o.Name, filepath.Base(other))}
		}
	}
	cfg, err := runs.Relabel(dir, o.Name, o.Note, o.Add, o.Remove)
	if err != nil {
		return err
	}
	fmt.Fprintf(o.F.Out, "run %s: name %q, tags [%s], note %q\n", cfg.ID, cfg.Name, strings.Join(cfg.Tags, " "), cfg.Note)
	return nil
}
